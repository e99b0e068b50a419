"""Data for the calendar tests: minute and daily bars on XNYS 2024, from its real sessions."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from tacit_gen.semantics.sessions import exchange_sessions

MINUTE = """\
contract: bars_1m
version: 1.0.0
key: [symbol, bar_start, revision]
time:
  column: bar_start
  calendar: XNYS
  cadence: 60s within session; no bars outside session
  ingest_column: ingested_at
fields:
  symbol: {type: string}
  bar_start: {type: timestamp_ms_utc}
  ingested_at: {type: timestamp_ms_utc}
  close: {type: decimal(18,8), unit: USD}
calendar: {relation: xnys_sessions}
revision_policy:
  allowed: true
  window: 5 trading days
provenance_required: [revision]
"""

DAILY = """\
contract: bars_1d
version: 1.0.0
key: [symbol, bar_date, revision]
time:
  column: bar_date
  calendar: XNYS
  cadence: 1 trading day
fields:
  symbol: {type: string}
  bar_date: {type: timestamp_ms_utc}
  close: {type: decimal(18,8), unit: USD}
calendar: {relation: xnys_sessions}
provenance_required: [revision]
"""


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def minute_bars(days: list[date], symbol: str) -> list[dict[str, str]]:
    """Every minute bar of the XNYS sessions on `days` (real opens and closes)."""
    rows = []
    for s in exchange_sessions("XNYS", min(days), max(days)):
        if s.session not in days:
            continue
        t = s.open
        while t + timedelta(seconds=60) <= s.close:
            rows.append({"symbol": symbol, "bar_start": iso(t), "ingested_at": iso(t + timedelta(seconds=90)),
                         "close": "100.00000000", "revision": "0"})
            t += timedelta(seconds=60)
    return rows


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def add_sessions(db: Path, clauses: Any, first: date = date(2023, 12, 1),
                 last: date = date(2024, 12, 31)) -> None:
    """Write the sessions relation the plan's session clauses read into a DuckDB file (for tests
    that build their database by hand instead of through `verify`'s loader)."""
    import duckdb

    from tacit_gen.plan_types import uses_sessions

    for c in clauses:
        if not uses_sessions(c) or c.param("sessions_relation") is None:
            continue
        rows = exchange_sessions(str(c.param("calendar")), first, last)
        con = duckdb.connect(str(db))
        try:
            con.execute("SET TimeZone = 'UTC'")
            rel = str(c.param("sessions_relation"))
            cols = [c.param(k) for k in ("sessions_calendar", "sessions_session", "sessions_open",
                                         "sessions_close")]
            con.execute(f'CREATE OR REPLACE TABLE "{rel}" ("{cols[0]}" VARCHAR, "{cols[1]}" DATE, '
                        f'"{cols[2]}" TIMESTAMPTZ, "{cols[3]}" TIMESTAMPTZ)')
            con.executemany(f'INSERT INTO "{rel}" VALUES (?, ?, ?, ?)',
                            [(s.calendar, s.session, s.open, s.close) for s in rows])
        finally:
            con.close()
        return
