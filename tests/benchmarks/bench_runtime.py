"""Benchmark of the ibis runtime on DuckDB (not collected by pytest; nox `bench` calls `main()`).

In one process, on N rows (default 10 million) of the bundled ``fct_sensor_readings`` contract,
every row printed with its baseline timed in the same run (interleaved, median of R):

- ``parse()`` (the generated Schema: conversion check + every clause in one query) against the
  fastest honest hand-written SQL computing the same violation counts: one aggregate for the row
  clauses, cross-joined with a hash aggregate ``GROUP BY key HAVING count(*) > 1`` for the
  duplicates (goal: within 1.10x);
- ``parse()`` against pandera's ibis backend (``pandera.ibis``) validating the same DuckDB table
  with the same types, ranges, enum, not-null, key uniqueness and ``strict=True`` (goal: 1.3x
  faster);
- ``cast()`` (no query: microseconds);
- pandera on pandas and Great Expectations on pandas, the frame already built (goals: 3x and 10x
  faster); ``--no-pandas`` skips them (they need ~1 GB a 10 M-row frame and a minute).

    python tests/benchmarks/bench_runtime.py [--rows N (or 1e7)] [--repeat R] [--no-pandas] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, interleaved, row_count, use_json  # noqa: E402

NOW = datetime(2024, 3, 4, 10, 0, tzinfo=UTC)
EDGE = datetime(2024, 3, 4, 9, 45, tzinfo=UTC)  # NOW - freshness 15m

# The same violation counts as parse() on the fct_sensor_readings clauses, written by hand the
# fastest way we know: duplicates by a hash aggregate over the key columns (a narrow scan), not a
# window over the wide table. One round trip, like parse().
HAND_SQL = """
SELECT * FROM (
  SELECT
    COALESCE(SUM(CASE WHEN series_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_series,
    COALESCE(SUM(CASE WHEN event_ts IS NULL THEN 1 ELSE 0 END), 0) AS nn_ts,
    COALESCE(SUM(CASE WHEN unit IS NULL THEN 1 ELSE 0 END), 0) AS nn_unit,
    COALESCE(SUM(CASE WHEN source_id IS NULL THEN 1 ELSE 0 END), 0) AS nn_source,
    COALESCE(SUM(CASE WHEN revision IS NULL THEN 1 ELSE 0 END), 0) AS nn_revision,
    COALESCE(SUM(CASE WHEN quality NOT IN ('good', 'suspect', 'bad') THEN 1 ELSE 0 END), 0) AS av,
    COALESCE(SUM(CASE WHEN unit <> 'degC' THEN 1 ELSE 0 END), 0) AS fixed,
    COALESCE(SUM(CASE WHEN NOT (value_degc >= -40 AND value_degc <= 150) THEN 1 ELSE 0 END), 0)
      AS rng,
    COALESCE(SUM(CASE WHEN revision < 0 THEN 1 ELSE 0 END), 0) AS rng_rev,
    COALESCE(SUM(CASE WHEN value_degc IS NULL AND quality <> 'bad' THEN 1 ELSE 0 END), 0) AS inv,
    CASE WHEN MAX(event_ts) >= TIMESTAMPTZ '{edge}' THEN 0 ELSE 1 END AS fresh
  FROM {table}
) AS agg
CROSS JOIN (
  SELECT COALESCE(SUM(n), 0) AS uniq
  FROM (SELECT COUNT(*) AS n FROM {table}
        WHERE series_id IS NOT NULL AND event_ts IS NOT NULL AND revision IS NOT NULL
        GROUP BY series_id, event_ts, revision HAVING COUNT(*) > 1) AS d
) AS dup
"""
RNG = 7  # index of the range:value_degc count in HAND_SQL's row


def _timeit(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    return interleaved({"fn": fn}, repeat)["fn"]


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


def pandera_ibis_schema(ts_type: Any) -> Any:
    """pandera's ibis backend: the fct_sensor_readings clauses as a user of pandera writes them.

    Same types (``ts_type``: the instant type the engine reports, UTC), ranges, enum, fixed
    value, not-null, the invariant, freshness, key uniqueness and ``strict=True``.
    """
    import ibis.expr.datatypes as dt
    import pandera.ibis as pa

    def invariant(d: Any) -> Any:  # value_degc is null only when quality = bad (NULL passes)
        t = d.table
        return t.value_degc.notnull() | (t.quality == "bad") | t.quality.isnull()

    return pa.DataFrameSchema(
        {
            "series_id": pa.Column(dt.String, nullable=False),
            "event_ts": pa.Column(ts_type, nullable=False),
            "value_degc": pa.Column(dt.Decimal(9, 3), nullable=True,
                                    checks=pa.Check.in_range(-40, 150)),
            "unit": pa.Column(dt.String, nullable=False, checks=pa.Check.eq("degC")),
            "quality": pa.Column(dt.String, nullable=True,
                                 checks=pa.Check.isin(["good", "suspect", "bad"])),
            "source_id": pa.Column(dt.String, nullable=False),
            "revision": pa.Column(dt.Int64, nullable=False, checks=pa.Check.ge(0)),
        },
        checks=[
            pa.Check(invariant, name="invariant"),
            pa.Check(lambda d: d.table.event_ts.max() >= EDGE, name="freshness"),
        ],
        unique=["series_id", "event_ts", "revision"],
        strict=True,
    )


def run_pandera_ibis(schema: Any, table: Any) -> set[str]:
    """Validate; the names of the failed checks (the bench asserts the range check is one)."""
    import pandera.ibis as pa

    try:
        schema.validate(table, lazy=True)
        return set()
    except pa.errors.SchemaErrors as e:
        return {str(x) for x in e.failure_cases["check"]}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", type=row_count, default=10_000_000, help="e.g. 10000000 or 1e7")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-pandas", action="store_true",
                   help="skip pandera and GX on pandas (slow, memory-hungry)")
    p.add_argument("--pandera", action="store_true", help=argparse.SUPPRESS)  # the default now
    p.add_argument("--gx", action="store_true", help=argparse.SUPPRESS)  # the default now
    p.add_argument("--json", metavar="FILE", help="append every row to FILE as JSON")
    args = p.parse_args(argv)
    use_json(args.json)

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

    hand_sql = HAND_SQL.format(table="fct", edge=EDGE.isoformat())

    def run_hand() -> tuple[Any, ...]:
        return con.con.execute(hand_sql).fetchone()  # type: ignore[no-any-return]

    pa_schema = pandera_ibis_schema(table.schema()["event_ts"])
    fns = {"parse": run_parse, "hand": run_hand,
           "pandera.ibis": lambda: run_pandera_ibis(pa_schema, table)}
    for fn in fns.values():
        fn()  # warm up (imports, caches)
    res = interleaved(fns, args.repeat)
    (t_parse, counts), (t_hand, hand), (t_pi, pi_failed) = res["parse"], res["hand"], res[
        "pandera.ibis"]
    report = schema.evaluate(table, now=NOW)
    if counts.get("range:value_degc", 0) != hand[RNG] or not counts.get("range:value_degc"):
        raise SystemExit(f"parse() and the SQL disagree: {counts} vs {hand}")
    if not any("in_range" in c for c in pi_failed):
        raise SystemExit(f"pandera.ibis missed the range violation: {pi_failed}")
    n = f"{args.rows:.0e} rows".replace("e+0", "e")
    emit(Row("runtime", f"parse() on DuckDB, {n}", t_parse,
             "one hand-written query (GROUP BY key HAVING count(*) > 1 for duplicates)", t_hand,
             "slower", 1.10, args.repeat,
             note=f"{report.queries} query; violations {counts}"))
    emit(Row("runtime", f"parse() vs pandera.ibis on DuckDB, {n}", t_parse,
             "pandera.ibis DataFrameSchema.validate(lazy=True)", t_pi, "faster", 1.3, args.repeat,
             note="pandera: one query per check"))

    n_cast = 2000
    t0 = time.perf_counter()
    for _ in range(n_cast):
        schema.cast(table)
    t_cast = (time.perf_counter() - t0) / n_cast
    emit(Row("runtime", "cast() (structure only, no query)", t_cast, kind="wall", goal=0.001,
             repeat=n_cast, note=f"{t_cast * 1e6:.1f} us a call"))

    if not args.no_pandas:
        t0 = time.perf_counter()
        df = con.con.execute("SELECT * FROM fct").arrow().to_pandas()
        built = time.perf_counter() - t0
        print(f"(to pandas: {built:.1f}s, not counted)")
        t_pa = _pandera(df, max(1, args.repeat // 2))
        emit(Row("runtime", f"parse() vs pandera on pandas, {n}", t_parse,
                 "pandera validate(lazy=True), frame built", t_pa, "faster", 3.0,
                 max(1, args.repeat // 2), note=f"building the frame: {built:.1f} s, not counted"))
        del df  # GX gets its own frame: pandera's validation may have touched this one
        df = con.con.execute("SELECT * FROM fct").arrow().to_pandas()
        t_gx = _gx(df, 1)
        emit(Row("runtime", f"parse() vs GX on pandas, {n}", t_parse,
                 "GX 1.x validation of the same clauses, frame built", t_gx, "faster", 10.0, 1,
                 note=f"building the frame: {built:.1f} s, not counted"))
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
