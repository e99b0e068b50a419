"""Trading days, counted one way everywhere.

Without an exchange calendar, trading (business) days are Mon-Fri days from `WEEKDAY_EPOCH`
(Monday 0001-01-01) through a date, inclusive: a revision window of N business days holds when
``weekday_number(ingest day) - weekday_number(event day) <= N``. The reference evaluator
(`sample`) counts Python dates, the runtime builds the same formula as an ibis expression
(`least=ibis.least`), `tacit_gen.sql.weekdays_through` as a sqlglot tree from the same epoch,
and the dbt macro `tacit_weekday_number` (templates/dbt/tacit_tests.sql) counts from it too.

With an exchange calendar (`time.calendar: XNYS`), days are the calendar's sessions: see
`tacit_gen.semantics.sessions`. `CALENDAR_CODES` is the list of codes exchange_calendars knows,
shipped here so that loading a contract never imports exchange_calendars (and pandas);
`tests/semantics/test_sessions.py` keeps it equal to the installed library's list.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

# A Monday no earlier than any date Python and the engines share: the days since it are never
# negative, so the SQL's integer division and remainder (which truncate toward zero) are exact.
# It was 1900-01-01 until 2026-12-04, and Soda's and GX's SQL and the runtime numbered the days
# before it otherwise than dbt, pandera and this module (tests/hardening/test_verify_before_1900.py).
WEEKDAY_EPOCH = date(1, 1, 1)

# exchange_calendars.get_calendar_names(include_aliases=True), exchange_calendars 4.13
CALENDAR_CODES = (
    "24/5", "24/7", "AIXK", "ARCX", "ASEX", "ASX", "BATS", "BMF", "BSE", "BVB", "BVMF", "CBOT",
    "CFE", "CME", "CMES", "COMEX", "FWB", "HKEX", "ICE", "ICEUS", "IEPA", "JKT", "JPX", "LSE",
    "LUXSE", "NASDAQ", "NYFE", "NYMEX", "NYSE", "OOTC", "OSE", "SIX", "SSE", "TASE", "TSX", "XAMS",
    "XASE", "XASX", "XBDA", "XBEL", "XBKK", "XBOG", "XBOM", "XBRA", "XBRU", "XBSE", "XBUD", "XBUE",
    "XCBF", "XCSE", "XCYS", "XDUB", "XDUS", "XEEE", "XETR", "XEUR", "XFRA", "XHAM", "XHEL", "XHKG",
    "XICE", "XIDX", "XIST", "XJSE", "XKAR", "XKLS", "XKRX", "XLIM", "XLIS", "XLIT", "XLJU", "XLON",
    "XLUX", "XMAD", "XMEX", "XMIL", "XMOS", "XNAS", "XNYS", "XNZE", "XOSL", "XPAR", "XPHS", "XPRA",
    "XRIS", "XSAU", "XSES", "XSGO", "XSHG", "XSTO", "XSTU", "XSWX", "XTAE", "XTAI", "XTAL", "XTKS",
    "XTSE", "XTSX", "XWAR", "XWBO", "XZAG", "us_futures",
)


def weekday_number(days_since_epoch: Any, least: Callable[[Any, Any], Any] = min) -> Any:
    """Mon-Fri days from `WEEKDAY_EPOCH` through the day `days_since_epoch` days after it.

    Works on ints and on expressions that support ``//``, ``%`` and ``+`` (pass their `least`).
    """
    return 5 * (days_since_epoch // 7) + least(days_since_epoch % 7 + 1, 5)


def weekdays_through(d: date) -> int:
    """`weekday_number` of a date."""
    return int(weekday_number((d - WEEKDAY_EPOCH).days))
