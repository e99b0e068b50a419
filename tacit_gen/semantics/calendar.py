"""Business days, counted one way everywhere: Mon-Fri days from `WEEKDAY_EPOCH` (Monday
1900-01-01) through a date, inclusive. A revision window of N business days holds when
``weekday_number(ingest day) - weekday_number(event day) <= N``.

The reference evaluator (`sample`) counts Python dates, the runtime builds the same formula as an
ibis expression (`least=ibis.least`), and `tacit_gen.sql.weekdays_through` as a sqlglot tree from
the same epoch; the dbt macro `tacit_weekday_number` (templates/dbt/tacit_tests.sql) counts from it too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

WEEKDAY_EPOCH = date(1900, 1, 1)  # a Monday


def weekday_number(days_since_epoch: Any, least: Callable[[Any, Any], Any] = min) -> Any:
    """Mon-Fri days from `WEEKDAY_EPOCH` through the day `days_since_epoch` days after it.

    Works on ints and on expressions that support ``//``, ``%`` and ``+`` (pass their `least`).
    """
    return 5 * (days_since_epoch // 7) + least(days_since_epoch % 7 + 1, 5)


def weekdays_through(d: date) -> int:
    """`weekday_number` of a date."""
    return int(weekday_number((d - WEEKDAY_EPOCH).days))
