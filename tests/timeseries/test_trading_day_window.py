"""A revision window in trading days (Mon-Fri, no calendar), end to end in every real engine.

Every target counts weekdays from the one epoch of `tacit_gen/semantics/calendar.py` (the dbt
macro, Soda and GX SQL, pandera, the ibis runtime and the reference evaluator). A restatement of a
Friday point ingested the next Tuesday is two trading days late (inside a 2-day window); ingested
on Wednesday it is three (outside). The UTC day decides, so a Friday 23:59 event restated on
Tuesday 23:00 is still two days late. The cases are verified in one batch (`verify_cases`: each
engine once, one dbt build).
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import value_targets

pytestmark = pytest.mark.engine

ENGINES = value_targets(own_environment=False)
NOW = datetime(2024, 3, 8, 12, 0, tzinfo=UTC)
FRIDAY = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
CONTRACT = """\
contract: restatements
version: 1.0.0
owner: data@example
key: [series_id, event_ts, revision]
time:
  column: event_ts
  precision: ms
  timezone: UTC instant
  ingest_column: ingested_at
fields:
  series_id:   {type: string}
  event_ts:    {type: timestamp_ms_utc}
  ingested_at: {type: timestamp_ms_utc, nullable: false}
  value:       {type: decimal(10,3), unit: bar, dimension: pressure}
revision_policy:
  allowed: true
  window: 2 trading days
provenance_required: [revision]
"""
COLUMNS = ("series_id", "event_ts", "ingested_at", "value", "revision")


def _write(path: Path, restated: datetime, ingested: datetime) -> Path:
    thursday = FRIDAY - timedelta(days=1)
    rows = [("s1", thursday + timedelta(minutes=i), thursday + timedelta(minutes=i + 1), "1.5", 0)
            for i in range(3)]
    rows.append(("s1", restated, restated + timedelta(minutes=1), "1.5", 0))
    rows.append(("s1", restated, ingested, "1.6", 1))
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([v.isoformat(timespec="milliseconds") if isinstance(v, datetime) else v
                        for v in r])
    return path


CASES = [
    ("friday point restated tuesday", FRIDAY, datetime(2024, 3, 5, 9, 0, tzinfo=UTC), set()),
    ("friday point restated wednesday", FRIDAY, datetime(2024, 3, 6, 9, 0, tzinfo=UTC),
     {"revision_window"}),
    ("friday 23:59 restated tuesday 23:00", datetime(2024, 3, 1, 23, 59, tzinfo=UTC),
     datetime(2024, 3, 5, 23, 0, tzinfo=UTC), set()),
    ("saturday point restated wednesday", datetime(2024, 3, 2, 8, 0, tzinfo=UTC),
     datetime(2024, 3, 6, 8, 0, tzinfo=UTC), {"revision_window"}),
]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Every case verified in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("trading_days")
    path = tmp / "restatements.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    contract = load(path)
    cases = []
    for i, (_, restated, ingested, _) in enumerate(CASES):
        (tmp / f"c{i}").mkdir()
        data = _write(tmp / f"c{i}" / "data.csv", restated, ingested)
        cases.append(VerifyCase(contract, data, None, NOW, ENGINES, path))
    got = verify_cases(cases, engine="duckdb", workdir=tmp / "work")
    return {c[0]: report for c, report in zip(CASES, got, strict=True)}


@pytest.mark.parametrize(("label", "expected"), [(c[0], c[3]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_every_engine_counts_trading_days_alike(reports: dict[str, VerifyReport], label: str,
                                                expected: set[str]) -> None:
    report = reports[label]
    table = report.render_text()
    assert set(report.targets) == set(ENGINES), table
    assert report.exit_code == (1 if expected else 0), table
    for engine in ENGINES:
        failed = {r.clause.id for r in report.rows if r.verdicts[engine].status == "fail"}
        assert failed == expected, f"{label}: {engine} flagged {sorted(failed)}\n{table}"
