"""`since=`: the increment and its boundary (docs/increments.md), on DuckDB, case by case. The
property test (test_since_property.py) compares the whole verdict with the full check's."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any

import pytest

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import Column, DataFrame, Schema, UsageError, contract
from tacit_gen.runtime.evaluate import evaluate, parse_query

from .helpers import T0, connect, duck_table, fct_schema

pytestmark = pytest.mark.engine

UTC = dt.UTC
NOW = T0 + dt.timedelta(days=1)


def _cadence(**params: Any) -> Clause:
    base = {"column": "ts", "series": ("sid",), "interval_seconds": 60, "from_catalog": False,
            "tolerance_pct": "10", "gaps_allowed": False}
    base.update(params)
    return Clause("cadence:ts", "cadence", ("ts", "sid"), make_params(**base), "cadence: 60s")


def _completeness(window: int = 600, expected: int = 10, pct: str = "100") -> Clause:
    return Clause("completeness:ts", "completeness", ("ts", "sid"),
                  make_params(column="ts", series=("sid",), window_seconds=window,
                              expected=expected, min_pct=pct),
                  f"completeness: {expected} per {window}s")


class Points(Schema):
    sid: Annotated[str, Column(type="string", nullable=False)]
    ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
    v: Annotated[int | None, Column(type="int64")]
    __clauses__ = (
        Clause("unique:sid,ts", "unique", ("sid", "ts"), make_params(columns=("sid", "ts")),
               "key: [sid, ts]"),
        Clause("range:v", "range", ("v",), make_params(column="v", min="0", max="100"),
               "v: 0..100"),
        _cadence(),
        _completeness(),
    )


class Timeless(Schema):
    """No time column: ``since`` has nothing to select on."""

    v: Annotated[int, Column(type="int64")]


PT = {"sid": "VARCHAR", "ts": "TIMESTAMPTZ", "v": "BIGINT"}


def _minutes(sid: str, minutes: list[int], v: int = 1) -> list[tuple[Any, ...]]:
    return [(sid, T0 + dt.timedelta(minutes=m), v) for m in minutes]


@pytest.fixture
def con():  # type: ignore[no-untyped-def]
    return connect()


def _bad(report: Any) -> dict[str, int | None]:
    return {r.clause.id: r.count for r in report.results if r.status != "pass"}


# -- usage errors -------------------------------------------------------------------------------
def test_a_naive_since_is_a_usage_error_saying_why(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "p", PT, _minutes("a", [0, 1]))
    with pytest.raises(UsageError, match=r"since=2024-03-04T09:00:00 has no time zone"):
        Points.parse(t, now=NOW, since=dt.datetime(2024, 3, 4, 9, 0))
    assert issubclass(UsageError, ValueError)


def test_a_since_later_than_now_is_a_usage_error(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "p", PT, _minutes("a", [0, 1]))
    with pytest.raises(UsageError, match=r"is later than now=2024-03-05T09:00:00.*future"):
        Points.evaluate(t, now=NOW, since=NOW + dt.timedelta(seconds=1))
    with pytest.raises(UsageError, match="later than now"):  # now: the current time
        evaluate(Points, t, since=dt.datetime.now(UTC) + dt.timedelta(days=1))


def test_since_without_a_time_column_names_the_schema(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "tl", {"v": "BIGINT"}, [(1,)])
    with pytest.raises(UsageError, match="since= needs a time column, and Timeless has none"):
        Timeless.parse(t, since=T0)
    assert Timeless.parse(t) is not None  # without since: as ever


def test_parse_query_and_contract_take_since(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "p", PT, [*_minutes("a", [0, 1, 2]), ("a", T0 + dt.timedelta(minutes=3), 500)])
    q = parse_query(Points, t, now=NOW, since=T0 + dt.timedelta(minutes=2))
    assert q is not None and "MAKE_TIMESTAMPTZ(2024, 3, 4, 9, 2, 0" in str(q.compile())

    @contract(validate=True, now=NOW, since=T0 + dt.timedelta(minutes=4))
    def late(df: DataFrame[Points]) -> DataFrame[Points]:
        return df

    assert late(t).count().execute() == 0  # the increment (no row at or after 09:04) passes

    with pytest.raises(TypeError, match="since= is read by parse"):
        contract(since=T0)(lambda df: df)

    @contract(validate=True, since=T0)
    def timeless(df: DataFrame[Timeless]) -> None: ...

    with pytest.raises(UsageError, match="Timeless has none"):
        timeless(duck_table(con, "tl", {"v": "BIGINT"}, [(1,)]))


# -- per clause ---------------------------------------------------------------------------------
def test_row_clauses_read_the_increment_only(con) -> None:  # type: ignore[no-untyped-def]
    rows = _minutes("a", [0, 1], v=500) + _minutes("a", [2, 3], v=1) + _minutes("a", [4], v=-1)
    t = duck_table(con, "p", PT, rows)
    assert _bad(Points.evaluate(t, now=NOW)) == {"range:v": 3}
    assert _bad(Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=2))) == {"range:v": 1}
    assert _bad(Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=5))) == {}


def test_a_null_time_is_in_the_increment(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "p", PT, [*_minutes("a", [0, 1]), ("a", None, 7)])
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=5))
    assert _bad(r) == {"not_null:ts": 1}


def test_a_new_key_may_not_repeat_an_old_one(con) -> None:  # type: ignore[no-untyped-def]
    rows = _minutes("a", [0, 1, 1, 2, 3]) + _minutes("a", [3])  # 09:01 twice (old), 09:03 twice
    rows += [("b", T0 + dt.timedelta(minutes=3), 1)]  # same time, other series: no repeat
    t = duck_table(con, "p", PT, rows)
    assert _bad(Points.evaluate(t, now=NOW))["unique:sid,ts"] == 4
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=2))
    # the two rows at 09:03, not the old pair (and the step of 0 between them)
    assert _bad(r) == {"unique:sid,ts": 2, "cadence:ts": 1}
    assert {row["ts"].minute for row in r.result("unique:sid,ts").rows} == {3}


def test_a_new_row_repeating_a_key_from_before_since_fails(con) -> None:  # type: ignore[no-untyped-def]
    # a point re-sent with a later-looking row is impossible (same key = same time), so the
    # repeat across the boundary is a key without the time column: unique on (sid, v)
    class ByValue(Schema):
        sid: Annotated[str, Column(type="string", nullable=False)]
        ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
        v: Annotated[int | None, Column(type="int64")]
        __time__ = "ts"
        __clauses__ = (Clause("unique:sid,v", "unique", ("sid", "v"),
                              make_params(columns=("sid", "v")), "key: [sid, v]"),)

    rows = [("a", T0, 1), ("a", T0 + dt.timedelta(minutes=1), 2),
            ("a", T0 + dt.timedelta(minutes=5), 1)]
    t = duck_table(con, "bv", PT, rows)
    r = ByValue.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=5))
    assert _bad(r) == {"unique:sid,v": 1}  # the new row: its key is in the history
    assert [row["v"] for row in r.result("unique:sid,v").rows] == [1]
    assert len(r.result("unique:sid,v").rows) == 1  # the offending rows come from the increment
    assert ByValue.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=6)).ok


def test_cadence_continues_from_the_last_point_before_since(con) -> None:  # type: ignore[no-untyped-def]
    # a: a gap wholly before since (09:02 -> 09:05); b: a gap straddling since (09:03 -> 09:07)
    rows = _minutes("a", [0, 1, 2, 5, 6, 7, 8, 9]) + _minutes("b", [0, 1, 2, 3, 7, 8, 9])
    t = duck_table(con, "p", PT, rows)
    full = Points.evaluate(t, now=NOW)
    assert full.result("cadence:ts").count == 2
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=6))
    assert r.result("cadence:ts").count == 1
    assert [(x["sid"], x["ts"].minute) for x in r.result("cadence:ts").rows] == [("b", 7)]
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=8))
    assert r.result("cadence:ts").count == 0  # every step from 09:07 on is on time


def test_session_cadence_continues_across_since(con) -> None:  # type: ignore[no-untyped-def]
    class Daily(Points):
        __clauses__ = (_cadence(interval_seconds=None, sessions="trading_day"),)

    days = [dt.datetime(2024, 3, d, tzinfo=UTC) for d in (4, 5, 6, 8, 11, 12)]  # no 7 March
    rows = [("a", d, 1) for d in days]
    t = duck_table(con, "d", PT, rows)
    assert Daily.evaluate(t, now=NOW + dt.timedelta(days=30)).result("cadence:ts").count == 1
    late = dt.datetime(2024, 3, 8, tzinfo=UTC)
    r = Daily.evaluate(t, now=NOW + dt.timedelta(days=30), since=late)
    assert r.result("cadence:ts").count == 1  # 6 March -> 8 March straddles since
    r = Daily.evaluate(t, now=NOW + dt.timedelta(days=30), since=late + dt.timedelta(hours=1))
    assert r.result("cadence:ts").count == 0  # the skipped day is wholly before since


def test_completeness_checks_the_windows_that_end_after_since(con) -> None:  # type: ignore[no-untyped-def]
    # 10-minute windows from 09:00; a: window 09:10 short (09:13 missing), b: window 09:30 short
    a = [m for m in range(0, 41) if m != 13]
    b = [m for m in range(0, 41) if m != 35]
    t = duck_table(con, "p", PT, _minutes("a", a) + _minutes("b", b))
    full = Points.evaluate(t, now=NOW)
    assert full.result("completeness:ts").count == 2
    # since 09:18: the 09:10 window ends after it and reads its rows from before it
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=18))
    assert r.result("completeness:ts").count == 2
    r = Points.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=20))  # 09:10 ends at since
    assert r.result("completeness:ts").count == 1
    rows = r.result("completeness:ts").rows
    assert [(x["sid"], x["window_start"].minute) for x in rows] == [("b", 30)]


def test_freshness_reads_the_newest_point_of_the_whole_relation(con) -> None:  # type: ignore[no-untyped-def]
    Fct = fct_schema()
    types = {"series_id": "VARCHAR", "event_ts": "TIMESTAMPTZ", "value_degc": "DECIMAL(9,3)",
             "unit": "VARCHAR", "quality": "VARCHAR", "source_id": "VARCHAR", "revision": "BIGINT"}
    rows = [("s", T0 + dt.timedelta(minutes=m), Decimal("1"), "degC", "good", "x", 0)
            for m in range(3)]
    t = duck_table(con, "f", types, rows)
    now = T0 + dt.timedelta(minutes=10)
    # no row at or after since: the newest point (09:02) is still 8 minutes old
    assert Fct.evaluate(t, now=now, since=T0 + dt.timedelta(minutes=5)).ok
    late = T0 + dt.timedelta(minutes=30)
    r = Fct.evaluate(t, now=late, since=T0 + dt.timedelta(minutes=5))
    assert _bad(r) == {"freshness:event_ts": None}


def test_without_since_the_query_is_unchanged(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "p", PT, _minutes("a", [0, 1, 2]))
    a = parse_query(Points, t, now=NOW)
    b = parse_query(Points, t, now=NOW, since=None)
    assert a is not None and b is not None
    assert str(a.compile()) == str(b.compile())
    assert "MAKE_TIMESTAMPTZ(2024, 3, 4" not in str(a.compile())


def test_one_series_without_a_series_column(con) -> None:  # type: ignore[no-untyped-def]
    class One(Schema):
        ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
        __clauses__ = (
            Clause("cadence:ts", "cadence", ("ts",),
                   make_params(column="ts", series=(), interval_seconds=60, from_catalog=False,
                               tolerance_pct="10", gaps_allowed=False), "cadence: 60s"),
            Clause("completeness:ts", "completeness", ("ts",),
                   make_params(column="ts", series=(), window_seconds=600, expected=10,
                               min_pct="100"), "completeness: 10 per 10m"),
        )

    minutes = [m for m in range(0, 41) if m not in (13, 25)]  # gaps at 09:12-09:14, 09:24-09:26
    t = duck_table(con, "one", {"ts": "TIMESTAMPTZ"},
                   [(T0 + dt.timedelta(minutes=m),) for m in minutes])
    assert _bad(One.evaluate(t, now=NOW)) == {"cadence:ts": 2, "completeness:ts": 2}
    r = One.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=20))
    assert _bad(r) == {"cadence:ts": 1, "completeness:ts": 1}
    r = One.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=26))
    assert _bad(r) == {"cadence:ts": 1, "completeness:ts": 1}  # 09:24 -> 09:26 straddles it
    r = One.evaluate(t, now=NOW, since=T0 + dt.timedelta(minutes=30))
    assert _bad(r) == {}
