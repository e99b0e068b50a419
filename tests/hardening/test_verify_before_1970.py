"""Completeness windows before 1970 are the same windows in every engine: verify's verdicts and
window counts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py), against the reference semantics.

Found by probing verify with new data (2026-12-03): the SQL of `completeness:` numbered a
reading's window with ``ms // w``, and every SQL integer division truncates toward zero (DuckDB's
``-7 // 2`` is -3): a reading of 1969-12-31 23:10 counted in the window of 1970-01-01 00:00, every
window before 1970 held the readings of the hour after it. dbt, Soda, Soda 4 and GX reported one
short window where pandera, the runtime and the reference found two; with the data below the SQL
engines passed a contract the others failed. The SQL now floors (``x`` less its non-negative
remainder, divided exactly).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.semantics.completeness import short_windows
from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: before_1970
version: 1.0.0
key: [sid, ts]
fields:
  sid: {type: string}
  ts: {type: timestamp_ms_utc}
  v: {type: float64, unit: m}
time:
  column: ts
  completeness: 2 per 1h per series; at least 100%
"""

START = datetime(1969, 12, 31, 21, tzinfo=UTC)
# two readings an hour from 1969-12-31 21:00 to 1970-01-01 02:59, one in the hours starting at
# 1969-12-31 23:00 and 1970-01-01 00:00: those two windows are short. With truncating division
# the 23:00 window held the 22:00 readings and the 00:00 window the 23:00 and 00:00 ones: the
# SQL engines passed
SHORT_HOURS = (2, 3)
ROWS = [(START + timedelta(hours=h, minutes=10 + 20 * k)) for h in range(6)
        for k in range(1 if h in SHORT_HOURS else 2)]
DATA = "sid,ts,v\n" + "".join(f"a,{t.isoformat().replace('+00:00', 'Z')},1\n" for t in ROWS)
SQL_AND_FRAMES = value_targets()
CID = "completeness:ts"
NOW = datetime(1970, 1, 1, 6, tzinfo=UTC)


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "before_1970", CONTRACT, DATA)


def expected_windows(contract: Path) -> int:
    """The short windows by the reference semantics."""
    clause = next(c for c in plan(load(str(contract))) if c.id == CID)
    return len(short_windows(clause, [{"sid": "a", "ts": t} for t in ROWS]))


def check_report(report: dict[str, Any], windows: int, shown: str = "",
                 checking: tuple[str, ...] = SQL_AND_FRAMES) -> None:
    """Every engine of `checking` fails the clause, on `windows` windows where it counts them."""
    rows = {r["id"]: r for r in report["clauses"]}
    assert {cid: r["disagreement"] for cid, r in rows.items() if r["disagreement"]} == {}, shown
    verdicts = rows[CID]["verdicts"]
    assert {t: verdicts[t]["status"] for t in checking} == dict.fromkeys(checking, "fail"), shown
    counts = {t: verdicts[t]["failures"] for t in checking if verdicts[t]["failures"] is not None}
    assert set(counts.values()) == {windows}, (counts, shown)
    assert {"dbt", "gx", "ibis"} <= set(counts), counts  # the count is asserted, not skipped


def test_the_reference_finds_the_two_short_hours(tmp_path: Path) -> None:
    contract, _ = write_case(tmp_path)
    assert expected_windows(contract) == 2


def test_the_floor_division_reads_the_same_in_every_dialect(tmp_path: Path) -> None:
    """The windows' floor division, printed for the dialects this machine cannot run: the
    remainder is subtracted whole (sqlglot 29 reads DuckDB's ``a - b % c`` as ``(a - b) % c`` and
    BigQuery's ``MOD()`` printed that tree: ``MOD(tacit_ms - (...), w)``), and Snowflake's
    ``CAST(x / w AS INT)``, which rounds, divides a multiple of w."""
    from tacit_gen.sql import relation
    from tacit_gen.sql.completeness import short_windows_sql

    contract, _ = write_case(tmp_path)
    clause = next(c for c in plan(load(str(contract))) if c.id == CID)
    big = short_windows_sql(clause, relation("before_1970"), "bigquery")
    assert "MOD(MOD(tacit_ms, 3600000) + 3600000, 3600000)" in big, big
    assert "MOD(tacit_ms -" not in big, big
    snow = short_windows_sql(clause, relation("before_1970"), "snowflake")
    assert "CAST((tacit_ms - ((tacit_ms % 3600000 + 3600000) % 3600000)) / 3600000 AS INT)" in snow, snow
