"""Benchmark on a real PostgreSQL (not collected by pytest; nox `bench` calls `main()`).

One throwaway server (started and stopped here), in one process:

- ``parse()`` of the generated ``fct_sensor_readings`` Schema on N rows (default 1 million) in
  PostgreSQL, against ONE hand-written SQL query computing the same violation counts: the fastest
  honest query (duplicates by a hash aggregate over the key, not a window), goal within 1.3x;
- ``parse()`` against pandera's ibis backend validating the same PostgreSQL table (one query,
  one round trip, per check), goal 5x faster;
- ``tacit-gen verify --engine postgres`` wall time on a 200-row sample of each bundled contract
  (every target: dbt-postgres, Soda, GX, pandera, ibis), next to ``--engine duckdb``.

Ratios and wall times are reported, never asserted as timings.

    python tests/benchmarks/bench_postgres.py [--rows N] [--repeat R] [--no-verify] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, interleaved, row_count, use_json  # noqa: E402

NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)

HAND_SQL = """
SELECT
  COALESCE(SUM(CASE WHEN series_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_series,
  COALESCE(SUM(CASE WHEN event_ts IS NULL THEN 1 ELSE 0 END), 0) AS nn_ts,
  COALESCE(SUM(CASE WHEN unit IS NULL THEN 1 ELSE 0 END), 0) AS nn_unit,
  COALESCE(SUM(CASE WHEN source_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_source,
  COALESCE(SUM(CASE WHEN revision IS NULL THEN 1 ELSE 0 END), 0) AS nn_revision,
  (SELECT COALESCE(SUM(n), 0) FROM (SELECT COUNT(*) AS n FROM fct
     WHERE series_id IS NOT NULL AND event_ts IS NOT NULL AND revision IS NOT NULL
     GROUP BY series_id, event_ts, revision HAVING COUNT(*) > 1) AS d) AS uniq,
  COALESCE(SUM(CASE WHEN quality NOT IN ('good', 'suspect', 'bad') THEN 1 ELSE 0 END), 0) AS av,
  COALESCE(SUM(CASE WHEN unit <> 'degC' THEN 1 ELSE 0 END), 0) AS fixed,
  COALESCE(SUM(CASE WHEN NOT (value_degc >= -40 AND value_degc <= 150) THEN 1 ELSE 0 END), 0) AS rng,
  COALESCE(SUM(CASE WHEN revision < 0 THEN 1 ELSE 0 END), 0) AS rng_rev,
  COALESCE(SUM(CASE WHEN value_degc IS NULL AND quality <> 'bad' THEN 1 ELSE 0 END), 0) AS inv,
  CASE WHEN MAX(event_ts) >= TIMESTAMPTZ '2024-03-04 09:45:00+00' THEN 0 ELSE 1 END AS fresh
FROM fct
"""

MAKE_SQL = """
CREATE TABLE fct AS
SELECT
  'series-' || (i % 1000)::text AS series_id,
  TIMESTAMPTZ '2024-03-04 09:59:00+00' - make_interval(mins => (i / 1000)::int) AS event_ts,
  (CASE WHEN i % 100000 = 7 THEN 200 ELSE (i % 1900) / 10.0 - 40 END)::numeric(9,3) AS value_degc,
  'degC'::text AS unit,
  CASE WHEN i % 3 = 0 THEN 'good' WHEN i % 3 = 1 THEN 'suspect' ELSE 'bad' END AS quality,
  'plc-' || (i % 7)::text AS source_id,
  0::bigint AS revision
FROM generate_series(0, {last}) AS t(i)
"""


def _runtime(server: Any, rows: int, repeat: int) -> None:
    import ibis
    import psycopg2

    from tacit_gen.runtime import ConstraintError
    from tests.benchmarks.bench_runtime import _schema

    raw = psycopg2.connect(server.dsn)
    raw.autocommit = True
    t0 = time.perf_counter()
    with raw.cursor() as cur:
        cur.execute(MAKE_SQL.format(last=rows - 1))
        cur.execute("ANALYZE fct")
    print(f"rows: {rows:,} in PostgreSQL (built in {time.perf_counter() - t0:.1f}s)")
    schema = _schema()
    con = ibis.postgres.connect(host=server.host, port=server.port, user=server.user,
                                database=server.database)
    table = con.table("fct")

    def run_parse() -> dict[str, int]:
        try:
            schema.parse(table, now=NOW)
            return {}
        except ConstraintError as e:
            return {k: v or 0 for k, v in e.counts.items()}

    def run_hand() -> tuple[Any, ...]:
        with raw.cursor() as cur:
            cur.execute(HAND_SQL)
            return cur.fetchone()  # type: ignore[no-any-return]

    from tests.benchmarks.bench_runtime import pandera_ibis_schema, run_pandera_ibis

    pa_schema = pandera_ibis_schema(table.schema()["event_ts"])
    fns = {"parse": run_parse, "hand": run_hand,
           "pandera.ibis": lambda: run_pandera_ibis(pa_schema, table)}
    for fn in fns.values():
        fn()  # warm up
    res = interleaved(fns, repeat)
    (t_parse, counts), (t_hand, hand), (t_pi, pi_failed) = (
        res["parse"], res["hand"], res["pandera.ibis"])
    report = schema.evaluate(table, now=NOW)
    if counts.get("range:value_degc", 0) != hand[8] or not counts.get("range:value_degc"):
        raise SystemExit(f"parse() and the hand-written SQL disagree: {counts} vs {hand}")
    if not any("in_range" in c for c in pi_failed):
        raise SystemExit(f"pandera.ibis missed the range violation: {pi_failed}")
    n = f"{rows:.0e} rows".replace("e+0", "e")
    emit(Row("postgres", f"parse() on PostgreSQL 15, {n}", t_parse,
             "one hand-written query (GROUP BY key HAVING count(*) > 1 for duplicates)", t_hand,
             "slower", 1.3, repeat, note=f"{report.queries} query; violations {counts}"))
    emit(Row("postgres", f"parse() vs pandera.ibis on PostgreSQL 15, {n}", t_parse,
             "pandera.ibis DataFrameSchema.validate(lazy=True)", t_pi, "faster", 5.0, repeat,
             note="pandera: one query (one round trip) per check"))
    con.disconnect()
    raw.close()


def _verify(server: Any) -> None:
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan
    from tacit_gen.sample import sample, write
    from tacit_gen.verify import run_verify

    engines = ("dbt", "soda", "gx", "pandera", "ibis")
    tmp = Path(tempfile.mkdtemp(prefix="tacit-bench-"))
    print("verify wall time, 200 rows, every target (the first run pays the imports):")
    for name in ("fct_sensor_readings", "plant_sensor_reading", "ohlcv_1m"):
        contract = load(str(ROOT / "contracts" / f"{name}.yaml"))
        data = sample(contract, plan(contract), rows=200, seed=7)
        data_path, catalog_path = write(data, tmp / f"{name}.csv")
        for engine, dsn in (("duckdb", None), ("postgres", server.dsn)):
            t0 = time.perf_counter()
            rep = run_verify(contract, data_path, catalog_path, engines, data.now,
                             engine=engine, dsn=dsn)
            wall = time.perf_counter() - t0
            emit(Row("postgres", f"verify --engine {engine}, {name}, 200 rows, five targets",
                     wall, kind="wall", note=f"exit {rep.exit_code}"))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=row_count, default=1_000_000, help="e.g. 1000000 or 1e6")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-verify", action="store_true", help="skip the verify wall times")
    p.add_argument("--json", metavar="FILE", help="append every row to FILE as JSON")
    args = p.parse_args(argv)
    use_json(args.json)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from tacit_gen.engines.postgres_server import throwaway_server

    with throwaway_server() as server:
        _runtime(server, args.rows, args.repeat)
        if not args.no_verify:
            _verify(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
