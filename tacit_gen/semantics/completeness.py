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
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
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


def short_windows(clause: Clause, rows: Iterable[Mapping[str, Any]],
                  outages: Iterable[Mapping[str, Any]] = ()) -> list[ShortWindow]:
    """The windows of each series short of readings, in series then time order.

    Args:
        clause: a `completeness` clause.
        rows: the data, as mappings column -> value (instants as datetimes).
        outages: the outages relation's rows (series columns, start, end, type); read only
            when the clause allows gap types.
    """
    p = clause.param
    series_cols = tuple(p("series") or ())
    tcol = str(p("column"))
    w = int(p("window_seconds")) * 1000
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
        k0, k1 = -(-min(times) // w), max(times) // w - 1
        counts: dict[int, int] = defaultdict(int)
        for ms in times:
            counts[ms // w] += 1
        for k in range(k0, k1 + 1):
            ws, we = k * w, (k + 1) * w
            covered = sum(max(0, min(o1, we) - max(o0, ws)) for o0, o1 in spans.get(key, ())
                          if o0 < we and o1 > ws)
            n = counts.get(k, 0)
            if n * 100 * PCT_SCALE * w < pct * expected * (w - min(covered, w)):
                out.append(ShortWindow(key, datetime.fromtimestamp(ws / 1000, UTC), n))
    return out


def pct_units(min_pct: str) -> int:
    """The share as an integer number of 1/10000 (``"95"`` -> 9500, ``"99.5"`` -> 9950)."""
    return int(Decimal(min_pct) * PCT_SCALE)
