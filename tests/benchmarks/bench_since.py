"""Benchmark of ``parse(since=)``: the cost follows the increment (not collected by pytest; nox
`bench` runs it). docs/increments.md says what ``since`` checks; docs/performance.md keeps the
figures.

A meter-like contract (1,000 series every 15 minutes, cadence with a 10% tolerance, ranges, an
invariant, a key), the table appended in time order, and a 1% increment (the newest rows). In
one process, each measure with its baselines timed in the same run (interleaved, median of R):

- DuckDB, N rows (default 10 million): ``parse(since=)`` against ``parse()`` of the increment
  copied into a table of its own (goal: at most 2x) and against ``parse()`` of the whole table
  (goal: at least 10x cheaper);
- PostgreSQL 15 (a throwaway server), M rows (default 1 million), with an index on the time
  column and one on the key: ``parse(since=)`` against ``parse()`` of the increment as its own
  table (goal: at most 2x);
- Spark local, with ``--spark``: the table written as Parquet partitioned by date, and the
  physical plan of ``parse(since=)`` showing the partition filter on the date (pruning).

    python tests/benchmarks/bench_since.py [--rows N] [--pg-rows M] [--repeat R]
        [--no-postgres] [--spark] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tacit_gen.plan_types import Clause, make_params  # noqa: E402
from tacit_gen.runtime import Column, Schema  # noqa: E402
from tests.benchmarks.rows import Row, emit, interleaved, row_count, use_json  # noqa: E402

SERIES = 1000
STEP = timedelta(minutes=15)
END = datetime(2024, 3, 4, 0, 0, tzinfo=UTC)  # the newest point is END - STEP


class Meter(Schema):
    """A meter reading every 15 minutes per series."""

    series_id: Annotated[str, Column(type="string", nullable=False)]
    event_ts: Annotated[datetime, Column(type="timestamp_us_utc", nullable=False)]
    kwh: Annotated[Decimal | None, Column(type="decimal(12,3)", unit="kWh")]
    voltage: Annotated[Decimal | None, Column(type="decimal(6,1)", unit="V")]
    quality: Annotated[Literal["good", "estimated", "missing"], Column(
        type="enum[good, estimated, missing]", nullable=False)]
    __time__ = "event_ts"
    __clauses__ = (
        Clause("unique:series_id,event_ts", "unique", ("series_id", "event_ts"),
               make_params(columns=("series_id", "event_ts")), "key: [series_id, event_ts]"),
        Clause("range:kwh", "range", ("kwh",), make_params(column="kwh", min="0", max="10000"),
               "kwh: 0..10000"),
        Clause("range:voltage", "range", ("voltage",),
               make_params(column="voltage", min="180", max="260"), "voltage: 180..260"),
        Clause("invariant:kwh is null only when quality = missing", "invariant", (),
               make_params(expr="kwh is null only when quality = missing"),
               "kwh is null only when quality = missing"),
        Clause("cadence:event_ts", "cadence", ("event_ts", "series_id"),
               make_params(column="event_ts", series=("series_id",), interval_seconds=900,
                           from_catalog=False, tolerance_pct="10", gaps_allowed=False),
               "cadence: 15m per series_id, tolerance +/-10%"),
    )


def _layout(rows: int) -> tuple[int, datetime, datetime]:
    """(points per series, the first instant, `since`: the newest 1% of the points)."""
    points = max(rows // SERIES, 100)
    first = END - points * STEP
    since = END - max(points // 100, 1) * STEP
    return points, first, since


# the rows in time order (as appended), one value out of range per 100,000 rows (so every parse
# fails one clause and fetches its sample, as a real run would)
DUCK_SQL = """
CREATE OR REPLACE TABLE {name} AS
SELECT
  'm-' || lpad(CAST(i % {series} AS VARCHAR), 4, '0') AS series_id,
  TIMESTAMPTZ '{first}' + to_minutes(CAST(15 * (i // {series}) AS BIGINT)) AS event_ts,
  CAST(CASE WHEN i % 100000 = 7 THEN -1 ELSE (i % 5000) / 10.0 END AS DECIMAL(12,3)) AS kwh,
  CAST(220 + (i % 30) AS DECIMAL(6,1)) AS voltage,
  CASE WHEN i % 50 = 0 THEN 'estimated' ELSE 'good' END AS quality
FROM range({rows}) t(i)
"""

PG_SQL = """
CREATE TABLE {name} AS
SELECT
  'm-' || lpad((i % {series})::text, 4, '0') AS series_id,
  TIMESTAMPTZ '{first}' + make_interval(mins => (15 * (i / {series}))::int) AS event_ts,
  (CASE WHEN i % 100000 = 7 THEN -1 ELSE (i % 5000) / 10.0 END)::numeric(12,3) AS kwh,
  (220 + (i % 30))::numeric(6,1) AS voltage,
  CASE WHEN i % 50 = 0 THEN 'estimated' ELSE 'good' END AS quality
FROM generate_series(0, {last}) AS t(i)
"""


def _parse(table: Any, now: datetime, since: datetime | None = None) -> dict[str, int]:
    from tacit_gen.runtime import ConstraintError

    try:
        Meter.parse(table, now=now, since=since)
        return {}
    except ConstraintError as e:
        return {k: v or 0 for k, v in e.counts.items()}


def duckdb_rows(rows: int, repeat: int) -> None:
    import ibis

    points, first, since = _layout(rows)
    n = SERIES * points
    con = ibis.duckdb.connect()
    t0 = time.perf_counter()
    con.raw_sql(DUCK_SQL.format(name="meter", series=SERIES, first=first.isoformat(), rows=n))
    con.raw_sql(f"CREATE OR REPLACE TABLE increment AS SELECT * FROM meter "
                f"WHERE event_ts >= TIMESTAMPTZ '{since.isoformat()}'")
    inc_rows = con.raw_sql("SELECT count(*) FROM increment").fetchone()[0]
    print(f"DuckDB: {n:,} rows, increment {inc_rows:,} (built in {time.perf_counter() - t0:.1f}s)")
    table, inc = con.table("meter"), con.table("increment")
    now = END
    fns = {
        "since": lambda: _parse(table, now, since),
        "increment": lambda: _parse(inc, now),
    }
    for fn in fns.values():
        fn()  # warm up
    res = interleaved(fns, repeat)
    (t_since, c_since), (t_inc, c_inc) = res["since"], res["increment"]
    if c_since != c_inc:
        raise SystemExit(f"parse(since=) and parse(increment) disagree: {c_since} vs {c_inc}")
    # the full check is ~100x the others: timed fewer times, beside one more of each
    full = interleaved({"full": lambda: _parse(table, now), "since": fns["since"]},
                       max(1, repeat // 2))
    (t_full, c_full), (t_since2, _) = full["full"], full["since"]
    label = f"{n:.0e} rows".replace("e+0", "e")
    emit(Row("since", f"parse(since=) on DuckDB, {label}, 1% increment", t_since,
             "parse() of the increment as its own table", t_inc, "slower", 2.0, repeat,
             note=f"{inc_rows:,} rows in the increment; violations {c_since}"))
    emit(Row("since", f"parse(since=) vs the full parse() on DuckDB, {label}", t_since2,
             "parse() of the whole table", t_full, "faster", 10.0, max(1, repeat // 2),
             note=f"full violations {c_full}"))
    con.disconnect()


def postgres_rows(rows: int, repeat: int) -> None:
    import ibis
    import psycopg2

    from tacit_gen.engines.postgres_server import throwaway_server

    points, first, since = _layout(rows)
    n = SERIES * points
    with throwaway_server() as server:
        raw = psycopg2.connect(server.dsn)
        raw.autocommit = True
        t0 = time.perf_counter()
        with raw.cursor() as cur:
            cur.execute(PG_SQL.format(name="meter", series=SERIES, first=first.isoformat(),
                                      last=n - 1))
            cur.execute("CREATE INDEX meter_time ON meter (event_ts)")
            cur.execute("CREATE UNIQUE INDEX meter_key ON meter (series_id, event_ts)")
            cur.execute(f"CREATE TABLE increment AS SELECT * FROM meter "
                        f"WHERE event_ts >= TIMESTAMPTZ '{since.isoformat()}'")
            cur.execute("ANALYZE meter")
            cur.execute("ANALYZE increment")
            cur.execute("SELECT count(*) FROM increment")
            inc_rows = cur.fetchone()[0]  # type: ignore[index]
        raw.close()
        print(f"PostgreSQL: {n:,} rows, increment {inc_rows:,} "
              f"(built in {time.perf_counter() - t0:.1f}s)")
        con = ibis.postgres.connect(host=server.host, port=server.port, user="postgres",
                                    database="postgres")
        table, inc = con.table("meter"), con.table("increment")
        fns = {"since": lambda: _parse(table, END, since), "increment": lambda: _parse(inc, END)}
        for fn in fns.values():
            fn()
        res = interleaved(fns, repeat)
        (t_since, c_since), (t_inc, c_inc) = res["since"], res["increment"]
        if c_since != c_inc:
            raise SystemExit(f"PostgreSQL: parse(since=) and parse(increment) disagree: "
                             f"{c_since} vs {c_inc}")
        label = f"{n:.0e} rows".replace("e+0", "e")
        emit(Row("since", f"parse(since=) on PostgreSQL 15, {label}, 1% increment", t_since,
                 "parse() of the increment as its own table", t_inc, "slower", 2.0, repeat,
                 note=f"indexes on event_ts and (series_id, event_ts); {inc_rows:,} rows in "
                 "the increment"))
        con.disconnect()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=row_count, default=10_000_000, help="DuckDB rows, e.g. 1e7")
    p.add_argument("--pg-rows", type=row_count, default=1_000_000, help="PostgreSQL rows")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-postgres", action="store_true")
    p.add_argument("--json", metavar="FILE", help="append every row to FILE as JSON")
    args = p.parse_args(argv)
    use_json(args.json)
    duckdb_rows(args.rows, args.repeat)
    if not args.no_postgres:
        postgres_rows(args.pg_rows, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
