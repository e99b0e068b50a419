"""`tacit-gen verify`: every target's artifact, run in its real engine on the same data.

Each engine returns verdicts taken from its own result objects; this package only loads the
data, runs the engines and compares their verdicts clause by clause:

- `report`: the report (a verdict per clause per engine), the disagreement rule, the exit code;
- `cases`: a dataset's artifacts rendered and data loaded, an engine's input, the comparison;
- `pool`: the engines' processes (forked once per engine for all datasets, the costliest first);
- `backends`: one module per backend (DuckDB, PostgreSQL, Spark) behind one protocol;
- `run`: one run (`verify_cases`, `run_verify`); `many`: many contracts with their data by name.

The engines each target runs on each backend are the target's own declaration
(`tacit_gen.targets.base.Target.engines`): nothing here names a target.
"""

from __future__ import annotations

from tacit_gen.verify.cases import VerifyCase, engine_options, parse_now
from tacit_gen.verify.pool import (
    WarmEngine,
    default_jobs,
    engine_order,
    fork_safe,
    run_engine,
    run_engines,
)
from tacit_gen.verify.report import ROW_COUNTED, ClauseRow, VerifyReport, clause_disagreement
from tacit_gen.verify.run import run_verify, verify_cases

__all__ = ["ROW_COUNTED", "ClauseRow", "VerifyCase", "VerifyReport", "WarmEngine",
           "clause_disagreement", "default_jobs", "engine_options", "engine_order", "fork_safe",
           "parse_now", "run_engine", "run_engines", "run_verify", "verify_cases"]
