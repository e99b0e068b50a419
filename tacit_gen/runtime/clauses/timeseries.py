"""Time series clauses: freshness (a table-level verdict), cadence (each point's step from the
previous one of its series) and completeness (the readings per window or session)."""

from __future__ import annotations

import datetime as _dt
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

    # under `since`: the newest value of the whole relation (max(T): cheap with an index)
    over = cx.full if cx.since is not None else None
    col = (over if over is not None else cx.wide)[c.param("column")]
    age = (f"{int(c.param('max_age_seconds')) // 86_400} day(s) before the UTC date of"
           if c.param("whole_days") else f"{c.param('max_age_seconds')}s before")
    message = (f"newest {c.param('column')} is older than {age} {cx.now.isoformat()} "
               "(or no rows)")
    if col.type().is_date():  # whole days before the UTC date of now
        days = int(c.param("max_age_seconds")) // 86_400
        oldest = cx.now.astimezone(_dt.UTC).date() - _dt.timedelta(days=days)
        ok = (col.max() >= ibis.literal(oldest, type=dt.date)).fill_null(False)
        return TableCheck(ibis.ifelse(ok, 0, 1), message, over)
    edge = cx.now - _dt.timedelta(seconds=int(c.param("max_age_seconds")))
    lit = ibis.literal(edge, type=dt.Timestamp(timezone="UTC"))
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
        pts = _with_last_points(cx, pts, tcol, series, cx.since)
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
                      since: _dt.datetime) -> ir.Table:
    """The increment's points (`pts`) and, as each series' predecessor of its first one, that
    series' last point before `since` (``max(T) WHERE T < since GROUP BY series``: one row per
    series, every other column NULL); ``__tacit_edge`` tells them apart."""
    import ibis

    full = cx.full
    old = full.filter([full[x].notnull() for x in series] + [cx.before(full, since)])
    last: Any = by_series(old, series, __tacit_last=old[tcol].max())
    last = last.filter(last["__tacit_last"].notnull())
    schema = pts.schema()
    fill: dict[str, Any] = {}
    for x in pts.columns:
        value: Any = (last["__tacit_last"] if x == tcol else last[x] if x in series
                      else ibis.null(schema[x]))
        fill[x] = value.cast(schema[x]).name(x)
    edges = last.select(*fill.values(), __tacit_edge=ibis.literal(True))
    mine = pts.mutate(__tacit_edge=ibis.literal(False))
    return mine.union(edges)


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
    recent: Any = pts.filter(~cx.before(pts, start))
    recent = recent.select(*series, __tacit_ms=epoch_ms(recent[tcol])).distinct()
    seen: Any = by_series(recent, series,
                          __tacit_k0=(recent["__tacit_ms"].min() + (w - 1)) // w,
                          __tacit_k1=recent["__tacit_ms"].max() // w - 1)
    older = pts.filter(cx.before(pts, start))
    prior: Any = by_series(older, series, __tacit_prior=older[tcol].max())
    if series:
        keep = [seen[x] for x in series]
        seen = seen.left_join(prior, series).select(*keep, "__tacit_k0", "__tacit_k1",
                                                    "__tacit_prior")
    else:
        seen = seen.cross_join(prior)
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
