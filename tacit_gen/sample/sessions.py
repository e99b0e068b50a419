"""Exchange sessions for sample data: the reference verdict of session clauses and the grid the
generator places points on (`tacit_gen.semantics.sessions` gives the meaning)."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tacit_gen.sample.model import SampleError, as_utc, epoch_us
from tacit_gen.semantics.calendar import weekdays_through
from tacit_gen.semantics.sessions import CalendarError, SessionIndex, exchange_sessions

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

_PAD = timedelta(days=7)


@lru_cache(maxsize=16)
def _index(code: str, first: date, last: date) -> SessionIndex:
    try:
        return SessionIndex(exchange_sessions(code, first, last))
    except CalendarError as e:
        raise SampleError(f"sessions of {code}: {e}") from e


def index_for(clause: Clause, times: list[datetime]) -> SessionIndex | None:
    """The sessions of the clause's calendar over `times` (None: Monday to Friday)."""
    if clause.param("sessions_relation") is None:
        return None
    code = clause.param("calendar")
    if code is None:
        raise SampleError("sample data for a per-series calendar (from the catalog) is not generated")
    days = [as_utc(t).date() for t in times] or [date(2024, 1, 2)]
    return _index(str(code), min(days) - _PAD, max(days) + _PAD)


def _monday_to_friday(t: datetime) -> int | None:
    t = as_utc(t)
    d = t.date()
    if d.weekday() >= 5 or epoch_us(t) % 86_400_000_000:
        return None
    return weekdays_through(d)


def session_number(clause: Clause, idx: SessionIndex | None, t: datetime) -> int | None:
    """The number of the session point `t` belongs to (None: outside every session)."""
    if idx is None:
        return _monday_to_friday(t)
    code = str(clause.param("calendar"))
    if clause.param("sessions") == "within":
        return idx.within(code, as_utc(t), int(clause.param("interval_seconds")))
    return idx.trading_day(code, as_utc(t))


def session_cadence_failures(clause: Clause, groups: dict[Any, list[datetime]]) -> int:
    """Points off a session cadence (the rule of `tacit_gen.sql.sessions.session_cadence`)."""
    from decimal import Decimal

    every = [t for ts in groups.values() for t in ts]
    idx = index_for(clause, every)
    within = clause.param("sessions") == "within"
    gaps = bool(clause.param("gaps_allowed"))
    bad = 0
    for times in groups.values():
        times = sorted(times, key=epoch_us)
        numbers = [session_number(clause, idx, t) for t in times]
        bad += sum(1 for n in numbers[:1] if n is None)
        for (a, na), (b, nb) in itertools.pairwise(zip(times, numbers, strict=True)):
            if nb is None:
                bad += 1
                continue
            if na is None:
                continue
            step_bad = na == nb
            if within and na == nb:
                tol = Decimal(str(clause.param("tolerance_pct") or "0"))
                interval = Decimal(int(clause.param("interval_seconds")) * 1_000_000)
                step = epoch_us(b) - epoch_us(a)
                step_bad = step < interval * (100 - tol) / 100 or (
                    not gaps and step > interval * (100 + tol) / 100)
            if step_bad or (not gaps and nb > na + 1):
                bad += 1
    return bad


def sessions_within(clause: Clause, t: datetime, ingest: datetime) -> bool:
    """A restatement ingested within N sessions of its event (UTC dates)."""
    idx = index_for(clause, [t, ingest])
    assert idx is not None
    n = idx.count_after(str(clause.param("calendar")), as_utc(t).date(), as_utc(ingest).date())
    return n <= int(clause.param("business_days"))


def session_grid(clause: Clause, end: datetime, count: int) -> list[datetime]:
    """`count` points of a session cadence ending at or before `end`, oldest first: the last
    bars of the latest sessions (so minute bars cross a night when `count` is large enough), or
    the latest trading days at 00:00 UTC."""
    within = clause.param("sessions") == "within"
    interval = int(clause.param("interval_seconds") or 86_400)
    span = timedelta(days=max(14, (count * interval) // 20_000 * 2 + 14) if within else count * 2 + 14)
    out: list[datetime] = []
    if clause.param("sessions_relation") is None:  # Monday to Friday at 00:00 UTC
        d = as_utc(end).date()
        while len(out) < count:
            if d.weekday() < 5:
                out.append(datetime(d.year, d.month, d.day, tzinfo=UTC))
            d -= timedelta(days=1)
        return out[::-1]
    idx = index_for(clause, [end - span, end])
    assert idx is not None
    sessions = [s for s in idx.sessions(str(clause.param("calendar"))) if s.open <= end]
    for s in reversed(sessions):
        if not within:
            out.append(datetime(s.session.year, s.session.month, s.session.day, tzinfo=UTC))
        else:
            t = min(as_utc(end), s.close - timedelta(seconds=interval))
            t = t - timedelta(microseconds=(epoch_us(t) - epoch_us(s.open)) % (interval * 1_000_000))
            while t >= s.open and len(out) < count:
                out.append(t)
                t -= timedelta(seconds=interval)
        if len(out) >= count:
            break
    if len(out) < count:
        raise SampleError(f"not enough sessions of {clause.param('calendar')} before {end}")
    return sorted(out[:count], key=epoch_us)
