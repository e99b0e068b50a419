"""Minute bars over exchange sessions for `completeness: N per session` tests, with failures known
by hand: the sessions of 2024-11-26 .. 2024-12-02 (XNYS: Thanksgiving closed, the 2024-11-29
early close at 18:00 UTC, 210 minutes against 390).

Literal calendar (`completeness_session.yaml`, XNYS), 390 per session, at least 95%:
- AAA 2024-11-26: 60 bars missing inside a `market_halt` outage: excused, passes;
- AAA 2024-11-29 (early close): 190 of 210 bars, 90%: fails;
- BBB 2024-11-27: 300 of 390: fails;
- every other session is whole; 2024-12-02 is the last session, not judged (no reading at its
  close or after).
Per-series calendar (`completeness_venue_session.yaml`): AAA on XNYS as above (no outage), BBB on
XLON (510-minute sessions), 300 bars on 2024-11-27: fails.
"""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from tacit_gen.semantics.sessions import Session, exchange_sessions

ROOT = Path(__file__).resolve().parents[2]
LITERAL = ROOT / "tests" / "fixtures" / "series" / "completeness_session.yaml"
VENUE = ROOT / "tests" / "fixtures" / "series" / "completeness_venue_session.yaml"
FIRST, LAST = date(2024, 11, 26), date(2024, 12, 2)
NOW = datetime(2024, 12, 3, tzinfo=UTC)
CLAUSE = "completeness:bar_start"
HALT = {"symbol": "AAA", "start": datetime(2024, 11, 26, 15, 30, tzinfo=UTC),
        "end": datetime(2024, 11, 26, 16, 30, tzinfo=UTC), "type": "market_halt"}
# (series, session open) that fail, by hand
SHORT_LITERAL = {("AAA", datetime(2024, 11, 29, 14, 30, tzinfo=UTC)),
                 ("BBB", datetime(2024, 11, 27, 14, 30, tzinfo=UTC))}
SHORT_VENUE = {("AAA", datetime(2024, 11, 29, 14, 30, tzinfo=UTC)),
               ("BBB", datetime(2024, 11, 27, 8, 0, tzinfo=UTC))}
VENUES = {"AAA": "XNYS", "BBB": "XLON"}


def sessions(codes: tuple[str, ...] = ("XNYS",)) -> list[Session]:
    """The sessions of each calendar over 2024-11-20 .. 2024-12-10."""
    return [s for code in codes for s in exchange_sessions(code, date(2024, 11, 20), date(2024, 12, 10))]


def bars(venue: bool = False, whole: bool = False) -> list[dict[str, Any]]:
    """The bars (`whole`: no session short, the clean case)."""
    minute = timedelta(minutes=1)
    out: list[dict[str, Any]] = []
    for s in sessions(("XNYS", "XLON") if venue else ("XNYS",)):
        if not FIRST <= s.session <= LAST:
            continue
        for sym in ("AAA", "BBB"):
            if (VENUES[sym] if venue else "XNYS") != s.calendar:
                continue
            for i in range(int((s.close - s.open) / minute)):
                if not whole and sym == "BBB" and s.session == date(2024, 11, 27) and i >= 300:
                    continue
                if not whole and sym == "AAA" and s.session == date(2024, 11, 29) and i >= 190:
                    continue
                if not venue and sym == "AAA" and s.session == date(2024, 11, 26) and 60 <= i < 120:
                    continue  # inside the market halt (an allowed outage), even when whole
                out.append({"symbol": sym, "bar_start": s.open + i * minute, "close": "1.5"})
    return out


def _instant(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write(folder: Path, venue: bool = False, whole: bool = False) -> dict[str, Path]:
    """The data, outages and (venue) catalog as CSV files in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"data": folder / "bars.csv", "outages": folder / "outages.csv"}
    with open(paths["data"], "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["symbol", "bar_start", "close"])
        for r in bars(venue, whole):
            w.writerow([r["symbol"], _instant(r["bar_start"]), r["close"]])
    with open(paths["outages"], "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["symbol", "start", "end", "type"])
        w.writerow([HALT["symbol"], _instant(HALT["start"]), _instant(HALT["end"]), HALT["type"]])
    if venue:
        paths["catalog"] = folder / "instruments.csv"
        with open(paths["catalog"], "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["symbol", "venue_calendar"])
            w.writerows(sorted(VENUES.items()))
    return paths
