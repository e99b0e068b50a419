"""The facts a diff compares: each side's clauses by kind, and the helpers on types, units and ranges."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from tacit_gen.contract import units
from tacit_gen.contract.model import Contract, Duration, Field
from tacit_gen.contract.types import DataType
from tacit_gen.evolution.report import Change, make_change
from tacit_gen.expr import nodes as n
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause

CATALOG_UNIT = "per series from catalog"


# ---------------------------------------------------------------------------------- helpers
def rename_columns(node: n.Node, mapping: dict[str, str]) -> n.Node:
    """The expression with column names replaced through `mapping` (others unchanged), enum
    literals written as the strings they equal and comparison chains as conjunctions, so comparing
    two versions ignores all three."""
    if isinstance(node, n.EnumLiteral):
        return n.String(node.value, offset=node.offset)  # `quality = bad` is `quality = 'bad'`
    if isinstance(node, n.Compare) and len(node.ops) > 1:  # `a <= b <= c` is `a <= b and b <= c`
        parts = [n.Compare((rename_columns(x, mapping), rename_columns(y, mapping)), (op,))
                 for x, y, op in zip(node.operands, node.operands[1:], node.ops, strict=False)]
        out: n.Node = parts[0]
        for part in parts[1:]:
            out = n.And(out, part)
        return out
    if isinstance(node, n.Column | n.Name):
        new = mapping.get(node.name)
        return node if new is None else type(node)(new, offset=node.offset)
    changes: dict[str, Any] = {}
    for name in node.__dataclass_fields__:
        if name == "offset":
            continue
        value = getattr(node, name)
        if isinstance(value, n.Node):
            changes[name] = rename_columns(value, mapping)
        elif isinstance(value, tuple) and value and all(isinstance(v, n.Node) for v in value):
            changes[name] = tuple(rename_columns(v, mapping) for v in value)
    return replace(node, **changes) if changes else node


def canonical_expr(clause: Clause, mapping: dict[str, str] | None = None) -> str:
    """The canonical text of an invariant clause's expression, columns mapped."""
    from tacit_gen.expr.printer import to_text

    if clause.expr is None:
        return str(clause.param("expr", clause.text))
    return to_text(rename_columns(clause.expr, mapping or {}))


def unit_text(f: Field) -> str | None:
    return CATALOG_UNIT if f.unit_from_catalog else f.unit


def same_unit(a: str | None, b: str | None) -> bool:
    """Whether two declared units are the same unit (pint equality; catalog only equals itself)."""
    if a == b:
        return True
    if a is None or b is None or CATALOG_UNIT in (a, b):
        return False
    try:
        return units.same_unit(units.resolve(a), units.resolve(b))
    except Exception:
        return False


_SUFFIX_OF: dict[str, str] = {}
for _suffix, _unit in units.SUFFIX_UNITS.items():
    _SUFFIX_OF.setdefault(_unit, _suffix)


def unit_suffix(unit: str) -> str | None:
    """The column-name suffix that spells a unit (``kPa`` -> ``kpa``), or a sanitized form."""
    if unit == CATALOG_UNIT:
        return None
    if unit in _SUFFIX_OF:
        return _SUFFIX_OF[unit]
    for known, suffix in _SUFFIX_OF.items():
        if same_unit(known, unit):
            return suffix
    text = re.sub(r"[^a-z0-9]+", "_", unit.lower()).strip("_")
    return text or None


def suggest_field_name(name: str, new_unit: str | None, taken: tuple[str, ...] = ()) -> str:
    """The new field to add beside `name` when its unit changes: ``pressure_bar`` + kPa ->
    ``pressure_kpa``; ``pressure`` + kPa -> ``pressure_kpa``."""
    base = name.rsplit("_", 1)[0] if units.suffix_unit(name) is not None else name
    suffix = unit_suffix(new_unit) if new_unit else None
    candidate = f"{base}_{suffix}" if suffix else f"{name}_v2"
    if candidate == name or candidate in taken:
        candidate = f"{candidate}_v2"
    return candidate


def unit_factor(old: str, new: str) -> str | None:
    """``1 bar = 100 kPa`` when both are multiplicative units of one dimension, else None."""
    try:
        ureg = units.registry()
        if ureg.Quantity(0, old).to(new).magnitude != 0:
            return None  # offset units (degC -> degF): no single factor
        mag = ureg.Quantity(1, old).to(new).magnitude
    except Exception:
        return None
    return f"1 {old} = {float(mag):.10g} {new}"


def top_line(contract: Contract, key: str) -> int | None:
    """The line of a top-level key, None when the file does not write it."""
    return contract.positions.line(key)


def field_line(contract: Contract, f: Field, key: str | None = None) -> int:
    """The line of a field (or of one of its keys, falling back to the field's line)."""
    if key is None or f.implied:
        return f.pos.line
    return contract.positions.line("fields", f.name, key) or f.pos.line


def _interval(lo: str | None, hi: str | None, lo_inc: bool, hi_inc: bool, col: str) -> str:
    if lo is None and hi is None:
        return "unbounded"
    if lo is None:
        return f"{col} {'<=' if hi_inc else '<'} {hi}"
    if hi is None:
        return f"{col} {'>=' if lo_inc else '>'} {lo}"
    return f"{lo} {'<=' if lo_inc else '<'} {col} {'<=' if hi_inc else '<'} {hi}"


def range_interval(clause: Clause | None, col: str) -> str:
    if clause is None:
        return "unbounded"
    return _interval(clause.param("min"), clause.param("max"), clause.param("min_inclusive", True),
                     clause.param("max_inclusive", True), col)


def side_cmp(old: tuple[str | None, bool], new: tuple[str | None, bool], side: str) -> int:
    """-1 if the new bound is looser than the old, 1 if tighter, 0 if equal. (value, inclusive);
    a None value is unbounded."""
    (ov, oi), (nv, ni) = old, new
    if ov is None and nv is None:
        return 0
    if nv is None:
        return -1
    if ov is None:
        return 1
    a, b = Decimal(ov), Decimal(nv)
    if a == b:
        if oi == ni:
            return 0
        return -1 if ni else 1
    tighter = b > a if side == "min" else b < a
    return 1 if tighter else -1


def range_cmp(old: Clause | None, new: Clause | None) -> tuple[bool, bool]:
    """(tighter on some side, looser on some side) of `new` relative to `old`."""
    def bound(c: Clause | None, side: str) -> tuple[str | None, bool]:
        if c is None:
            return None, True
        return c.param(side), bool(c.param(f"{side}_inclusive", True))

    results = [side_cmp(bound(old, s), bound(new, s), s) for s in ("min", "max")]
    return 1 in results, -1 in results


def _numeric_room(t: DataType) -> tuple[int, int] | None:
    """(integer digits held exactly, fraction digits) for exact numeric types."""
    if t.kind == "int32":
        return 9, 0
    if t.kind == "int64":
        return 18, 0
    if t.is_decimal:
        assert t.precision is not None and t.scale is not None
        return t.precision - t.scale, t.scale
    return None


_INT_DIGITS = {"int32": 10, "int64": 19}
_TS_ORDER = ("s", "ms", "us", "ns")


def type_change(old: DataType, new: DataType) -> list[tuple[str, str]]:
    """Classify a type change: a list of (code, explanation) (several for enum value changes)."""
    a, b = str(old), str(new)
    if a == b:
        return []
    if old.kind == "enum" and new.kind == "enum":
        out = []
        added = [v for v in new.values if v not in old.values]
        removed = [v for v in old.values if v not in new.values]
        if added:
            out.append(("field.enum_values_added", "values added: " + ", ".join(added)))
        if removed:
            out.append(("field.enum_values_removed",
                        "values removed: " + ", ".join(removed) + "; existing rows holding them fail"))
        if not out:
            out.append(("field.enum_reordered", f"{a} -> {b}: the same values in another order"))
        return out
    if old.kind == "enum" and new.kind == "string":
        return [("field.type_relaxed", f"{a} -> {b}: every old value is a string, but the accepted "
                 "values are no longer checked")]
    if old.kind == "string" and new.kind == "enum":
        return [("field.type_narrowed", f"{a} -> {b}: existing strings outside the enum fail")]
    if old.kind == "timestamp" and new.kind == "timestamp":
        assert old.ts_unit is not None and new.ts_unit is not None
        if _TS_ORDER.index(new.ts_unit) > _TS_ORDER.index(old.ts_unit):
            return [("field.type_promoted", f"{a} -> {b}: finer precision holds every old instant")]
        return [("field.precision_down", f"{a} -> {b}: sub-{new.ts_unit} digits of existing instants are lost")]
    if old.kind == "float32" and new.kind == "float64":
        return [("field.type_promoted", f"{a} -> {b}: every float32 is a float64")]
    if old.kind == "float64" and new.kind == "float32":
        return [("field.precision_down", f"{a} -> {b}: about 16 significant digits become 7")]
    if old.is_integer and new.is_float:
        if old.kind == "int32" and new.kind == "float64":
            return [("field.type_promoted", f"{a} -> {b}: every int32 is exact in a float64")]
        limit = "2^24" if new.kind == "float32" else "2^53"
        return [("field.type_changed", f"{a} -> {b}: Avro promotes it, but integers above {limit} "
                 "lose exactness; tacit-gen treats an inexact promotion as breaking")]
    ra, rb = _numeric_room(old), _numeric_room(new)
    if ra is not None and rb is not None:
        (ia, fa), (ib, fb) = ra, rb
        if old.is_integer:
            ia = _INT_DIGITS[old.kind]
        if new.is_integer:
            ib = _INT_DIGITS[new.kind] - 1  # int32 holds every 9-digit number, not every 10-digit one
        if fb < fa:
            return [("field.precision_down", f"{a} -> {b}: fraction digits {fa} -> {fb}; "
                     "existing values are rounded")]
        if ib < ia:
            return [("field.type_narrowed", f"{a} -> {b}: integer digits {ia} -> {ib}; "
                     "large existing values no longer fit")]
        return [("field.type_promoted", f"{a} -> {b}: every old value is exact in the new type")]
    if (old.is_float and new.is_decimal) or (old.is_decimal and new.is_float):
        return [("field.type_changed", f"{a} -> {b}: decimal and binary floating point do not hold "
                 "the same values (never store money as double)")]
    return [("field.type_changed", f"{a} -> {b}")]


def duration_seconds(d: Duration) -> Decimal:
    """Seconds for comparison; a business day counts as 7/5 of a calendar day."""
    if d.business_days is not None:
        return Decimal(d.business_days) * 86400 * 7 / 5
    return Decimal(d.seconds)


def timezone_of(c: Contract) -> str | None:
    if c.time is None:
        return None
    main = "UTC instant" if c.time.timezone.strip().lower() in ("utc", "utc instant") else c.time.timezone
    return main + (f"; {c.time.timezone_note}" if c.time.timezone_note else "")


# -------------------------------------------------------------------------------- the facts
@dataclass
class Side:
    contract: Contract
    clauses: tuple[Clause, ...]
    ranges: dict[str, Clause] = field(default_factory=dict)
    invariants: list[Clause] = field(default_factory=list)
    catalog: dict[str, Clause] = field(default_factory=dict)

    @classmethod
    def of(cls, contract: Contract) -> Side:
        side = cls(contract, plan(contract))
        for cl in side.clauses:
            if cl.kind == "range":
                side.ranges[str(cl.param("column"))] = cl
            elif cl.kind == "invariant":
                side.invariants.append(cl)
            elif cl.kind in ("catalog_bounds", "catalog_dimension", "catalog_unit"):
                side.catalog[cl.id] = cl
        return side

    def invariant_path(self, text: str) -> str:
        """The contract path of an invariant (or of the first text of a merged range)."""
        i = 0
        for inv in self.contract.invariants:
            if inv.source == "invariants":
                if inv.text in text.split("; "):
                    return f"invariants[{i}]"
                i += 1
            elif inv.text in text.split("; "):
                return inv.source
        if text == self.contract.provenance_text:
            return "provenance_required"
        return "invariants"


@dataclass
class Diff:
    old: Side
    new: Side
    notice: str
    changes: list[Change] = field(default_factory=list)
    o2n: dict[str, str] = field(default_factory=dict)  # old column -> new column (renames)

    @property
    def a(self) -> Contract:
        return self.old.contract

    @property
    def b(self) -> Contract:
        return self.new.contract

    def add(self, code: str, path: str, message: str, old_line: int | None, new_line: int | None,
            action: str | None = None) -> None:
        self.changes.append(make_change(code, path, message, old_line, new_line,
                                        notice=self.notice, action=action))

    def new_name(self, old: str) -> str:
        return self.o2n.get(old, old)
