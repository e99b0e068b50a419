"""`Schema.parse()` on real DuckDB: conversion, every clause kind, one aggregate query, errors."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any

import pytest

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import (
    CheckExecutionError,
    CoercionError,
    Column,
    ConstraintError,
    DataFrame,
    Schema,
    StructuralError,
    ValidationPhase,
)

from .helpers import BAR_TYPES, NOW, T0, Bars, bar_rows, connect, counting, duck_table, fct_schema

pytestmark = pytest.mark.engine

FCT_TYPES = {
    "series_id": "VARCHAR", "event_ts": "TIMESTAMPTZ", "value_degc": "DECIMAL(9,3)",
    "unit": "VARCHAR", "quality": "VARCHAR", "source_id": "VARCHAR", "revision": "BIGINT",
}


def fct_row(minutes: float = 1, value: Any = Decimal("20.5"), **kw: Any) -> tuple[Any, ...]:
    row = {"series_id": "s1", "event_ts": NOW - dt.timedelta(minutes=minutes), "value_degc": value,
           "unit": "degC", "quality": "good", "source_id": "plc", "revision": 0}
    row.update(kw)
    return tuple(row.values())


def inv(text: str) -> Clause:
    return Clause(f"invariant:{text}", "invariant", (), make_params(expr=text), text)


@pytest.fixture
def con():  # type: ignore[no-untyped-def]
    c = connect()
    yield c
    c.disconnect()


def test_clean_data_passes_with_exactly_one_query(con) -> None:  # type: ignore[no-untyped-def]
    Fct = fct_schema()
    t = duck_table(con, "fct", FCT_TYPES, [fct_row(1), fct_row(2), fct_row(3, None, quality="bad")])
    calls = counting(con)
    df = Fct.parse(t, now=NOW)
    assert len(calls.calls) == 1, calls.calls
    assert isinstance(df, DataFrame) and df.tacit_schema is Fct
    report = Fct.evaluate(t, now=NOW)
    assert report.ok and report.queries == 1
    assert len(calls.calls) == 2
    sql = report.sql or ""
    # uniqueness by a hash aggregate over the key in the same statement, never a window
    assert "GROUP BY" in sql and "OVER" not in sql, sql


def test_every_violated_clause_in_one_error(con) -> None:  # type: ignore[no-untyped-def]
    Fct = fct_schema()
    rows = [
        fct_row(1),
        fct_row(2, Decimal("200")),  # range
        fct_row(3, None),  # value null while quality good: invariant
        fct_row(4, unit="degF"),  # fixed_value
        fct_row(5, quality="meh"),  # accepted_values
        fct_row(6, source_id=None),  # not_null
        fct_row(1, revision=0),  # duplicate key of row 0
        fct_row(7, revision=-1),  # range:revision
    ]
    t = duck_table(con, "fct", FCT_TYPES, rows)
    with pytest.raises(ConstraintError) as ei:
        Fct.parse(t, now=NOW)
    e = ei.value
    assert e.phase is ValidationPhase.PARSE and e.schema is Fct
    assert e.counts == {
        "not_null:source_id": 1,
        "unique:series_id,event_ts,revision": 2,
        "accepted_values:quality": 1,
        "fixed_value:unit": 1,
        "range:value_degc": 1,
        "range:revision": 1,
        "invariant:value_degc is null only when quality = bad": 1,
    }
    bad = e.failure("range:value_degc")
    assert bad.rows[0]["value_degc"] == Decimal("200.000")
    assert bad.text == "-40 <= value_degc <= 150"
    assert "range:value_degc (1 row)" in str(e)


def test_null_operands_pass_like_sql_check(con) -> None:  # type: ignore[no-untyped-def]
    class S(Schema):
        a: Annotated[int | None, Column(type="int64")]
        b: Annotated[int | None, Column(type="int64")]
        __clauses__ = (inv("a < b"), inv("not (a >= b)"), inv("a in (1, 2) or b = 3"),
                       inv("a between 0 and b"))

    t = duck_table(con, "s", {"a": "BIGINT", "b": "BIGINT"}, [(1, None), (None, 5), (None, None)])
    assert S.evaluate(t).ok
    t2 = duck_table(con, "s2", {"a": "BIGINT", "b": "BIGINT"}, [(5, 1), (1, None)])
    with pytest.raises(ConstraintError) as ei:
        S.parse(t2)
    assert ei.value.counts == {
        "invariant:a < b": 1, "invariant:not (a >= b)": 1, "invariant:a in (1, 2) or b = 3": 1,
        "invariant:a between 0 and b": 1,
    }


def test_chained_comparison_and_only_when(con) -> None:  # type: ignore[no-untyped-def]
    class S(Bars):
        __clauses__ = (inv("low <= open <= high"), inv("trade_count is null only when quality = bad"))

    rows = [
        *bar_rows(2),
        ("AAA", T0 + dt.timedelta(minutes=9), Decimal("10"), Decimal("12"), Decimal("11"), 1, "good"),
        ("AAA", T0 + dt.timedelta(minutes=8), Decimal("10"), Decimal("10"), Decimal("11"), None, "good"),
        ("AAA", T0 + dt.timedelta(minutes=7), Decimal("10"), Decimal("10"), Decimal("11"), None, "bad"),
    ]
    t = duck_table(con, "bars", BAR_TYPES, rows)
    r = S.evaluate(t)
    assert r.result("invariant:low <= open <= high").count == 1
    assert r.result("invariant:trade_count is null only when quality = bad").count == 1
    assert r.result("accepted_values:quality").status == "pass"


def test_freshness_stale_and_empty_tables_fail(con) -> None:  # type: ignore[no-untyped-def]
    Fct = fct_schema()
    fresh = duck_table(con, "fresh", FCT_TYPES, [fct_row(14)])
    assert Fct.evaluate(fresh, now=NOW).result("freshness:event_ts").status == "pass"
    stale = duck_table(con, "stale", FCT_TYPES, [fct_row(16)])
    with pytest.raises(ConstraintError) as ei:
        Fct.parse(stale, now=NOW)
    assert ei.value.clause_ids == ("freshness:event_ts",)
    empty = duck_table(con, "empty", FCT_TYPES, [])
    r = Fct.evaluate(empty, now=NOW)
    assert [x.clause.id for x in r.results if x.status != "pass"] == ["freshness:event_ts"]
    assert all(x.count == 0 for x in r.results if x.status == "pass")  # SUM over no rows coalesced
    with pytest.raises(ValueError, match="timezone-aware"):
        Fct.parse(fresh, now=dt.datetime(2024, 3, 4, 10, 0))


def _cadence(**params: Any) -> Clause:
    base = {"column": "ts", "series": ("sid",), "interval_seconds": 60, "from_catalog": False,
            "tolerance_pct": "10", "gaps_allowed": False}
    base.update(params)
    return Clause("cadence:ts", "cadence", ("ts", "sid"), make_params(**base), "cadence: 60s")


class Points(Schema):
    sid: Annotated[str, Column(type="string", nullable=False)]
    ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
    revision: Annotated[int, Column(type="int64", nullable=False)]


PT = {"sid": "VARCHAR", "ts": "TIMESTAMPTZ", "revision": "BIGINT"}


def _pts(*spec: tuple[str, float, int]) -> list[tuple[Any, ...]]:
    return [(s, T0 + dt.timedelta(seconds=sec), rev) for s, sec, rev in spec]


def test_cadence_with_tolerance_gaps_and_revisions(con) -> None:  # type: ignore[no-untyped-def]
    class Cad(Points):
        __clauses__ = (_cadence(),)

    class CadGaps(Points):
        __clauses__ = (_cadence(gaps_allowed=True),)

    ok = _pts(("a", 0, 0), ("a", 54, 0), ("a", 120, 0), ("a", 120, 1), ("b", 0, 0), ("b", 66, 0))
    assert Cad.evaluate(duck_table(con, "ok", PT, ok)).ok  # +-10% and a restated point
    off = _pts(("a", 0, 0), ("a", 53, 0), ("a", 113, 0), ("a", 300, 0), ("b", 0, 0))
    r = Cad.evaluate(duck_table(con, "off", PT, off))
    assert r.result("cadence:ts").count == 2  # 53s too short, 187s a gap
    assert len(r.result("cadence:ts").rows) == 2
    assert CadGaps.evaluate(duck_table(con, "off2", PT, off)).result("cadence:ts").count == 1


def test_cadence_from_catalog(con) -> None:  # type: ignore[no-untyped-def]
    class Cad(Points):
        __clauses__ = (_cadence(interval_seconds=None, from_catalog=True, relation="cat",
                                catalog_key="sid", catalog_column="cadence_seconds"),)

    cat = duck_table(con, "cat", {"sid": "VARCHAR", "cadence_seconds": "INTEGER"},
                     [("a", 10), ("b", 60)])
    t = duck_table(con, "pts", PT, _pts(("a", 0, 0), ("a", 10, 0), ("a", 20, 0), ("b", 0, 0),
                                        ("b", 10, 0)))
    assert Cad.evaluate(t, catalog=cat).result("cadence:ts").count == 1
    assert Cad.evaluate(t, catalog={"cat": cat}).result("cadence:ts").count == 1
    with pytest.raises(CheckExecutionError) as ei:
        Cad.parse(t)
    assert "catalog" in ei.value.failure("cadence:ts").message


class Readings(Schema):
    series_id: Annotated[str, Column(type="string", nullable=False)]
    value: Annotated[Decimal | None, Column(type="decimal(12,4)")]
    unit: Annotated[str | None, Column(type="string")]
    __clauses__ = (
        Clause("catalog_unit:unit", "catalog_unit", ("unit", "series_id"),
               make_params(column="unit", key="series_id", relation="series_catalog",
                           catalog_key="series_id", catalog_column="unit"),
               "unit equals catalog unit for series_id"),
        Clause("catalog_bounds:value", "catalog_bounds", ("value", "series_id"),
               make_params(column="value", key="series_id", relation="series_catalog",
                           catalog_key="series_id", min_column="hard_min", max_column="hard_max"),
               "value within catalog hard_bounds for series_id"),
    )


def test_catalog_unit_and_bounds(con) -> None:  # type: ignore[no-untyped-def]
    cat = duck_table(con, "series_catalog",
                     {"series_id": "VARCHAR", "unit": "VARCHAR", "hard_min": "DECIMAL(12,4)",
                      "hard_max": "DECIMAL(12,4)"},
                     [("p1", "bar", 0, 300), ("t1", "degC", -40, 150)])
    rows = [("p1", Decimal("3"), "bar"), ("t1", Decimal("20"), "degC"),
            ("p1", Decimal("3000"), "kPa"),  # the kPa incident: wrong unit AND out of bounds
            ("zz", Decimal("1"), "bar"),  # no catalog entry: both clauses fail
            ("t1", None, None)]  # nulls pass
    t = duck_table(con, "r", {"series_id": "VARCHAR", "value": "DECIMAL(12,4)", "unit": "VARCHAR"},
                   rows)
    calls = counting(con)
    with pytest.raises(ConstraintError) as ei:
        Readings.parse(t, catalog=cat)
    assert ei.value.counts == {"catalog_unit:unit": 2, "catalog_bounds:value": 2}
    assert {r["series_id"] for r in ei.value.failure("catalog_unit:unit").rows} == {"p1", "zz"}
    assert len(calls.calls) == 3  # one aggregate query + one sample query per failed clause


def _revision(**params: Any) -> Clause:
    base = {"column": "revision", "time_column": "ts", "ingest_column": "ingested_at",
            "allowed": True, "window_seconds": None, "business_days": None}
    base.update(params)
    return Clause("revision_window", "revision_window", ("revision", "ts", "ingested_at"),
                  make_params(**base), "revision_policy: window")


class Revised(Points):
    ingested_at: Annotated[dt.datetime, Column(type="timestamp_us_utc", nullable=False)]


RT = {**PT, "ingested_at": "TIMESTAMPTZ"}
FRI = dt.datetime(2024, 3, 1, 12, 0, tzinfo=dt.UTC)  # a Friday


def test_revision_window_business_days_and_seconds(con) -> None:  # type: ignore[no-untyped-def]
    class Bdays(Revised):
        __clauses__ = (_revision(business_days=5, window_seconds=5 * 86400),)

    class Secs(Revised):
        __clauses__ = (_revision(window_seconds=3600),)

    class Never(Revised):
        __clauses__ = (_revision(allowed=False),)

    rows = [
        ("a", FRI, 0, FRI + dt.timedelta(days=30)),  # revision 0: no window
        ("a", FRI, 1, FRI + dt.timedelta(days=7)),  # Fri -> next Fri: 5 business days, ok
        ("a", FRI, 2, FRI + dt.timedelta(days=10)),  # Fri -> Mon+1: 6 business days, late
        ("b", FRI, 1, FRI + dt.timedelta(minutes=30)),
    ]
    t = duck_table(con, "rev", RT, rows)
    assert Bdays.evaluate(t).result("revision_window").count == 1
    assert Secs.evaluate(t).result("revision_window").count == 2
    assert Never.evaluate(t).result("revision_window").count == 3


def test_coercion_converts_or_names_column_and_rows(con) -> None:  # type: ignore[no-untyped-def]
    class Prices(Schema):
        sym: Annotated[str, Column(type="string", nullable=False)]
        px: Annotated[Decimal | None, Column(type="decimal(18,8)")]
        n: Annotated[int | None, Column(type="int64")]
        ts: Annotated[dt.datetime | None, Column(type="timestamp_ms_utc")]
        __clauses__ = (inv("px >= 0"),)

    types = {"sym": "VARCHAR", "px": "VARCHAR", "n": "DOUBLE", "ts": "VARCHAR"}
    good = duck_table(con, "good", types, [("A", "1.5", 2.0, "2024-03-04T09:00:00Z"),
                                           ("B", None, None, "2024-03-04 09:00:00+02:00")])
    df = Prices.parse(good)
    assert str(df.schema()["px"]) == "decimal(18, 8)"
    assert str(df.schema()["ts"]) == "timestamp('UTC', 3)"
    rows = df.order_by("sym").to_pyarrow().to_pylist()
    assert rows[0]["px"] == Decimal("1.5") and rows[0]["n"] == 2
    assert rows[1]["ts"] == dt.datetime(2024, 3, 4, 7, 0, tzinfo=dt.UTC)

    bad = duck_table(con, "bad", types, [
        ("A", "abc", 2.0, "2024-03-04T09:00:00Z"),  # not a number
        ("B", "-1", 2.5, "2024-03-04T09:00:00Z"),  # 2.5 is not an int64 without loss; px < 0
        ("C", "1", 3.0, "2024-03-04 09:00:00"),  # no offset: refusing to guess the zone
        ("D", None, None, None),  # nulls stay nulls
    ])
    with pytest.raises(CoercionError) as ei:
        Prices.parse(bad)
    e = ei.value
    assert e.counts == {"column:px": 1, "column:n": 1, "column:ts": 1, "invariant:px >= 0": 1}
    assert e.failure("column:px").rows[0]["px"] == "abc"  # the source value, not a null
    assert e.failure("column:n").rows[0]["n"] == 2.5
    assert "timestamp_ms_utc" in e.failure("column:ts").message


def test_parse_refuses_naive_timestamps_and_reports_the_rest(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "naive", {**BAR_TYPES, "bar_start": "TIMESTAMP"},
                   [("AAA", dt.datetime(2024, 1, 1), 1, 2, 3, None, "nope")])
    with pytest.raises(StructuralError) as ei:
        Bars.parse(t)
    e = ei.value
    assert e.failure("column:bar_start").message.startswith("expected timestamp_ms_utc")
    # clauses on the usable columns were still evaluated and are in the same error
    assert e.counts["accepted_values:quality"] == 1
    assert e.failure("not_null:bar_start").error == "not evaluated"


def test_engine_failure_is_check_execution_error_never_a_pass(con) -> None:  # type: ignore[no-untyped-def]
    class Big(Schema):
        n: Annotated[int | None, Column(type="int64")]
        # integer arithmetic is exact to 38 digits (DECIMAL(38, 0)): (2^62)^3 is past it
        __clauses__ = (inv("n * n * n >= 0"), inv("n >= 0"))

    t = duck_table(con, "big", {"n": "BIGINT"}, [(2**62,), (-1,)])
    with pytest.raises(CheckExecutionError) as ei:
        Big.parse(t)
    e = ei.value
    f = e.failure("invariant:n * n * n >= 0")
    assert f.error is not None and "Overflow" in f.error
    # the other clause was isolated and evaluated for real
    assert e.counts["invariant:n >= 0"] == 1
