"""Benchmark of the ibis runtime on DuckDB (not collected by pytest; nox `bench` calls `main()`).

In one process, on N rows (default 10 million) of the bundled ``fct_sensor_readings`` contract:

- ``parse()`` (the generated Schema: conversion check + every clause in one aggregate query)
  against ONE hand-written SQL query computing the same violation counts (goal: within 1.3x);
- ``cast()`` (no query: microseconds);
- optional, slow: pandera on pandas (``--pandera``) and Great Expectations on pandas (``--gx``)
  for the same clauses (goal: parse() 10x faster).

    python tests/benchmarks/bench_runtime.py [--rows N] [--repeat R] [--pandera] [--gx]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)

# Same violation counts as parse() on the fct_sensor_readings clauses, written by hand.
HAND_SQL = """
SELECT
  COALESCE(SUM(CASE WHEN series_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_series,
  COALESCE(SUM(CASE WHEN event_ts IS NULL THEN 1 ELSE 0 END), 0) AS nn_ts,
  COALESCE(SUM(CASE WHEN unit IS NULL THEN 1 ELSE 0 END), 0) AS nn_unit,
  COALESCE(SUM(CASE WHEN source_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_source,
  COALESCE(SUM(CASE WHEN revision IS NULL THEN 1 ELSE 0 END), 0) AS nn_revision,
  COALESCE(SUM(CASE WHEN dup > 1 THEN 1 ELSE 0 END), 0) AS uniq,
  COALESCE(SUM(CASE WHEN quality NOT IN ('good', 'suspect', 'bad') THEN 1 ELSE 0 END), 0) AS av,
  COALESCE(SUM(CASE WHEN unit <> 'degC' THEN 1 ELSE 0 END), 0) AS fixed,
  COALESCE(SUM(CASE WHEN NOT (value_degc >= -40 AND value_degc <= 150) THEN 1 ELSE 0 END), 0) AS rng,
  COALESCE(SUM(CASE WHEN revision < 0 THEN 1 ELSE 0 END), 0) AS rng_rev,
  COALESCE(SUM(CASE WHEN value_degc IS NULL AND quality <> 'bad' THEN 1 ELSE 0 END), 0) AS inv,
  CASE WHEN MAX(event_ts) >= TIMESTAMPTZ '{edge}' THEN 0 ELSE 1 END AS fresh
FROM (
  SELECT *, COUNT(*) OVER (PARTITION BY series_id, event_ts, revision) AS dup FROM {table}
)
"""


def _timeit(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _schema() -> Any:
    """The Schema class of the generated ibis module for fct_sensor_readings (in memory)."""
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.ibis import TARGET

    contract = load(str(ROOT / "contracts" / "fct_sensor_readings.yaml"))
    text = TARGET.render(contract, plan(contract), RenderOptions()).artifacts[0].content
    ns: dict[str, Any] = {"__name__": "bench_fct"}
    exec(compile(text, "fct_sensor_readings.py", "exec", dont_inherit=True), ns)
    return ns[ns["__all__"][0]]


def _make_table(con: Any, rows: int) -> None:
    # 1000 series, one reading a minute; every 100,000th value out of range (so parse() fails
    # one clause and fetches a few rows, like a real run would).
    con.raw_sql(f"""
        CREATE OR REPLACE TABLE fct AS
        SELECT
          'series-' || CAST(i % 1000 AS VARCHAR) AS series_id,
          TIMESTAMPTZ '2024-03-04 09:59:00+00' - to_minutes(CAST(i // 1000 AS BIGINT)) AS event_ts,
          CAST(CASE WHEN i % 100000 = 7 THEN 200 ELSE (i % 1900) / 10.0 - 40 END AS DECIMAL(9,3))
            AS value_degc,
          'degC' AS unit,
          CASE WHEN i % 3 = 0 THEN 'good' WHEN i % 3 = 1 THEN 'suspect' ELSE 'bad' END AS quality,
          'plc-' || CAST(i % 7 AS VARCHAR) AS source_id,
          CAST(0 AS BIGINT) AS revision
        FROM range({rows}) t(i)
    """)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--pandera", action="store_true", help="also time pandera on pandas (slow)")
    p.add_argument("--gx", action="store_true", help="also time GX on pandas (slow)")
    args = p.parse_args(argv)

    import ibis

    from tacit_gen.runtime import ConstraintError

    schema = _schema()
    con = ibis.duckdb.connect()
    t0 = time.perf_counter()
    _make_table(con, args.rows)
    table = con.table("fct")
    print(f"rows: {args.rows:,} (built in {time.perf_counter() - t0:.1f}s)")

    def run_parse() -> dict[str, int]:
        try:
            schema.parse(table, now=NOW)
            return {}
        except ConstraintError as e:
            return {k: v or 0 for k, v in e.counts.items()}

    edge = "2024-03-04 09:45:00+00"
    hand_sql = HAND_SQL.format(table="fct", edge=edge)

    def run_hand() -> tuple[Any, ...]:
        return con.con.execute(hand_sql).fetchone()  # type: ignore[no-any-return]

    run_parse(), run_hand()  # warm up
    t_parse, counts = _timeit(run_parse, args.repeat)
    t_hand, hand = _timeit(run_hand, args.repeat)
    report = schema.evaluate(table, now=NOW)
    print(f"parse():          {t_parse:8.3f} s  ({report.queries} queries; violations {counts})")
    print(f"hand-written SQL: {t_hand:8.3f} s  (row {hand})")
    print(f"ratio parse/hand: {t_parse / t_hand:8.2f}x   (goal <= 1.3x)")
    assert counts.get("range:value_degc", 0) == hand[8], "parse() and the SQL disagree"

    n_cast = 2000
    t0 = time.perf_counter()
    for _ in range(n_cast):
        schema.cast(table)
    t_cast = (time.perf_counter() - t0) / n_cast
    print(f"cast():           {t_cast * 1e6:8.1f} us (no query)")

    if args.pandera or args.gx:
        t0 = time.perf_counter()
        df = con.con.execute("SELECT * FROM fct").arrow().to_pandas()
        print(f"(to pandas: {time.perf_counter() - t0:.1f}s, not counted)")
        if args.pandera:
            t_pa = _pandera(df, args.repeat)
            print(f"pandera (pandas): {t_pa:8.3f} s  -> parse() is {t_pa / t_parse:.1f}x faster (goal 10x)")
        if args.gx:
            t_gx = _gx(df, 1)
            print(f"GX (pandas):      {t_gx:8.3f} s  -> parse() is {t_gx / t_parse:.1f}x faster (goal 10x)")
    con.disconnect()
    return 0


def _pandera(df: Any, repeat: int) -> float:
    import pandas as pd
    import pandera.pandas as pa

    edge = pd.Timestamp("2024-03-04 09:45:00", tz="UTC")
    schema = pa.DataFrameSchema(
        {
            "series_id": pa.Column(str, nullable=False),
            "event_ts": pa.Column(nullable=False),
            "value_degc": pa.Column(
                nullable=True,
                checks=pa.Check(lambda s: s.isna() | ((s >= -40) & (s <= 150)), name="range"),
            ),
            "unit": pa.Column(str, nullable=False, checks=pa.Check.eq("degC")),
            "quality": pa.Column(str, nullable=True, checks=pa.Check.isin(["good", "suspect", "bad"])),
            "source_id": pa.Column(str, nullable=False),
            "revision": pa.Column("int64", nullable=False, checks=pa.Check.ge(0)),
        },
        checks=[
            pa.Check(lambda d: d["value_degc"].notna() | (d["quality"] == "bad")
                     | d["quality"].isna(), name="invariant"),
            pa.Check(lambda d: d["event_ts"].max() >= edge, name="freshness"),
        ],
        unique=["series_id", "event_ts", "revision"],
        strict=True,
    )

    def run() -> None:
        with contextlib.suppress(pa.errors.SchemaErrors):
            schema.validate(df, lazy=True)

    t, _ = _timeit(run, repeat)
    return t


def _gx(df: Any, repeat: int) -> float:
    import great_expectations as gx

    ctx = gx.get_context(mode="ephemeral")
    batch_def = (
        ctx.data_sources.add_pandas("bench").add_dataframe_asset("fct")
        .add_batch_definition_whole_dataframe("all")
    )
    ex = gx.expectations
    suite = ctx.suites.add(gx.ExpectationSuite(name="fct", expectations=[
        ex.ExpectTableColumnsToMatchSet(column_set=list(df.columns), exact_match=True),
        *[ex.ExpectColumnValuesToNotBeNull(column=c)
          for c in ("series_id", "event_ts", "unit", "source_id", "revision")],
        ex.ExpectCompoundColumnsToBeUnique(column_list=["series_id", "event_ts", "revision"]),
        ex.ExpectColumnValuesToBeInSet(column="quality", value_set=["good", "suspect", "bad"]),
        ex.ExpectColumnValuesToBeInSet(column="unit", value_set=["degC"]),
        ex.ExpectColumnValuesToBeBetween(column="value_degc", min_value=-40, max_value=150),
        ex.ExpectColumnValuesToBeBetween(column="revision", min_value=0),
    ]))
    vd = ctx.validation_definitions.add(gx.ValidationDefinition(name="v", data=batch_def, suite=suite))
    t, _ = _timeit(lambda: vd.run(batch_parameters={"dataframe": df}), repeat)
    return t


if __name__ == "__main__":
    sys.exit(main())
