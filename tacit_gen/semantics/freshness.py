"""What `freshness:<c>` means, for the reference checks (`sample`) and the docs: the newest value
of the time column is at most `max_age_seconds` older than the pinned "now".

On a `timestamp_*_utc` column the age is exact: ``newest >= now - max_age``. On a `date` column
it is counted in whole days against the UTC date of "now": ``utc_date(now) - newest <= days``
(``days = max_age_seconds // 86400``; a date column's freshness is whole days, lint TG206). An
empty table, or one whose time column is all NULL, fails.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

DAY_SECONDS = 86_400


def age_days(newest: date, now: datetime) -> int:
    """Whole days from `newest` to the UTC date of `now` (negative for a date in the future)."""
    return (now.astimezone(UTC).date() - newest).days


def stale(newest: date | datetime | None, now: datetime, max_age_seconds: int) -> bool:
    """Whether a table whose newest time value is `newest` violates the freshness clause."""
    if newest is None:
        return True
    if isinstance(newest, datetime):
        when = newest if newest.tzinfo is not None else newest.replace(tzinfo=UTC)
        return when < now - timedelta(seconds=max_age_seconds)
    return age_days(newest, now) > max_age_seconds // DAY_SECONDS
