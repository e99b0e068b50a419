"""The property of `since` (docs/increments.md): per clause, ``evaluate(since=s)`` gives the full
check's violations restricted to those involving a row at or after `s`.

The data are generated series with violations planted before, at and after the boundary (keys
repeated across it, steps off the cadence and gaps straddling it or wholly before it, short
windows on both sides, values out of range and NULL times). The restricted verdict is computed
by a plain Python reference below, written from the semantics (not from the runtime's code), and
the runtime is checked on DuckDB against it, both without `since` (the reference's full check)
and with it; on PostgreSQL for a fixed set of generated cases.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Any

import ibis
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import Column, Schema

pytestmark = pytest.mark.engine

UTC = dt.UTC
T0 = dt.datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
NOW = T0 + dt.timedelta(days=2)
INTERVAL, TOLERANCE = 60, 10  # seconds, percent
WINDOW, EXPECTED = 600, 10  # 10 readings per 10 minutes, all of them
LOW, HIGH = 0, 100


class Meter(Schema):
    """Series `sid` every minute (+-10%, no gaps), 10 per 10-minute window, a reading id that
    never repeats, a value in 0..100."""

    sid: Annotated[str, Column(type="string", nullable=False)]
    ts: Annotated[dt.datetime, Column(type="timestamp_ms_utc", nullable=False)]
    rid: Annotated[int, Column(type="int64", nullable=False)]
    v: Annotated[int | None, Column(type="int64")]
    __clauses__ = (
        Clause("unique:sid,ts", "unique", ("sid", "ts"), make_params(columns=("sid", "ts")),
               "key: [sid, ts]"),
        Clause("unique:rid", "unique", ("rid",), make_params(columns=("rid",)), "rid: unique"),
        Clause("range:v", "range", ("v",), make_params(column="v", min=str(LOW), max=str(HIGH)),
               f"v: {LOW}..{HIGH}"),
        Clause("cadence:ts", "cadence", ("ts", "sid"),
               make_params(column="ts", series=("sid",), interval_seconds=INTERVAL,
                           from_catalog=False, tolerance_pct=str(TOLERANCE), gaps_allowed=False),
               "cadence: 1m +-10%"),
        Clause("completeness:ts", "completeness", ("ts", "sid"),
               make_params(column="ts", series=("sid",), window_seconds=WINDOW,
                           expected=EXPECTED, min_pct="100"),
               "completeness: 10 per 10m"),
    )


TYPES = {"sid": "VARCHAR", "ts": "TIMESTAMPTZ", "rid": "BIGINT", "v": "BIGINT"}
PG_TYPES = {"sid": "TEXT", "ts": "TIMESTAMPTZ", "rid": "BIGINT", "v": "BIGINT"}


@dataclass(frozen=True)
class Row:
    sid: str
    ts: int | None  # seconds after T0
    rid: int
    v: int | None


# -- the reference: each clause's violations, each with the times of the rows it involves ------
def violations(rows: list[Row]) -> dict[str, list[tuple[int | None, ...]]]:
    """Every violation of the full check, as the times of the rows it involves (a row of the
    increment is one at or after since, or with no time). For `unique`, each row whose key is
    repeated is a violation of its own: the row alone."""
    out: dict[str, list[tuple[int | None, ...]]] = {
        c.id: [] for c in Meter.clauses() if c.kind not in ("column", "no_unknown_columns")}
    for r in rows:
        if r.ts is None:
            out["not_null:ts"].append((None,))
        if r.v is not None and not LOW <= r.v <= HIGH:
            out["range:v"].append((r.ts,))
    keys = Counter((r.sid, r.ts) for r in rows if r.ts is not None)
    out["unique:sid,ts"] = [(r.ts,) for r in rows if r.ts is not None and keys[(r.sid, r.ts)] > 1]
    rids = Counter(r.rid for r in rows)
    out["unique:rid"] = [(r.ts,) for r in rows if rids[r.rid] > 1]
    by_series: dict[str, list[int]] = {}
    for r in rows:
        if r.ts is not None:
            by_series.setdefault(r.sid, []).append(r.ts)
    lo, hi = INTERVAL * (100 - TOLERANCE) / 100, INTERVAL * (100 + TOLERANCE) / 100
    for times in by_series.values():
        times.sort()
        for prev, cur in itertools.pairwise(times):
            if not lo <= cur - prev <= hi:
                out["cadence:ts"].append((prev, cur))
        distinct = sorted(set(times))
        first, last = distinct[0], distinct[-1]
        k0, k1 = -(-first // WINDOW), last // WINDOW - 1
        for k in range(k0, k1 + 1):
            n = sum(1 for x in distinct if k * WINDOW <= x < (k + 1) * WINDOW)
            if n < EXPECTED:
                # a window involves the increment when it ends after since: its end, as a time
                out["completeness:ts"].append(((k + 1) * WINDOW - 1,))
    return out


def restricted(rows: list[Row], since: int | None) -> dict[str, int]:
    """Per clause: how many of the full check's violations involve a row of the increment."""
    def involved(times: tuple[int | None, ...]) -> bool:
        return since is None or any(t is None or t >= since for t in times)

    return {cid: sum(1 for v in vs if involved(v)) for cid, vs in violations(rows).items()}


def runtime_counts(report: Any) -> dict[str, int]:
    for r in report.results:
        assert r.status in ("pass", "fail"), (r.clause.id, r.message)
    return {r.clause.id: r.count or 0 for r in report.results
            if r.clause.kind not in ("column", "no_unknown_columns")}


# -- generated data -----------------------------------------------------------------------------
STEPS = st.sampled_from([60] * 12 + [57, 65, 30, 0, 120, 300])  # mostly on time; 0: a repeat
VALUES = st.sampled_from([1, 50, 100] * 6 + [-5, 101, None])


@st.composite
def cases(draw: Any) -> tuple[list[Row], int | None]:
    rows: list[Row] = []
    rid = 0
    for sid in draw(st.sampled_from([("a",), ("a", "b"), ("a", "b", "c")])):
        t = draw(st.integers(0, 900))
        for _ in range(draw(st.integers(1, 60))):
            t += draw(STEPS)
            rid += 1
            # a reading id drawn again now and then: a repeat, often across the boundary
            r = draw(st.integers(1, rid)) if draw(st.integers(0, 15)) == 0 else rid + 1000
            rows.append(Row(sid, t, r, draw(VALUES)))
    for _ in range(draw(st.integers(0, 2))):  # rows with no time
        rows.append(Row("a", None, 999_999 - len(rows), draw(VALUES)))
    times = sorted({r.ts for r in rows if r.ts is not None})
    # since at a row's time, just after one, just before one, at a window edge, or before all
    pick = draw(st.sampled_from(["at", "after", "before", "edge", "first", "late"]))
    mid = times[draw(st.integers(0, len(times) - 1))]
    since = {"at": mid, "after": mid + 1, "before": mid - 1, "edge": mid // WINDOW * WINDOW,
             "first": times[0] - 3600, "late": times[-1] + 1}[pick]
    return rows, since


def _instant(seconds: int | None) -> dt.datetime | None:
    return None if seconds is None else T0 + dt.timedelta(seconds=seconds)


def _load(con: Any, name: str, rows: list[Row], types: dict[str, str]) -> Any:
    cols = ", ".join(f'"{c}" {t}' for c, t in types.items())
    con.raw_sql(f'DROP TABLE IF EXISTS "{name}"')
    con.raw_sql(f'CREATE TABLE "{name}" ({cols})')
    data = [(r.sid, _instant(r.ts), r.rid, r.v) for r in rows]
    if con.name == "duckdb":
        con.con.executemany(f'INSERT INTO "{name}" VALUES (?, ?, ?, ?)', data)
    else:
        with con.con.cursor() as cur:
            cur.executemany(f'INSERT INTO "{name}" VALUES (%s, %s, %s, %s)', data)
        con.con.commit()
    return con.table(name)


def _check(t: Any, rows: list[Row], since: int | None) -> None:
    full = runtime_counts(Meter.evaluate(t, now=NOW))
    assert full == restricted(rows, None)  # the reference is the full check
    got = runtime_counts(Meter.evaluate(t, now=NOW, since=_instant(since)))
    assert got == restricted(rows, since)


_DUCK = ibis.duckdb.connect()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
# a key repeated across the boundary, a gap straddling since and one wholly before it
@example(([Row("a", 0, 1, 1), Row("a", 60, 2, 1), Row("a", 300, 3, 1), Row("a", 360, 4, 1),
           Row("a", 600, 1, 500), Row("a", 1200, 5, 1)], 600))
# a repeated point and a value out of range on both sides, a NULL time
@example(([Row("a", 60, 1, -1), Row("a", 60, 2, 1), Row("a", 120, 3, 1), Row("a", 180, 4, 200),
           Row("a", 180, 5, 1), Row("a", None, 6, 1)], 150))
def test_since_is_the_full_check_restricted_to_the_increment_on_duckdb(
        case: tuple[list[Row], int | None]) -> None:
    rows, since = case
    _check(_load(_DUCK, "meter", rows, TYPES), rows, since)


def test_the_reference_restricts_as_the_semantics_say() -> None:
    # a gap wholly before since (0 -> 300) is not counted; one straddling it (360 -> 1200) is
    rows = [Row("a", 0, 1, 1), Row("a", 300, 2, 1), Row("a", 360, 3, 1), Row("a", 1200, 4, 1)]
    assert restricted(rows, None)["cadence:ts"] == 2
    assert restricted(rows, 600)["cadence:ts"] == 1
    assert restricted(rows, 1201)["cadence:ts"] == 0


def _draw(rnd: random.Random) -> tuple[list[Row], int | None]:
    rows: list[Row] = []
    rid = 0
    for sid in ("a", "b"):
        t = rnd.randint(0, 900)
        for _ in range(rnd.randint(20, 60)):
            t += rnd.choice([60] * 12 + [57, 65, 30, 0, 120, 300])
            rid += 1
            r = rnd.randint(1, rid) if rnd.randint(0, 10) == 0 else rid + 1000
            rows.append(Row(sid, t, r, rnd.choice([1, 50, 100] * 6 + [-5, 101, None])))
    rows.append(Row("b", None, 999_999, 7))
    times = sorted({r.ts for r in rows if r.ts is not None})
    mid = rnd.choice(times)
    return rows, rnd.choice([mid, mid + 1, mid - 1, mid // WINDOW * WINDOW])


@pytest.mark.parametrize("seed", range(6))
def test_since_is_the_full_check_restricted_on_postgres(pg_server: Any, seed: int) -> None:
    rows, since = _draw(random.Random(seed))
    con = ibis.postgres.connect(host=pg_server.host, port=pg_server.port, user="postgres",
                                database="postgres")
    try:
        _check(_load(con, f"meter_{seed}", rows, PG_TYPES), rows, since)
    finally:
        con.disconnect()
