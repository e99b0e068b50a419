"""Trading days before 1900 are counted alike in every engine: a revision window in trading days
and a `1 trading day` cadence, on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py), against the reference semantics.

Found by probing verify with new data (2026-12-04): weekdays were numbered from Monday
1900-01-01, and the SQL of Soda and GX and the ibis runtime divided the days since then with the
engine's integer division and remainder, which truncate toward zero (DuckDB's ``-3 // 7`` is 0 and
``-3 % 7`` is -3). Before 1900 a Friday and the Tuesday after it were four trading days apart, not
two: a restatement inside a 2-day window failed in Soda, GX and the runtime and passed in dbt and
pandera (which floor), and verify exited 3. The count now starts on Monday 0001-01-01, so the
days are never negative for a date any engine and Python share, and every division is exact.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.semantics.calendar import weekdays_through
from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: before_1900
version: 1.0.0
key: [sid, ts, revision]
time:
  column: ts
  precision: ms
  timezone: UTC instant
  cadence: 1 trading day
  ingest_column: ingested_at
fields:
  sid: {type: string}
  ts: {type: timestamp_ms_utc}
  ingested_at: {type: timestamp_ms_utc, nullable: false}
  v: {type: float64, unit: m}
revision_policy:
  allowed: true
  window: 2 trading days
provenance_required: [revision]
"""

MIDNIGHT = datetime.min.time()


def _at(d: date, hour: int = 0) -> datetime:
    return datetime.combine(d, MIDNIGHT, tzinfo=UTC) + timedelta(hours=hour)


# a bar at 00:00 UTC of every weekday from Monday 1899-12-11 to Friday 1900-01-05 (holidays count:
# there is no calendar), each ingested an hour later
BARS = [d for d in (date(1899, 12, 11) + timedelta(days=i) for i in range(26)) if d.weekday() < 5]
# restatements (revision 1): (the bar's day, the ingest's day), with the trading days between
RESTATED = (
    (date(1899, 12, 14), date(1899, 12, 18)),  # Thursday -> Monday: 2, inside
    (date(1899, 12, 21), date(1899, 12, 25)),  # Thursday -> Monday: 2, inside (was 4)
    (date(1899, 12, 29), date(1900, 1, 2)),  # Friday -> Tuesday across 1900: 2, inside (was 4)
    (date(1899, 12, 22), date(1899, 12, 27)),  # Friday -> Wednesday: 3, outside
)
LATE = 1  # the one restatement outside the window
ROWS = [("a", _at(d), _at(d, 1), 0) for d in BARS] + [("a", _at(e), _at(i, 12), 1) for e, i in RESTATED]
DATA = "sid,ts,ingested_at,v,revision\n" + "".join(
    f"{s},{t.isoformat().replace('+00:00', 'Z')},{i.isoformat().replace('+00:00', 'Z')},1,{r}\n"
    for s, t, i, r in ROWS)
SQL_AND_FRAMES = value_targets()
CID = "revision_window"
CADENCE = "cadence:ts"
NOW = datetime(1900, 1, 8, tzinfo=UTC)


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "before_1900", CONTRACT, DATA)


def check_report(report: dict[str, Any], shown: str = "",
                 checking: tuple[str, ...] = SQL_AND_FRAMES) -> None:
    """Every engine of `checking` fails the revision window on the one late restatement (where it
    counts rows) and passes everything else, the cadence included."""
    rows = {r["id"]: r for r in report["clauses"]}
    cadence = rows[CADENCE]["verdicts"]  # checked by every engine, not n/a
    assert {t: cadence[t]["status"] for t in checking} == dict.fromkeys(checking, "pass"), shown
    window = rows[CID]["verdicts"]
    assert {t: window[t]["status"] for t in checking} == dict.fromkeys(checking, "fail"), shown
    helpers.check_failing(report, {CID: LATE}, checking, shown)


def test_the_reference_counts_trading_days_across_1900() -> None:
    days = {(e, i): weekdays_through(i) - weekdays_through(e) for e, i in RESTATED}
    assert list(days.values()) == [2, 2, 2, 3], days
    assert [weekdays_through(d) for d in BARS] == list(range(weekdays_through(BARS[0]),
                                                             weekdays_through(BARS[0]) + len(BARS)))
