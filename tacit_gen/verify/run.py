"""One verify run: the cases handed to their backend, the verdicts compared into reports."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from tacit_gen.verify.backends import get, require_drivers
from tacit_gen.verify.cases import VerifyCase, compare, engine_options, work_root

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    from tacit_gen.contract.model import Contract
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.verify.report import VerifyReport


def verify_cases(cases: list[VerifyCase], engine: str = "spark", workdir: Path | None = None,
                 options: RenderOptions | None = None,
                 artifacts: Path | None = None, dsn: str | None = None,
                 jobs: int | None = None) -> list[VerifyReport]:
    """Verify many datasets in one go; on Spark, ONE worker process and ONE Spark session run
    every target of every case (docs/engines/spark.md).

    Args:
        cases: the datasets.
        engine: the backend (`tacit_gen.verify.backends`): ``duckdb`` or ``postgres`` (each
            engine in a process of its own, once for all the cases, `jobs` at a time: default
            the CPUs), or ``spark``.
        workdir: where to keep the work (default: a temporary folder, removed afterwards).
        options: render options (see :func:`tacit_gen.verify.cases.engine_options`).
        artifacts: run these artifacts instead of rendering them fresh.
        dsn: ``postgres`` only: an existing server (default: a throwaway local one).

    Returns:
        One report per case, in order.

    Raises:
        MissingExtra: a module the backend loads the data with is not installed (an engine's
            own library is its failure in the report instead: the others still run).
    """
    backend = get(engine)
    if dsn is not None and engine != "postgres":
        raise ValueError("--dsn is for --engine postgres")
    require_drivers(backend)
    options = engine_options(engine, options)
    with work_root(workdir) as root, contextlib.ExitStack() as stack:
        prepared, runs = backend.runs(cases, root, options, artifacts, jobs, dsn, stack)
        return [compare(p, r) for p, r in zip(prepared, runs, strict=True)]


def run_verify(contract: Contract, data: Path, catalog: Path | None, targets: tuple[str, ...],
               now: datetime, artifacts: Path | None = None, keep: Path | None = None,
               options: RenderOptions | None = None, engine: str = "duckdb",
               source: Path | None = None, dsn: str | None = None,
               calendar: Path | None = None, outages: Path | None = None,
               jobs: int | None = None, since: datetime | None = None) -> VerifyReport:
    """Load the data, run each target's artifact in its engine (DuckDB, each engine in a process
    of its own; or one Spark worker), and compare verdicts clause by clause. `source` is the
    contract's file (the Spark worker reads it). `since`: every engine checks the increment
    (docs/increments.md)."""
    case = VerifyCase(contract, data, catalog, now, targets, source, calendar, outages, since)
    return verify_cases([case], engine, keep, options, artifacts, dsn, jobs)[0]
