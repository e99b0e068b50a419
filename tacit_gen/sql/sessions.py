"""The SQL of the clauses that read exchange sessions, one tree for every SQL target.

`session_cadence` returns the points that break a session cadence (``60s within session``,
``1 trading day``); `trading_days_late` the condition that a restatement arrived more than N
sessions after its event. The meaning is `tacit_gen.semantics.sessions`'; the sessions relation
is the table `tacit-gen calendar` writes, named by the clause params.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from tacit_gen.sql.build import (
    column,
    days_since_weekday_epoch,
    epoch_us,
    is_not_null,
    is_null,
    lag_over,
    left_join,
    number,
    relation,
    string,
    utc_date,
    weekdays_through,
)

if TYPE_CHECKING:
    from sqlglot import expressions as Exp

    from tacit_gen.plan_types import Clause

_US_PER_DAY = 86_400_000_000


def _decimal_text(d: Decimal) -> str:
    return format(d.normalize(), "f")


def _sessions(clause: Clause) -> Exp.Select:
    """The sessions numbered 1, 2, ... per calendar in date order."""
    from sqlglot import exp

    p = clause.param
    cal, day = column(p("sessions_calendar")), column(p("sessions_session"))
    number_ = exp.Window(this=exp.RowNumber(), partition_by=[cal.copy()],
                         order=exp.Order(expressions=[exp.Ordered(this=day.copy())]))
    return exp.select(
        exp.alias_(cal, "tacit_cal", copy=False), exp.alias_(day, "tacit_day", copy=False),
        exp.alias_(column(p("sessions_open")), "tacit_open", copy=False),
        exp.alias_(column(p("sessions_close")), "tacit_close", copy=False),
        exp.alias_(number_, "tacit_sn", copy=False),
     copy=False).from_(relation(p("sessions_relation")), copy=False)


def calendar_code(clause: Clause, row_alias: str, catalog_alias: str = "tacit_cc") -> Exp.Expression:
    """The calendar code of a row: the contract's literal, or the catalog's column."""
    if clause.param("calendar") is not None:
        return string(clause.param("calendar"))
    return column(clause.param("calendar_catalog_column"), catalog_alias)


def with_catalog(clause: Clause, q: Exp.Select, row_alias: str) -> Exp.Select:
    """Join the catalog (a per-series calendar) to `q`, whose rows are aliased `row_alias`."""
    from sqlglot import exp

    if clause.param("calendar") is not None:
        return q
    on = exp.EQ(this=column(clause.param("calendar_series"), row_alias),
                expression=column(clause.param("calendar_catalog_key"), "tacit_cc"))
    return q.join(left_join(exp.alias_(relation(clause.param("calendar_catalog")), "tacit_cc", table=True, copy=False)),
                  on=on, copy=False)


def session_cadence(clause: Clause, source: Exp.Expression, has_revision: bool,
                    dialect: str = "duckdb") -> Exp.Select:
    """Points off a session cadence, from the rows of `source` (a table expression).

    Each point (the latest revision of a series and instant) gets the number of its session, or
    NULL when it is in none; the point fails when it has none, or when the step from the previous
    point of its series is wrong: within one session, off the interval (``within``) or a second
    bar (``trading_day``); across sessions, unless gaps are allowed, a session skipped, or
    (``within``) a late first bar or a short last bar of the earlier session (the session edges).
    """
    from sqlglot import exp

    p = clause.param
    t = column(p("column"))
    series = [column(s) for s in p("series") or ()]
    present = exp.and_(*[is_not_null(x.copy()) for x in [t, *series]], copy=False)
    src = exp.select(exp.Star(), copy=False).from_(source.copy(), copy=False).where(present, copy=False)
    if has_revision:
        rev = column("revision")
        latest = exp.Window(this=exp.Max(this=rev.copy()), partition_by=[x.copy() for x in [*series, t]])
        inner = exp.select(exp.Star(), exp.alias_(latest, "tacit_latest", copy=False), copy=False).from_(
            src.subquery("tacit_src", copy=False), copy=False)
        keep = exp.or_(exp.EQ(this=rev.copy(), expression=column("tacit_latest")),
                       exp.Paren(this=exp.and_(is_null(column("tacit_latest")), is_null(rev.copy()), copy=False)), copy=False)
        points = exp.select(*[x.copy() for x in [*series, t]], copy=False).from_(inner.subquery("tacit_r", copy=False), copy=False).where(keep, copy=False)
    else:
        points = exp.select(*[x.copy() for x in [*series, t]], copy=False).from_(src.subquery("tacit_r", copy=False), copy=False)
    lt = column(p("column"), "l")
    sel = [column(s, "l") for s in p("series") or ()] + [lt.copy()]
    if p("sessions_relation") is None:  # `1 trading day` without a calendar: Monday to Friday
        days = days_since_weekday_epoch(utc_date(lt.copy(), dialect), dialect)
        weekday = exp.LT(this=exp.Mod(this=days, expression=exp.Literal.number(7)),
                         expression=exp.Literal.number(5))
        midnight = exp.EQ(this=exp.Mod(this=epoch_us(lt.copy(), dialect),
                                       expression=exp.Literal.number(_US_PER_DAY)),
                          expression=exp.Literal.number(0))
        sn: Exp.Expression = exp.Case(ifs=[exp.If(this=exp.and_(weekday, midnight, copy=False),
                                                  true=weekdays_through(utc_date(lt.copy(), dialect), dialect))])
        placed = exp.select(*sel, exp.alias_(sn, "tacit_sn", copy=False), copy=False).from_(points.subquery("l", copy=False), copy=False)
    else:
        s_open, s_close = column("tacit_open", "s"), column("tacit_close", "s")
        code = calendar_code(clause, "l")
        if p("sessions") == "within":
            seconds = int(p("interval_seconds"))
            inside = exp.and_(
                exp.LTE(this=epoch_us(s_open, dialect), expression=epoch_us(lt.copy(), dialect)),
                exp.LTE(this=exp.Add(this=epoch_us(lt.copy(), dialect),
                                     expression=exp.Literal.number(seconds * 1_000_000)),
                        expression=epoch_us(s_close, dialect)), copy=False)
        else:
            at_midnight = exp.EQ(this=exp.Mod(this=epoch_us(lt.copy(), dialect),
                                              expression=exp.Literal.number(_US_PER_DAY)),
                                 expression=exp.Literal.number(0))
            at_open = exp.EQ(this=epoch_us(lt.copy(), dialect), expression=epoch_us(s_open, dialect))
            inside = exp.and_(exp.EQ(this=column("tacit_day", "s"), expression=utc_date(lt.copy(), dialect)),
                              exp.Paren(this=exp.or_(at_midnight, at_open, copy=False)), copy=False)
        on = exp.and_(exp.EQ(this=column("tacit_cal", "s"), expression=code), inside, copy=False)
        edges: list[Exp.Expression] = []
        if p("sessions") == "within":  # where the bar sits in its session, for the edges
            o_us, c_us = epoch_us(s_open.copy(), dialect), epoch_us(s_close.copy(), dialect)
            lead = exp.Sub(this=epoch_us(lt.copy(), dialect), expression=o_us.copy())
            length = exp.Paren(this=exp.Sub(this=c_us, expression=o_us))
            grid = exp.Sub(this=length.copy(), expression=exp.Paren(this=exp.Mod(
                this=length.copy(), expression=exp.Literal.number(int(p("interval_seconds")) * 1_000_000))))
            tail = exp.Sub(this=grid, expression=exp.Paren(this=lead.copy()))
            edges = [exp.alias_(lead, "tacit_lead_us", copy=False), exp.alias_(tail, "tacit_tail_us", copy=False)]
        base = exp.select(*sel, exp.alias_(column("tacit_sn", "s"), "tacit_sn", copy=False), *edges,
                          copy=False).from_(points.subquery("l", copy=False), copy=False)
        base = with_catalog(clause, base, "l")
        placed = base.join(left_join(_sessions(clause).subquery("s", copy=False)), on=on, copy=False)
    part = [column(s) for s in p("series") or ()]
    edged = p("sessions") == "within" and p("sessions_relation") is not None
    steps = exp.select(
        exp.Star(),
        exp.alias_(lag_over(t.copy(), [x.copy() for x in part], t.copy(), dialect), "tacit_prev", copy=False),
        exp.alias_(lag_over(column("tacit_sn"), [x.copy() for x in part], t.copy(), dialect),
                   "tacit_prev_sn", copy=False),
        *([exp.alias_(lag_over(column("tacit_tail_us"), [x.copy() for x in part], t.copy(), dialect),
                      "tacit_prev_tail_us", copy=False)] if edged else []),
     copy=False).from_(placed.subquery("tacit_placed", copy=False), copy=False)
    cur, prev = column("tacit_sn"), column("tacit_prev_sn")
    same = exp.EQ(this=cur.copy(), expression=prev.copy())
    if p("sessions") == "within":
        tol = Decimal(str(p("tolerance_pct") or "0"))
        interval_us = Decimal(int(p("interval_seconds"))) * 1_000_000
        step = exp.Paren(this=exp.Sub(this=epoch_us(t.copy(), dialect),
                                      expression=epoch_us(column("tacit_prev"), dialect)))
        off: Exp.Expression = exp.LT(this=step.copy(), expression=number(_decimal_text(interval_us * (100 - tol) / 100)))
        if not p("gaps_allowed"):
            off = exp.or_(off, exp.GT(this=step.copy(),
                                      expression=number(_decimal_text(interval_us * (100 + tol) / 100))), copy=False)
        bad_step: Exp.Expression = exp.and_(same, exp.Paren(this=off), copy=False)
        if edged and not p("gaps_allowed"):  # across sessions: the open and the close edges
            late_open = exp.GT(this=column("tacit_lead_us"),
                               expression=number(_decimal_text(interval_us * tol / 100)))
            early_close = exp.GT(this=column("tacit_prev_tail_us"),
                                 expression=number(_decimal_text(interval_us * (100 + tol) / 100)))
            edge = exp.and_(exp.GT(this=cur.copy(), expression=prev.copy()),
                            exp.Paren(this=exp.or_(late_open, early_close, copy=False)), copy=False)
            bad_step = exp.or_(exp.Paren(this=bad_step), exp.Paren(this=edge), copy=False)
    else:
        bad_step = same
    if not p("gaps_allowed"):
        skipped = exp.GT(this=cur.copy(), expression=exp.Add(this=prev.copy(), expression=exp.Literal.number(1)))
        bad_step = exp.or_(exp.Paren(this=bad_step), skipped, copy=False)
    bad = exp.or_(is_null(cur.copy()),
                  exp.Paren(this=exp.and_(is_not_null(prev.copy()), exp.Paren(this=bad_step), copy=False)), copy=False)
    return exp.select(exp.Star(), copy=False).from_(steps.subquery("tacit_steps", copy=False), copy=False).where(bad, copy=False)


def trading_days_late(clause: Clause, time_col: Exp.Expression, ingest_col: Exp.Expression,
                      dialect: str = "duckdb", code: Exp.Expression | None = None) -> Exp.Expression:
    """More than N sessions of the calendar strictly after the event's UTC date up to and
    including the ingest's UTC date (`code`: the row's calendar, default the contract's)."""
    from sqlglot import exp

    p = clause.param
    ses = column(p("sessions_session"), "tacit_s")
    count = (exp.select(exp.Count(this=exp.Star()), copy=False)
             .from_(exp.alias_(relation(p("sessions_relation")), "tacit_s", table=True, copy=False), copy=False)
             .where(exp.and_(
                 exp.EQ(this=column(p("sessions_calendar"), "tacit_s"),
                        expression=code if code is not None else string(p("calendar"))),
                 exp.GT(this=ses.copy(), expression=utc_date(time_col, dialect)),
                 exp.LTE(this=ses.copy(), expression=utc_date(ingest_col, dialect)), copy=False), copy=False))
    return exp.GT(this=exp.Subquery(this=count),
                  expression=exp.Literal.number(int(p("business_days"))))
