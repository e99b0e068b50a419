"""Exchange sessions as data: the table every target joins, and what a clause means over it.

A sessions table has one row per session of an exchange calendar: the calendar's code, the
session date, and the session's open and close as UTC instants (early closes, late opens and
daylight-saving changes are in the instants; a lunch break is inside the session). It is made
from `exchange_calendars` (`exchange_sessions`, `tacit-gen calendar XNYS --start --end --out`)
and loaded as a table, like the catalog.

Meaning, shared by every target (docs/contract-language.md, "Calendar"):

- Sessions of one calendar are numbered 1, 2, ... in date order (`number`).
- ``Ns within session``: a point belongs to the session whose ``open <= t`` and
  ``t + interval <= close``; none is a violation (a bar outside a session). Consecutive points of
  one session must be `interval` apart (tolerance as usual); from the last point of one session
  to the first of the next is no gap; a whole session skipped is a gap. A bar is stamped at its
  start. Unless gaps are allowed, the night between two sessions is judged at the session edges,
  as a step from a bar ending at the open and to a bar starting at the last whole-interval end
  (``close - (close - open) mod interval``): the first bar of a session that follows a point of
  an earlier session fails when it starts after the open by more than the tolerance
  (``t - open > interval * tol``), or when the earlier session's last bar ``a`` ends short of that
  end (``end - a > interval * (1 + tol)``: a bar is missing before the close). It fails once,
  like a gap. A series' first session is not judged at its open, nor its last at its close
  (the data may start or stop inside a session; the next point judges it).
- ``1 trading day``: a point belongs to the session whose date is its UTC date and which it
  stamps at 00:00 UTC or at the open; none is a violation. Two points of one session are a
  duplicate; a skipped session is a gap.
- ``N trading days`` (revision window): the sessions strictly after the event's UTC date up to
  and including the ingest's UTC date.

exchange_calendars (and pandas) are imported only by `exchange_sessions`.
"""

from __future__ import annotations

import bisect
import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from tacit_gen.semantics.calendar import CALENDAR_CODES

COLUMNS = ("calendar", "session", "open", "close")  # the default column names of the table


class CalendarError(ValueError):
    """An unknown calendar code, or dates the calendar does not cover."""


@dataclass(frozen=True)
class Session:
    """One session: its calendar, date, and open and close as UTC instants."""

    calendar: str
    session: date
    open: datetime
    close: datetime


def exchange_sessions(code: str, start: date, end: date) -> list[Session]:
    """The sessions of calendar `code` from `start` to `end` (inclusive), from exchange_calendars.

    Raises:
        CalendarError: the code is unknown, or the dates are outside what the calendar covers.
    """
    if code not in CALENDAR_CODES:
        import difflib

        close = difflib.get_close_matches(code.upper(), CALENDAR_CODES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise CalendarError(f"unknown exchange calendar '{code}'{hint}")
    if end < start:
        raise CalendarError(f"the end {end} is before the start {start}")
    from tacit_gen import diskcache
    from tacit_gen.installed import version

    # The sessions of a calendar over a span are fixed by the exchange_calendars release: kept on
    # disk under that key, a second verify or sample of the same dates does not import pandas and
    # exchange_calendars (about a second) to get them again.
    name = "sessions-" + diskcache.key(code, start.isoformat(), end.isoformat(),
                                       version("exchange-calendars") or "?") + ".json"
    kept = diskcache.load(name)
    if kept is not None:
        try:
            return [Session(code, date.fromisoformat(d), _instant(o), _instant(c))
                    for d, o, c in kept["sessions"]]
        except (KeyError, TypeError, ValueError):
            pass  # not a file this code wrote: computed again, and rewritten
    got = _exchange_sessions(code, start, end)
    diskcache.store(name, {"sessions": [[s.session.isoformat(), instant_text(s.open),
                                         instant_text(s.close)] for s in got]})
    return got


def _exchange_sessions(code: str, start: date, end: date) -> list[Session]:
    import exchange_calendars as xc

    try:
        cal = xc.get_calendar(code, start=start.isoformat(), end=end.isoformat())
    except Exception as e:  # exchange_calendars' own errors (dates out of bounds, ...)
        raise CalendarError(f"{code}: {str(e).strip().splitlines()[0]}") from e
    out: list[Session] = []
    sched = cal.schedule
    for day, opens, closes in zip(sched.index, sched["open"], sched["close"], strict=True):
        out.append(Session(code, day.date(), opens.to_pydatetime().astimezone(UTC),
                           closes.to_pydatetime().astimezone(UTC)))
    return out


def instant_text(t: datetime) -> str:
    """An instant as written in a sessions file: ``2024-11-29T18:00:00Z``."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions_csv(sessions: Iterable[Session], columns: Sequence[str] = COLUMNS) -> str:
    """The sessions as CSV text with a header (`columns` names calendar, session, open, close)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for s in sessions:
        w.writerow([s.calendar, s.session.isoformat(), instant_text(s.open), instant_text(s.close)])
    return buf.getvalue()


def read_sessions_csv(path: Path, columns: Sequence[str] = COLUMNS) -> list[Session]:
    """Sessions from a CSV file with the header `columns` (as `sessions_csv` writes it)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    cal, ses, op, cl = columns
    for r in rows:
        out.append(Session(r[cal], date.fromisoformat(r[ses]), _instant(r[op]), _instant(r[cl])))
    return out


def _instant(text: str) -> datetime:
    t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if t.tzinfo is None:
        raise CalendarError(f"session instant '{text}' has no UTC offset")
    return t.astimezone(UTC)


class SessionIndex:
    """Sessions of each calendar, numbered in date order, for the reference evaluator."""

    def __init__(self, sessions: Iterable[Session]) -> None:
        by: dict[str, list[Session]] = {}
        for s in sessions:
            by.setdefault(s.calendar, []).append(s)
        self._by = {c: sorted(v, key=lambda s: s.session) for c, v in by.items()}
        self._opens = {c: [s.open for s in v] for c, v in self._by.items()}
        self._dates = {c: [s.session for s in v] for c, v in self._by.items()}

    def sessions(self, calendar: str) -> list[Session]:
        return list(self._by.get(calendar, ()))

    def within(self, calendar: str, t: datetime, interval_seconds: int) -> int | None:
        """The number (1-based) of the session holding the bar [t, t + interval), or None."""
        opens = self._opens.get(calendar)
        if not opens:
            return None
        i = bisect.bisect_right(opens, t) - 1
        if i < 0:
            return None
        s = self._by[calendar][i]
        return i + 1 if t + timedelta(seconds=interval_seconds) <= s.close else None

    def trading_day(self, calendar: str, t: datetime) -> int | None:
        """The number of the session a daily bar stamps (00:00 UTC of its date, or its open)."""
        dates = self._dates.get(calendar)
        if not dates:
            return None
        d = t.astimezone(UTC).date()
        i = bisect.bisect_left(dates, d)
        if i >= len(dates) or dates[i] != d:
            return None
        s = self._by[calendar][i]
        midnight = datetime(d.year, d.month, d.day, tzinfo=UTC)
        return i + 1 if t in (midnight, s.open) else None

    def count_after(self, calendar: str, first: date, last: date) -> int:
        """Sessions with ``first < date <= last``."""
        dates = self._dates.get(calendar, [])
        return max(0, bisect.bisect_right(dates, last) - bisect.bisect_right(dates, first))
