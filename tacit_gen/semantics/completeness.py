"""What `completeness:` means, on rows in memory: the reference every target agrees with.

Per series (the clause's `series` columns; a row with a NULL time or series value is no reading),
the readings are the distinct instants of the time column. Windows are `window_seconds` long,
aligned to 1970-01-01 UTC (so `1d` windows are UTC days). A series' window is judged when it lies
between the series' first and last readings: its start is at or after the first reading and its
end at or before the last one (a window still filling, or one the series began inside, is not
judged); empty windows in between count zero readings.

Outages of an allowed type excuse the readings they cover: the expected count of a window is
`expected * (window - covered) / window`, where `covered` is the sum of the window's overlap with
each outage of the series whose type is allowed (at most the window). A window fails when
`readings < min_pct% * expected * (window - covered) / window`, computed exactly in whole
milliseconds (`tacit_gen.sql.completeness` is the same formula in SQL).

``N per session``: the windows are the sessions of the series' calendar (the contract's
`time.calendar`, or the catalog's calendar of the series), each ``[open, close)`` from the
sessions relation. `expected` is the count of the calendar's longest session in that relation (a
regular one); a shorter session (an early close) expects its share: the expected count of a
session of length `len` is `expected * (len - covered) / longest`. A session is judged when it lies
between the series' first and last readings (`open >= first`, `close <= last`), as a window is.
A series with no calendar code has no sessions, so nothing of it is judged (the calendar's own
clauses report a series missing from the catalog).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

PCT_SCALE = 100  # as tacit_gen.sql.completeness: two decimals of a percent


@dataclass(frozen=True)
class ShortWindow:
    """One series' window short of readings."""

    series: tuple[Any, ...]
    start: datetime  # the window's start (UTC)
    readings: int


def _ms(v: Any) -> int | None:
    """Whole milliseconds since the epoch (naive values count as UTC), floored."""
    if v is None:
        return None
    if isinstance(v, datetime):
        d = v if v.tzinfo is not None else v.replace(tzinfo=UTC)
        delta = d - datetime(1970, 1, 1, tzinfo=UTC)
        return (delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds) // 1000
    to_py = getattr(v, "to_pydatetime", None)  # a pandas Timestamp
    if to_py is not None:
        return _ms(to_py())
    raise TypeError(f"not an instant: {v!r}")


def session_windows(clause: Clause, sessions: Iterable[Any],
                    code: Callable[[tuple[Any, ...]], str | None]
                    ) -> Callable[[tuple[Any, ...]], tuple[list[tuple[int, int]], int]]:
    """For `N per session`: a series key -> (its sessions as ``[open, close)`` in milliseconds in
    date order, the longest session's length of its calendar; 0 without sessions).

    `sessions` are `tacit_gen.semantics.sessions.Session` values (calendar, session, open,
    close); `code` gives a series' calendar code (None: none)."""
    by: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for s in sessions:
        o, c = _ms(s.open), _ms(s.close)
        if o is not None and c is not None:
            by[str(s.calendar)].append((o, c))
    spans = {k: sorted(v) for k, v in by.items()}
    longest = {k: max(c - o for o, c in v) for k, v in spans.items()}

    def of(key: tuple[Any, ...]) -> tuple[list[tuple[int, int]], int]:
        cal = code(key)
        if cal is None or cal not in spans:
            return [], 0
        return spans[cal], longest[cal]

    return of


def short_windows(clause: Clause, rows: Iterable[Mapping[str, Any]],
                  outages: Iterable[Mapping[str, Any]] = (),
                  sessions: Callable[[tuple[Any, ...]], tuple[list[tuple[int, int]], int]] | None = None
                  ) -> list[ShortWindow]:
    """The windows of each series short of readings, in series then time order.

    Args:
        clause: a `completeness` clause.
        rows: the data, as mappings column -> value (instants as datetimes).
        outages: the outages relation's rows (series columns, start, end, type); read only
            when the clause allows gap types.
        sessions: for `N per session`, the sessions of a series (`session_windows`); required
            then, ignored otherwise.
    """
    p = clause.param
    series_cols = tuple(p("series") or ())
    tcol = str(p("column"))
    per_session = p("window_seconds") is None
    if per_session and sessions is None:
        raise ValueError(f"{clause.id}: completeness per session needs the sessions")
    w = 0 if per_session else int(p("window_seconds")) * 1000
    expected = int(p("expected"))
    pct = pct_units(str(p("min_pct")))
    allowed = set(p("allowed_gaps") or ())
    points: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for r in rows:
        key = tuple(r.get(c) for c in series_cols)
        ms = _ms(r.get(tcol))
        if ms is None or any(k is None for k in key):
            continue
        points[key].add(ms)
    spans: dict[tuple[Any, ...], list[tuple[int, int]]] = defaultdict(list)
    if allowed:
        start, end, kind = (str(p("outages_start")), str(p("outages_end")), str(p("outages_type")))
        for o in outages:
            if o.get(kind) not in allowed:
                continue
            o0, o1 = _ms(o.get(start)), _ms(o.get(end))
            if o0 is None or o1 is None:
                continue
            spans[tuple(o.get(c) for c in series_cols)].append((o0, o1))
    out: list[ShortWindow] = []
    for key in sorted(points, key=lambda k: tuple((v is None, str(v)) for v in k)):
        times = points[key]
        first, last = min(times), max(times)
        if sessions is not None and per_session:
            own, full = sessions(key)
            windows = [(o, c) for o, c in own if o >= first and c <= last]
            ordered = sorted(times)
            counts_of = [bisect.bisect_left(ordered, c) - bisect.bisect_left(ordered, o)
                         for o, c in windows]
        else:
            full = w
            windows = [(k * w, (k + 1) * w) for k in range(-(-first // w), last // w)]
            counts: dict[int, int] = defaultdict(int)
            for ms in times:
                counts[ms // w] += 1
            counts_of = [counts.get(ws // w, 0) for ws, _ in windows]
        for (ws, we), n in zip(windows, counts_of, strict=True):
            length = we - ws
            covered = sum(max(0, min(o1, we) - max(o0, ws)) for o0, o1 in spans.get(key, ())
                          if o0 < we and o1 > ws)
            if n * 100 * PCT_SCALE * full < pct * expected * (length - min(covered, length)):
                out.append(ShortWindow(key, datetime.fromtimestamp(ws / 1000, UTC), n))
    return out


def pct_units(min_pct: str) -> int:
    """The share as an integer number of 1/10000 (``"95"`` -> 9500, ``"99.5"`` -> 9950)."""
    return int(Decimal(min_pct) * PCT_SCALE)
