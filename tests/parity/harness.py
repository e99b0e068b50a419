"""The parity harness: sample data for a contract (clean, or breaking one clause), run every
engine on it through `verify`, and return the report. Engines run in this process, one after the
other (dbt through dbtRunner), so each case costs a build, not a process start."""

from __future__ import annotations

from pathlib import Path

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyReport, run_verify
from tests.conftest import CONTRACTS

ROWS = 24
ENGINES = ("dbt", "soda", "gx", "pandera", "ibis")


def clause_ids(name: str) -> list[str]:
    return [c.id for c in plan(load(CONTRACTS / f"{name}.yaml"))]


def run_case(name: str, violate: str | None, tmp: Path, targets: tuple[str, ...] = ENGINES) -> tuple[VerifyReport, tuple[str, ...]]:
    contract = load(CONTRACTS / f"{name}.yaml")
    data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=violate)
    data_path, catalog_path = write(data, tmp / f"{name}.csv")
    report = run_verify(contract, data_path, catalog_path, targets, data.now, keep=tmp / "work")
    return report, data.violated


def verdict_table(report: VerifyReport) -> str:
    return report.render_text()


def failed_by_engine(report: VerifyReport) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {t: set() for t in report.targets}
    for row in report.rows:
        for t, v in row.verdicts.items():
            if v.status == "fail":
                out[t].add(row.clause.id)
    return out
