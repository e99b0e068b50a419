"""Revision clauses: a restated row (revision > 0) arrives within its window (revision_window:
weekdays, seconds, or exchange sessions) and is restated by an allowed source (revision_by)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import uses_sessions
from tacit_gen.runtime.clauses.base import MONDAY, US_PER_DAY, Check, PointsCheck, row, us_between
from tacit_gen.runtime.clauses.sessions import sessions_window
from tacit_gen.semantics.calendar import weekday_number

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import CatalogColumns, Context

__all__ = ["revision_by", "revision_window"]


def revision_window(cx: Context, c: Clause) -> Check:
    """Within sessions: the restated rows counted over the sessions relation; otherwise a row
    condition."""
    if uses_sessions(c):
        rows, viol = sessions_window(cx, cx.converted, c)
        return PointsCheck(rows, viol, f"row(s) violate {c.text!r}")
    return _within_window(cx, c)


def _revision(cx: Context, wide: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    import ibis
    import ibis.expr.datatypes as dt

    rev = wide[c.param("column") or "revision"]
    if not c.param("allowed", True):
        return rev == 0
    ingest_name = c.param("ingest_column")
    if not ingest_name:
        return ibis.literal(True)
    t, ingest = wide[c.param("time_column")], wide[ingest_name]
    days = c.param("business_days")
    if days is not None:
        monday = ibis.literal(MONDAY, type=dt.Timestamp(timezone="UTC"))

        def weekdays_through(ts: Any) -> Any:  # tacit_gen.semantics.calendar, as ibis
            return weekday_number(us_between(monday, ts) // US_PER_DAY, least=ibis.least)

        within = (weekdays_through(ingest) - weekdays_through(t)) <= int(days)
    else:
        seconds = c.param("window_seconds")
        if seconds is None:
            return ibis.literal(True)
        within = ingest <= t + ibis.interval(seconds=int(seconds))
    return ~(rev > 0) | within  # pyright: ignore[reportOperatorIssue]


_within_window = row(_revision)


def revision_by(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """A restated row names an allowed source."""
    who = t[c.param("column")]
    restated = t[c.param("revision_column")] > 0  # pyright: ignore[reportOperatorIssue]
    return ~restated | (who.notnull() & who.isin(list(c.param("values") or ())))
