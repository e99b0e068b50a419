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
- Spark local, with ``--spark`` (K rows, default 1 million; in the Spark environment): a daily
  meter whose time column is the date the table is partitioned by (Parquet), ``parse(since=)``
  against ``parse()`` of the increment written as a table of its own (goal: at most 2x), and
  the executed plan's Parquet scans: their PartitionFilters and Spark's count of partitions
  read (pruning: the increment's days and the boundary's, not every day).

    python tests/benchmarks/bench_since.py [--rows N] [--pg-rows M] [--repeat R]
        [--no-postgres] [--no-duckdb] [--spark] [--spark-rows K] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
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


class DailyMeter(Schema):
    """A meter reading a day per series; the time column is the date the table is partitioned
    by (Spark prunes partitions on a filter of the partition column itself)."""

    series_id: Annotated[str, Column(type="string", nullable=False)]
    day: Annotated[date, Column(type="date", nullable=False)]
    kwh: Annotated[Decimal | None, Column(type="decimal(12,3)", unit="kWh")]
    quality: Annotated[Literal["good", "estimated", "missing"], Column(
        type="enum[good, estimated, missing]", nullable=False)]
    __time__ = "day"
    __clauses__ = (
        Clause("unique:series_id,day", "unique", ("series_id", "day"),
               make_params(columns=("series_id", "day")), "key: [series_id, day]"),
        Clause("range:kwh", "range", ("kwh",), make_params(column="kwh", min="0", max="10000"),
               "kwh: 0..10000"),
        Clause("invariant:kwh is null only when quality = missing", "invariant", (),
               make_params(expr="kwh is null only when quality = missing"),
               "kwh is null only when quality = missing"),
        Clause("cadence:day", "cadence", ("day", "series_id"),
               make_params(column="day", series=("series_id",), interval_seconds=86400,
                           from_catalog=False, tolerance_pct="0", gaps_allowed=False),
               "cadence: 1d per series_id"),
    )


LAST_DAY = date(2024, 3, 3)  # the newest day
SPARK_SQL = """
SELECT
  concat('m-', lpad(CAST(id % {series} AS STRING), 4, '0')) AS series_id,
  date_add(DATE '{first}', CAST(id DIV {series} AS INT)) AS day,
  CAST(CASE WHEN id % 100000 = 7 THEN -1 ELSE (id % 5000) / 10.0 END AS DECIMAL(12,3)) AS kwh,
  CASE WHEN id % 50 = 0 THEN 'estimated' ELSE 'good' END AS quality
FROM range({rows})
"""


def _scans(spark: Any, sql: str) -> list[dict[str, Any]]:
    """Run `sql`; per Parquet scan of its executed plan, the partition filters and Spark's own
    metrics (partitions and files read)."""
    df = spark.sql(sql)
    df.collect()
    plan = df._jdf.queryExecution().executedPlan()
    if plan.nodeName() == "AdaptiveSparkPlan":
        plan = plan.executedPlan()
    out: list[dict[str, Any]] = []
    stack = [plan]
    while stack:  # the plan tree, subqueries' stages included
        node = stack.pop()
        kids = node.children()
        stack.extend(kids.apply(i) for i in range(kids.size()))
        name = str(node.nodeName())
        if "QueryStage" in name:  # an adaptive query stage: a leaf holding its plan
            stack.append(node.plan())
        elif name.startswith("Reused"):
            stack.append(node.child())
        if name.startswith("Scan parquet"):
            metrics = node.metrics()

            def metric(name: str, metrics: Any = metrics) -> int | None:
                m = metrics.get(name)
                return int(m.get().value()) if m.isDefined() else None

            text = node.simpleString(400)
            filters = text.split("PartitionFilters: ", 1)[1].split("]", 1)[0] + "]" \
                if "PartitionFilters: " in text else "[]"
            out.append({"partition_filters": filters, "partitions": metric("numPartitions"),
                        "files": metric("numFiles")})
    return out


def spark_rows(rows: int, repeat: int) -> int:
    """In the Spark environment: ``parse(since=)`` on a table partitioned by its date, against
    ``parse()`` of the increment as a table of its own; the plan's partition filters and Spark's
    count of partitions read."""
    import tempfile

    import ibis

    from tacit_gen.engines.spark.session import session
    from tacit_gen.runtime.evaluate import parse_query

    days = max(rows // SERIES, 100)
    first = LAST_DAY - timedelta(days=days - 1)
    since_day = LAST_DAY - timedelta(days=max(days // 100, 1) - 1)
    since = datetime(since_day.year, since_day.month, since_day.day, tzinfo=UTC)
    now = datetime(LAST_DAY.year, LAST_DAY.month, LAST_DAY.day, 12, tzinfo=UTC)
    work = Path(tempfile.mkdtemp(prefix="tacit-bench-since-spark-"))
    spark = session(work)
    t0 = time.perf_counter()
    built = spark.sql(SPARK_SQL.format(series=SERIES, first=first.isoformat(), rows=SERIES * days))
    built.write.partitionBy("day").parquet(str(work / "meter"))
    spark.read.parquet(str(work / "meter")).filter(f"day >= DATE '{since_day.isoformat()}'") \
        .write.partitionBy("day").parquet(str(work / "increment"))
    for name in ("meter", "increment"):
        spark.read.parquet(str(work / name)).createOrReplaceTempView(name)
    n = spark.table("meter").count()
    inc_rows = spark.table("increment").count()
    print(f"Spark: {n:,} rows in {days} daily partitions, increment {inc_rows:,} from {since_day} "
          f"(written as Parquet in {time.perf_counter() - t0:.1f}s)")
    con = ibis.pyspark.connect(spark)
    table, inc = con.table("meter"), con.table("increment")

    def run(t: Any, s: datetime | None) -> dict[str, int]:
        from tacit_gen.runtime import ConstraintError

        try:
            DailyMeter.parse(t, now=now, since=s)
            return {}
        except ConstraintError as e:
            return {k: v or 0 for k, v in e.counts.items()}

    fns = {"since": lambda: run(table, since), "increment": lambda: run(inc, None)}
    for fn in fns.values():
        fn()  # warm up
    res = interleaved(fns, repeat)
    (t_since, c_since), (t_inc, c_inc) = res["since"], res["increment"]
    if c_since != c_inc:
        print(f"Spark: parse(since=) and parse(increment) disagree: {c_since} vs {c_inc}",
              file=sys.stderr)
        return 1
    query = parse_query(DailyMeter, table, now=now, since=since)
    assert query is not None
    scans = _scans(spark, str(con.compile(query)))
    read = [s["partitions"] for s in scans if s["partitions"] is not None]
    pruned = [s for s in scans if "day" in s["partition_filters"]]
    for s in scans:
        print(f"  scan: partitions read {s['partitions']}, files {s['files']}, "
              f"PartitionFilters {s['partition_filters']}")
    label = f"{n:.0e} rows".replace("e+0", "e")
    emit(Row("since", f"parse(since=) on Spark local, {label}, partitioned by day, 1% increment",
             t_since, "parse() of the increment as its own table", t_inc, "slower", 2.0, repeat,
             note=f"{inc_rows:,} rows in the increment of {days} daily partitions; "
             f"{len(pruned)} of {len(scans)} scans pruned by PartitionFilters on day; "
             f"partitions read per scan {read}",
             extra={"scans": scans, "partitions": days}))
    spark.stop()
    return 0 if pruned else 1


def _spark_outer(rows: int, repeat: int, json_path: str | None) -> int:
    """Start `spark_rows` in the Spark environment (`tacit-gen engines setup spark`)."""
    import subprocess
    import tempfile

    from tacit_gen.engines.spark.client import worker_environ
    from tacit_gen.engines.spark.env import ensure_env

    env = ensure_env()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [str(env.python), str(Path(__file__).resolve()), "--spark-inner",
               "--spark-rows", str(rows), "--repeat", str(repeat)]
        if json_path:
            cmd += ["--json", json_path]
        return subprocess.run(cmd, env=worker_environ(env, Path(tmp)), check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=row_count, default=10_000_000, help="DuckDB rows, e.g. 1e7")
    p.add_argument("--pg-rows", type=row_count, default=1_000_000, help="PostgreSQL rows")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-postgres", action="store_true")
    p.add_argument("--json", metavar="FILE", help="append every row to FILE as JSON")
    p.add_argument("--spark", action="store_true",
                   help="also Spark local: a table partitioned by day (Parquet)")
    p.add_argument("--spark-rows", type=row_count, default=1_000_000, help="Spark rows")
    p.add_argument("--no-duckdb", action="store_true")
    p.add_argument("--spark-inner", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    use_json(args.json)
    if args.spark_inner:
        return spark_rows(args.spark_rows, args.repeat)
    if not args.no_duckdb:
        duckdb_rows(args.rows, args.repeat)
    if not args.no_postgres:
        postgres_rows(args.pg_rows, args.repeat)
    if args.spark:
        return _spark_outer(args.spark_rows, args.repeat, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
