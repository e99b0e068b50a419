"""Parity of the Soda 4 engine on DuckDB: the cases of the DuckDB parity suite (clean data, and data
breaking exactly one clause, from `tacit-gen sample`), every clause of every bundled contract and
the fixture contracts' own cases (FIXTURES: `plausible:` and `catalog_bounds` of line_pressure,
`pattern:` and `revision_by` of series_clauses, completeness per session of bars_per_session and
bars_per_venue_session), verified in ONE batch (`verify_cases`): one
soda-core 4 worker process runs every case. Soda 4 must pass the clean data, flag exactly the
broken clause, and warn (exit 0, the warning listed apart) where the broken clause is a warn one,
as every other engine does in `test_parity_<contract>.py` on the same data (same rows, seed and
sampler)."""

from __future__ import annotations

from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import engine_targets
from tests.parity.harness import (
    ROWS,
    check_violation,
    clause_ids,
    contract_path,
    unsupported,
    verdict_table,
)

pytestmark = pytest.mark.engine

NAMES = ("fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading")
# fixture contracts: only the clauses their DuckDB parity module breaks (the rest are the bundled kinds)
FIXTURES = {"line_pressure": ("plausible:value", "catalog_bounds:value"),
            "series_clauses": ("pattern:series_id", "revision_by:revised_by"),
            "bars_per_session": ("completeness:bar_start",),
            "bars_per_venue_session": ("completeness:bar_start",)}
CASES: list[tuple[str, str | None]] = (
    [(name, None) for name in (*NAMES, *FIXTURES)]
    + [(name, c) for name in NAMES for c in clause_ids(name)]
    + [(name, c) for name, only in FIXTURES.items() for c in only])
# the targets whose engine runs in an environment of its own (soda4): every case in ONE worker
TARGETS = tuple(t for t in engine_targets() if t not in engine_targets(own_environment=False))


def _unsupported(name: str) -> set[str]:
    """The clauses these targets declare unsupported at render (their verdict there is n/a), as
    pinned (`tests.parity.harness.unsupported`)."""
    return set().union(*unsupported(name, TARGETS).values())


def _case_id(case: tuple[str, str | None]) -> str:
    return f"{case[0]}-{case[1] or 'clean'}"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[VerifyReport, Any]]:
    """Every case in one batch: case id -> (report, the clauses sample broke)."""
    root = tmp_path_factory.mktemp("soda4-parity")
    cases: list[VerifyCase] = []
    violated: list[Any] = []
    for i, (name, clause) in enumerate(CASES):
        path = contract_path(name)
        contract = load(path)
        data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=clause)
        data_path, catalog_path = write(data, root / f"data{i}" / f"{name}.csv")
        cases.append(VerifyCase(contract, data_path, catalog_path, data.now, TARGETS, path))
        violated.append(data.violated)
    got = verify_cases(cases, engine="duckdb", workdir=root / "work")
    return {_case_id(c): (r, v) for c, r, v in zip(CASES, got, violated, strict=True)}


@pytest.mark.parametrize("name", (*NAMES, *FIXTURES))
def test_clean_data_passes(reports: dict[str, Any], name: str) -> None:
    report, violated = reports[_case_id((name, None))]
    assert violated == ()
    assert report.exit_code == 0, verdict_table(report)
    skip = _unsupported(name)
    for r in report.rows:
        v = r.verdicts["soda4"]
        assert v.status == ("n/a" if r.clause.id in skip else "pass"), f"{r.clause.id}: {v}"


@pytest.mark.parametrize("case", [c for c in CASES if c[1] is not None], ids=_case_id)
def test_one_violation_is_flagged(reports: dict[str, Any], case: tuple[str, str]) -> None:
    """Exactly the broken error clause fails, a broken warn clause (plausible) warns; n/a where
    the render declared the clause unsupported."""
    name, clause = case
    report, violated = reports[_case_id(case)]
    check_violation(name, clause, report, violated)
