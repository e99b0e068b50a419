"""Time series clauses: freshness (a table-level verdict), cadence (each point's step from the
previous one of its series) and completeness (the readings per window or session)."""

from __future__ import annotations

import datetime as _dt
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import uses_sessions
from tacit_gen.runtime.clauses.base import (
    EPOCH,
    Check,
    PointsCheck,
    TableCheck,
    by_series,
    epoch_ms,
    tolerance,
    us_between,
)
from tacit_gen.runtime.clauses.sessions import session_cadence, session_windows
from tacit_gen.runtime.compile import CompileError

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import Context

__all__ = ["cadence", "completeness", "freshness"]


def freshness(cx: Context, c: Clause) -> Check:
    """The newest value is at most `max_age_seconds` before now (a date column: whole days
    before the UTC date of now); no rows fail."""
    import ibis
    import ibis.expr.datatypes as dt

    name = str(c.param("column"))
    age = (f"{int(c.param('max_age_seconds')) // 86_400} day(s) before the UTC date of"
           if c.param("whole_days") else f"{c.param('max_age_seconds')}s before")
    message = (f"newest {name} is older than {age} {cx.now.isoformat()} (or no rows)")
    if cx.wide[name].type().is_date():  # whole days before the UTC date of now
        days = int(c.param("max_age_seconds")) // 86_400
        oldest = cx.now.astimezone(_dt.UTC).date() - _dt.timedelta(days=days)
        lit: Any = ibis.literal(oldest, type=dt.date)
    else:
        edge = cx.now - _dt.timedelta(seconds=int(c.param("max_age_seconds")))
        lit = ibis.literal(edge, type=dt.Timestamp(timezone="UTC"))
    over = None
    col: Any = cx.wide[name]
    if cx.since is not None:
        # the newest value of the whole relation, read from the rows at or after the edge
        # alone (a range an index or DuckDB's zone maps prune): the increment may be empty
        over = cx.full.filter(cx.full[name] >= lit)
        col = over[name]
    ok = (col.max() >= lit).fill_null(False)
    return TableCheck(ibis.ifelse(ok, 0, 1), message, over)


def cadence(cx: Context, c: Clause) -> Check:
    """Points off the expected cadence (tacit_gen.semantics: steps within the tolerance)."""
    import ibis

    data = cx.converted
    what = "point(s) off the expected cadence"
    tcol = str(c.param("column"))
    series = [s for s in (c.param("series") or ()) if isinstance(s, str)]
    # Rows with a NULL time or series value are not points (not_null's business). Every row at
    # the latest revision of a point counts, ties included: an exact duplicate is a step of 0.
    pts = data.filter([data[x].notnull() for x in (tcol, *series)])
    if "revision" in data.columns and "revision" not in series and tcol != "revision":
        latest = pts["revision"].max().over(ibis.window(group_by=[*series, tcol]))
        pts = pts.mutate(__tacit_latest=latest)
        pts = pts.filter(
            (pts["revision"] == pts["__tacit_latest"])
            | (pts["revision"].isnull() & pts["__tacit_latest"].isnull())
        ).drop("__tacit_latest")
    edge: Any = None  # under `since`: TRUE on each series' last point before it (never judged)
    if cx.since is not None:
        pts = _with_last_points(cx, pts, tcol, series, cx.since, c)
        edge = pts["__tacit_edge"]
    if uses_sessions(c):
        if c.param("from_catalog"):
            raise CompileError("a catalog cadence is not checked within sessions")
        placed, viol = session_cadence(cx, pts, c, tcol, series)
        if edge is not None:
            viol = viol & ~placed["__tacit_edge"]  # pyright: ignore[reportOperatorIssue]
        return PointsCheck(placed, viol, what)
    if c.param("from_catalog"):
        cat = cx.inputs.catalog_relation(c.param("relation"))
        agg = cat.group_by(cat[c.param("catalog_key")].name("__tacit_cadk")).aggregate(
            __tacit_cads=cat[c.param("catalog_column")].min()
        )
        keep = list(pts.columns)
        pts = pts.left_join(agg, pts[series[0]] == agg["__tacit_cadk"]).select(  # pyright: ignore[reportArgumentType]
            *keep, "__tacit_cads"
        )
        interval_us: Any = pts["__tacit_cads"].cast("int64") * 1_000_000
    else:
        seconds = c.param("interval_seconds")
        if seconds is None:
            raise CompileError("cadence without an interval")
        interval_us = int(seconds) * 1_000_000
    window = ibis.window(group_by=series or None, order_by=[pts[tcol]])
    pts = pts.mutate(__tacit_prev=pts[tcol].lag().over(window))
    step = us_between(pts["__tacit_prev"], pts[tcol])
    tol = tolerance(c.param("tolerance_pct"))
    p, q = tol.numerator, tol.denominator
    # integer arithmetic: step < interval * (1 - tol/100)  <=>  step*100q < interval*(100q-p)
    scaled = step * ibis.literal(100 * q, type="int64")

    def bound(factor: int) -> Any:  # products in BIGINT (a literal alone may be INTEGER)
        if isinstance(interval_us, int):
            return ibis.literal(interval_us * factor, type="int64").cast("int64")
        return interval_us * ibis.literal(factor, type="int64").cast("int64")

    short = scaled < bound(100 * q - p)
    viol = short
    if not c.param("gaps_allowed"):
        viol = short | (scaled > bound(100 * q + p))
    viol = viol.fill_null(False)
    if c.param("from_catalog"):
        # a series unknown to the catalog (or with no interval) fails, never a silent pass
        viol = viol | pts["__tacit_cads"].isnull()
    if edge is not None:
        viol = viol & ~pts["__tacit_edge"]  # pyright: ignore[reportOperatorIssue]
    return PointsCheck(pts, viol, what)


def _with_last_points(cx: Context, pts: ir.Table, tcol: str, series: list[str],
                      since: _dt.datetime, c: Clause) -> ir.Table:
    """The increment's points (`pts`) and, as each series' predecessor of its first one, that
    series' last point before `since` (one row per series, every other column NULL);
    ``__tacit_edge`` tells them apart."""
    import ibis

    lookback = _lookback(c)
    wanted = (None if lookback is None or not series or c.param("gaps_allowed")
              else pts.select(*series))
    last = last_before(cx, tcol, series, since, lookback, wanted)
    schema = pts.schema()
    fill: dict[str, Any] = {}
    for x in pts.columns:
        value: Any = (last["__tacit_last"] if x == tcol else last[x] if x in series
                      else ibis.null(schema[x]))
        fill[x] = value.cast(schema[x]).name(x)
    edges = last.select(*fill.values(), __tacit_edge=ibis.literal(True))
    mine = pts.mutate(__tacit_edge=ibis.literal(False))
    return mine.union(edges)


def _lookback(c: Clause) -> _dt.timedelta | None:
    """How far before `since` a cadence's predecessor decides a verdict: twice the longest
    step within the tolerance (None: the interval varies, from the catalog or sessions). A
    predecessor older than that makes a step longer than any allowed one (a gap)."""
    seconds = c.param("interval_seconds")
    if seconds is None or c.param("from_catalog") or uses_sessions(c):
        return None
    longest = Fraction(int(seconds)) * (1 + tolerance(c.param("tolerance_pct")) / 100)
    return _dt.timedelta(seconds=2 * math.ceil(longest))


def last_before(cx: Context, tcol: str, series: list[str], instant: _dt.datetime,
                lookback: _dt.timedelta | None, wanted: ir.Table | None) -> ir.Table:
    """Each series' last point before `instant` (series..., ``__tacit_last``), read from the
    whole relation: ``max(T) WHERE T < instant GROUP BY series``.

    With a `lookback`, only the rows within it before `instant` are grouped, plus, for the
    series of `wanted` that have none there, their rows before it (a semi-join on those
    series: when every wanted series has a recent point, no earlier row is read). `wanted`
    None: the series without a recent point are left out (their last point is too old to
    matter to the caller).
    """
    full = cx.full
    rows = full.filter([full[x].notnull() for x in series]) if series else full
    if lookback is None or not series:
        old = rows.filter(cx.before(rows, instant))
        last: Any = by_series(old, series, __tacit_last=old[tcol].max())
        return last.filter(last["__tacit_last"].notnull())  # type: ignore[no-any-return]
    edge = instant - lookback
    near = rows.filter(cx.before(rows, instant) & cx.from_(rows, edge))
    recent: Any = near.group_by(series).aggregate(__tacit_last=near[tcol].max())
    if wanted is None:
        return recent  # type: ignore[no-any-return]
    missing = wanted.distinct().anti_join(recent, series)
    # no NULL test on `far` (the semi-join drops NULL series): with one, DuckDB 1.0 estimates
    # `far` small, builds its hash table from it and reads every earlier row (10x slower)
    far = full.filter(cx.before(full, edge)).semi_join(missing, series)
    older: Any = far.group_by(series).aggregate(__tacit_last=far[tcol].max())
    return recent.union(older)  # type: ignore[no-any-return]


def completeness(cx: Context, c: Clause) -> Check:
    """tacit_gen.semantics.completeness: one row per series window (a UTC-aligned window, or
    for `N per session` a session of the series' calendar) between the series' first and
    last readings, TRUE when it holds too few (less what allowed outages cover)."""
    import ibis

    since = cx.since
    data = cx.full if since is not None else cx.converted
    tcol = str(c.param("column"))
    series = [s for s in (c.param("series") or ()) if isinstance(s, str)]
    pts: Any = data.filter([data[x].notnull() for x in (tcol, *series)])
    if c.param("window_seconds") is None:
        pts = pts.select(*series, __tacit_ms=epoch_ms(pts[tcol])).distinct()
        # under `since`: the sessions that end after it (each series' first and last readings
        # bound its sessions, so the whole relation is read)
        after = None if since is None else _epoch_ms(since)
        wins = session_windows(cx, pts, c, series, after=after)
    else:
        w = int(c.param("window_seconds")) * 1000
        if since is None:
            pts = pts.select(*series, __tacit_ms=epoch_ms(pts[tcol])).distinct()
            bounds: Any = by_series(pts, series,
                                    __tacit_k0=(pts["__tacit_ms"].min() + (w - 1)) // w,
                                    __tacit_k1=pts["__tacit_ms"].max() // w - 1)
        else:
            pts, bounds = _windows_after(cx, pts, tcol, series, w, since)
        bounds = bounds.filter(bounds["__tacit_k0"] <= bounds["__tacit_k1"])
        windows = bounds.select(*series, __tacit_k=ibis.range(
            bounds["__tacit_k0"], bounds["__tacit_k1"] + 1).unnest().cast("int64"))
        counts = pts.mutate(__tacit_k=(pts["__tacit_ms"] // w).cast("int64")).group_by(
            [*series, "__tacit_k"]).aggregate(__tacit_n=ibis._.count())
        keys = [*series, "__tacit_k"]
        wins = windows.left_join(counts, keys).select(*[windows[k] for k in keys],
                                                      __tacit_n=counts["__tacit_n"])
        wins = wins.select(*series, __tacit_ws=wins["__tacit_k"] * w,
                           __tacit_we=(wins["__tacit_k"] + 1) * w,
                           __tacit_full=ibis.literal(w, type="int64"),
                           __tacit_n=wins["__tacit_n"])
    wins, viol = _short_windows(cx, wins, c, series)
    return PointsCheck(wins, viol, "series window(s) short of readings", windows=True)


def _epoch_ms(instant: _dt.datetime) -> int:
    """Whole milliseconds since the epoch of an instant, floored (as `epoch_ms`)."""
    delta = instant.astimezone(_dt.UTC) - EPOCH
    return (delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds) // 1000


def _windows_after(cx: Context, pts: ir.Table, tcol: str, series: list[str], w: int,
                   since: _dt.datetime) -> tuple[ir.Table, ir.Table]:
    """Under `since`: the readings from the start of the window holding `since` on, and each
    series' window numbers (k0, k1) from that window on. A window ends after `since` iff its
    number is at least `since`'s; the first one a series has is that one when the series has a
    reading before it, else the first whole window from its first reading (as without `since`)."""
    import ibis

    ks = _epoch_ms(since) // w
    start = EPOCH + _dt.timedelta(milliseconds=ks * w)
    recent: Any = pts.filter(cx.from_(pts, start))
    recent = recent.select(*series, __tacit_ms=epoch_ms(recent[tcol])).distinct()
    seen: Any = by_series(recent, series,
                          __tacit_k0=(recent["__tacit_ms"].min() + (w - 1)) // w,
                          __tacit_k1=recent["__tacit_ms"].max() // w - 1)
    # whether a series has a reading before the window matters only when its first reading
    # from it on is not at its start: looked for in the window before, then (for the series
    # with none there) further back
    if series:
        unsure = seen.filter(seen["__tacit_k0"] > ks).select(*series)
        prior: Any = last_before(cx, tcol, series, start, _dt.timedelta(milliseconds=w), unsure)
        prior = prior.rename(__tacit_prior="__tacit_last")
        keep = [seen[x] for x in series]
        seen = seen.left_join(prior, series).select(*keep, "__tacit_k0", "__tacit_k1",
                                                    "__tacit_prior")
    else:  # one series: one row, its last reading before the window (NULL: none)
        older = pts.filter(cx.before(pts, start))
        seen = seen.cross_join(older.aggregate(__tacit_prior=older[tcol].max()))
    k0 = ibis.ifelse(seen["__tacit_prior"].notnull(), ibis.literal(ks, type="int64"),
                     seen["__tacit_k0"])
    return recent, seen.select(*series, __tacit_k0=k0, __tacit_k1=seen["__tacit_k1"])


def _short_windows(cx: Context, wins: Any, c: Clause, series: list[str]) -> tuple[ir.Table, Any]:
    """The verdict on each window (series..., __tacit_ws, __tacit_we, __tacit_full,
    __tacit_n): readings * 100 * PCT_SCALE * full < min_pct units * expected * (length -
    covered), `covered` the window's overlap with the series' allowed outages."""
    import ibis

    from tacit_gen.semantics.completeness import PCT_SCALE, pct_units

    keys = [*series, "__tacit_ws"]
    length: Any = wins["__tacit_we"] - wins["__tacit_ws"]
    covered: Any = ibis.literal(0, type="int64")
    gaps = tuple(c.param("allowed_gaps") or ())
    if gaps:
        o: Any = cx.inputs.outages_relation(c.param("outages_relation"))
        o = o.filter(o[c.param("outages_type")].isin(list(gaps)))
        o = o.select(*[o[s].name(f"__tacit_o_{s}") for s in series],
                     __tacit_o0=epoch_ms(o[c.param("outages_start")]),
                     __tacit_o1=epoch_ms(o[c.param("outages_end")]))
        cond = [wins[s] == o[f"__tacit_o_{s}"] for s in series]
        cond += [o["__tacit_o0"] < wins["__tacit_we"], o["__tacit_o1"] > wins["__tacit_ws"]]
        j: Any = wins.inner_join(o, cond)
        overlap: Any = ibis.least(j["__tacit_o1"], j["__tacit_we"])
        overlap = overlap - ibis.greatest(j["__tacit_o0"], j["__tacit_ws"])
        cov = j.group_by(keys).aggregate(__tacit_cov=overlap.sum())
        wins = wins.left_join(cov, keys).select(
            *[wins[k] for k in keys], "__tacit_we", "__tacit_full", "__tacit_n",
            __tacit_cov=cov["__tacit_cov"])
        length = wins["__tacit_we"] - wins["__tacit_ws"]
        covered = ibis.least(wins["__tacit_cov"].fill_null(0), length)
    n = wins["__tacit_n"].fill_null(0).cast("decimal(38, 0)")
    full = wins["__tacit_full"].cast("decimal(38, 0)")
    need = ibis.literal(pct_units(str(c.param("min_pct"))) * int(c.param("expected")),
                        type="decimal(38, 0)")
    viol = n * (100 * PCT_SCALE) * full < need * (length - covered).cast("decimal(38, 0)")
    return wins, viol.fill_null(False)
