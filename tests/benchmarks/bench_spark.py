"""Benchmark of Spark local (not collected by pytest; nox `bench` runs it).

Run from the main environment it does two things:

1. ``verify --engine spark`` wall time on a 200-row file of ``plant_sensor_reading`` (every
   target, the worker's Spark session start included; the environment is built first, not timed);
2. starts itself in the Spark environment (``--inner``), where, in ONE process and ONE Spark
   session on N rows (default 10 million) of ``fct_sensor_readings`` built in Spark and cached:
   ``parse()`` of the generated Schema (ibis pyspark backend) against ONE hand-written Spark SQL
   query computing the same violation counts (duplicates by a hash aggregate, not a window).
   Ratios are printed, never asserted on time.

    python tests/benchmarks/bench_spark.py [--rows N] [--repeat R] [--no-verify]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)

# The violation counts of parse() on the fct_sensor_readings clauses, by hand, in Spark SQL.
HAND_SQL = """
WITH agg AS (
  SELECT
    COALESCE(SUM(CASE WHEN series_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_series,
    COALESCE(SUM(CASE WHEN event_ts IS NULL THEN 1 ELSE 0 END), 0) AS nn_ts,
    COALESCE(SUM(CASE WHEN unit IS NULL THEN 1 ELSE 0 END), 0) AS nn_unit,
    COALESCE(SUM(CASE WHEN source_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_source,
    COALESCE(SUM(CASE WHEN revision IS NULL THEN 1 ELSE 0 END), 0) AS nn_revision,
    COALESCE(SUM(CASE WHEN quality NOT IN ('good', 'suspect', 'bad') THEN 1 ELSE 0 END), 0) AS av,
    COALESCE(SUM(CASE WHEN unit <> 'degC' THEN 1 ELSE 0 END), 0) AS fixed,
    COALESCE(SUM(CASE WHEN NOT (value_degc >= -40 AND value_degc <= 150) THEN 1 ELSE 0 END), 0) AS rng,
    COALESCE(SUM(CASE WHEN revision < 0 THEN 1 ELSE 0 END), 0) AS rng_rev,
    COALESCE(SUM(CASE WHEN value_degc IS NULL AND quality <> 'bad' THEN 1 ELSE 0 END), 0) AS inv,
    CASE WHEN MAX(event_ts) >= timestamp_micros({edge_us}) THEN 0 ELSE 1 END AS fresh
  FROM {table}
),
dup AS (
  SELECT COALESCE(SUM(n), 0) AS uniq
  FROM (SELECT COUNT(*) AS n FROM {table}
        WHERE series_id IS NOT NULL AND event_ts IS NOT NULL AND revision IS NOT NULL
        GROUP BY series_id, event_ts, revision HAVING COUNT(*) > 1)
)
SELECT * FROM agg CROSS JOIN dup
"""

BUILD_SQL = """
SELECT
  concat('series-', CAST(id % 1000 AS STRING)) AS series_id,
  timestamp_micros(1709546340000000 - CAST(id DIV 1000 AS BIGINT) * 60000000) AS event_ts,
  CAST(CASE WHEN id % 100000 = 7 THEN 200 ELSE (id % 1900) / 10.0 - 40 END AS DECIMAL(9,3))
    AS value_degc,
  'degC' AS unit,
  CASE WHEN id % 3 = 0 THEN 'good' WHEN id % 3 = 1 THEN 'suspect' ELSE 'bad' END AS quality,
  concat('plc-', CAST(id % 7 AS STRING)) AS source_id,
  CAST(0 AS BIGINT) AS revision
FROM range({rows})
"""


def _timeit(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _schema() -> Any:
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.ibis import TARGET

    contract = load(str(ROOT / "contracts" / "fct_sensor_readings.yaml"))
    text = TARGET.render(contract, plan(contract), RenderOptions()).artifacts[0].content
    ns: dict[str, Any] = {"__name__": "bench_fct"}
    exec(compile(text, "fct_sensor_readings.py", "exec", dont_inherit=True), ns)
    return ns[ns["__all__"][0]]


def inner(rows: int, repeat: int) -> int:
    """In the Spark environment: parse() vs hand-written Spark SQL on one cached table."""
    import ibis

    from tacit_gen.engines.spark.session import session
    from tacit_gen.runtime import ConstraintError

    work = Path(tempfile.mkdtemp(prefix="tacit-bench-spark-"))
    spark = session(work)
    t0 = time.perf_counter()
    df = spark.sql(BUILD_SQL.format(rows=rows)).cache()
    df.createOrReplaceTempView("fct")
    n = df.count()
    print(f"rows: {n:,} (built and cached in Spark in {time.perf_counter() - t0:.1f}s)")
    schema = _schema()
    con = ibis.pyspark.connect(spark)
    table = con.table("fct")

    def run_parse() -> dict[str, int]:
        try:
            schema.parse(table, now=NOW)
            return {}
        except ConstraintError as e:
            return {k: v or 0 for k, v in e.counts.items()}

    edge_us = int(NOW.timestamp() * 1_000_000) - 15 * 60 * 1_000_000
    hand_sql = HAND_SQL.format(table="fct", edge_us=edge_us)

    def run_hand() -> Any:
        return spark.sql(hand_sql).collect()[0]

    run_parse(), run_hand()  # warm up
    t_parse, counts = _timeit(run_parse, repeat)
    t_hand, hand = _timeit(run_hand, repeat)
    print(f"parse() on Spark:       {t_parse:8.3f} s  (violations {counts})")
    print(f"hand-written Spark SQL: {t_hand:8.3f} s  (row {hand.asDict()})")
    print(f"ratio parse/hand:       {t_parse / t_hand:8.2f}x   (goal <= 1.3x)")
    if counts.get("range:value_degc", 0) != hand["rng"]:
        print("parse() and the SQL disagree on range:value_degc", file=sys.stderr)
        return 1
    spark.stop()
    return 0


def _verify_wall_time() -> None:
    from tacit_gen.contract.loader import load
    from tacit_gen.engines.spark.env import ensure_env
    from tacit_gen.plan import plan
    from tacit_gen.sample import sample, write
    from tacit_gen.targets import registry
    from tacit_gen.verify import run_verify

    ensure_env()
    path = ROOT / "contracts" / "plant_sensor_reading.yaml"
    contract = load(path)
    with tempfile.TemporaryDirectory() as tmp:
        data = sample(contract, plan(contract), rows=200, seed=1)
        data_path, catalog = write(data, Path(tmp) / "plant.csv")
        for engine in ("duckdb", "spark"):
            # every target that runs on the engine, as `verify` picks them (soda4: not on Spark)
            without = registry.without_engine(registry.names(), engine)
            targets = tuple(t for t in registry.names() if t not in without)
            t0 = time.perf_counter()
            report = run_verify(contract, data_path, catalog, targets, data.now,
                                engine=engine, source=path)
            wall = time.perf_counter() - t0
            print(f"verify --engine {engine:6s} 200 rows: {wall:7.1f} s wall "
                  f"(exit {report.exit_code}; {len(targets)} targets: {', '.join(targets)})")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-verify", action="store_true", help="skip the verify wall-time part")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.inner:
        return inner(args.rows, args.repeat)
    if not args.no_verify:
        _verify_wall_time()
    from tacit_gen.engines.spark.client import worker_environ
    from tacit_gen.engines.spark.env import ensure_env

    env = ensure_env()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [str(env.python), str(Path(__file__).resolve()), "--inner", "--rows", str(args.rows),
               "--repeat", str(args.repeat)]
        return subprocess.run(cmd, env=worker_environ(env, Path(tmp)), check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
