"""verify on DuckDB: the data loaded into a DuckDB file (each engine gets its own copy), each
engine in a process of its own once for all the cases, the costliest started while the data
loads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacit_gen.verify.cases import case_dir, prepare_case
from tacit_gen.verify.pool import WarmEngine, batched_runs, default_jobs

if TYPE_CHECKING:
    import contextlib
    from pathlib import Path

    from tacit_gen.engines.base import EngineRun
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.cases import Prepared, VerifyCase


class DuckDBBackend:
    name = "duckdb"
    drivers = (("duckdb", "duckdb"),)

    def runs(self, cases: list[VerifyCase], root: Path, options: RenderOptions,
             artifacts: Path | None, jobs: int | None, dsn: str | None,
             stack: contextlib.ExitStack) -> tuple[list[Prepared], list[dict[str, EngineRun]]]:
        # the costliest engine imports while the data loads
        warm = WarmEngine.start(list(dict.fromkeys(t for c in cases for t in c.targets)),
                                jobs or default_jobs(), root, self.name)
        if warm is not None:
            stack.callback(warm.close)
        prepared = [prepare_case(c, case_dir(root, i, len(cases)), artifacts, options)
                    for i, c in enumerate(cases)]
        return prepared, batched_runs(prepared, root, jobs, warm)


BACKEND = DuckDBBackend()
