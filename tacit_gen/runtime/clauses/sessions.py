"""Exchange sessions (tacit_gen.semantics.sessions): the sessions relation numbered per calendar,
each row's calendar, and the three checks that read them: a session cadence, the sessions of a
`completeness: N per session`, and a trading-day revision window."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.clauses.base import (
    EPOCH,
    MONDAY,
    US_PER_DAY,
    by_series,
    epoch_ms,
    tolerance,
    us_between,
)
from tacit_gen.semantics.calendar import weekday_number

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import Context

__all__ = ["calendar_code", "session_cadence", "session_windows", "sessions_table",
           "sessions_window"]


def sessions_table(cx: Context, c: Clause) -> Any:
    """The sessions relation as (__tacit_cal, __tacit_day, __tacit_open, __tacit_close,
    __tacit_sn): numbered 1, 2, ... per calendar in date order."""
    import ibis

    ses: Any = cx.inputs.sessions_relation(str(c.param("sessions_relation")))
    s = ses.select(__tacit_cal=ses[c.param("sessions_calendar")],
                   __tacit_day=ses[c.param("sessions_session")],
                   __tacit_open=ses[c.param("sessions_open")],
                   __tacit_close=ses[c.param("sessions_close")])
    w = ibis.window(group_by=[s["__tacit_cal"]], order_by=[s["__tacit_day"]])
    return s.mutate(__tacit_sn=ibis.row_number().over(w) + 1)


def calendar_code(cx: Context, t: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
    """`t` with its rows' calendar code: the contract's literal, or the catalog's column."""
    import ibis

    if c.param("calendar") is not None:
        return t, ibis.literal(str(c.param("calendar")))
    cat = cx.inputs.catalog_relation(c.param("calendar_catalog"))
    agg = cat.group_by(cat[c.param("calendar_catalog_key")].name("__tacit_calk")).aggregate(
        __tacit_code=cat[c.param("calendar_catalog_column")].min())
    keep = list(t.columns)
    t = t.left_join(agg, t[c.param("calendar_series")] == agg["__tacit_calk"]).select(  # pyright: ignore[reportArgumentType]
        *keep, "__tacit_code")
    return t, t["__tacit_code"]


def session_cadence(cx: Context, pts: ir.Table, c: Clause, tcol: str,
                    series: list[str]) -> tuple[ir.Table, Any]:
    """tacit_gen.semantics.sessions: each point's session number, NULL outside every
    session; a point fails outside sessions, off the interval within one, or (unless gaps
    are allowed) after a skipped session or a second bar of one trading day."""
    import ibis
    import ibis.expr.datatypes as dt

    epoch = ibis.literal(EPOCH, type=dt.Timestamp(timezone="UTC"))
    if c.param("sessions_relation") is None:  # `1 trading day`, Monday to Friday
        t = pts[tcol]
        monday = ibis.literal(MONDAY, type=dt.Timestamp(timezone="UTC"))
        days = us_between(monday, t) // US_PER_DAY
        ok = ((days % 7) < 5) & ((us_between(epoch, t) % US_PER_DAY) == 0)
        sn = ibis.ifelse(ok, weekday_number(days, least=ibis.least), ibis.null())
        placed = pts.mutate(__tacit_sn=sn.cast("int64"))
    else:
        keep = list(pts.columns)
        pts, code = calendar_code(cx, pts, c)
        s = sessions_table(cx, c)
        t = pts[tcol]
        if c.param("sessions") == "within":
            seconds = int(c.param("interval_seconds"))
            inside = ((us_between(s["__tacit_open"], t) >= 0)
                      & (us_between(t, s["__tacit_close"]) >= seconds * 1_000_000))
        else:
            tus = us_between(epoch, t)
            day_no = s["__tacit_day"].delta(ibis.date(1970, 1, 1), unit="day")
            inside = ((tus // US_PER_DAY) == day_no) & (
                ((tus % US_PER_DAY) == 0) | (us_between(s["__tacit_open"], t) == 0))
        joined = pts.left_join(s, (s["__tacit_cal"] == code) & inside)
        if c.param("sessions") == "within":  # where the bar sits in its session, for the edges
            i_us = int(c.param("interval_seconds")) * 1_000_000
            lead = us_between(joined["__tacit_open"], joined[tcol])
            length = us_between(joined["__tacit_open"], joined["__tacit_close"])
            placed = joined.select(*keep, "__tacit_sn", __tacit_lead=lead.cast("int64"),
                                   __tacit_tail=(length - length % i_us - lead).cast("int64"))
        else:
            placed = joined.select(*keep, "__tacit_sn")
    edged = c.param("sessions") == "within" and c.param("sessions_relation") is not None
    w = ibis.window(group_by=series or None, order_by=[placed[tcol]])
    placed = placed.mutate(__tacit_prev=placed[tcol].lag().over(w),
                           __tacit_prev_sn=placed["__tacit_sn"].lag().over(w),
                           **({"__tacit_prev_tail": placed["__tacit_tail"].lag().over(w)} if edged else {}))
    cur: Any = placed["__tacit_sn"]
    prev: Any = placed["__tacit_prev_sn"]
    same = cur == prev
    if c.param("sessions") == "within":
        step = us_between(placed["__tacit_prev"], placed[tcol])
        tol = tolerance(c.param("tolerance_pct"))
        p, q = tol.numerator, tol.denominator
        interval_us = int(c.param("interval_seconds")) * 1_000_000
        scaled = step * ibis.literal(100 * q, type="int64")
        off = scaled < ibis.literal(interval_us * (100 * q - p), type="int64")
        if not c.param("gaps_allowed"):
            off = off | (scaled > ibis.literal(interval_us * (100 * q + p), type="int64"))
        bad_step = same & off
        if edged and not c.param("gaps_allowed"):  # across sessions: the open and close edges
            first_lead: Any = placed["__tacit_lead"]
            prev_tail: Any = placed["__tacit_prev_tail"]
            late_open = first_lead * ibis.literal(100 * q, type="int64") > ibis.literal(interval_us * p, type="int64")
            early_close = (prev_tail * ibis.literal(100 * q, type="int64")
                           > ibis.literal(interval_us * (100 * q + p), type="int64"))
            bad_step = bad_step | ((cur > prev) & (late_open | early_close))
    else:
        bad_step = same
    if not c.param("gaps_allowed"):
        bad_step = bad_step | (cur > prev + 1)
    viol = cur.isnull() | (prev.notnull() & bad_step.fill_null(False))
    return placed, viol


def session_windows(cx: Context, pts: Any, c: Clause, series: list[str],
                    after: int | None = None) -> Any:
    """`N per session`: the sessions ``[open, close)`` of each series' calendar between its
    first and last readings (series..., __tacit_ws, __tacit_we in ms, __tacit_full: the
    calendar's longest session in the relation, __tacit_n: the readings in the session);
    `after` (ms): only the sessions that close after it."""
    import ibis

    bounds: Any = by_series(pts, series, __tacit_f=pts["__tacit_ms"].min(),
                            __tacit_l=pts["__tacit_ms"].max())
    bounds, code = calendar_code(cx, bounds, c)
    bounds = bounds.select(*series, "__tacit_f", "__tacit_l", __tacit_bc=code)
    ses: Any = cx.inputs.sessions_relation(str(c.param("sessions_relation")))
    s = ses.select(__tacit_cal=ses[c.param("sessions_calendar")],
                   __tacit_ws=epoch_ms(ses[c.param("sessions_open")]),
                   __tacit_we=epoch_ms(ses[c.param("sessions_close")]))
    s = s.filter(s["__tacit_ws"].notnull() & s["__tacit_we"].notnull())
    full = s.group_by("__tacit_cal").aggregate(
        __tacit_full=(s["__tacit_we"] - s["__tacit_ws"]).max())
    s = s.inner_join(full, "__tacit_cal")
    j: Any = bounds.inner_join(s, [bounds["__tacit_bc"] == s["__tacit_cal"],
                                   s["__tacit_ws"] >= bounds["__tacit_f"],
                                   s["__tacit_we"] <= bounds["__tacit_l"]])
    wins = j.select(*series, "__tacit_ws", "__tacit_we", "__tacit_full")
    if after is not None:
        wins = wins.filter(wins["__tacit_we"] > after)
    p = pts.select(*[pts[x].name(f"__tacit_p_{x}") for x in series], "__tacit_ms")
    inside = [wins[x] == p[f"__tacit_p_{x}"] for x in series]
    inside += [p["__tacit_ms"] >= wins["__tacit_ws"], p["__tacit_ms"] < wins["__tacit_we"]]
    hit: Any = wins.inner_join(p, inside)
    keys = [*series, "__tacit_ws"]
    counts = hit.group_by(keys).aggregate(__tacit_n=ibis._.count())
    return wins.left_join(counts, keys).select(
        *[wins[k] for k in keys], "__tacit_we", "__tacit_full", __tacit_n=counts["__tacit_n"])


def sessions_window(cx: Context, data: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
    """Restated rows (revision > 0) whose ingest came more than N sessions after the event:
    the sessions after the event's UTC date up to and including the ingest's UTC date."""
    import ibis
    import ibis.expr.datatypes as dt

    epoch = ibis.literal(EPOCH, type=dt.Timestamp(timezone="UTC"))
    rev: Any = data[c.param("column") or "revision"]
    rows = data.filter(rev > 0)
    keep = list(rows.columns)
    rows, code = calendar_code(cx, rows, c)
    rows = rows.mutate(
        __tacit_td=us_between(epoch, rows[c.param("time_column")]) // US_PER_DAY,
        __tacit_id=us_between(epoch, rows[c.param("ingest_column")]) // US_PER_DAY,
        __tacit_cc=code)
    s = sessions_table(cx, c)
    s = s.mutate(__tacit_dn=s["__tacit_day"].delta(ibis.date(1970, 1, 1), unit="day"))
    pairs = rows.select(__tacit_c2=rows["__tacit_cc"], __tacit_t2=rows["__tacit_td"],
                        __tacit_i2=rows["__tacit_id"]).distinct()
    hit = pairs.left_join(s, (s["__tacit_cal"] == pairs["__tacit_c2"])
                          & (s["__tacit_dn"] > pairs["__tacit_t2"])
                          & (s["__tacit_dn"] <= pairs["__tacit_i2"]))
    counted = hit.group_by(["__tacit_c2", "__tacit_t2", "__tacit_i2"]).aggregate(
        __tacit_n=hit["__tacit_sn"].count())
    on: Any = ((rows["__tacit_cc"] == counted["__tacit_c2"])
               & (rows["__tacit_td"] == counted["__tacit_t2"])
               & (rows["__tacit_id"] == counted["__tacit_i2"]))
    joined = rows.left_join(counted, on)
    joined = joined.select(*keep, "__tacit_n")
    n_sessions: Any = joined["__tacit_n"]
    viol = (n_sessions > int(c.param("business_days"))).fill_null(False)
    return joined, viol
