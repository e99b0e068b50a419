"""Hand-made minute bars over Thanksgiving 2024 for `completeness: 390 per session per series`
(tests/fixtures/series/completeness_session.yaml, calendar XNYS), shared by the runtime, pandera
and sample tests of tests/timeseries/test_completeness_session.py.

The sessions are XNYS's from 2024-11-20 to 2024-12-10 (longest: 6h30, 390 minutes); the bars
fill each session from 2024-11-26 to 2024-12-02 of two symbols, one bar a minute from the open,
except:

- BBB on 2024-11-27: the first 300 bars only (300 of 390 < 95%): short.
- AAA on 2024-11-26: 60 bars missing from 15:30 to 16:30 UTC, covered by a `market_halt` outage
  (330 of 390 expected less 60 excused: passes); under an outage of another type it is short.
- AAA on 2024-11-29, the early close (13:00 New York, 210 minutes: 390 * 210 / 390 expected):
  `early` bars (190 of 210 < 95%: short; 210 of 210: passes).

XLON (for a per-series calendar): CCC trades London's sessions (08:00 to 16:30 UTC in winter,
510 minutes, the longest) and on 2024-11-28 (Thanksgiving: New York is closed, London is not)
has its first 300 bars only: 300 < 95% of 390.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from tacit_gen.semantics.sessions import Session, exchange_sessions

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "series" / "completeness_session.yaml"
CID = "completeness:bar_start"
FIRST, LAST = date(2024, 11, 26), date(2024, 12, 2)
MINUTE = timedelta(minutes=1)
HALT = (datetime(2024, 11, 26, 15, 30, tzinfo=UTC), datetime(2024, 11, 26, 16, 30, tzinfo=UTC))
# The per-series calendar contract: each symbol's calendar from the catalog `instruments`.
PER_SERIES = FIXTURE.read_text(encoding="utf-8").replace(
    "  calendar: XNYS\n", "  calendar: per series from catalog\n").replace(
    "calendar: {relation: venue_sessions}\n",
    "calendar: {relation: venue_sessions}\ncatalog: {relation: instruments, key: symbol, calendar: venue}\n")


def sessions(*codes: str) -> list[Session]:
    """The sessions of `codes` from 2024-11-20 to 2024-12-10 (exchange_calendars)."""
    return [s for code in codes for s in exchange_sessions(code, date(2024, 11, 20), date(2024, 12, 10))]


def _bars(symbol: str, ses: list[Session], keep: Any) -> list[dict[str, Any]]:
    out = []
    for s in ses:
        if not FIRST <= s.session <= LAST:
            continue
        for i in range(int((s.close - s.open) / MINUTE)):
            if keep(s.session, i):
                out.append({"symbol": symbol, "bar_start": s.open + i * MINUTE, "close": "1.5"})
    return out


def bars(early: int = 190, short: bool = True, halted: bool = True) -> list[dict[str, Any]]:
    """The XNYS bars of AAA and BBB (see the module docstring); `short=False`: BBB full."""
    ny = sessions("XNYS")

    def aaa(day: date, i: int) -> bool:
        if day == date(2024, 11, 26) and halted and 60 <= i < 120:
            return False
        return not (day == date(2024, 11, 29) and i >= early)

    def bbb(day: date, i: int) -> bool:
        return not (short and day == date(2024, 11, 27) and i >= 300)

    rows = _bars("AAA", ny, aaa) + _bars("BBB", ny, bbb)
    return sorted(rows, key=lambda r: (r["bar_start"], r["symbol"]))


def london_bars(short: bool = True) -> list[dict[str, Any]]:
    """CCC on XLON, short on 2024-11-28 (300 of 510 minutes, 390 * 95% needed); `short=False`:
    every session full."""
    return _bars("CCC", sessions("XLON"),
                 lambda day, i: not (short and day == date(2024, 11, 28) and i >= 300))


def outages(kind: str = "market_halt") -> list[dict[str, Any]]:
    return [{"symbol": "AAA", "start": HALT[0], "end": HALT[1], "type": kind}]


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A UTC instant of November 2024."""
    return datetime(2024, 11, day, hour, minute, tzinfo=UTC)
