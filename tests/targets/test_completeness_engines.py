"""`completeness:` runs for real in every engine (dbt, Soda, Soda 4, GX, pandera, the ibis runtime)
on hand-made data, and each agrees with the reference (`tacit_gen.semantics.completeness`): full
days pass; a day short of readings fails, and so does an empty day between two full ones; an
outage of an allowed type over the missing hours makes the short day pass, one of a type the
contract does not allow does not. The wire schemas declare the clause unsupported. On a real
PostgreSQL 15 (its server zone America/New_York) the same five cases give the same verdicts in
every target that runs there. Each backend verifies the five cases in one batch (`verify_cases`:
each engine once, one dbt build)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.semantics.completeness import short_windows
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import engine_targets, record_targets, value_targets, verify_named

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "completeness.yaml"
CID = "completeness:event_ts"
DAY = datetime(2024, 1, 2, tzinfo=UTC)
HOUR = timedelta(hours=1)
NOW = datetime(2024, 1, 5, tzinfo=UTC)


def _hours(series: str, start: datetime, n: int, skip: tuple[int, ...] = ()) -> list[dict[str, object]]:
    return [{"series_id": series, "event_ts": start + i * HOUR, "value": "1.5000"}
            for i in range(n) if i not in skip]


# 24 readings a day expected, at least 90% (22); a window is judged once the series has a
# reading at or after its end: each case closes 2024-01-02 with a reading at 2024-01-03 00:00.
FULL = _hours("AB-001", DAY, 25) + _hours("CD-999", DAY, 25)
SHORT = _hours("AB-001", DAY, 25, skip=(3, 4, 5, 6)) + _hours("CD-999", DAY, 25)  # 20 of 24
EMPTY_DAY = (_hours("AB-001", DAY, 24) + _hours("AB-001", DAY + 2 * 24 * HOUR, 1)
             + _hours("CD-999", DAY, 25))
OUTAGE = {"series_id": "AB-001", "start": DAY + 3 * HOUR, "end": DAY + 7 * HOUR}
CASES = {
    "clean": (FULL, [], False),
    "short": (SHORT, [], True),
    "empty_day": (EMPTY_DAY, [], True),
    "allowed_outage": (SHORT, [{**OUTAGE, "type": "maintenance"}], False),
    "other_outage": (SHORT, [{**OUTAGE, "type": "sensor_fault"}], True),
}
CANNOT = record_targets()


def _write(path: Path, rows: list[dict[str, object]], header: list[str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        for r in rows:
            w.writerow({k: v.isoformat(timespec="milliseconds") if isinstance(v, datetime) else v
                        for k, v in r.items()})
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_reference_verdict(case: str) -> None:
    rows, outages, fails = CASES[case]
    clause = next(c for c in plan(load(CONTRACT)) if c.id == CID)
    found = short_windows(clause, rows, outages)
    assert bool(found) == fails
    if fails:
        assert found[0].series == ("AB-001",)


def _files(case: str, tmp_path: Path) -> tuple[Path, Path]:
    rows, outages, _ = CASES[case]
    tmp_path.mkdir(parents=True, exist_ok=True)
    return (_write(tmp_path / "data.csv", rows, ["series_id", "event_ts", "value"]),
            _write(tmp_path / "outages.csv", outages, ["series_id", "start", "end", "type"]))


@pytest.fixture(scope="module")
def duckdb_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """The five cases verified on DuckDB in ONE run: each engine once (one dbt build)."""
    tmp = tmp_path_factory.mktemp("completeness")
    contract = load(CONTRACT)
    cases = {}
    for case in sorted(CASES):
        data, out = _files(case, tmp / case)
        cases[case] = VerifyCase(contract, data, None, NOW, engine_targets(), CONTRACT, outages=out)
    return verify_named(cases, tmp / "work")


@pytest.mark.engine
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_engine_agrees(case: str, duckdb_reports: dict[str, VerifyReport]) -> None:
    _check(case, engine_targets(), duckdb_reports[case])


# The targets that run in PostgreSQL (the wire schemas check the data file, not the database).
PG_TARGETS = value_targets("postgres")


@pytest.mark.engine
def test_every_engine_agrees_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    contract = load(CONTRACT)
    cases = []
    for case in sorted(CASES):
        data, out = _files(case, tmp_path / case)
        cases.append(VerifyCase(contract, data, None, NOW, PG_TARGETS, CONTRACT, outages=out))
    reports = verify_cases(cases, engine="postgres", workdir=tmp_path / "work", dsn=pg_server.dsn)
    for case, report in zip(sorted(CASES), reports, strict=True):
        _check(case, PG_TARGETS, report)


def _check(case: str, targets: tuple[str, ...], report: VerifyReport) -> None:
    fails = CASES[case][2]
    contract = load(CONTRACT)
    table = f"case {case}\n{report.render_text()}"
    _, found = render_contract(contract, targets, RenderOptions())
    declared = {(u.target, u.clause_id) for u in found}
    for target in set(CANNOT) & set(targets):
        assert (target, CID) in declared, f"{target} does not declare {CID} unsupported"
    row = next(r for r in report.rows if r.clause.id == CID)
    assert set(row.verdicts) == set(targets)
    for target, verdict in row.verdicts.items():
        expected = "n/a" if (target, CID) in declared else "fail" if fails else "pass"
        assert verdict.status == expected, f"{target}: {verdict.status}\n{table}"
        if expected == "fail" and verdict.failures is not None:
            assert verdict.failures == 1, f"{target}: {verdict.failures}\n{table}"
    for other in report.rows:
        if other.clause.id != CID:
            assert all(v.status in ("pass", "n/a") for v in other.verdicts.values()), table
    assert report.exit_code == (1 if fails else 0), table
