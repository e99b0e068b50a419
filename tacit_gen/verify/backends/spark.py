"""verify on Spark local: every target of every case in ONE worker process and ONE Spark
session, in the Spark environment (docs/engines/spark.md); the engines declared outside the
session (`Engine.session` False: the wire schemas, which check records, not a table) run as on
DuckDB, on the same loaded data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tacit_gen.engines.base import EngineRun
from tacit_gen.verify.cases import case_dir, prepare_case
from tacit_gen.verify.pool import declared, duckdb_runs, failure_text

if TYPE_CHECKING:
    import contextlib

    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.cases import Prepared, VerifyCase


def _spark_runs(prepared: list[Prepared], cases: list[VerifyCase],
                root: Path) -> list[dict[str, EngineRun]]:
    """Every target of every case in ONE Spark worker (one session); if the worker cannot run
    (no environment, a crash), every engine of every case has that failure and no verdict."""
    from tacit_gen.engines.spark.client import SparkCaseRequest, export_parquet, run_worker

    # An engine declared to run in the Spark worker's session (`Engine.session`) runs there on
    # every case; the others (the wire schemas: records, not a table) run as on DuckDB, on the
    # same loaded data.
    modules = {t: e.module for t in dict.fromkeys(t for p in prepared for t in p.targets)
               if (e := declared(t, "spark")).session}
    local = [tuple(t for t in p.targets if t not in modules) for p in prepared]
    out = [duckdb_runs(p, loc) if loc else {} for p, loc in zip(prepared, local, strict=True)]
    requests = [
        SparkCaseRequest(f"c{i}", p.contract.path,
                         (c.source or Path(p.contract.path)).read_text(encoding="utf-8"),
                         p.artifacts.resolve(), p.contract.name, p.now.isoformat(),
                         tuple(t for t in p.targets if t in modules),
                         export_parquet(p.database, p.workdir / "parquet"),
                         p.since.isoformat() if p.since else None)
        for i, (p, c) in enumerate(zip(prepared, cases, strict=True))
    ]
    if not any(r.targets for r in requests):
        return out
    from tacit_gen.engines.spark.env import java_missing

    absent = java_missing()
    if absent is not None:  # every Spark engine named with why; the others' verdicts stand
        why = f"the Spark engine cannot run: {failure_text(absent)}"
        for i, r in enumerate(requests):
            out[i].update({t: EngineRun(t, (), failure=why) for t in r.targets})
        return out
    from tacit_gen.console import ticking

    try:
        with ticking("spark (" + ", ".join(sorted({t for r in requests for t in r.targets})) + ")"):
            runs, _timings = run_worker(requests, root / "worker", modules=modules)
    except Exception as e:
        why = f"the Spark engine could not run: {failure_text(e)}"
        runs = {r.id: {t: EngineRun(t, (), failure=why) for t in r.targets} for r in requests}
    for i, r in enumerate(requests):
        out[i].update(runs.get(r.id, {}))
    return out


class SparkBackend:
    name = "spark"
    drivers = (("duckdb", "duckdb"),)  # the data typed by DuckDB, handed over as Parquet

    def runs(self, cases: list[VerifyCase], root: Path, options: RenderOptions,
             artifacts: Path | None, jobs: int | None, dsn: str | None,
             stack: contextlib.ExitStack) -> tuple[list[Prepared], list[dict[str, EngineRun]]]:
        prepared = [prepare_case(c, case_dir(root, i, len(cases)), artifacts, options)
                    for i, c in enumerate(cases)]
        return prepared, _spark_runs(prepared, cases, root)


BACKEND = SparkBackend()
