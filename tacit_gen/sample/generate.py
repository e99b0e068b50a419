"""Clean data: rows that satisfy every clause of the plan, on the cadence grid, fresh for ``now``."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen.contract.types import DataType
from tacit_gen.expr import nodes as n
from tacit_gen.sample.model import (
    CALENDAR_CODES,
    DEFAULT_NOW,
    DEFAULT_SPACING,
    EPOCH,
    INT_BOUNDS,
    PRESETS,
    SampleError,
    epoch_us,
    truncate,
)
from tacit_gen.sample.verdicts import (
    catalog_interval,
    pattern_ok,
    range_ok,
    revision_by_ok,
    revision_ok,
    same_value,
    within_window,
)
from tacit_gen.semantics.catalog import CatalogData, catalog_spec
from tacit_gen.semantics.dimension import dimension_ok
from tacit_gen.semantics.evaluate import evaluate
from tacit_gen.semantics.plausible import plausible_ok

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause


def dec_units(x: Decimal, scale: int, rounding: str) -> int:
    return int(x.scaleb(scale).to_integral_value(rounding=rounding))


@dataclass
class Col:
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
        elif self.type.kind in INT_BOUNDS:
            tlo, thi = INT_BOUNDS[self.type.kind]
        else:
            tlo, thi = -(10**12), 10**12
        lo = hi = None
        if self.lo is not None:
            lo = dec_units(self.lo, s, ROUND_CEILING)
            if not self.lo_incl and Decimal(lo).scaleb(-s) == self.lo:
                lo += 1
        if self.hi is not None:
            hi = dec_units(self.hi, s, ROUND_FLOOR)
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


def pattern_example(body: str, i: int, fallback: str) -> str:
    """The usual value (`fallback`) when it matches the pattern, else the i-th example of it."""
    from tacit_gen.sql.pattern import example, matches

    return fallback if matches(body, fallback) else example(body, i) or fallback


def fixed_value(col: Col, value: Any) -> Any:
    if col.type.kind == "decimal":
        return Decimal(str(value)).quantize(col.ulp())
    if col.type.is_float:
        return float(value)
    return value


class Context:
    """What generation needs to know about a contract and its plan."""

    def __init__(self, contract: Contract, clauses: Sequence[Clause]) -> None:
        self.contract = contract
        self.clauses = tuple(clauses)
        self.by_id = {c.id: c for c in self.clauses}
        not_null = {c.param("column") for c in self.clauses if c.kind == "not_null"}
        self.cols: dict[str, Col] = {}
        for f in contract.fields:
            self.cols[f.name] = Col(f.name, f.type, f.name not in not_null, unit=f.unit)
        for c in self.clauses:
            col = self.cols.get(str(c.param("column")))
            if c.kind == "fixed_value" and col is not None:
                col.has_fixed, col.fixed = True, fixed_value(col, c.param("value"))
            elif c.kind == "range" and col is not None:
                if c.param("min") is not None:
                    col.lo, col.lo_incl = Decimal(c.param("min")), bool(c.param("min_inclusive"))
                if c.param("max") is not None:
                    col.hi, col.hi_incl = Decimal(c.param("max")), bool(c.param("max_inclusive"))
        self.names = tuple(self.cols)
        t = contract.time
        self.time_col = t.column if t is not None and t.column in self.cols else None
        self.time_unit = "us"
        self.time_is_date = False  # a date time column: points a day apart, values UTC dates
        if self.time_col is not None:
            self.time_unit = self.cols[self.time_col].type.ts_unit or "us"
            self.time_is_date = self.cols[self.time_col].type.kind == "date"
        # without a time column there are no series: every row is its own point; neither are
        # there when the key leaves the time column out (`key: [order_id]`): a key value occurs
        # once, so the key columns get a fresh value per point
        in_key = self.time_col is not None and (not contract.key or self.time_col in contract.key)
        self.series = tuple(s for s in contract.series_key if s in self.cols and in_key)
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
        # a restatement is a second row of a point at revision 1: only where the key holds
        # `revision` (or there is no key). A key without it (`revision` only a provenance column,
        # no revision_policy) makes every restated point a duplicate key (TG207 errors on
        # `allowed: true` without it, not on a contract that says nothing)
        self.restate = self.has_revision and allowed and (
            not self.key or "revision" in self.key)
        self.spec = catalog_spec(self.clauses)
        self.cat_unit = [c for c in self.clauses if c.kind == "catalog_unit"]
        self.cat_bounds = [c for c in self.clauses if c.kind == "catalog_bounds"]
        self.plausible = [c for c in self.clauses if c.kind == "plausible"]
        self.cat_dimension = [c for c in self.clauses if c.kind == "catalog_dimension"]
        self.row_clauses = tuple(
            c for c in self.clauses
            if c.kind in ("not_null", "accepted_values", "fixed_value", "range", "invariant",
                          "catalog_unit", "catalog_bounds", "catalog_dimension",
                          "revision_window", "pattern", "plausible", "revision_by")
        )
        # string columns with a `pattern:` draw examples of it; restaters come from `by`
        self.patterns = {str(c.param("column")): str(c.param("pattern"))
                         for c in self.clauses if c.kind == "pattern"}
        self.restaters = {str(c.param("column")): tuple(c.param("values") or ())
                          for c in self.clauses if c.kind == "revision_by"}
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
        if col in self.patterns:
            return pattern_example(self.patterns[col], j, f"{col}_{j + 1:02d}")
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
                ok = row[col] is None or same_value(row[col], c.param("value"))
            elif c.kind == "range":
                ok = range_ok(c, row[col])
            elif c.kind == "revision_window":
                ok = revision_ok(c, row, lookup)
            elif c.kind == "pattern":
                ok = pattern_ok(c, row[col])
            elif c.kind == "revision_by":
                ok = revision_by_ok(c, row)
            elif c.kind == "plausible":
                ok = plausible_ok(c, row, lookup)
            elif c.kind == "catalog_dimension":
                ok = dimension_ok(c, row, lookup)
            else:
                assert c.expr is not None
                ok = evaluate(c.expr, row, catalog, lookup)
            if ok is False:
                bad.append(c.id)
        return bad


def catalog_entries(ctx: Context, labels: list[Any]) -> CatalogData | None:
    spec = ctx.spec
    if spec is None:
        return None
    rows = []
    unit_col = ctx.cols.get(str(ctx.cat_unit[0].param("column"))) if ctx.cat_unit else None
    bound_col = ctx.cols.get(str(ctx.cat_bounds[0].param("column"))) if ctx.cat_bounds else None
    soft_col = ctx.cols.get(str(ctx.plausible[0].param("column"))) if ctx.plausible else None
    for j, label in enumerate(labels):
        unit, lo, hi, cadence = PRESETS[j % len(PRESETS)]
        if unit_col is not None and unit_col.has_fixed:
            unit = str(unit_col.fixed)
        elif unit_col is not None and unit_col.type.kind == "enum":
            unit = unit_col.type.values[j % len(unit_col.type.values)]
        if ctx.cat_dimension:  # a unit of the stated dimension, the presets' when one fits
            allowed = tuple(ctx.cat_dimension[0].param("units") or ())
            fits = [p for p in PRESETS if p[0] in allowed]
            if fits:
                unit, lo, hi, cadence = fits[j % len(fits)]
            elif allowed and unit not in allowed:
                unit = allowed[j % len(allowed)]
        if bound_col is not None:
            lo, hi = hard_bounds(bound_col, lo, hi)
        plo, phi = plausible_bounds(soft_col, lo, hi, bound_col is not None) if soft_col else (lo, hi)
        if ctx.cadence is not None and not ctx.cadence.param("from_catalog"):
            cadence = int(ctx.cadence.param("interval_seconds") or cadence)
        row: list[Any] = []
        for c in spec.columns:
            role = spec.role(c)
            if role == "bound":
                row.append(lo if c == spec.hard_min else hi)
            elif role == "plausible":
                row.append(plo if c == spec.plausible_min else phi)
            else:
                code = CALENDAR_CODES[j % len(CALENDAR_CODES)]
                row.append({"key": label, "unit": unit, "cadence": cadence, "calendar": code}.get(role))
        rows.append(tuple(row))
    return CatalogData(spec, tuple(rows))


def plausible_bounds(col: Col, lo: Decimal, hi: Decimal, hard: bool) -> tuple[Decimal, Decimal]:
    """Plausible bounds strictly inside what the column may hold (its range and type, and the
    hard bounds `lo`/`hi` when a catalog_bounds clause checks it): the middle half, so that a
    value just outside them is still valid for every other clause (the `plausible` violation)."""
    s = col.scale
    rlo, rhi = col.unit_bounds(default=not hard)
    if hard:
        rlo = max(rlo, dec_units(lo, s, ROUND_CEILING))
        rhi = min(rhi, dec_units(hi, s, ROUND_FLOOR))
    span = rhi - rlo
    if span < 4:
        return Decimal(rlo).scaleb(-s), Decimal(rhi).scaleb(-s)
    return Decimal(rlo + span // 4).scaleb(-s), Decimal(rhi - span // 4).scaleb(-s)


def hard_bounds(col: Col, lo: Decimal, hi: Decimal) -> tuple[Decimal, Decimal]:
    """Catalog hard bounds for a column, placed so that each violation can be isolated.

    A value just beyond a hard bound must still satisfy the column's range and type (for
    catalog_bounds alone), and a value just beyond the range must still be within the hard
    bounds (for range alone): one hard bound lies strictly inside the range, the other outside.
    """
    s = col.scale
    tlo, thi = replace(col, lo=None, hi=None).unit_bounds(default=False)
    rlo, rhi = col.unit_bounds(default=False)
    lo_u = max(dec_units(lo, s, ROUND_CEILING), tlo + 1)
    hi_u = min(dec_units(hi, s, ROUND_FLOOR), thi - 1)
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


def gen_value(ctx: Context, name: str, row: Mapping[str, Any], j: int, rng: random.Random,
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
    if t.kind == "string" and name in ctx.restaters and (row.get("revision") or 0) > 0:
        return rng.choice(ctx.restaters[name])
    if t.kind == "string" and name in ctx.patterns:
        return pattern_example(ctx.patterns[name], rng.randint(0, 50), f"{name}_{rng.randint(1, 3)}")
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
        return truncate(b - timedelta(seconds=rng.randint(0, 3600)), t.ts_unit or "us")
    # numeric
    lo, hi = col.unit_bounds()
    for c in ctx.cat_bounds:
        if c.param("column") == name and entry is not None and ctx.spec is not None:
            lo, hi = col.unit_bounds(default=False)
            blo, bhi = entry.get(ctx.spec.hard_min or ""), entry.get(ctx.spec.hard_max or "")
            if blo is not None:
                lo = max(lo, dec_units(Decimal(blo), col.scale, ROUND_CEILING))
            if bhi is not None:
                hi = min(hi, dec_units(Decimal(bhi), col.scale, ROUND_FLOOR))
    for c in ctx.plausible:
        if c.param("column") == name and entry is not None and ctx.spec is not None:
            plo, phi = entry.get(ctx.spec.plausible_min or ""), entry.get(ctx.spec.plausible_max or "")
            if plo is not None:
                lo = max(lo, dec_units(Decimal(plo), col.scale, ROUND_CEILING))
            if phi is not None:
                hi = min(hi, dec_units(Decimal(phi), col.scale, ROUND_FLOOR))
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


def sort_chain(ctx: Context, row: dict[str, Any], node: n.Node, frozen: set[str]) -> bool:
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


def fill_row(ctx: Context, row: dict[str, Any], j: int, rng: random.Random,
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
                row[name] = gen_value(ctx, name, row, j, rng, entry, null_p)
        for _ in range(3):
            bad = ctx.row_violations(row, catalog, lookup, skip)
            if not bad:
                return True
            fixed_any = False
            for cid in bad:
                c = ctx.by_id[cid]
                if c.kind == "invariant" and c.expr is not None:
                    fixed_any = sort_chain(ctx, row, c.expr, frozen) or fixed_any
            if not fixed_any:
                break
    return False


def grid_end(now: datetime, interval: int, unit: str, max_age: int | None) -> datetime:
    us = epoch_us(now)
    step = interval * 1_000_000
    end = EPOCH + timedelta(microseconds=us - us % step)
    if max_age is not None and epoch_us(now) - epoch_us(end) > max_age * 1_000_000:
        end = truncate(now, unit)
    return end


def clean_rows(ctx: Context, rows: int, seed: int, now: datetime) -> tuple[list[dict[str, Any]],
                                                                     CatalogData | None]:
    rng = random.Random(seed)
    n_series = 1 if not ctx.series or rows < 4 else (2 if rows < 9 else 3)
    labels = [[ctx.series_label(s, j) for s in ctx.series] for j in range(n_series)]
    cat_labels: list[Any] = []
    if ctx.spec is not None:
        kcols = [str(c.param("key")) for c in (*ctx.cat_unit, *ctx.cat_bounds, *ctx.cat_dimension)]
        if ctx.cadence is not None and ctx.cadence.param("from_catalog") and ctx.series:
            kcols.append(ctx.series[0])
        kcols += [str(c.param("calendar_series")) for c in ctx.clauses
                  if c.param("calendar_catalog") is not None and c.param("calendar_series")]
        kc = kcols[0] if kcols else (ctx.series[0] if ctx.series else None)
        if kc in ctx.series:
            cat_labels = [lab[ctx.series.index(kc)] for lab in labels]
        elif kc is not None and kc in ctx.cols:
            cat_labels = [ctx.series_label(kc, j) for j in range(3)]
    catalog = catalog_entries(ctx, cat_labels)
    lookup = catalog.lookup() if catalog is not None else {}
    n_restate = max(1, rows // 6) if ctx.restate and rows >= 3 else 0
    n_base = rows - n_restate
    max_age = int(ctx.freshness.param("max_age_seconds")) if ctx.freshness is not None else None
    # points: (series index, point index, time)
    points: list[tuple[int, int, datetime | None]] = []
    for j in range(n_series):
        count = n_base // n_series + (1 if j < n_base % n_series else 0)
        interval = 86_400 if ctx.time_is_date else DEFAULT_SPACING
        if ctx.cadence is not None:
            got = catalog_interval(ctx.cadence, catalog, lookup, tuple(labels[j][:1]))
            interval = got if got else DEFAULT_SPACING
        end = grid_end(now, interval, ctx.time_unit, max_age) if ctx.time_col else None
        if end is not None and ctx.cadence is not None and ctx.cadence.param("sessions"):
            from tacit_gen.sample.sessions import group_code, session_grid

            code = group_code(ctx.cadence, tuple(labels[j]), lookup)
            points += [(j, k, st) for k, st in enumerate(session_grid(ctx.cadence, end, count, code))]
            continue
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
            row[ctx.time_col] = t.date() if ctx.time_is_date and t is not None else t
        if ctx.has_revision:
            row["revision"] = rev
        for kc in ctx.key:
            if kc not in (*ctx.series, ctx.time_col, "revision"):
                row[kc] = point_key(ctx.cols[kc], point_index if rev == 0 else k, ctx)
        point_index += rev == 0
        if ctx.ingest_col is not None and t is not None:
            row[ctx.ingest_col] = ingest_time(ctx, t, rev, series_code(ctx, row, lookup))
        if not fill_row(ctx, row, j, rng, catalog, lookup, set(ctx.pinned)):
            raise SampleError(
                f"{ctx.contract.name}: could not generate a row satisfying "
                + ", ".join(ctx.row_violations(row, catalog, lookup))
            )
        out.append(row)
    order = {lab: i for i, lab in enumerate(tuple(x) for x in labels)}
    out.sort(key=lambda r: (_sort_time(r[ctx.time_col]) if ctx.time_col and r[ctx.time_col] else 0,
                            order.get(tuple(r[s] for s in ctx.series), 0),
                            r.get("revision") or 0))
    return out, catalog


def _sort_time(value: Any) -> int:
    """A time column value as a sort key: an instant's epoch microseconds, a date's day number."""
    if isinstance(value, datetime):
        return epoch_us(value)
    return int(value.toordinal()) * 86_400_000_000


def point_key(col: Col, i: int, ctx: Context) -> Any:
    t = col.type
    if t.kind == "timestamp":
        return DEFAULT_NOW - timedelta(seconds=i)
    if t.kind == "date":
        return DEFAULT_NOW.date() - timedelta(days=i)
    if t.kind in ("string",):
        if col.name in ctx.patterns:
            return pattern_example(ctx.patterns[col.name], i, f"{col.name}_{i + 1:04d}")
        return f"{col.name}_{i + 1:04d}"
    if t.kind == "enum":
        return t.values[i % len(t.values)]
    lo, _ = col.unit_bounds()
    return col.from_units(lo + i * 10**col.scale)


def series_code(ctx: Context, row: Mapping[str, Any], lookup: Mapping[Any, Any]) -> str | None:
    """The exchange calendar code of a row's series for the revision window (per-series: the
    catalog's), or None when the window counts no per-series sessions."""
    if ctx.revision is None or ctx.revision.param("calendar_catalog") is None:
        return None
    from tacit_gen.sample.sessions import row_code

    return row_code(ctx.revision, row, lookup)


def ingest_time(ctx: Context, t: datetime, rev: int, code: str | None = None) -> datetime:
    unit = ctx.cols[ctx.ingest_col or ""].type.ts_unit or "us"
    delay = timedelta(seconds=5)
    if rev > 0:
        delay = timedelta(hours=1)
        if ctx.revision is not None and ctx.revision.param("window_seconds") is not None:
            delay = min(delay, timedelta(seconds=int(ctx.revision.param("window_seconds")) // 2))
        if ctx.revision is not None and not within_window(ctx.revision, t, t + delay, code):
            delay = timedelta(0)
    return truncate(t + delay, unit)
