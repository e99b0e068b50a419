"""Exchange sessions for sample data: the reference verdict of session clauses and the grid the
generator places points on (`tacit_gen.semantics.sessions` gives the meaning)."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from tacit_gen.sample.model import SampleError, as_utc, epoch_us
from tacit_gen.semantics.calendar import weekdays_through
from tacit_gen.semantics.sessions import CalendarError, Session, SessionIndex, exchange_sessions

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from tacit_gen.plan_types import Clause

_PAD = timedelta(days=7)


@lru_cache(maxsize=16)
def _index(code: str, first: date, last: date) -> SessionIndex:
    try:
        return SessionIndex(exchange_sessions(code, first, last))
    except CalendarError as e:
        raise SampleError(f"sessions of {code}: {e}") from e


def calendar_code(clause: Clause, series: Any, lookup: Mapping[Any, Any]) -> str | None:
    """The exchange calendar code of a series: the clause's own, or for a per-series calendar the
    catalog's entry for the series' value (None: the series has no entry or no code)."""
    if clause.param("calendar") is not None:
        return str(clause.param("calendar"))
    entry = lookup.get(series)
    code = entry.get(str(clause.param("calendar_catalog_column"))) if entry is not None else None
    return None if code is None else str(code)


def row_code(clause: Clause, row: Mapping[str, Any], lookup: Mapping[Any, Any]) -> str | None:
    """The calendar code of the series a row belongs to (`calendar_code`)."""
    col = clause.param("calendar_series")
    return calendar_code(clause, row.get(str(col)) if col is not None else None, lookup)


def group_code(clause: Clause, key: tuple[Any, ...], lookup: Mapping[Any, Any]) -> str | None:
    """The calendar code of a series given by its key values (in the clause's `series` order)."""
    cols = tuple(clause.param("series") or ())
    col = clause.param("calendar_series")
    if clause.param("calendar") is not None or col not in cols:
        return calendar_code(clause, None, lookup)
    return calendar_code(clause, key[cols.index(col)], lookup)


def index_for(clause: Clause, times: list[datetime], code: str | None) -> SessionIndex | None:
    """The sessions of calendar `code` over `times` (None: Monday to Friday, the clause reads no
    sessions; an empty index when the series has no code)."""
    if clause.param("sessions_relation") is None:
        return None
    if code is None:
        return SessionIndex(())  # a series missing from the catalog: no session at all
    days = [as_utc(t).date() for t in times] or [date(2024, 1, 2)]
    return _index(code, min(days) - _PAD, max(days) + _PAD)


def _monday_to_friday(t: datetime) -> int | None:
    t = as_utc(t)
    d = t.date()
    if d.weekday() >= 5 or epoch_us(t) % 86_400_000_000:
        return None
    return weekdays_through(d)


def session_number(clause: Clause, idx: SessionIndex | None, t: datetime, code: str | None) -> int | None:
    """The number of the session point `t` belongs to (None: outside every session)."""
    if idx is None:
        return _monday_to_friday(t)
    if code is None:
        return None
    if clause.param("sessions") == "within":
        return idx.within(code, as_utc(t), int(clause.param("interval_seconds")))
    return idx.trading_day(code, as_utc(t))


def session_cadence_failures(clause: Clause, groups: dict[Any, list[datetime]],
                             lookup: Mapping[Any, Any]) -> int:
    """Points off a session cadence (the rule of `tacit_gen.sql.sessions.session_cadence`); each
    series on its own calendar (`group_code`)."""
    from decimal import Decimal

    within = clause.param("sessions") == "within"
    gaps = bool(clause.param("gaps_allowed"))
    bad = 0
    for key, times in groups.items():
        code = group_code(clause, key, lookup)
        idx = index_for(clause, times, code)
        times = sorted(times, key=epoch_us)
        numbers = [session_number(clause, idx, t, code) for t in times]
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
            if within and not gaps and idx is not None and code is not None and nb > na:
                step_bad = step_bad or _off_edges(clause, idx.sessions(code), a, na, b, nb)
            if step_bad or (not gaps and nb > na + 1):
                bad += 1
    return bad


def _off_edges(clause: Clause, sessions: list[Session], a: datetime, na: int, b: datetime,
               nb: int) -> bool:
    """Across sessions (`a` the last bar of session `na`, `b` the first of a later session `nb`):
    `b` starts after its session's open by more than the tolerance, or `a` ends more than one
    interval (and the tolerance) before its session's last whole-interval end."""
    from decimal import Decimal

    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    interval = int(clause.param("interval_seconds")) * 1_000_000
    first, last = sessions[nb - 1], sessions[na - 1]
    lead = epoch_us(b) - epoch_us(first.open)
    length = epoch_us(last.close) - epoch_us(last.open)
    tail = length - length % interval - (epoch_us(a) - epoch_us(last.open))
    return lead > interval * tol / 100 or tail > interval * (100 + tol) / 100


def sessions_within(clause: Clause, t: datetime, ingest: datetime, code: str | None) -> bool:
    """A restatement ingested within N sessions of its event (UTC dates), in the sessions of
    calendar `code`; a series without a code has no sessions, so nothing of it is counted late."""
    idx = index_for(clause, [t, ingest], code)
    if idx is None or code is None:
        return True
    n = idx.count_after(code, as_utc(t).date(), as_utc(ingest).date())
    return n <= int(clause.param("business_days"))


def session_grid(clause: Clause, end: datetime, count: int, code: str | None) -> list[datetime]:
    """`count` points of a session cadence on calendar `code` ending at or before `end`, oldest
    first: the last bars of the latest sessions (so minute bars cross a night when `count` is
    large enough), or the latest trading days at 00:00 UTC."""
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
    if code is None:
        raise SampleError("a series without an exchange calendar code has no sessions to sample")
    idx = index_for(clause, [end - span, end], code)
    assert idx is not None
    sessions = [s for s in idx.sessions(code) if s.open <= end]
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
        raise SampleError(f"not enough sessions of {code} before {end}")
    return sorted(out[:count], key=epoch_us)


def completeness_sessions(clause: Clause, rows: Iterable[Mapping[str, Any]],
                          lookup: Mapping[Any, Any]
                          ) -> Callable[[tuple[Any, ...]], tuple[list[tuple[int, int]], int]]:
    """The sessions `completeness: N per session` judges each series on
    (`tacit_gen.semantics.completeness.session_windows`): those of its calendar (`group_code`)
    from exchange_calendars over the data's dates (the time column's UTC dates of every row) a
    week either side, as `verify` generates the sessions relation; so a calendar's longest
    session, which prorates the expected count, is the one that relation holds."""
    from tacit_gen.semantics.completeness import session_windows

    tcol = str(clause.param("column"))
    series_cols = tuple(clause.param("series") or ())
    days: list[date] = []
    keys: set[tuple[Any, ...]] = set()
    for r in rows:
        t = r.get(tcol)
        if isinstance(t, datetime):
            days.append(as_utc(t).date())
            keys.add(tuple(r.get(s) for s in series_cols))

    def code(key: tuple[Any, ...]) -> str | None:
        return group_code(clause, key, lookup)

    codes = sorted({c for k in keys if (c := code(k)) is not None}) if days else []
    found = [s for c in codes for s in _index(c, min(days) - _PAD, max(days) + _PAD).sessions(c)]
    return session_windows(clause, found, code)


def sessions_around(code: str, t: datetime) -> list[Session]:
    """The sessions of calendar `code` from three weeks before `t` to a week after, in order."""
    d = as_utc(t).date()
    return _index(code, d - 3 * _PAD, d + _PAD).sessions(code)
