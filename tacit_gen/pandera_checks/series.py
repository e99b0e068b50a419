"""The series, catalog and reference checks of generated pandera modules: freshness, cadence
(also within exchange sessions), completeness, the catalog clauses, the revision policy and
`references:`, each a dataframe-level ``pa.Check`` built from the clause's params and the frames
``schema()`` was given (`tacit_gen.pandera_checks.checks` holds the types and row conditions).
"""

# pyarrow.compute's functions are made at import (its stubs name none of them) and pandas-stubs
# types `df[name]` as Series | DataFrame: pyright cannot follow this module's array code.
# pyright: reportAttributeAccessIssue=false, reportArgumentType=false, reportCallIssue=false
# pyright: reportOperatorIssue=false

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow
import pyarrow.compute as pc

from tacit_gen.pandera_checks.checks import accepts, cmp, col

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US_PER_UNIT = {"s": 1_000_000, "ms": 1_000, "us": 1}


def _no_catalog(name: str, error: str, relation: str) -> pa.Check:
    """A catalog clause without a catalog frame fails: it never passes unchecked."""
    message = f"{error} [no catalog frame: pass schema(catalog=<{relation} frame>)]"
    return pa.Check(lambda df: False, name=name, error=message)


def _epoch_us(arr: Any) -> Any:
    """A timestamp array as int64 microseconds since the epoch (nulls kept)."""
    unit = arr.type.unit
    ints = pc.cast(arr, pyarrow.int64())
    if unit == "ns":  # floor division, also before 1970
        return pc.divide(pc.subtract(ints, pc.if_else(pc.less(ints, 0), 999, 0)), 1000)
    return pc.multiply(ints, _US_PER_UNIT[unit])


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def _lookup(df: pd.DataFrame, key: str, catalog: pd.DataFrame, catalog_key: str, column: str) -> tuple[Any, Any]:
    """(catalog ``column`` aligned to the rows of df by ``key``, mask of rows with no entry)."""
    keys = col(df, key)
    cat_keys = col(catalog, catalog_key)
    if cat_keys.type != keys.type:
        cat_keys = pc.cast(cat_keys, keys.type)
    index = pc.index_in(keys, value_set=cat_keys)
    return pc.take(col(catalog, column), index), pc.is_null(index)


def freshness_check(name: str, error: str, column: str, max_age_seconds: int, now: datetime) -> pa.Check:
    """``max(column) >= now - max_age``; on a date column, whole days before the UTC date of
    now. An empty table (or all nulls) fails."""
    limit = _micros(now) - max_age_seconds * 1_000_000

    def check(df: pd.DataFrame) -> bool:
        values = col(df, column)
        if accepts(df[column], "date") and not isinstance(df[column].dtype, pd.DatetimeTZDtype):
            values = col(df, column, "date")  # a numpy-backed date: a naive midnight datetime64
        if pyarrow.types.is_date(values.type):
            newest = pc.max(values)
            oldest_allowed = now.astimezone(UTC).date() - timedelta(days=max_age_seconds // 86_400)
            return bool(newest.is_valid and newest.as_py() >= oldest_allowed)
        latest = pc.max(_epoch_us(values))
        return bool(latest.is_valid and latest.as_py() >= limit)

    return pa.Check(check, name=name, error=error)


def _cadence_bounds(interval_seconds: Any, tolerance_pct: str) -> tuple[int, int] | None:
    """Shortest and longest allowed step in whole microseconds, or None without an interval."""
    if interval_seconds is None:
        return None
    interval = Fraction(Decimal(str(interval_seconds))) * 1_000_000
    tolerance = Fraction(Decimal(tolerance_pct)) / 100
    low, high = interval * (1 - tolerance), interval * (1 + tolerance)
    return -((-low.numerator) // low.denominator), high.numerator // high.denominator


def cadence_check(
    name: str,
    error: str,
    column: str,
    series: tuple[str, ...],
    interval_seconds: int | None,
    tolerance_pct: str,
    gaps_allowed: bool,
    revision_column: str | None,
    catalog: pd.DataFrame | None = None,
    relation: str | None = None,
    catalog_key: str | None = None,
    catalog_column: str | None = None,
) -> pa.Check:
    """Consecutive points of a series (rows of its latest revision) are one interval apart.

    A step shorter than interval*(1-tol) fails (off-grid or duplicate point), a longer one than
    interval*(1+tol) fails unless gaps are allowed. From the catalog: every point of a series with
    no catalog entry (or a null interval) fails.
    """
    from_catalog = interval_seconds is None
    if from_catalog and catalog is None:
        return _no_catalog(name, error, relation or "catalog")

    def check(df: pd.DataFrame) -> pd.Series:
        keys = [f"s{i}" for i in range(len(series))]
        frame = pd.DataFrame({k: df[s].reset_index(drop=True) for k, s in zip(keys, series, strict=True)})
        frame["t"] = pd.Series(pd.arrays.ArrowExtensionArray(_epoch_us(col(df, column))))
        if revision_column is not None:
            frame["r"] = df[revision_column].reset_index(drop=True)
        present = frame["t"].notna()
        for k in keys:  # rows with a NULL time or series value are not points
            present = present & frame[k].notna()
        frame = frame[present.astype(bool)]
        if revision_column is not None:
            latest = frame.groupby([*keys, "t"], dropna=False)["r"].transform("max")
            same = (frame["r"] == latest).fillna(False).astype(bool)
            frame = frame[same | (latest.isna() & frame["r"].isna()).astype(bool)]
        frame = frame.sort_values([*keys, "t"], kind="stable")
        previous = frame.groupby(keys, dropna=False)["t"].shift(1) if keys else frame["t"].shift(1)
        step = (frame["t"] - previous).astype("Int64")
        if from_catalog:
            table: dict[Any, tuple[int, int] | None] = {}
            entries = zip(col(catalog, str(catalog_key)).to_pylist(),
                          col(catalog, str(catalog_column)).to_pylist(), strict=True)
            for k, v in entries:
                if v is not None and k not in table:
                    table[k] = _cadence_bounds(v, tolerance_pct)
            bounds = [table.get(k) for k in frame[keys[0]].tolist()]
            low = pd.array([b[0] if b else None for b in bounds], dtype="Int64")
            high = pd.array([b[1] if b else None for b in bounds], dtype="Int64")
        else:
            fixed = _cadence_bounds(interval_seconds, tolerance_pct)
            assert fixed is not None  # an interval in the contract
            low_i, high_i = fixed
            low = pd.array([low_i] * len(frame), dtype="Int64")
            high = pd.array([high_i] * len(frame), dtype="Int64")
        values = step.array
        bad = values < low
        if not gaps_allowed:
            bad = bad | (values > high)
        bad = np.asarray(pd.array(bad, dtype="boolean").fillna(False), dtype=bool)
        if from_catalog:
            # a series with no catalog entry (or no interval) is a violation, never a silent pass
            bad = bad | np.asarray(pd.isna(low), dtype=bool)
        ok = np.ones(len(df), dtype=bool)
        ok[frame.index.to_numpy()[bad]] = False
        return pd.Series(ok, index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def catalog_unit_check(
    name: str,
    error: str,
    column: str,
    key: str,
    relation: str,
    catalog_key: str,
    catalog_column: str,
    catalog: pd.DataFrame | None,
) -> pa.Check:
    """``column`` equals the catalog's unit for the row's ``key``; no catalog entry fails."""
    if catalog is None:
        return _no_catalog(name, error, relation)

    def check(df: pd.DataFrame) -> pd.Series:
        value = col(df, column)
        expected, missing = _lookup(df, key, catalog, catalog_key, catalog_column)
        if expected.type != value.type:
            expected = pc.cast(expected, value.type)
        bad = pc.or_kleene(missing, pc.invert(pc.fill_null(pc.equal(value, expected), True)))
        bad = pc.and_kleene(pc.is_valid(value), bad)
        return pd.Series(pc.invert(bad).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def catalog_bounds_check(
    name: str,
    error: str,
    column: str,
    key: str,
    relation: str,
    catalog_key: str,
    min_column: str,
    max_column: str,
    catalog: pd.DataFrame | None,
) -> pa.Check:
    """``catalog min <= column <= catalog max`` for the row's ``key``; no catalog entry fails."""
    if catalog is None:
        return _no_catalog(name, error, relation)

    def check(df: pd.DataFrame) -> pd.Series:
        value = col(df, column)
        low, missing = _lookup(df, key, catalog, catalog_key, min_column)
        high, _ = _lookup(df, key, catalog, catalog_key, max_column)
        within = pc.fill_null(pc.and_kleene(cmp(low, "<=", value), cmp(value, "<=", high)), True)
        bad = pc.and_kleene(pc.is_valid(value), pc.or_kleene(missing, pc.invert(within)))
        return pd.Series(pc.invert(bad).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def revision_window_check(
    name: str,
    error: str,
    column: str,
    time_column: str,
    ingest_column: str | None,
    allowed: bool,
    window_seconds: int | None,
    business_days: int | None,
) -> pa.Check:
    """Revisions: none at all when not allowed; otherwise restated within the window."""

    def check(df: pd.DataFrame) -> pd.Series:
        revision = col(df, column)
        if not allowed:
            bad = pc.fill_null(pc.not_equal(revision, 0), False)
        elif ingest_column is None or (window_seconds is None and business_days is None):
            bad = pyarrow.array([False] * len(df), pyarrow.bool_())
        else:
            event = _epoch_us(col(df, time_column))
            ingest = _epoch_us(col(df, ingest_column))
            if business_days is not None:
                day = 86_400_000_000
                start = (np.array(event.to_pylist(), dtype="float64") // day) + 1
                end = (np.array(ingest.to_pylist(), dtype="float64") // day) + 1
                valid = ~(np.isnan(start) | np.isnan(end))
                days = np.zeros(len(df), dtype="int64")
                days[valid] = np.busday_count(
                    start[valid].astype("int64").astype("datetime64[D]"),
                    end[valid].astype("int64").astype("datetime64[D]"),
                )
                late = pyarrow.array(np.where(valid, days > business_days, False))
            else:
                assert window_seconds is not None  # a window in time when not in business days
                late = pc.greater(pc.subtract(ingest, event), window_seconds * 1_000_000)
            bad = pc.fill_null(pc.and_kleene(pc.greater(revision, 0), late), False)
        return pd.Series(pc.invert(bad).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def catalog_dimension_check(
    name: str,
    error: str,
    column: str,
    key: str,
    relation: str,
    catalog_key: str,
    catalog_column: str,
    dimension: str,
    units: tuple[str, ...],
    catalog: pd.DataFrame | None,
) -> pa.Check:
    """The catalog's unit for the row's ``key`` is one of ``units`` (the spellings of
    ``dimension``, exact text); no catalog entry, or a NULL unit, fails. A NULL key passes."""
    if catalog is None:
        return _no_catalog(name, error, relation)

    def check(df: pd.DataFrame) -> pd.Series:
        unit, missing = _lookup(df, key, catalog, catalog_key, catalog_column)
        listed = pc.fill_null(pc.is_in(pc.cast(unit, pyarrow.string()),
                                       value_set=pyarrow.array(units, pyarrow.string())), False)
        bad = pc.and_kleene(pc.is_valid(col(df, key)), pc.or_kleene(missing, pc.invert(listed)))
        bad = pc.fill_null(bad, False)
        return pd.Series(pc.invert(bad).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def warn(check: pa.Check) -> pa.Check:
    """A `severity: warn` clause: pandera raises a SchemaWarning for it, never a SchemaError."""
    check.raise_warning = True
    return check


def completeness_check(
    name: str,
    error: str,
    column: str,
    series: tuple[str, ...],
    expected: int,
    window_seconds: int,
    min_pct: str,
    allowed_gaps: tuple[str, ...] = (),
    outages: pd.DataFrame | None = None,
    outages_relation: str | None = None,
    outages_start: str = "start",
    outages_end: str = "end",
    outages_type: str = "type",
) -> pa.Check:
    """Per series, each window between its first and last readings (UTC-aligned) holds at least
    min_pct% of `expected` distinct instants, less the share allowed outages cover
    (tacit_gen/semantics/completeness.py); fails when a window falls short."""
    if allowed_gaps and outages is None:
        message = f"{error} [no outages frame: pass schema(outages=<{outages_relation} frame>)]"
        return pa.Check(lambda df: False, name=name, error=message)
    w = window_seconds * 1000
    need = int(Decimal(min_pct) * 100) * expected
    spans: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    if allowed_gaps and outages is not None:
        keep = np.asarray(pc.fill_null(pc.is_in(col(outages, outages_type), pyarrow.array(list(allowed_gaps))), False))
        o = outages[keep]
        starts = _epoch_us(col(o, outages_start)).to_pylist()
        ends = _epoch_us(col(o, outages_end)).to_pylist()
        keys_o = zip(*[col(o, s).to_pylist() for s in series], strict=True) if series else ([()] * len(o))
        for key, a, b in zip(keys_o, starts, ends, strict=True):
            if a is not None and b is not None:
                spans.setdefault(tuple(key), []).append((a // 1000, b // 1000))

    def check(df: pd.DataFrame) -> bool:
        times = _epoch_us(col(df, column)).to_pylist()
        keys = zip(*[col(df, s).to_pylist() for s in series], strict=True) if series else ([()] * len(df))
        points: dict[tuple[Any, ...], set[int]] = {}
        for key, us in zip(keys, times, strict=True):
            if us is not None and all(k is not None for k in key):
                points.setdefault(tuple(key), set()).add(us // 1000)
        for key, ms in points.items():
            counts: dict[int, int] = {}
            for t in ms:
                counts[t // w] = counts.get(t // w, 0) + 1
            for k in range(-(-min(ms) // w), max(ms) // w):
                ws, we = k * w, (k + 1) * w
                covered = sum(max(0, min(b, we) - max(a, ws)) for a, b in spans.get(key, ()) if a < we and b > ws)
                if counts.get(k, 0) * 10_000 * w < need * (w - min(covered, w)):
                    return False
        return True

    return pa.Check(check, name=name, error=error)


# ---------------------------------------------------------------------------------------------
# Exchange sessions (tacit_gen/semantics/sessions.py): the same meaning as every other target.
# ---------------------------------------------------------------------------------------------

_DAY_US = 86_400_000_000
_DAYS_0001_TO_1970 = 719_162  # Monday 0001-01-01, the epoch of the Monday-to-Friday count


def _no_sessions(name: str, error: str, relation: str) -> pa.Check:
    """A session clause without a sessions frame fails: it never passes unchecked."""
    message = f"{error} [no sessions frame: pass schema(sessions=<{relation} frame>)]"
    return pa.Check(lambda df: False, name=name, error=message)


def _session_arrays(frame: pd.DataFrame, calendar: str, calendar_col: str, session_col: str,
                    open_col: str, close_col: str) -> tuple[Any, Any, Any]:
    """(days since 1970 of each session date, open us, close us) of one calendar, in date order."""
    mine = frame[np.asarray(pc.fill_null(pc.equal(col(frame, calendar_col), calendar), False))]
    days = np.asarray(pc.cast(col(mine, session_col, "date"), pyarrow.int32()).to_numpy(zero_copy_only=False), dtype="int64")
    opens = np.asarray(_epoch_us(col(mine, open_col)).to_numpy(zero_copy_only=False), dtype="int64")
    closes = np.asarray(_epoch_us(col(mine, close_col)).to_numpy(zero_copy_only=False), dtype="int64")
    order = np.argsort(days, kind="stable")
    return days[order], opens[order], closes[order]


def _series_codes(series: pd.Series, catalog: pd.DataFrame, key: str, column: str) -> list[str | None]:
    """The calendar code of each series value, from the catalog frame (None: not there)."""
    codes: dict[Any, Any] = {}
    for k, c in zip(catalog[key].tolist(), catalog[column].tolist(), strict=True):
        codes.setdefault(str(k), None if c is None or c != c else str(c))
    return [None if v is None or v != v else codes.get(str(v)) for v in series.tolist()]


def session_cadence_check(
    name: str,
    error: str,
    column: str,
    series: tuple[str, ...],
    sessions: str,
    interval_seconds: int | None,
    tolerance_pct: str,
    gaps_allowed: bool,
    revision_column: str | None,
    frame: pd.DataFrame | None = None,
    calendar: str | None = None,
    sessions_relation: str | None = None,
    sessions_calendar: str = "calendar",
    sessions_session: str = "session",
    sessions_open: str = "open",
    sessions_close: str = "close",
    catalog: pd.DataFrame | None = None,
    calendar_catalog: str | None = None,
    calendar_catalog_key: str | None = None,
    calendar_catalog_column: str | None = None,
    calendar_series: str | None = None,
) -> pa.Check:
    """Each point's session number (none outside every session; Monday to Friday at 00:00 UTC
    without a calendar); a point fails outside sessions, off the interval within one session,
    as a second bar of a trading day, or after a skipped session unless gaps are allowed. A
    per-series calendar (no `calendar`, a `calendar_catalog`) takes each series' code from the
    catalog frame; a series missing there is in no session."""
    if sessions_relation is not None and frame is None:
        return _no_sessions(name, error, sessions_relation)
    per_series = calendar is None and calendar_catalog is not None
    if per_series and catalog is None:
        return _no_catalog(name, error, str(calendar_catalog))

    def place(t: Any, code: str) -> tuple[Any, Any, Any, Any]:
        """(inside a session, session number, microseconds from the open to the bar and from the
        bar to the session's last whole-interval end) of each instant `t` on calendar `code`."""
        sdays, opens, closes = _session_arrays(frame, code, sessions_calendar, sessions_session,
                                               sessions_open, sessions_close)
        zero = np.zeros(len(t), dtype="int64")
        if sessions == "within":
            i = np.searchsorted(opens, t, side="right") - 1
            j = np.clip(i, 0, max(len(opens) - 1, 0))
            i_us = int(interval_seconds or 0) * 1_000_000
            ok = (i >= 0) & (len(opens) > 0) & (t + i_us <= (closes[j] if len(closes) else 0))
            if not len(opens):
                return ok, i + 1, zero, zero
            lead = t - opens[j]
            length = closes[j] - opens[j]
            return ok, i + 1, lead, length - length % i_us - lead
        else:
            d = t // _DAY_US
            i = np.searchsorted(sdays, d)
            j = np.clip(i, 0, max(len(sdays) - 1, 0))
            hit = (i < len(sdays)) & ((sdays[j] if len(sdays) else d + 1) == d)
            ok = hit & ((t % _DAY_US == 0) | (t == (opens[j] if len(opens) else -1)))
        return ok, i + 1, zero, zero

    def check(df: pd.DataFrame) -> pd.Series:
        keys = [f"s{i}" for i in range(len(series))]
        pts = pd.DataFrame({k: df[s].reset_index(drop=True) for k, s in zip(keys, series, strict=True)})
        pts["t"] = pd.Series(pd.arrays.ArrowExtensionArray(_epoch_us(col(df, column))))
        if revision_column is not None:
            pts["r"] = df[revision_column].reset_index(drop=True)
        present = pts["t"].notna()
        for k in keys:  # rows with a NULL time or series value are not points
            present = present & pts[k].notna()
        pts = pts[present.astype(bool)]
        if revision_column is not None:
            latest = pts.groupby([*keys, "t"], dropna=False)["r"].transform("max")
            same = (pts["r"] == latest).fillna(False).astype(bool)
            pts = pts[same | (latest.isna() & pts["r"].isna()).astype(bool)]
        pts = pts.sort_values([*keys, "t"], kind="stable")
        t = np.asarray(pts["t"].astype("int64"), dtype="int64")
        if frame is None:  # `1 trading day` without a calendar: Monday to Friday
            days = t // _DAY_US + _DAYS_0001_TO_1970
            ok = (days % 7 < 5) & (t % _DAY_US == 0)
            number = 5 * (days // 7) + np.minimum(days % 7 + 1, 5)
            lead = tail = np.zeros(len(t), dtype="int64")
        elif per_series:
            codes = np.asarray(_series_codes(pts[keys[list(series).index(str(calendar_series))]], catalog,
                                             str(calendar_catalog_key), str(calendar_catalog_column)),
                               dtype=object)
            ok = np.zeros(len(t), dtype=bool)
            number = np.zeros(len(t), dtype="int64")
            lead, tail = np.zeros(len(t), dtype="int64"), np.zeros(len(t), dtype="int64")
            for code in sorted({c for c in codes if c is not None}):
                mine = codes == code
                ok[mine], number[mine], lead[mine], tail[mine] = place(t[mine], code)
        else:
            ok, number, lead, tail = place(t, str(calendar))
        sn = pd.Series(np.where(ok, number, 0), index=pts.index).where(ok)
        grouped = sn.groupby([pts[k] for k in keys], dropna=False) if keys else None
        prev_sn = grouped.shift(1) if grouped is not None else sn.shift(1)
        prev_t = (pts.groupby(keys, dropna=False)["t"].shift(1) if keys else pts["t"].shift(1))
        same_session = (sn == prev_sn).fillna(False).to_numpy(dtype=bool)
        if sessions == "within":
            fixed = _cadence_bounds(interval_seconds, tolerance_pct)
            assert fixed is not None  # `within session`: an interval in the contract
            low, high = fixed
            step = (pts["t"] - prev_t).astype("Int64")
            off = (step < low).fillna(False)
            if not gaps_allowed:
                off = off | (step > high).fillna(False)
            bad_step = same_session & np.asarray(off, dtype=bool)
            if frame is not None and not gaps_allowed:  # across sessions: the open and close edges
                edge_tail = pd.Series(tail, index=pts.index)
                prev_tail = (edge_tail.groupby([pts[k] for k in keys], dropna=False).shift(1) if keys
                             else edge_tail.shift(1))
                edge = (lead > high - int(interval_seconds or 0) * 1_000_000) | (prev_tail > high).fillna(False).to_numpy(dtype=bool)
                bad_step = bad_step | ((sn > prev_sn).fillna(False).to_numpy(dtype=bool) & edge)
        else:
            bad_step = same_session
        if not gaps_allowed:
            bad_step = bad_step | (sn > prev_sn + 1).fillna(False).to_numpy(dtype=bool)
        bad = sn.isna().to_numpy(dtype=bool) | (prev_sn.notna().to_numpy(dtype=bool) & bad_step)
        ok_rows = np.ones(len(df), dtype=bool)
        ok_rows[pts.index.to_numpy()[bad]] = False
        return pd.Series(ok_rows, index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def session_window_check(
    name: str,
    error: str,
    column: str,
    time_column: str,
    ingest_column: str,
    allowed: bool,
    window_seconds: int | None,
    business_days: int,
    frame: pd.DataFrame | None = None,
    calendar: str | None = None,
    sessions_relation: str | None = None,
    sessions_calendar: str = "calendar",
    sessions_session: str = "session",
    sessions_open: str = "open",
    sessions_close: str = "close",
    catalog: pd.DataFrame | None = None,
    calendar_catalog: str | None = None,
    calendar_catalog_key: str | None = None,
    calendar_catalog_column: str | None = None,
    calendar_series: str | None = None,
) -> pa.Check:
    """A restated row fails when more than `business_days` sessions of the calendar (of its
    series' calendar, from the catalog frame, when per series) lie after the event's UTC date up
    to and including the ingest's UTC date."""
    if frame is None:
        return _no_sessions(name, error, str(sessions_relation))
    per_series = calendar is None and calendar_catalog is not None
    if per_series and catalog is None:
        return _no_catalog(name, error, str(calendar_catalog))

    def late(first: Any, last: Any, code: str) -> Any:
        sdays, _, _ = _session_arrays(frame, code, sessions_calendar, sessions_session,
                                      sessions_open, sessions_close)
        return np.searchsorted(sdays, last, side="right") - np.searchsorted(sdays, first, side="right")

    def check(df: pd.DataFrame) -> pd.Series:
        event = np.array(_epoch_us(col(df, time_column)).to_pylist(), dtype="float64")
        ingest = np.array(_epoch_us(col(df, ingest_column)).to_pylist(), dtype="float64")
        revision = np.array(pc.fill_null(col(df, column), 0).to_pylist(), dtype="float64")
        valid = ~(np.isnan(event) | np.isnan(ingest))
        first = np.where(valid, event, 0) // _DAY_US
        last = np.where(valid, ingest, 0) // _DAY_US
        if per_series:
            codes = np.asarray(_series_codes(df[str(calendar_series)].reset_index(drop=True), catalog,
                                             str(calendar_catalog_key), str(calendar_catalog_column)),
                               dtype=object)
            count = np.zeros(len(df), dtype="int64")
            for code in sorted({c for c in codes if c is not None}):
                mine = codes == code
                count[mine] = late(first[mine], last[mine], code)
            # a row whose series has no calendar in the catalog is not judged (as the SQL join)
        else:
            count = late(first, last, str(calendar))
        bad = valid & (revision > 0) & (count > business_days)
        return pd.Series(~bad, index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def _short_sessions(
    df: pd.DataFrame,
    column: str,
    series: tuple[str, ...],
    expected: int,
    min_pct: str,
    code_of: Callable[[tuple[Any, ...]], str | None],
    sessions_of: Callable[[str], tuple[Any, Any]],
    spans: dict[tuple[Any, ...], list[tuple[int, int]]],
) -> list[tuple[tuple[Any, ...], int, int]]:
    """(series, session open in ms, readings) of each session short of readings, in series then
    time order (tacit_gen/semantics/completeness.py, `N per session`): per series, the sessions
    ``[open, close)`` of its calendar between its first and last readings; a session of length
    `len` expects `expected * (len - covered) / longest`, `longest` the calendar's longest session
    in the sessions frame, `covered` its overlap with the series' allowed outages."""
    need = int(Decimal(min_pct) * 100) * expected
    times = _epoch_us(col(df, column)).to_pylist()
    keys = zip(*[col(df, s).to_pylist() for s in series], strict=True) if series else ([()] * len(df))
    points: dict[tuple[Any, ...], set[int]] = {}
    for key, us in zip(keys, times, strict=True):
        if us is not None and all(k is not None for k in key):
            points.setdefault(tuple(key), set()).add(us // 1000)
    out: list[tuple[tuple[Any, ...], int, int]] = []
    for key in sorted(points, key=lambda k: tuple((v is None, str(v)) for v in k)):
        code = code_of(key)
        if code is None:
            continue  # no calendar: no sessions (the calendar's own clauses report it)
        opens, closes = sessions_of(code)
        if len(opens) == 0:
            continue
        longest = int((closes - opens).max())
        ordered = np.sort(np.fromiter(points[key], dtype="int64"))
        judged = (opens >= ordered[0]) & (closes <= ordered[-1])
        counts = np.searchsorted(ordered, closes[judged]) - np.searchsorted(ordered, opens[judged])
        for ws, we, n in zip(opens[judged].tolist(), closes[judged].tolist(), counts.tolist(), strict=True):
            length = we - ws
            covered = sum(max(0, min(b, we) - max(a, ws)) for a, b in spans.get(key, ()) if a < we and b > ws)
            if n * 10_000 * longest < need * (length - min(covered, length)):
                out.append((key, ws, n))
    return out


def session_completeness_check(
    name: str,
    error: str,
    column: str,
    series: tuple[str, ...],
    expected: int,
    window_seconds: None,
    min_pct: str,
    sessions: str,
    allowed_gaps: tuple[str, ...] = (),
    outages: pd.DataFrame | None = None,
    outages_relation: str | None = None,
    outages_start: str = "start",
    outages_end: str = "end",
    outages_type: str = "type",
    frame: pd.DataFrame | None = None,
    calendar: str | None = None,
    sessions_relation: str | None = None,
    sessions_calendar: str = "calendar",
    sessions_session: str = "session",
    sessions_open: str = "open",
    sessions_close: str = "close",
    catalog: pd.DataFrame | None = None,
    calendar_catalog: str | None = None,
    calendar_catalog_key: str | None = None,
    calendar_catalog_column: str | None = None,
    calendar_series: str | None = None,
) -> pa.Check:
    """`N per session`: per series, each session of its calendar (the sessions frame; for a
    per-series calendar, the series' code from the catalog frame) between its first and last
    readings holds its share of `expected` (`_short_sessions`); fails when one falls short.
    Without the sessions frame (or the catalog or outages frame it needs) it fails."""
    if frame is None:
        return _no_sessions(name, error, str(sessions_relation))
    per_series = calendar is None and calendar_catalog is not None
    if per_series and catalog is None:
        return _no_catalog(name, error, str(calendar_catalog))
    if allowed_gaps and outages is None:
        message = f"{error} [no outages frame: pass schema(outages=<{outages_relation} frame>)]"
        return pa.Check(lambda df: False, name=name, error=message)
    spans: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    if allowed_gaps and outages is not None:
        keep = np.asarray(pc.fill_null(pc.is_in(col(outages, outages_type), pyarrow.array(list(allowed_gaps))), False))
        o = outages[keep]
        starts = _epoch_us(col(o, outages_start)).to_pylist()
        ends = _epoch_us(col(o, outages_end)).to_pylist()
        keys_o = zip(*[col(o, s).to_pylist() for s in series], strict=True) if series else ([()] * len(o))
        for key, a, b in zip(keys_o, starts, ends, strict=True):
            if a is not None and b is not None:
                spans.setdefault(tuple(key), []).append((a // 1000, b // 1000))
    known: dict[str, tuple[Any, Any]] = {}

    def sessions_of(code: str) -> tuple[Any, Any]:
        """(opens, closes) in ms of calendar `code`'s sessions in the frame, in date order."""
        if code not in known:
            _, opens, closes = _session_arrays(frame, code, sessions_calendar, sessions_session,
                                               sessions_open, sessions_close)
            known[code] = (opens // 1000, closes // 1000)
        return known[code]

    def code_of(key: tuple[Any, ...]) -> str | None:
        if not per_series:
            return str(calendar)
        value = key[list(series).index(str(calendar_series))]
        return _series_codes(pd.Series([value], dtype=object), catalog, str(calendar_catalog_key),
                             str(calendar_catalog_column))[0]

    def check(df: pd.DataFrame) -> bool:
        return not _short_sessions(df, column, series, expected, min_pct, code_of, sessions_of, spans)

    return pa.Check(check, name=name, error=error)


def precision_check(name: str, error: str, column: str, precision: str) -> pa.Check:
    """Each instant of `column` is a whole number of `precision` units (``s``, ``ms``, ``us``)
    since the epoch: digits finer than the precision fail (a NULL passes), at whatever unit the
    frame holds (a numpy ``datetime64[ns, UTC]`` or an Arrow timestamp)."""
    need_ns = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000}[precision]

    def check(df: pd.DataFrame) -> pd.Series:
        arr = col(df, column)
        tick_ns = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}[arr.type.unit]
        ints = np.asarray(pc.fill_null(pc.cast(arr, pyarrow.int64()), 0).to_numpy(zero_copy_only=False),
                          dtype="int64")
        ok = ints % max(need_ns // tick_ns, 1) == 0
        return pd.Series(ok, index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)


def revision_by_check(name: str, error: str, column: str, revision: str, values: tuple[str, ...]) -> pa.Check:
    """Restated rows (revision > 0) name one of `values` in `column` (a NULL there fails)."""

    def check(df: pd.DataFrame) -> pd.Series:
        who = col(df, column)
        allowed = pc.fill_null(pc.and_kleene(pc.is_valid(who), pc.is_in(who, pyarrow.array(values))), False)
        bad = pc.fill_null(pc.and_kleene(pc.greater(col(df, revision), 0), pc.invert(allowed)), False)
        return pd.Series(pc.invert(bad).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)




def references_check(name: str, error: str, column: str, to_relation: str, to_column: str,
                      refs: dict[str, pd.DataFrame] | None) -> pa.Check:
    """A foreign key: each non-null value of `column` is a non-null value of
    `to_relation.to_column` (a frame in `refs`); without that frame the check fails."""
    if refs is None or to_relation not in refs:
        message = error + " [no " + to_relation + " frame: pass schema(refs=" + repr(dict.fromkeys([to_relation], "<frame>")) + ")]"
        return pa.Check(lambda df: False, name=name, error=message)
    allowed = pc.drop_null(col(refs[to_relation], to_column))

    def check(df: pd.DataFrame) -> pd.Series:
        value = col(df, column)
        ok = pc.or_kleene(pc.is_null(value), pc.is_in(value, value_set=pc.cast(allowed, value.type)))
        return pd.Series(pc.fill_null(ok, False).to_numpy(zero_copy_only=False), index=df.index, dtype=bool)

    return pa.Check(check, name=name, error=error, ignore_na=False)
