"""The reference verdict of every clause kind on sample data (one handler per kind).

SQL three-valued logic over the resolved invariant AST (``tacit_gen.semantics``), and the
semantics of ``docs/architecture.md`` for every other clause kind. ``sample`` proves its data with
it; the parity suites compare every engine against it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.types import DataType, parse_type
from tacit_gen.plan_types import PRECISION_US
from tacit_gen.sample.model import (
    INT_BOUNDS,
    US,
    ClauseCheck,
    SampleData,
    SampleError,
    as_utc,
    epoch_us,
)
from tacit_gen.semantics.calendar import weekdays_through
from tacit_gen.semantics.catalog import CatalogData
from tacit_gen.semantics.evaluate import and3, compare3, evaluate

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


def conforms(v: Any, t: DataType) -> bool:
    """A non-null value is of the contract type (timestamps UTC-aware at the precision)."""
    k = t.kind
    if k in ("string", "enum"):
        return isinstance(v, str)
    if k == "bool":
        return isinstance(v, bool)
    if k in INT_BOUNDS:
        lo, hi = INT_BOUNDS[k]
        return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
    if t.is_float:
        return isinstance(v, float)
    if k == "decimal":
        if not isinstance(v, Decimal) or not v.is_finite():
            return False
        q = Decimal(1).scaleb(-(t.scale or 0))
        return v == v.quantize(q) and abs(v) < Decimal(10) ** ((t.precision or 0) - (t.scale or 0))
    if k == "date":
        return isinstance(v, date) and not isinstance(v, datetime)
    if k == "timestamp":
        if not isinstance(v, datetime) or v.tzinfo is None or v.utcoffset() != timedelta(0):
            return False
        return v.microsecond % US[t.ts_unit or "us"] == 0
    return False


def within_window(clause: Clause, t: datetime, ingest: datetime, code: str | None = None) -> bool:
    """A restatement ingested within the policy window (naive timestamps count as UTC); a window
    in trading days counts the sessions of `code` (the series' calendar: `sessions.row_code`)."""
    bdays = clause.param("business_days")
    if bdays is not None and clause.param("sessions_relation") is not None:
        from tacit_gen.sample.sessions import sessions_within

        return sessions_within(clause, t, ingest, code or clause.param("calendar"))
    if bdays is not None:
        return weekdays_through(as_utc(ingest).date()) - weekdays_through(as_utc(t).date()) <= int(
            bdays
        )
    seconds = clause.param("window_seconds")
    return seconds is None or epoch_us(ingest) - epoch_us(t) <= int(seconds) * 1_000_000


def catalog_interval(clause: Clause, catalog: CatalogData | None, lookup: Mapping[Any, Any],
                      series: tuple[Any, ...]) -> int | None:
    if not clause.param("from_catalog"):
        sec = clause.param("interval_seconds")
        return None if sec is None else int(sec)
    if catalog is None or not series:
        return None
    entry = lookup.get(series[0])
    if entry is None:
        return None
    v = entry.get(str(clause.param("catalog_column")))
    return None if v is None else int(v)


def cadence_failures(clause: Clause, rows: list[dict[str, Any]], catalog: CatalogData | None,
                      lookup: Mapping[Any, Any], has_revision: bool) -> int:
    """Points off the cadence, per series, over the latest revision of each point.

    Strict on purpose: two rows at the latest revision of one point are a duplicate point (step 0),
    as in an engine that keeps ``revision = max(revision)`` per point.
    """
    tcol = str(clause.param("column"))
    series_cols = tuple(clause.param("series") or ())
    latest: dict[tuple[Any, ...], Any] = {}
    for r in rows:
        if r[tcol] is None or any(r[s] is None for s in series_cols):
            continue  # not a point: not_null's business
        p = (*(r[s] for s in series_cols), r[tcol])
        rv = r.get("revision") if has_revision else None
        if p not in latest or (rv is not None and (latest[p] is None or rv > latest[p])):
            latest[p] = rv
    groups: dict[tuple[Any, ...], list[datetime]] = {}
    for r in rows:
        if r[tcol] is None or any(r[s] is None for s in series_cols):
            continue
        p = (*(r[s] for s in series_cols), r[tcol])
        if has_revision and r.get("revision") != latest[p]:
            continue
        groups.setdefault(p[:-1], []).append(r[tcol])
    if clause.param("sessions") is not None:
        from tacit_gen.sample.sessions import session_cadence_failures

        return session_cadence_failures(clause, groups, lookup)
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    bad = 0
    for key, times in groups.items():
        interval = catalog_interval(clause, catalog, lookup, key)
        if interval is None:
            if clause.param("from_catalog"):
                bad += len(times)  # a series unknown to the catalog fails, never a silent pass
            continue
        times.sort(key=epoch_us)
        lo = Decimal(interval * 1_000_000) * (100 - tol) / 100
        hi = Decimal(interval * 1_000_000) * (100 + tol) / 100
        for a, b in itertools.pairwise(times):
            step = epoch_us(b) - epoch_us(a)
            if step < lo or (not clause.param("gaps_allowed") and step > hi):
                bad += 1
    return bad


@dataclass(frozen=True)
class Facts:
    """The data one verdict reads: rows, columns, catalog lookup."""

    data: SampleData
    rows: list[dict[str, Any]]
    lookup: Mapping[Any, Any]
    # instant columns a `precision:` clause checks: finer digits there are its violation, not
    # the type's (a warehouse's timestamptz holds them; so does the loaded table)
    precise: frozenset[str] = frozenset()

    @property
    def present(self) -> dict[str, list[Any]]:
        return self.data.columns

    @property
    def has_revision(self) -> bool:
        return "revision" in self.data.columns


def _result(c: Clause, bad: int, detail: str = "") -> ClauseCheck:
    return ClauseCheck(c.id, "fail" if bad else "pass", bad, detail)


def _count(c: Clause, values: Iterable[Any], bad: Callable[[Any], bool]) -> ClauseCheck:
    return _result(c, sum(1 for v in values if bad(v)))


def _column(c: Clause, f: Facts) -> ClauseCheck:
    col = str(c.param("column"))
    if col not in f.present:
        return ClauseCheck(c.id, "fail", len(f.rows), "missing")
    want = str(c.param("type"))
    if f.data.types.get(col) != want:
        return ClauseCheck(c.id, "fail", len(f.rows), f"type {f.data.types.get(col)}")
    t = parse_type(want)
    if col in f.precise:
        t = replace(t, ts_unit="us")
    return _count(c, f.present[col], lambda v: v is not None and not conforms(v, t))


def _no_unknown_columns(c: Clause, f: Facts) -> ClauseCheck:
    allowed = tuple(c.param("columns") or ())
    return _count(c, f.present, lambda k: k not in allowed)


def _not_null(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.present[str(c.param("column"))], lambda v: v is None)


def _unique(c: Clause, f: Facts) -> ClauseCheck:
    cols = tuple(c.param("columns") or ())
    counts = Counter(tuple(r[k] for k in cols) for r in f.rows)
    return _result(c, sum(v - 1 for v in counts.values() if v > 1))


def _accepted_values(c: Clause, f: Facts) -> ClauseCheck:
    vals = tuple(c.param("values") or ())
    return _count(c, f.present[str(c.param("column"))], lambda v: v is not None and v not in vals)


def _fixed_value(c: Clause, f: Facts) -> ClauseCheck:
    fixed = c.param("value")
    return _count(c, f.present[str(c.param("column"))],
                  lambda v: v is not None and not same_value(v, fixed))


def _range(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.present[str(c.param("column"))], lambda v: range_ok(c, v) is False)


def _row_expression(c: Clause, f: Facts) -> ClauseCheck:
    """invariant, catalog_unit, catalog_bounds: the resolved expression on every row."""
    if c.kind != "invariant" and f.data.catalog is None:
        return ClauseCheck(c.id, "fail", len(f.rows), "no catalog")
    assert c.expr is not None
    expr = c.expr
    return _count(c, f.rows, lambda r: evaluate(expr, r, f.data.catalog, f.lookup) is False)


def _catalog_dimension(c: Clause, f: Facts) -> ClauseCheck:
    from tacit_gen.semantics.dimension import dimension_ok

    if f.data.catalog is None:
        return ClauseCheck(c.id, "fail", len(f.rows), "no catalog")
    return _count(c, f.rows, lambda r: dimension_ok(c, r, f.lookup) is False)


def _freshness(c: Clause, f: Facts) -> ClauseCheck:
    from tacit_gen.semantics.freshness import stale

    times = [v for v in f.present[str(c.param("column"))] if v is not None]
    if not times:
        return ClauseCheck(c.id, "fail", 1, "no rows")
    dated = all(isinstance(v, date) and not isinstance(v, datetime) for v in times)
    newest = max(times) if dated else max(times, key=epoch_us)  # a date column: whole days
    bad = stale(newest, f.data.now, int(c.param("max_age_seconds")))
    return _result(c, int(bad), f"newest {newest.isoformat()}")


def _cadence(c: Clause, f: Facts) -> ClauseCheck:
    return _result(c, cadence_failures(c, f.rows, f.data.catalog, f.lookup, f.has_revision))


def _completeness(c: Clause, f: Facts) -> ClauseCheck:
    """Series windows short of readings (`tacit_gen.semantics.completeness`); sample data has
    no outages relation, so no gap is excused. `N per session`: the sessions of each series'
    calendar from exchange_calendars over the data's dates (`sessions.completeness_sessions`)."""
    from tacit_gen.semantics.completeness import short_windows

    sessions = None
    if c.param("window_seconds") is None:
        from tacit_gen.sample.sessions import completeness_sessions

        sessions = completeness_sessions(c, f.rows, f.lookup)
    short = short_windows(c, f.rows, sessions=sessions)
    detail = "; ".join(f"{', '.join(map(str, w.series))} {w.start.isoformat()}: {w.readings}"
                       for w in short[:3])
    return _result(c, len(short), detail)


def pattern_ok(c: Clause, v: Any) -> bool:
    """A NULL passes; a value matches the pattern whole (`tacit_gen.sql.pattern.matches`)."""
    from tacit_gen.sql.pattern import matches

    return v is None or (isinstance(v, str) and matches(str(c.param("pattern")), v))


def revision_by_ok(c: Clause, r: Mapping[str, Any]) -> bool | None:
    """A restated row (revision > 0) names one of the allowed restaters (a NULL name fails)."""
    rev = r.get(str(c.param("revision_column")))
    if rev is None:
        return None
    return not rev > 0 or r.get(str(c.param("column"))) in tuple(c.param("values") or ())


def _pattern(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.present[str(c.param("column"))], lambda v: not pattern_ok(c, v))


def precision_ok(c: Clause, v: Any) -> bool:
    """A NULL passes; an instant has no digits finer than the clause's precision."""
    return v is None or not isinstance(v, datetime) or epoch_us(v) % PRECISION_US[str(c.param("precision"))] == 0


def _precision(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.present[str(c.param("column"))], lambda v: not precision_ok(c, v))


def _revision_by(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.rows, lambda r: revision_by_ok(c, r) is False)


def _plausible(c: Clause, f: Facts) -> ClauseCheck:
    """Rows outside their series' plausible bounds (a warning: every engine says warn)."""
    from tacit_gen.semantics.plausible import plausible_ok

    if f.data.catalog is None:
        return ClauseCheck(c.id, "fail", len(f.rows), "no catalog")
    return _count(c, f.rows, lambda r: plausible_ok(c, r, f.lookup) is False)


def _references(c: Clause, f: Facts) -> ClauseCheck:
    """Non-NULL values absent from the referenced relation's column (semantics/references.py)."""
    from tacit_gen.semantics.references import references_ok

    rel = f.data.refs.get(str(c.param("to_relation")))
    if str(c.param("to_relation")) == f.data.contract:
        rel = f.present  # a self reference: the data is the relation
    if rel is None or str(c.param("to_column")) not in rel:
        return ClauseCheck(c.id, "fail", len(f.rows), f"no relation {c.param('to_relation')}")
    allowed = {v for v in rel[str(c.param("to_column"))] if v is not None}
    return _count(c, f.present[str(c.param("column"))], lambda v: references_ok(v, allowed) is False)


def _revision_window(c: Clause, f: Facts) -> ClauseCheck:
    return _count(c, f.rows, lambda r: revision_ok(c, r, f.lookup) is False)


# One reference verdict per clause kind (keep sorted: several engineers add kinds).
VERDICTS: dict[str, Callable[[Clause, Facts], ClauseCheck]] = {
    "accepted_values": _accepted_values,
    "cadence": _cadence,
    "catalog_bounds": _row_expression,
    "catalog_dimension": _catalog_dimension,
    "catalog_unit": _row_expression,
    "column": _column,
    "completeness": _completeness,
    "fixed_value": _fixed_value,
    "freshness": _freshness,
    "invariant": _row_expression,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "pattern": _pattern,
    "plausible": _plausible,
    "precision": _precision,
    "range": _range,
    "references": _references,
    "revision_by": _revision_by,
    "revision_window": _revision_window,
    "unique": _unique,
}
# Kinds judged even when one of their columns is missing (the others are n/a then).
_WHOLE_TABLE = ("column", "no_unknown_columns")


def check_sample(data: SampleData, clauses: Sequence[Clause]) -> list[ClauseCheck]:
    """Every clause's verdict on the data, by the reference evaluator (plan order)."""
    facts = Facts(data, data.rows(), data.catalog.lookup() if data.catalog is not None else {},
                  frozenset(str(c.param("column")) for c in clauses if c.kind == "precision"))
    out: list[ClauseCheck] = []
    for c in clauses:
        verdict = VERDICTS.get(c.kind)
        if verdict is None:
            raise SampleError(f"unknown clause kind {c.kind}")
        missing = [col for col in c.columns if col not in data.columns]
        if missing and c.kind not in _WHOLE_TABLE:
            out.append(ClauseCheck(c.id, "n/a", 0, "missing column " + ", ".join(missing)))
            continue
        out.append(verdict(c, facts))
    return out


def violated_clauses(data: SampleData, clauses: Sequence[Clause]) -> tuple[str, ...]:
    """The ids of the clauses the reference evaluator finds violated, in plan order."""
    return tuple(r.clause_id for r in check_sample(data, clauses) if r.status == "fail")


def same_value(v: Any, fixed: Any) -> bool:
    if isinstance(fixed, bool) or isinstance(v, bool):
        return v is fixed or (isinstance(v, bool) and isinstance(fixed, bool) and v == fixed)
    if isinstance(v, Decimal | float | int) and not isinstance(fixed, bool):
        try:
            return Decimal(str(fixed)) == Decimal(str(v))
        except ArithmeticError:
            return False
    return bool(v == fixed)


def range_ok(c: Clause, v: Any) -> bool | None:
    if v is None:
        return None
    ok: bool | None = True
    lo, hi = c.param("min"), c.param("max")
    if lo is not None:
        ok = and3(ok, compare3(v, ">=" if c.param("min_inclusive", True) else ">", Decimal(lo)))
    if hi is not None:
        ok = and3(ok, compare3(v, "<=" if c.param("max_inclusive", True) else "<", Decimal(hi)))
    return ok


def revision_ok(c: Clause, r: Mapping[str, Any], lookup: Mapping[Any, Any] | None = None
                ) -> bool | None:
    """A row's revision within the policy (`lookup`: the catalog, for a per-series calendar)."""
    rev = r.get(str(c.param("column") or "revision"))
    if rev is None:
        return None
    if not c.param("allowed"):
        return bool(rev == 0)
    ingest, tcol = c.param("ingest_column"), c.param("time_column")
    if not ingest or not tcol or not rev > 0:
        return True
    t, i = r.get(tcol), r.get(ingest)
    if t is None or i is None:
        return None
    if c.param("calendar_catalog") is not None:
        from tacit_gen.sample.sessions import row_code

        return within_window(c, t, i, row_code(c, r, lookup or {}))
    return within_window(c, t, i)
