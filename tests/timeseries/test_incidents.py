"""Seed 001's incidents and the time-series clauses, end to end in every real engine.

A pressure feed in bar; the catalog says each series' unit and hard bounds. Each scenario edits a
clean feed one way, and every engine (dbt, Soda, GX, pandera, ibis) must flag the same clauses.
The scenarios are verified in one batch (`verify_cases`: each engine once, one dbt build).
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import ROOT, value_targets

CONTRACT = ROOT / "tests" / "fixtures" / "contracts" / "compressor_pressure.yaml"
NOW = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
ENGINES = value_targets(own_environment=False)
COLUMNS = ("series_id", "event_ts", "ingested_at", "pressure", "unit", "source_id", "revision")
Row = dict[str, object]

pytestmark = pytest.mark.engine


def clean_rows() -> list[Row]:
    rows: list[Row] = []
    for sid, base in (("s1", Decimal("6.500")), ("s2", Decimal("12.250"))):
        for i in range(10):
            t = NOW - timedelta(minutes=10 - i)
            rows.append({"series_id": sid, "event_ts": t, "ingested_at": t + timedelta(minutes=1),
                         "pressure": base + Decimal(i) / 10, "unit": "bar", "source_id": "plc-7",
                         "revision": 0})
    return rows


def write(rows: list[Row], path: Path) -> Path:
    def fmt(v: object) -> str:
        if isinstance(v, datetime):
            return v.isoformat(timespec="milliseconds")
        return "" if v is None else str(v)

    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([fmt(r[c]) for c in COLUMNS])
    return path


def catalog(path: Path) -> Path:
    path.write_text("series_id,unit,hard_min,hard_max\ns1,bar,0,400\ns2,bar,0,400\n")
    return path


def kpa_incident(rows: list[Row]) -> list[Row]:
    """Halfway through, the s1 feed switches to kPa: the unit column says so, values jump 100x."""
    for r in rows:
        if r["series_id"] == "s1" and r["event_ts"] >= NOW - timedelta(minutes=5):  # type: ignore[operator]
            r["unit"] = "kPa"
            r["pressure"] = r["pressure"] * 100  # type: ignore[operator]
    return rows


def late_restatement(rows: list[Row]) -> list[Row]:
    """A revision of an s1 point ingested three days after the event: outside the 2-day window."""
    point = next(r for r in rows if r["series_id"] == "s1")
    rows.append({**point, "revision": 1, "pressure": Decimal("6.600"),
                 "ingested_at": point["event_ts"] + timedelta(days=3)})  # type: ignore[operator]
    return rows


def timely_restatement(rows: list[Row]) -> list[Row]:
    point = next(r for r in rows if r["series_id"] == "s1")
    rows.append({**point, "revision": 1, "pressure": Decimal("6.600"),
                 "ingested_at": point["event_ts"] + timedelta(days=1)})  # type: ignore[operator]
    return rows


def cadence_gap(rows: list[Row]) -> list[Row]:
    return [r for r in rows if not (r["series_id"] == "s2" and r["event_ts"] == NOW - timedelta(minutes=5))]


def off_grid(rows: list[Row]) -> list[Row]:
    for r in rows:
        if r["series_id"] == "s2" and r["event_ts"] == NOW - timedelta(minutes=5):
            r["event_ts"] = r["event_ts"] + timedelta(seconds=20)  # type: ignore[operator]
    return rows


def stale_feed(rows: list[Row]) -> list[Row]:
    for r in rows:
        r["event_ts"] = r["event_ts"] - timedelta(hours=1)  # type: ignore[operator]
        r["ingested_at"] = r["ingested_at"] - timedelta(hours=1)  # type: ignore[operator]
    return rows


def unknown_series(rows: list[Row]) -> list[Row]:
    for r in rows:
        if r["series_id"] == "s2":
            r["series_id"] = "s9"
    return rows


SCENARIOS: list[tuple[str, Callable[[list[Row]], list[Row]], set[str]]] = [
    ("clean", lambda rows: rows, set()),
    ("kPa incident", kpa_incident, {"catalog_unit:unit", "catalog_bounds:pressure"}),
    ("late restatement", late_restatement, {"revision_window"}),
    ("restatement within the window", timely_restatement, set()),
    ("cadence gap", cadence_gap, {"cadence:event_ts"}),
    ("off-grid point", off_grid, {"cadence:event_ts"}),
    ("stale feed", stale_feed, {"freshness:event_ts"}),
    ("series unknown to the catalog", unknown_series, {"catalog_unit:unit", "catalog_bounds:pressure"}),
]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Every scenario verified in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("incidents")
    contract = load(CONTRACT)
    cases = []
    for i, (_, edit, _) in enumerate(SCENARIOS):
        (tmp / f"s{i}").mkdir()
        data = write(edit(clean_rows()), tmp / f"s{i}" / "data.csv")
        cases.append(VerifyCase(contract, data, catalog(tmp / f"s{i}" / "catalog.csv"), NOW, ENGINES,
                                CONTRACT))
    got = verify_cases(cases, engine="duckdb", workdir=tmp / "work")
    return {label: report for (label, _, _), report in zip(SCENARIOS, got, strict=True)}


@pytest.mark.parametrize(("label", "expected"), [(s[0], s[2]) for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])
def test_every_engine_agrees(reports: dict[str, VerifyReport], label: str, expected: set[str]) -> None:
    report = reports[label]
    table = report.render_text()
    assert set(report.targets) == set(ENGINES), table
    assert report.exit_code == (1 if expected else 0), table
    for engine in ENGINES:
        failed = {r.clause.id for r in report.rows if r.verdicts[engine].status == "fail"}
        assert failed == expected, f"{label}: {engine} flagged {sorted(failed)}\n{table}"


def test_the_kpa_incident_is_caught_with_row_counts(reports: dict[str, VerifyReport]) -> None:
    unit_row = next(r for r in reports["kPa incident"].rows if r.clause.id == "catalog_unit:unit")
    # five readings say kPa; every engine that counts rows counts those five
    counts = {t: v.failures for t, v in unit_row.verdicts.items() if v.failures is not None}
    assert counts and set(counts.values()) == {5}, counts
