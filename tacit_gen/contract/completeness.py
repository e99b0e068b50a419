"""`time.completeness`: expected readings per series per window, and the gap types that excuse
missing ones.

    completeness: 1440 per 1d per series; at least 95%; gaps allowed for maintenance, market_halt

The head is `N per <window>` (`per series` after it is optional: counts are always per series);
the window is a duration that divides a UTC day (`1d`, `12h`, `1h`, `15m`), aligned to UTC
midnight, or `session` (the sessions of `time.calendar`). Then `;`-separated parts:
`at least P%` (default 100%, at most two decimals) and `gaps allowed for a, b` (outage
types; `allowed gaps: a, b` in a quoted value reads the same).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from tacit_gen.contract.model import Completeness, Duration

DAY = 86400
_HEAD = re.compile(r"^(?P<n>\d+)\s+per\s+(?P<w>.+?)(?:\s+per\s+series)?$", re.I)
_PCT = re.compile(r"^at\s+least\s+(?P<p>\d+(?:\.\d{1,2})?)\s*%$", re.I)
_GAPS = re.compile(r"^(?:gaps\s+allowed\s+for|allowed\s+gaps)\s*:?\s*(?P<g>.*)$", re.I)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SESSION = re.compile(r"^sessions?$", re.I)


class CompletenessSyntaxError(ValueError):
    """A completeness text that cannot be read; `word` is the offending part."""

    def __init__(self, message: str, word: str) -> None:
        super().__init__(message)
        self.word = word


def parse_completeness(text: str, duration: Callable[[str], tuple[Duration, str] | None]
                       ) -> Completeness:
    """Read a `time.completeness` text (`duration` is the loader's duration reader).

    Raises:
        CompletenessSyntaxError: the text, with the part it cannot read.
    """
    parts = [p.strip() for p in text.split(";")]
    m = _HEAD.match(parts[0])
    if m is None:
        raise CompletenessSyntaxError(
            f"completeness '{parts[0]}' does not read as 'N per <window> per series' "
            "(such as '1440 per 1d per series' or '390 per session per series')",
            parts[0].split()[0] if parts[0].split() else parts[0])
    expected = int(m.group("n"))
    if expected <= 0:
        raise CompletenessSyntaxError("completeness expects at least one reading per window",
                                      m.group("n"))
    wtext = m.group("w").strip()
    window: Duration | None = None
    if not SESSION.match(wtext):
        parsed = duration(wtext)
        if parsed is None or parsed[1].strip() or parsed[0].business_days is not None:
            raise CompletenessSyntaxError(
                f"completeness window '{wtext}' is not a duration such as 1d or 1h, nor 'session'",
                wtext)
        window = parsed[0]
        if window.seconds <= 0 or DAY % window.seconds:
            raise CompletenessSyntaxError(
                f"completeness window '{wtext}' does not divide a UTC day (windows are aligned "
                "to UTC midnight: 1d, 12h, 1h, 15m...)", wtext)
    pct = "100"
    gaps: list[str] = []
    for p in parts[1:]:
        if not p:
            continue
        if (pm := _PCT.match(p)) is not None:
            value = Decimal(pm.group("p"))
            if not 0 < value <= 100:
                raise CompletenessSyntaxError(f"'{p}': the share is above 0% and at most 100%", p)
            pct = str(value.normalize()) if value == value.to_integral_value() else pm.group("p")
            pct = str(int(value)) if value == value.to_integral_value() else pct
        elif (gm := _GAPS.match(p)) is not None:
            for name in (g.strip() for g in gm.group("g").split(",")):
                if not _NAME.match(name):
                    raise CompletenessSyntaxError(
                        f"'{name}' is not a gap type name (letters, digits, _)", name or p)
                if name not in gaps:
                    gaps.append(name)
        else:
            raise CompletenessSyntaxError(
                f"cannot read '{p}' in completeness: write 'at least N%' or "
                "'gaps allowed for maintenance, market_halt'", p)
    return Completeness(expected=expected, window=window, min_pct=pct,
                        allowed_gaps=tuple(sorted(gaps)), text=text)
