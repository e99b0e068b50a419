"""Deterministic synthetic data for a contract: clean data, or data that breaks exactly one clause.

``sample(contract, clauses)`` builds rows that satisfy every clause of the plan; with
``violate="<clause id>"`` it changes the data as little as possible so that this one clause fails
and every other clause still passes. Both are proved by the reference evaluator in this module
(``check_sample``): SQL three-valued logic over the resolved invariant AST, and the semantics of
``docs/architecture.md`` for every other clause kind. ``write()`` stores the data as CSV or Parquet,
with the catalog next to it.

Determinism: one ``random.Random(seed)`` (string seeds are hashed with SHA-512 by ``random``, never
with ``hash()``), integer arithmetic for every generated number, no set iteration. The same
contract, seed, rows and ``now`` give byte-identical files on any machine and any hash seed.
See docs/sample.md.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.types import DataType, parse_type
from tacit_gen.expr import nodes as n
from tacit_gen.semantics.calendar import weekdays_through
from tacit_gen.semantics.catalog import CatalogData, CatalogSpec, catalog_spec
from tacit_gen.semantics.evaluate import and3, compare3, evaluate

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

__all__ = [
    "DEFAULT_NOW",
    "DEFAULT_ROWS",
    "CatalogData",
    "CatalogSpec",
    "ClauseCheck",
    "SampleData",
    "SampleError",
    "catalog_path_for",
    "catalog_spec",
    "check_sample",
    "evaluate",
    "sample",
    "violated_clauses",
    "write",
]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DEFAULT_NOW = datetime(2024, 1, 2, 15, 0, tzinfo=UTC)  # a Tuesday, on every usual grid
DEFAULT_ROWS = 24
DEFAULT_SPACING = 60  # seconds between points of a series when the contract states no cadence
_US = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 1}
_INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
# Per-series catalog presets: unit, hard_min, hard_max, cadence seconds.
_PRESETS = (
    ("bar", Decimal(0), Decimal(350), 60),
    ("degC", Decimal(-40), Decimal(150), 300),
    ("kPa", Decimal(0), Decimal(35000), 30),
)
# A plausible wrong unit for the catalog_unit / fixed_value violations (the kPa incident).
_OTHER_UNIT = {"bar": "kPa", "kPa": "bar", "degC": "degF", "degF": "degC", "Pa": "kPa"}
_EXTRA_COLUMN = "unexpected_column"


class SampleError(ValueError):
    """The data asked for cannot be built (unknown clause, too few rows, no isolating change)."""


# --------------------------------------------------------------------------------------------
# data model (the catalog model lives with the reference evaluator in tacit_gen.semantics)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleData:
    """Synthetic data for one contract.

    Attributes:
        contract: the contract name (the table name ``verify`` loads it as).
        columns: column -> values, in contract column order (an extra column last). Values are
            ``str``, ``bool``, ``int``, ``float``, ``Decimal``, ``date``, ``datetime`` (UTC-aware,
            naive only in a ``column:`` violation) or ``None``.
        types: column -> the type the file carries: the contract type text, or for a ``column:``
            violation the wrong type (``timestamp_ms`` naive, ``float64``), ``string`` for an extra
            column.
        now: the pinned "now" for freshness (the data's newest time is within freshness of it).
        catalog: the catalog rows when the plan has catalog or catalog-cadence clauses.
        violate: the clause id asked to break, or None.
        violated: the clause ids the reference evaluator finds violated (empty for clean data;
            exactly ``(violate,)`` when the violation could be isolated).
        description: what was changed, for humans.
    """

    contract: str
    columns: dict[str, list[Any]]
    types: dict[str, str]
    now: datetime
    catalog: CatalogData | None = None
    violate: str | None = None
    violated: tuple[str, ...] = ()
    description: str = ""

    @property
    def row_count(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def rows(self) -> list[dict[str, Any]]:
        names = list(self.columns)
        return [dict(zip(names, vals, strict=True)) for vals in zip(*self.columns.values(),
                                                                     strict=True)]


def _from_rows(names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    return {c: [r.get(c) for r in rows] for c in names}


@dataclass(frozen=True)
class ClauseCheck:
    """The reference evaluator's verdict on one clause."""

    clause_id: str
    status: str  # pass, fail, n/a
    failures: int = 0
    detail: str = ""


def _conforms(v: Any, t: DataType) -> bool:
    """A non-null value is of the contract type (timestamps UTC-aware at the precision)."""
    k = t.kind
    if k in ("string", "enum"):
        return isinstance(v, str)
    if k == "bool":
        return isinstance(v, bool)
    if k in _INT_BOUNDS:
        lo, hi = _INT_BOUNDS[k]
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
        return v.microsecond % _US[t.ts_unit or "us"] == 0
    return False


def _within_window(clause: Clause, t: datetime, ingest: datetime) -> bool:
    """A restatement ingested within the policy window (naive timestamps count as UTC)."""
    bdays = clause.param("business_days")
    if bdays is not None:
        return weekdays_through(_utc(ingest).date()) - weekdays_through(_utc(t).date()) <= int(
            bdays
        )
    seconds = clause.param("window_seconds")
    return seconds is None or _us(ingest) - _us(t) <= int(seconds) * 1_000_000


def _utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def _us(t: datetime) -> int:
    """Microseconds since the epoch; a naive timestamp counts as UTC wall time (as in DuckDB with
    TimeZone=UTC), so a naive time column still has a newest value and steps."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (t - EPOCH) // timedelta(microseconds=1)


def _catalog_interval(clause: Clause, catalog: CatalogData | None, lookup: Mapping[Any, Any],
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


def _cadence_failures(clause: Clause, rows: list[dict[str, Any]], catalog: CatalogData | None,
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
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    bad = 0
    for key, times in groups.items():
        interval = _catalog_interval(clause, catalog, lookup, key)
        if interval is None:
            if clause.param("from_catalog"):
                bad += len(times)  # a series unknown to the catalog fails, never a silent pass
            continue
        times.sort(key=_us)
        lo = Decimal(interval * 1_000_000) * (100 - tol) / 100
        hi = Decimal(interval * 1_000_000) * (100 + tol) / 100
        for a, b in itertools.pairwise(times):
            step = _us(b) - _us(a)
            if step < lo or (not clause.param("gaps_allowed") and step > hi):
                bad += 1
    return bad


def check_sample(data: SampleData, clauses: Sequence[Clause]) -> list[ClauseCheck]:
    """Every clause's verdict on the data, by the reference evaluator (plan order)."""
    rows = data.rows()
    present = data.columns
    lookup = data.catalog.lookup() if data.catalog is not None else {}
    has_revision = "revision" in present
    out: list[ClauseCheck] = []

    def res(c: Clause, bad: int, detail: str = "") -> ClauseCheck:
        return ClauseCheck(c.id, "fail" if bad else "pass", bad, detail)

    for c in clauses:
        if c.kind not in ("column", "no_unknown_columns") and any(
            col not in present for col in c.columns
        ):
            missing = [col for col in c.columns if col not in present]
            out.append(ClauseCheck(c.id, "n/a", 0, "missing column " + ", ".join(missing)))
            continue
        col = c.param("column")
        if c.kind == "column":
            if col not in present:
                out.append(ClauseCheck(c.id, "fail", len(rows), "missing"))
                continue
            want = str(c.param("type"))
            if data.types.get(col) != want:
                out.append(ClauseCheck(c.id, "fail", len(rows), f"type {data.types.get(col)}"))
                continue
            t = parse_type(want)
            out.append(res(c, sum(1 for v in present[col] if v is not None and not _conforms(v, t))))
        elif c.kind == "no_unknown_columns":
            allowed = tuple(c.param("columns") or ())
            out.append(res(c, sum(1 for k in present if k not in allowed)))
        elif c.kind == "not_null":
            out.append(res(c, sum(1 for v in present[col] if v is None)))
        elif c.kind == "unique":
            cols = tuple(c.param("columns") or ())
            counts = Counter(tuple(r[k] for k in cols) for r in rows)
            out.append(res(c, sum(v - 1 for v in counts.values() if v > 1)))
        elif c.kind == "accepted_values":
            vals = tuple(c.param("values") or ())
            out.append(res(c, sum(1 for v in present[col] if v is not None and v not in vals)))
        elif c.kind == "fixed_value":
            fixed = c.param("value")
            out.append(res(c, sum(1 for v in present[col] if v is not None and
                                  not _same_value(v, fixed))))
        elif c.kind == "range":
            out.append(res(c, sum(1 for v in present[col] if _range_ok(c, v) is False)))
        elif c.kind in ("invariant", "catalog_unit", "catalog_bounds"):
            if c.kind != "invariant" and data.catalog is None:
                out.append(ClauseCheck(c.id, "fail", len(rows), "no catalog"))
                continue
            assert c.expr is not None
            out.append(res(c, sum(1 for r in rows if evaluate(c.expr, r, data.catalog, lookup)
                                  is False)))
        elif c.kind == "freshness":
            times = [v for v in present[col] if v is not None]
            limit = data.now - timedelta(seconds=int(c.param("max_age_seconds")))
            if not times:
                out.append(ClauseCheck(c.id, "fail", 1, "no rows"))
            else:
                newest = max(times, key=_us)
                out.append(res(c, int(_us(newest) < _us(limit)), f"newest {newest.isoformat()}"))
        elif c.kind == "cadence":
            out.append(res(c, _cadence_failures(c, rows, data.catalog, lookup, has_revision)))
        elif c.kind == "revision_window":
            out.append(res(c, sum(1 for r in rows if _revision_ok(c, r) is False)))
        else:
            raise SampleError(f"unknown clause kind {c.kind}")
    return out


def violated_clauses(data: SampleData, clauses: Sequence[Clause]) -> tuple[str, ...]:
    """The ids of the clauses the reference evaluator finds violated, in plan order."""
    return tuple(r.clause_id for r in check_sample(data, clauses) if r.status == "fail")


def _same_value(v: Any, fixed: Any) -> bool:
    if isinstance(fixed, bool) or isinstance(v, bool):
        return v is fixed or (isinstance(v, bool) and isinstance(fixed, bool) and v == fixed)
    if isinstance(v, Decimal | float | int) and not isinstance(fixed, bool):
        try:
            return Decimal(str(fixed)) == Decimal(str(v))
        except ArithmeticError:
            return False
    return bool(v == fixed)


def _range_ok(c: Clause, v: Any) -> bool | None:
    if v is None:
        return None
    ok: bool | None = True
    lo, hi = c.param("min"), c.param("max")
    if lo is not None:
        ok = and3(ok, compare3(v, ">=" if c.param("min_inclusive", True) else ">", Decimal(lo)))
    if hi is not None:
        ok = and3(ok, compare3(v, "<=" if c.param("max_inclusive", True) else "<", Decimal(hi)))
    return ok


def _revision_ok(c: Clause, r: Mapping[str, Any]) -> bool | None:
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
    return _within_window(c, t, i)


# --------------------------------------------------------------------------------------------
# generation
# --------------------------------------------------------------------------------------------


def _dec_units(x: Decimal, scale: int, rounding: str) -> int:
    return int(x.scaleb(scale).to_integral_value(rounding=rounding))


@dataclass
class _Col:
    name: str
    type: DataType
    nullable: bool
    fixed: Any = None
    has_fixed: bool = False
    lo: Decimal | None = None
    hi: Decimal | None = None
    lo_incl: bool = True
    hi_incl: bool = True
    unit: str | None = None

    @property
    def scale(self) -> int:
        if self.type.kind == "decimal":
            return self.type.scale or 0
        return 3 if self.type.is_float else 0

    def unit_bounds(self, default: bool = True) -> tuple[int, int]:
        """Inclusive bounds in units of 10^-scale: range and type limits; an unbounded column
        gets [0, 1000] when `default` (a side left open is 1000 beyond the other)."""
        s = self.scale
        if self.type.kind == "decimal":
            cap = 10 ** (self.type.precision or 0) - 1
            tlo, thi = -cap, cap
        elif self.type.kind in _INT_BOUNDS:
            tlo, thi = _INT_BOUNDS[self.type.kind]
        else:
            tlo, thi = -(10**12), 10**12
        lo = hi = None
        if self.lo is not None:
            lo = _dec_units(self.lo, s, ROUND_CEILING)
            if not self.lo_incl and Decimal(lo).scaleb(-s) == self.lo:
                lo += 1
        if self.hi is not None:
            hi = _dec_units(self.hi, s, ROUND_FLOOR)
            if not self.hi_incl and Decimal(hi).scaleb(-s) == self.hi:
                hi -= 1
        if not default:
            return max(lo if lo is not None else tlo, tlo), min(hi if hi is not None else thi, thi)
        if lo is None and hi is None:
            lo, hi = 0, 1000 * 10**s
        elif lo is None:
            assert hi is not None
            lo = min(hi, 0) - 1000 * 10**s
        elif hi is None:
            hi = max(lo, 0) + 1000 * 10**s
        return max(lo, tlo), min(hi, thi)

    def from_units(self, u: int) -> Any:
        if self.type.kind == "decimal":
            return Decimal(u).scaleb(-self.scale).quantize(Decimal(1).scaleb(-self.scale))
        if self.type.is_float:
            return float(Decimal(u).scaleb(-self.scale))
        return u

    def ulp(self) -> Decimal:
        return Decimal(1).scaleb(-self.scale)


def _fixed_value(col: _Col, value: Any) -> Any:
    if col.type.kind == "decimal":
        return Decimal(str(value)).quantize(col.ulp())
    if col.type.is_float:
        return float(value)
    return value


def _truncate(t: datetime, unit: str) -> datetime:
    us = _us(t)
    return EPOCH + timedelta(microseconds=us - us % _US[unit])


class _Ctx:
    """What generation needs to know about a contract and its plan."""

    def __init__(self, contract: Contract, clauses: Sequence[Clause]) -> None:
        self.contract = contract
        self.clauses = tuple(clauses)
        self.by_id = {c.id: c for c in self.clauses}
        not_null = {c.param("column") for c in self.clauses if c.kind == "not_null"}
        self.cols: dict[str, _Col] = {}
        for f in contract.fields:
            self.cols[f.name] = _Col(f.name, f.type, f.name not in not_null, unit=f.unit)
        for c in self.clauses:
            col = self.cols.get(str(c.param("column")))
            if c.kind == "fixed_value" and col is not None:
                col.has_fixed, col.fixed = True, _fixed_value(col, c.param("value"))
            elif c.kind == "range" and col is not None:
                if c.param("min") is not None:
                    col.lo, col.lo_incl = Decimal(c.param("min")), bool(c.param("min_inclusive"))
                if c.param("max") is not None:
                    col.hi, col.hi_incl = Decimal(c.param("max")), bool(c.param("max_inclusive"))
        self.names = tuple(self.cols)
        t = contract.time
        self.time_col = t.column if t is not None and t.column in self.cols else None
        self.time_unit = "us"
        if self.time_col is not None:
            self.time_unit = self.cols[self.time_col].type.ts_unit or "us"
        # without a time column there are no series: every row is its own point
        self.series = tuple(s for s in contract.series_key
                            if s in self.cols and self.time_col is not None)
        self.key = tuple(k for k in contract.key if k in self.cols)
        self.has_revision = "revision" in self.cols
        self.cadence = next((c for c in self.clauses if c.kind == "cadence"), None)
        self.freshness = next((c for c in self.clauses if c.kind == "freshness"), None)
        self.revision = next((c for c in self.clauses if c.kind == "revision_window"), None)
        ingest = t.ingest_column if t is not None else None
        if self.revision is not None and self.revision.param("ingest_column"):
            ingest = self.revision.param("ingest_column")
        self.ingest_col = ingest if ingest in self.cols else None
        rp = contract.revision_policy
        allowed = rp is None or rp.allowed
        if self.revision is not None:
            allowed = allowed and bool(self.revision.param("allowed"))
        self.restate = self.has_revision and allowed
        self.spec = catalog_spec(self.clauses)
        self.cat_unit = [c for c in self.clauses if c.kind == "catalog_unit"]
        self.cat_bounds = [c for c in self.clauses if c.kind == "catalog_bounds"]
        self.row_clauses = tuple(
            c for c in self.clauses
            if c.kind in ("not_null", "accepted_values", "fixed_value", "range", "invariant",
                          "catalog_unit", "catalog_bounds", "revision_window")
        )
        self.accepted = tuple(str(c.param("column")) for c in self.clauses
                              if c.kind == "accepted_values")
        self.pinned = {*self.series, *(k for k in self.key)}
        for extra in (self.time_col, self.ingest_col, "revision"):
            if extra is not None:
                self.pinned.add(extra)
        self.levels: dict[tuple[int, str], int] = {}
        # text values worth drawing: accepted values, and literals the invariants compare with
        self.pool: dict[str, list[str]] = {}
        for c in self.clauses:
            if c.kind == "accepted_values":
                self.pool.setdefault(str(c.param("column")), []).extend(c.param("values") or ())
            elif c.kind == "invariant" and c.expr is not None:
                for x in n.walk(c.expr):
                    lits: list[tuple[n.Node, n.Node]] = []
                    if isinstance(x, n.Compare):
                        lits = list(itertools.pairwise(x.operands))
                        lits += [(b, a) for a, b in lits]
                    elif isinstance(x, n.InList):
                        lits = [(x.operand, i) for i in x.items]
                    for a, b in lits:
                        if isinstance(a, n.Column) and isinstance(b, n.String):
                            vals = self.pool.setdefault(a.name, [])
                            if b.value not in vals:
                                vals.append(b.value)

    def series_label(self, col: str, j: int) -> Any:
        t = self.cols[col].type
        if t.kind == "enum":
            return t.values[j % len(t.values)]
        if t.is_integer:
            return j + 1
        if t.kind == "decimal" or t.is_float:
            return self.cols[col].from_units((j + 1) * 10 ** self.cols[col].scale)
        if t.kind == "bool":
            return j % 2 == 1
        return f"{col}_{j + 1:02d}"

    def row_violations(self, row: Mapping[str, Any], catalog: CatalogData | None,
                       lookup: Mapping[Any, Any], skip: str | None = None) -> list[str]:
        bad = []
        for c in self.row_clauses:
            if c.id == skip or any(col not in row for col in c.columns):
                continue
            col = c.param("column")
            if c.kind == "not_null":
                ok: bool | None = row[col] is not None
            elif c.kind == "accepted_values":
                ok = row[col] is None or row[col] in tuple(c.param("values") or ())
            elif c.kind == "fixed_value":
                ok = row[col] is None or _same_value(row[col], c.param("value"))
            elif c.kind == "range":
                ok = _range_ok(c, row[col])
            elif c.kind == "revision_window":
                ok = _revision_ok(c, row)
            else:
                assert c.expr is not None
                ok = evaluate(c.expr, row, catalog, lookup)
            if ok is False:
                bad.append(c.id)
        return bad


def _catalog_entries(ctx: _Ctx, labels: list[Any]) -> CatalogData | None:
    spec = ctx.spec
    if spec is None:
        return None
    rows = []
    unit_col = ctx.cols.get(str(ctx.cat_unit[0].param("column"))) if ctx.cat_unit else None
    bound_col = ctx.cols.get(str(ctx.cat_bounds[0].param("column"))) if ctx.cat_bounds else None
    for j, label in enumerate(labels):
        unit, lo, hi, cadence = _PRESETS[j % len(_PRESETS)]
        if unit_col is not None and unit_col.has_fixed:
            unit = str(unit_col.fixed)
        elif unit_col is not None and unit_col.type.kind == "enum":
            unit = unit_col.type.values[j % len(unit_col.type.values)]
        if bound_col is not None:
            lo, hi = _hard_bounds(bound_col, lo, hi)
        if ctx.cadence is not None and not ctx.cadence.param("from_catalog"):
            cadence = int(ctx.cadence.param("interval_seconds") or cadence)
        row: list[Any] = []
        for c in spec.columns:
            role = spec.role(c)
            row.append({"key": label, "unit": unit, "cadence": cadence}.get(role) if role != "bound"
                       else (lo if c == spec.hard_min else hi))
        rows.append(tuple(row))
    return CatalogData(spec, tuple(rows))


def _hard_bounds(col: _Col, lo: Decimal, hi: Decimal) -> tuple[Decimal, Decimal]:
    """Catalog hard bounds for a column, placed so that each violation can be isolated.

    A value just beyond a hard bound must still satisfy the column's range and type (for
    catalog_bounds alone), and a value just beyond the range must still be within the hard
    bounds (for range alone): one hard bound lies strictly inside the range, the other outside.
    """
    s = col.scale
    tlo, thi = replace(col, lo=None, hi=None).unit_bounds(default=False)
    rlo, rhi = col.unit_bounds(default=False)
    lo_u = max(_dec_units(lo, s, ROUND_CEILING), tlo + 1)
    hi_u = min(_dec_units(hi, s, ROUND_FLOOR), thi - 1)
    if col.lo is not None:
        lo_u = min(lo_u, rlo - 1)  # a value below the range is within the hard bounds
        hi_u = min(hi_u, rhi - 1)  # a value above the hard max is within the range
    elif col.hi is not None:
        hi_u = max(hi_u, rhi + 1)
        lo_u = max(lo_u, rlo + 1)
    lo_u, hi_u = max(lo_u, tlo), min(hi_u, thi)
    if lo_u > hi_u:
        lo_u, hi_u = tlo, thi
    return Decimal(lo_u).scaleb(-s), Decimal(hi_u).scaleb(-s)


def _gen_value(ctx: _Ctx, name: str, row: Mapping[str, Any], j: int, rng: random.Random,
               entry: Mapping[str, Any] | None, null_p: float) -> Any:
    col = ctx.cols[name]
    t = col.type
    if col.has_fixed:
        return col.fixed
    if col.nullable and rng.random() < null_p:
        return None
    for c in ctx.cat_unit:
        if c.param("column") == name and entry is not None and ctx.spec is not None:
            return entry.get(ctx.spec.unit or "")
    if t.kind == "enum":
        return rng.choice(t.values)
    if t.kind == "string":
        pool = ctx.pool.get(name)
        if pool and (rng.random() < 0.8 or name in ctx.accepted):
            return rng.choice(pool)
        return f"{name}_{rng.randint(1, 3)}"
    if t.kind == "bool":
        return rng.random() < 0.5
    if t.kind == "date":
        base = row.get(ctx.time_col) if ctx.time_col else None
        d = base.date() if isinstance(base, datetime) else DEFAULT_NOW.date()
        return d - timedelta(days=rng.randint(0, 30))
    if t.kind == "timestamp":
        base = row.get(ctx.time_col) if ctx.time_col else None
        b = base if isinstance(base, datetime) else DEFAULT_NOW
        return _truncate(b - timedelta(seconds=rng.randint(0, 3600)), t.ts_unit or "us")
    # numeric
    lo, hi = col.unit_bounds()
    for c in ctx.cat_bounds:
        if c.param("column") == name and entry is not None and ctx.spec is not None:
            lo, hi = col.unit_bounds(default=False)
            blo, bhi = entry.get(ctx.spec.hard_min or ""), entry.get(ctx.spec.hard_max or "")
            if blo is not None:
                lo = max(lo, _dec_units(Decimal(blo), col.scale, ROUND_CEILING))
            if bhi is not None:
                hi = min(hi, _dec_units(Decimal(bhi), col.scale, ROUND_FLOOR))
    if lo > hi:
        return col.from_units(lo)
    if col.unit is not None:
        # columns sharing a unit vary around one level per series (prices of one bar)
        span = hi - lo
        key = (j, col.unit)
        if key not in ctx.levels:
            ctx.levels[key] = rng.randint(lo + span // 10, hi - span // 10)
        spread = max(span // 50, 1)
        u = ctx.levels[key] + rng.randint(-spread, spread)
        return col.from_units(min(max(u, lo), hi))
    return col.from_units(rng.randint(lo, hi))


def _sort_chain(ctx: _Ctx, row: dict[str, Any], node: n.Node, frozen: set[str]) -> bool:
    """Repair a violated comparison chain of columns by sorting their values."""
    if not isinstance(node, n.Compare) or not all(isinstance(o, n.Column) for o in node.operands):
        return False
    names = [o.name for o in node.operands if isinstance(o, n.Column)]
    if any(nm in frozen or nm not in row or row[nm] is None for nm in names):
        return False
    if len(set(names)) != len(names):
        return False
    if all(op in ("<", "<=") for op in node.ops):
        rev = False
    elif all(op in (">", ">=") for op in node.ops):
        rev = True
    else:
        return False
    try:
        vals = sorted((row[nm] for nm in names), reverse=rev)
    except TypeError:
        return False
    for nm, v in zip(names, vals, strict=True):
        row[nm] = v
    return True


def _fill_row(ctx: _Ctx, row: dict[str, Any], j: int, rng: random.Random,
              catalog: CatalogData | None, lookup: Mapping[Any, Any], frozen: set[str],
              skip: str | None = None, null_p: float = 0.1, tries: int = 200) -> bool:
    """Generate the non-frozen columns of a row until every row-level clause holds."""
    entry = None
    if ctx.spec is not None and ctx.cat_unit + ctx.cat_bounds:
        key_col = str((ctx.cat_unit + ctx.cat_bounds)[0].param("key"))
        entry = lookup.get(row.get(key_col))
    for _ in range(tries):
        for name in ctx.names:
            if name not in frozen:
                row[name] = _gen_value(ctx, name, row, j, rng, entry, null_p)
        for _ in range(3):
            bad = ctx.row_violations(row, catalog, lookup, skip)
            if not bad:
                return True
            fixed_any = False
            for cid in bad:
                c = ctx.by_id[cid]
                if c.kind == "invariant" and c.expr is not None:
                    fixed_any = _sort_chain(ctx, row, c.expr, frozen) or fixed_any
            if not fixed_any:
                break
    return False


def _grid_end(now: datetime, interval: int, unit: str, max_age: int | None) -> datetime:
    us = _us(now)
    step = interval * 1_000_000
    end = EPOCH + timedelta(microseconds=us - us % step)
    if max_age is not None and _us(now) - _us(end) > max_age * 1_000_000:
        end = _truncate(now, unit)
    return end


def _clean(ctx: _Ctx, rows: int, seed: int, now: datetime) -> tuple[list[dict[str, Any]],
                                                                     CatalogData | None]:
    rng = random.Random(seed)
    n_series = 1 if not ctx.series or rows < 4 else (2 if rows < 9 else 3)
    labels = [[ctx.series_label(s, j) for s in ctx.series] for j in range(n_series)]
    cat_labels: list[Any] = []
    if ctx.spec is not None:
        kcols = [str(c.param("key")) for c in (*ctx.cat_unit, *ctx.cat_bounds)]
        if ctx.cadence is not None and ctx.cadence.param("from_catalog") and ctx.series:
            kcols.append(ctx.series[0])
        kc = kcols[0] if kcols else (ctx.series[0] if ctx.series else None)
        if kc in ctx.series:
            cat_labels = [lab[ctx.series.index(kc)] for lab in labels]
        elif kc is not None and kc in ctx.cols:
            cat_labels = [ctx.series_label(kc, j) for j in range(3)]
    catalog = _catalog_entries(ctx, cat_labels)
    lookup = catalog.lookup() if catalog is not None else {}
    n_restate = max(1, rows // 6) if ctx.restate and rows >= 3 else 0
    n_base = rows - n_restate
    max_age = int(ctx.freshness.param("max_age_seconds")) if ctx.freshness is not None else None
    # points: (series index, point index, time)
    points: list[tuple[int, int, datetime | None]] = []
    for j in range(n_series):
        count = n_base // n_series + (1 if j < n_base % n_series else 0)
        interval = DEFAULT_SPACING
        if ctx.cadence is not None:
            got = _catalog_interval(ctx.cadence, catalog, lookup, tuple(labels[j][:1]))
            interval = got if got else DEFAULT_SPACING
        end = _grid_end(now, interval, ctx.time_unit, max_age) if ctx.time_col else None
        for k in range(count):
            t = end - timedelta(seconds=interval * (count - 1 - k)) if end is not None else None
            points.append((j, k, t))
    restated = sorted(rng.sample(range(len(points)), min(n_restate, len(points))))
    plan_rows: list[tuple[int, int, datetime | None, int]] = [(j, k, t, 0) for j, k, t in points]
    plan_rows += [(*points[i], 1) for i in restated]
    out: list[dict[str, Any]] = []
    point_index = 0
    for j, k, t, rev in plan_rows:
        row: dict[str, Any] = dict.fromkeys(ctx.names)
        for s, v in zip(ctx.series, labels[j], strict=True):
            row[s] = v
        if ctx.time_col is not None:
            row[ctx.time_col] = t
        if ctx.has_revision:
            row["revision"] = rev
        for kc in ctx.key:
            if kc not in (*ctx.series, ctx.time_col, "revision"):
                row[kc] = _point_key(ctx.cols[kc], point_index if rev == 0 else k, ctx)
        point_index += rev == 0
        if ctx.ingest_col is not None and t is not None:
            row[ctx.ingest_col] = _ingest_time(ctx, t, rev)
        if not _fill_row(ctx, row, j, rng, catalog, lookup, set(ctx.pinned)):
            raise SampleError(
                f"{ctx.contract.name}: could not generate a row satisfying "
                + ", ".join(ctx.row_violations(row, catalog, lookup))
            )
        out.append(row)
    order = {lab: i for i, lab in enumerate(tuple(x) for x in labels)}
    out.sort(key=lambda r: (_us(r[ctx.time_col]) if ctx.time_col and r[ctx.time_col] else 0,
                            order.get(tuple(r[s] for s in ctx.series), 0),
                            r.get("revision") or 0))
    return out, catalog


def _point_key(col: _Col, i: int, ctx: _Ctx) -> Any:
    t = col.type
    if t.kind == "timestamp":
        return DEFAULT_NOW - timedelta(seconds=i)
    if t.kind == "date":
        return DEFAULT_NOW.date() - timedelta(days=i)
    if t.kind in ("string",):
        return f"{col.name}_{i + 1:04d}"
    if t.kind == "enum":
        return t.values[i % len(t.values)]
    lo, _ = col.unit_bounds()
    return col.from_units(lo + i * 10**col.scale)


def _ingest_time(ctx: _Ctx, t: datetime, rev: int) -> datetime:
    unit = ctx.cols[ctx.ingest_col or ""].type.ts_unit or "us"
    delay = timedelta(seconds=5)
    if rev > 0:
        delay = timedelta(hours=1)
        if ctx.revision is not None and ctx.revision.param("window_seconds") is not None:
            delay = min(delay, timedelta(seconds=int(ctx.revision.param("window_seconds")) // 2))
        if ctx.revision is not None and not _within_window(ctx.revision, t, t + delay):
            delay = timedelta(0)
    return _truncate(t + delay, unit)


# --------------------------------------------------------------------------------------------
# violations
# --------------------------------------------------------------------------------------------


@dataclass
class _Candidate:
    rows: list[dict[str, Any]]
    names: list[str]
    types: dict[str, str]
    description: str
    catalog: CatalogData | None = None


def _copy_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in rows]


def _other_value(col: _Col, v: Any) -> Any:
    """A different value of the same type (for fixed_value)."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, str):
        return _OTHER_UNIT.get(v, v + "_other")
    if isinstance(v, Decimal):
        return v + col.ulp()
    if isinstance(v, float):
        return v + 1.0
    if isinstance(v, int):
        return v + 1
    return v


def _beyond(col: _Col, side: str, bound: Decimal, inclusive: bool) -> Any | None:
    """The value just outside a bound, if the column's type can hold it."""
    ulp = col.ulp()
    s = col.scale
    if side == "min":
        u = _dec_units(bound, s, ROUND_CEILING) - (1 if inclusive or
                                                    Decimal(_dec_units(bound, s, ROUND_CEILING)
                                                            ).scaleb(-s) != bound else 0)
        v = Decimal(u).scaleb(-s)
        if not (v < bound or (not inclusive and v == bound)):
            v = bound - ulp
    else:
        u = _dec_units(bound, s, ROUND_FLOOR) + (1 if inclusive or
                                                  Decimal(_dec_units(bound, s, ROUND_FLOOR)
                                                          ).scaleb(-s) != bound else 0)
        v = Decimal(u).scaleb(-s)
        if not (v > bound or (not inclusive and v == bound)):
            v = bound + ulp
    u = _dec_units(v, s, ROUND_FLOOR)
    if col.type.kind == "decimal" and abs(u) > 10 ** (col.type.precision or 0) - 1:
        return None
    if col.type.kind in _INT_BOUNDS:
        lo, hi = _INT_BOUNDS[col.type.kind]
        if not lo <= u <= hi:
            return None
    return col.from_units(u)


def _row_order(ctx: _Ctx, rows: list[dict[str, Any]]) -> list[int]:
    """Rows to try a change on: restatements first, then the rest from the oldest."""
    idx = list(range(len(rows)))
    return sorted(idx, key=lambda i: (0 if (rows[i].get("revision") or 0) != 0 else 1, i))


def _candidates(ctx: _Ctx, clause: Clause, rows: list[dict[str, Any]], types: dict[str, str],
                catalog: CatalogData | None, seed: int) -> Iterator[_Candidate]:
    names = list(ctx.names)
    lookup = catalog.lookup() if catalog is not None else {}
    kind = clause.kind
    col_name = str(clause.param("column"))
    col = ctx.cols.get(col_name)

    def one(i: int, changes: Mapping[str, Any], what: str) -> _Candidate:
        new = _copy_rows(rows)
        new[i].update(changes)
        return _Candidate(new, names, dict(types), f"row {i + 1}: {what}")

    def resampled(i: int, pinned: Mapping[str, Any], what: str, tries: int = 400
                  ) -> _Candidate | None:
        """Row i with `pinned` set and its other free columns regenerated to stay valid."""
        rng = random.Random(f"{seed}:{clause.id}:{i}")
        row = dict(rows[i])
        row.update(pinned)
        frozen = set(ctx.pinned) | set(pinned)
        j = 0
        if ctx.series:
            j = sum(1 for r in rows[:i] if r.get(ctx.series[0]) != rows[i].get(ctx.series[0]))
        if not _fill_row(ctx, row, j, rng, catalog, lookup, frozen, skip=clause.id,
                         null_p=0.5, tries=tries):
            return None
        new = _copy_rows(rows)
        new[i] = row
        return _Candidate(new, names, dict(types), f"row {i + 1}: {what}")

    def row_level(change: Callable[[int], tuple[dict[str, Any], str] | None],
                  first: Callable[[int], bool] | None = None) -> Iterator[_Candidate]:
        order = _row_order(ctx, rows)
        if first is not None:
            order.sort(key=lambda i: 0 if first(i) else 1)
        for i in order:
            got = change(i)
            if got is not None:
                yield one(i, *got)
        for i in order[:6]:
            got = change(i)
            if got is not None:
                cand = resampled(i, *got)
                if cand is not None:
                    yield cand

    if kind == "column":
        assert col is not None
        t = col.type
        if t.kind == "timestamp":
            new = _copy_rows(rows)
            for r in new:
                if r[col_name] is not None:
                    r[col_name] = r[col_name].replace(tzinfo=None)
            ty = dict(types)
            ty[col_name] = f"timestamp_{t.ts_unit}"
            yield _Candidate(new, names, ty, f"{col_name}: naive timestamps (no UTC offset)")
        elif t.kind == "decimal":
            extra = Decimal(1).scaleb(-(col.scale + 1))
            ty = dict(types)
            ty[col_name] = "float64"
            for i in _row_order(ctx, rows):
                v = rows[i][col_name]
                if v is None:
                    continue
                for d in (extra, -extra):
                    new = _copy_rows(rows)
                    new[i][col_name] = v + d
                    yield _Candidate(new, names, ty, f"{col_name}: float64 column; row {i + 1} "
                                     f"holds {v + d}, more digits than {t}")
        elif t.is_integer:
            # a float64 column, and one value that no integer type holds (an engine that accepts
            # whole floats as integers still sees it)
            ty = dict(types)
            ty[col_name] = "float64"
            for i in _row_order(ctx, rows):
                if rows[i][col_name] is None:
                    continue
                for nudge in (0.5, -0.5):
                    new = _copy_rows(rows)
                    for r in new:
                        if r[col_name] is not None:
                            r[col_name] = float(r[col_name])
                    new[i][col_name] = float(new[i][col_name]) + nudge
                    yield _Candidate(new, names, ty, f"{col_name}: float64 column; row {i + 1} "
                                     f"holds {new[i][col_name]!r}, not an {t}")
            new = _copy_rows(rows)  # last resort: whole floats (e.g. revisions must all be 0)
            for r in new:
                if r[col_name] is not None:
                    r[col_name] = float(r[col_name])
            yield _Candidate(new, names, ty, f"{col_name}: float64 values (1.0) instead of {t}")
        else:
            new = [{k: v for k, v in r.items() if k != col_name} for r in rows]
            ty = {k: v for k, v in types.items() if k != col_name}
            yield _Candidate(new, [x for x in names if x != col_name], ty,
                             f"{col_name}: column missing")
        return
    if kind == "no_unknown_columns":
        extra_name = _EXTRA_COLUMN
        while extra_name in names:
            extra_name += "_"
        new = _copy_rows(rows)
        for i, r in enumerate(new):
            r[extra_name] = f"extra_{i + 1}"
        ty = dict(types)
        ty[extra_name] = "string"
        yield _Candidate(new, [*names, extra_name], ty, f"extra column {extra_name}")
        return
    if kind == "not_null":
        yield from row_level(lambda i: ({col_name: None}, f"{col_name} is NULL")
                             if rows[i][col_name] is not None else None)
        return
    if kind == "accepted_values":
        vals = tuple(clause.param("values") or ())
        badv = next(v for v in ("unknown", "invalid", "n/a_x") if v not in vals)
        yield from row_level(lambda i: ({col_name: badv}, f"{col_name} = {badv!r}"))
        return
    if kind == "fixed_value":
        assert col is not None
        other = _other_value(col, col.fixed)
        yield from row_level(lambda i: ({col_name: other}, f"{col_name} = {other!r}"))
        return
    if kind == "range":
        assert col is not None
        sides = []
        if clause.param("min") is not None:
            sides.append(("min", Decimal(clause.param("min")), bool(clause.param("min_inclusive"))))
        if clause.param("max") is not None:
            sides.append(("max", Decimal(clause.param("max")), bool(clause.param("max_inclusive"))))
        for side, bound, incl in sides:
            v = _beyond(col, side, bound, incl)
            if v is not None:
                def change(i: int, v: Any = v, side: str = side) -> tuple[dict[str, Any], str]:
                    return {col_name: v}, f"{col_name} = {v} beyond the {side}"

                yield from row_level(change)
        return
    if kind == "invariant":
        assert clause.expr is not None
        yield from _invariant_candidates(ctx, clause, rows, names, types, catalog, lookup)
        return
    if kind == "freshness":
        max_age = int(clause.param("max_age_seconds"))
        delta = timedelta(seconds=(max_age // 60 + 1) * 60)
        new = _copy_rows(rows)
        for r in new:
            for k, v in r.items():
                if isinstance(v, datetime):
                    r[k] = v - delta
        yield _Candidate(new, names, dict(types),
                         f"every timestamp shifted back by {int(delta.total_seconds())}s")
        return
    if kind == "cadence":
        yield from _cadence_candidates(ctx, clause, rows, names, types, catalog, lookup)
        return
    if kind == "catalog_unit":
        assert catalog is not None
        key = str(clause.param("key"))
        unit_col = catalog.spec.unit or ""

        def wrong_unit(i: int) -> tuple[dict[str, Any], str] | None:
            entry = lookup.get(rows[i][key])
            if entry is None or rows[i][col_name] is None:
                return None
            good = str(entry[unit_col])
            other = _OTHER_UNIT.get(good, good + "_other")
            return {col_name: other}, f"{col_name} = {other!r}, the catalog says {good!r}"

        def in_bar(i: int) -> bool:  # the kPa incident: a series in bar reported in kPa
            entry = lookup.get(rows[i][key])
            return entry is not None and entry.get(unit_col) == "bar"

        yield from row_level(wrong_unit, in_bar)
        return
    if kind == "catalog_bounds":
        assert catalog is not None and col is not None
        key = str(clause.param("key"))

        def out_of_bounds(i: int) -> tuple[dict[str, Any], str] | None:
            entry = lookup.get(rows[i][key])
            if entry is None or rows[i][col_name] is None:
                return None
            hi = entry[catalog.spec.hard_max or ""]
            v = _beyond(col, "max", Decimal(hi), True)
            if v is None:
                v = _beyond(col, "min", Decimal(entry[catalog.spec.hard_min or ""]), True)
            if v is None:
                return None
            return {col_name: v}, f"{col_name} = {v}, beyond the catalog hard bounds"

        yield from row_level(out_of_bounds)
        return
    if kind == "revision_window":
        if not clause.param("allowed"):
            key_cols = ctx.key
            existing = {tuple(r.get(k) for k in key_cols) for r in rows}

            def restate(i: int) -> tuple[dict[str, Any], str] | None:
                r = dict(rows[i])
                r["revision"] = 1
                if tuple(r.get(k) for k in key_cols) in existing:
                    return None
                return {"revision": 1}, "revision = 1 where revisions are not allowed"

            yield from row_level(restate)
            return
        ingest = clause.param("ingest_column")
        tcol = str(clause.param("time_column"))

        def late(i: int) -> tuple[dict[str, Any], str] | None:
            r = rows[i]
            if not r.get("revision") or r.get(tcol) is None:
                return None
            t = r[tcol]
            unit = ctx.cols[str(ingest)].type.ts_unit or "us"
            if clause.param("business_days") is not None:
                late_t = t
                while _within_window(clause, t, late_t):
                    late_t += timedelta(days=1)
            else:
                late_t = t + timedelta(seconds=int(clause.param("window_seconds")) + 1)
            late_t = _truncate(late_t, unit)
            return {str(ingest): late_t}, f"restatement ingested at {late_t.isoformat()}"

        yield from row_level(late)
        return
    if kind == "unique":
        key_cols = tuple(clause.param("columns") or ())
        latest: dict[tuple[Any, ...], Any] = {}
        if ctx.has_revision and ctx.time_col is not None:
            for r in rows:
                p = (*(r[s] for s in ctx.series), r[ctx.time_col])
                latest[p] = max(latest.get(p, r["revision"]), r["revision"])
        order = list(range(len(rows)))
        if latest and ctx.time_col is not None:
            tc = ctx.time_col
            # a row below the latest revision of its point: its copy is no extra point for cadence
            order.sort(key=lambda i: 0 if rows[i]["revision"] < latest[
                (*(rows[i][s] for s in ctx.series), rows[i][tc])] else 1)
        for i in order:
            new = _copy_rows(rows)
            new.insert(i + 1, dict(rows[i]))
            key_text = ", ".join(f"{k}={rows[i][k]}" for k in key_cols)
            yield _Candidate(new, names, dict(types), f"row {i + 1} duplicated ({key_text})")
        return
    raise SampleError(f"cannot violate clause kind {kind}")


def _alternatives(ctx: _Ctx, name: str, row: Mapping[str, Any], node: n.Node) -> list[Any]:
    col = ctx.cols[name]
    alts: list[Any] = []
    if col.nullable:
        alts.append(None)
    t = col.type
    if t.kind == "enum":
        alts.extend(t.values)
    elif t.kind == "bool":
        alts.extend([True, False])
    elif t.is_numeric:
        ulp = col.ulp()
        for x in n.walk(node):
            v = None
            if isinstance(x, n.Column) and x.name != name and isinstance(row.get(x.name),
                                                                          Decimal | int | float):
                v = Decimal(str(row[x.name]))
            elif isinstance(x, n.Number):
                v = Decimal(x.text)
            if v is not None:
                for d in (v + ulp, v - ulp, v):
                    alts.append(d)
        lo, hi = col.unit_bounds()
        alts.extend([Decimal(lo).scaleb(-col.scale), Decimal(hi).scaleb(-col.scale)])
        out = []
        for a in alts:
            if a is None or not isinstance(a, Decimal):
                out.append(a)
                continue
            u = _dec_units(a, col.scale, ROUND_FLOOR)
            if lo <= u <= hi:
                out.append(col.from_units(u))
        alts = out
    elif t.kind == "string":
        alts.append(name + "_other")
    dedup: list[Any] = []
    for a in alts:
        if not any(a is b or (a == b and type(a) is type(b)) for b in dedup):
            dedup.append(a)
    return dedup


def _invariant_candidates(ctx: _Ctx, clause: Clause, rows: list[dict[str, Any]],
                          names: list[str], types: dict[str, str], catalog: CatalogData | None,
                          lookup: Mapping[Any, Any]) -> Iterator[_Candidate]:
    assert clause.expr is not None
    cols = [c for c in n.columns(clause.expr) if c in ctx.cols and c not in ctx.pinned]
    for i in _row_order(ctx, rows):
        row = rows[i]
        options = [(c, a) for c in cols for a in _alternatives(ctx, c, row, clause.expr)]
        combos: list[tuple[tuple[str, Any], ...]] = [(o,) for o in options]
        combos += [(a, b) for k, a in enumerate(options) for b in options[k + 1:] if a[0] != b[0]]
        for combo in combos:
            new_row = dict(row)
            new_row.update(dict(combo))
            if evaluate(clause.expr, new_row, catalog, lookup) is not False:
                continue
            if ctx.row_violations(new_row, catalog, lookup, skip=clause.id):
                continue
            new = _copy_rows(rows)
            new[i] = new_row
            what = ", ".join(f"{c} = {v!r}" for c, v in combo)
            yield _Candidate(new, names, dict(types), f"row {i + 1}: {what}")
            break


def _cadence_candidates(ctx: _Ctx, clause: Clause, rows: list[dict[str, Any]], names: list[str],
                        types: dict[str, str], catalog: CatalogData | None,
                        lookup: Mapping[Any, Any]) -> Iterator[_Candidate]:
    tcol = str(clause.param("column"))
    series_cols = tuple(clause.param("series") or ())
    unit = ctx.cols[tcol].type.ts_unit or "us"
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    groups: dict[tuple[Any, ...], list[datetime]] = {}
    for r in rows:
        if r[tcol] is not None:
            g = groups.setdefault(tuple(r[s] for s in series_cols), [])
            if r[tcol] not in g:
                g.append(r[tcol])
    for key, times in groups.items():
        times.sort(key=_us)
        interval = _catalog_interval(clause, catalog, lookup, key)
        if interval is None or len(times) < 2:
            continue
        # shift one point by more than the tolerance: one short step and one long step
        shift_us = int(Decimal(interval * 1_000_000) * (Decimal(50) + tol / 2) / 100)
        shift_us = -(-shift_us // _US[unit]) * _US[unit]
        middle = list(range(1, len(times) - 1)) or [len(times) - 1]
        for k in middle:
            for sign in (1, -1):
                old = times[k]
                new_t = old + timedelta(microseconds=sign * shift_us)
                new = _copy_rows(rows)
                for r in new:
                    if r[tcol] == old and tuple(r[s] for s in series_cols) == key:
                        r[tcol] = new_t
                        if ctx.ingest_col is not None and r.get(ctx.ingest_col) is not None:
                            r[ctx.ingest_col] = r[ctx.ingest_col] + (new_t - old)
                label = ", ".join(str(x) for x in key)
                yield _Candidate(new, names, dict(types),
                                 f"series {label}: point {old.isoformat()} moved off the "
                                 f"{interval}s grid to {new_t.isoformat()}")


# --------------------------------------------------------------------------------------------
# entry points
# --------------------------------------------------------------------------------------------


def sample(
    contract: Contract,
    clauses: Sequence[Clause],
    rows: int = DEFAULT_ROWS,
    seed: int = 0,
    violate: str | None = None,
    now: datetime | None = None,
) -> SampleData:
    """Synthetic data for a contract: valid for every clause, or breaking exactly ``violate``.

    Args:
        contract, clauses: the loaded contract and its plan.
        rows: data rows of the clean data (a violation may add one row).
        seed: the random seed; same inputs, same data, byte for byte.
        violate: a clause id of the plan to break, or None for clean data.
        now: the "now" the data is fresh for (timezone-aware); default 2024-01-02T15:00:00Z.

    Raises:
        SampleError: unknown clause id, rows < 1, or a violation the data cannot carry.
    """
    # DECIMAL(38) values and their bounds need more than the default 28 digits: with them every
    # quantize and scaleb is exact, so a bound at the edge of a type is never InvalidOperation.
    with localcontext() as dctx:
        dctx.prec = 120
        dctx.Emax, dctx.Emin = 999_999, -999_999
        return _sample(contract, clauses, rows, seed, violate, now)


def _sample(contract: Contract, clauses: Sequence[Clause], rows: int, seed: int,
            violate: str | None, now: datetime | None) -> SampleData:
    if rows < 1:
        raise SampleError("rows must be at least 1")
    if now is None:
        now = DEFAULT_NOW
    if now.tzinfo is None:
        raise SampleError("now must be timezone-aware")
    now = now.astimezone(UTC)
    ctx = _Ctx(contract, clauses)
    data_rows, catalog = _clean(ctx, rows, seed, now)
    types = {name: str(ctx.cols[name].type) for name in ctx.names}
    clean = SampleData(contract.name, _from_rows(ctx.names, data_rows), types, now, catalog)
    bad = violated_clauses(clean, clauses)
    if bad:
        raise SampleError(f"{contract.name}: generated data violates {', '.join(bad)} (a bug)")
    if violate is None:
        return clean
    if violate not in ctx.by_id:
        raise SampleError(f"unknown clause {violate!r}; the plan has: "
                          + ", ".join(c.id for c in ctx.clauses))
    clause = ctx.by_id[violate]
    best: SampleData | None = None
    for cand in _candidates(ctx, clause, data_rows, types, catalog, seed):
        data = SampleData(contract.name, _from_rows(cand.names, cand.rows), cand.types, now,
                          cand.catalog or catalog, violate=violate, description=cand.description)
        got = violated_clauses(data, clauses)
        if violate not in got:
            continue
        data = replace(data, violated=got)
        if got == (violate,):
            return data
        if best is None or len(got) < len(best.violated):
            best = data
    if best is None:
        raise SampleError(f"cannot build data that violates {violate!r} "
                          f"with {rows} rows; try more rows")
    return best


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def _text(v: Any, type_text: str) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, datetime):
        unit = type_text.split("_")[1] if type_text.startswith("timestamp_") else "us"
        spec = {"s": "seconds", "ms": "milliseconds"}.get(unit, "microseconds")
        if v.tzinfo is not None:
            v = v.astimezone(UTC)
        return v.isoformat(timespec=spec)
    if isinstance(v, date):
        return v.isoformat()
    return str(v)


def _csv_bytes(names: Sequence[str], types: Mapping[str, str], columns: Mapping[str, list[Any]]
               ) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(names)
    for vals in zip(*(columns[c] for c in names), strict=True):
        w.writerow([_text(v, types[c]) for c, v in zip(names, vals, strict=True)])
    return buf.getvalue().encode("utf-8")


def _arrow_type(type_text: str) -> Any:
    import pyarrow as pa

    if type_text.startswith("timestamp_"):
        parts = type_text.split("_")
        return pa.timestamp(parts[1], tz="UTC" if len(parts) == 3 else None)
    t = parse_type(type_text)
    if t.kind == "decimal":
        return pa.decimal128(t.precision or 38, t.scale or 0)
    return {
        "string": pa.string(), "enum": pa.string(), "bool": pa.bool_(), "int32": pa.int32(),
        "int64": pa.int64(), "float32": pa.float32(), "float64": pa.float64(),
        "date": pa.date32(),
    }[t.kind]


def _parquet_bytes(names: Sequence[str], types: Mapping[str, str],
                   columns: Mapping[str, list[Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays, fields = [], []
    for c in names:
        at = _arrow_type(types[c])
        vals = columns[c]
        if pa.types.is_floating(at):
            vals = [None if v is None else float(v) for v in vals]
        arrays.append(pa.array(vals, type=at))
        fields.append(pa.field(c, at))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="snappy")
    return bytes(sink.getvalue().to_pybytes())


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def catalog_path_for(path: Path | str) -> Path:
    """Where ``write`` puts the catalog by default: ``<stem>.catalog<suffix>`` beside the data."""
    p = Path(path)
    return p.with_name(f"{p.stem}.catalog{p.suffix}")


def write(data: SampleData, path: Path | str, catalog_path: Path | str | None = None
          ) -> tuple[Path, Path | None]:
    """Write the data (``.csv`` or ``.parquet`` by extension) and its catalog, atomically.

    CSV: stdlib csv, a header row, ISO-8601 timestamps with ``+00:00`` at the column precision
    (naive timestamps without offset), decimals as exact text, bools as ``true``/``false``, NULL
    as an empty field. Parquet: pyarrow with exact types (``decimal128(p,s)``,
    ``timestamp(unit, tz='UTC')``). The catalog goes to ``catalog_path`` or
    ``<stem>.catalog.<ext>`` in the same format. Returns (data path, catalog path or None).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise SampleError(f"{p}: write .csv or .parquet")
    encode = _csv_bytes if suffix == ".csv" else _parquet_bytes
    names = list(data.columns)
    _atomic_write(p, encode(names, data.types, data.columns))
    if data.catalog is None:
        return p, None
    cp = Path(catalog_path) if catalog_path is not None else catalog_path_for(p)
    cat = data.catalog
    cat_cols = {c: [r[i] for r in cat.rows] for i, c in enumerate(cat.spec.columns)}
    cenc = _csv_bytes if cp.suffix.lower() == ".csv" else _parquet_bytes
    _atomic_write(cp, cenc(list(cat.spec.columns), cat.types(), cat_cols))
    return p, cp

