"""`diff(old, new)`: every change between two versions of a contract, classified by seed 001's table.

The diff compares the typed model and the clause plan of both versions, never raw YAML, so a
reformatted file is not a change. Fields are matched by name, then through `aliases` (a declared
rename), then heuristically (a removed and an added field with the same type and unit: a possible
rename). Column references in keys, ranges and invariants are mapped through those renames before
comparing, so a rename is reported once, not once per clause that mentions the column.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from tacit_gen.contract import units
from tacit_gen.contract.model import (
    Cadence,
    Completeness,
    Contract,
    Duration,
    Field,
    RevisionPolicy,
)
from tacit_gen.contract.types import DataType
from tacit_gen.evolution.report import Change, DiffReport, make_change
from tacit_gen.evolution.semver import declared_bump
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


def _never_null_reason(c: Contract, f: Field) -> str:
    if f.has_value:
        return "it has a fixed value"
    if f.name in c.key:
        return "it is a key column"
    if c.time is not None and f.name == c.time.column:
        return "it is the time column"
    if f.name in c.provenance_required:
        return "it is a provenance column"
    return "nullable: false"


def timezone_of(c: Contract) -> str | None:
    if c.time is None:
        return None
    main = "UTC instant" if c.time.timezone.strip().lower() in ("utc", "utc instant") else c.time.timezone
    return main + (f"; {c.time.timezone_note}" if c.time.timezone_note else "")


_MODE_STRENGTH = {
    "NONE": (0, 0), "BACKWARD": (1, 0), "FORWARD": (1, 0), "FULL": (2, 0),
    "BACKWARD_TRANSITIVE": (1, 1), "FORWARD_TRANSITIVE": (1, 1), "FULL_TRANSITIVE": (2, 1),
}


def _mode_covers(new: str, old: str) -> bool:
    """Whether mode `new` promises at least what `old` did."""
    if new == old:
        return True
    dirs = {"NONE": set(), "BACKWARD": {"b"}, "FORWARD": {"f"}, "FULL": {"b", "f"}}
    base_n, base_o = new.replace("_TRANSITIVE", ""), old.replace("_TRANSITIVE", "")
    return dirs[base_n] >= dirs[base_o] and _MODE_STRENGTH[new][1] >= _MODE_STRENGTH[old][1]


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
class _Diff:
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


# ------------------------------------------------------------------------------------ diff
def diff(old: Contract, new: Contract) -> DiffReport:
    """Every change from `old` to `new`, classified, with the least bump and the declared one."""
    np = new.evolution.notice_period or old.evolution.notice_period
    notice = (f"a notice period of {np.text}" if np is not None
              else "a notice period (declare evolution.notice_period)")
    d = _Diff(Side.of(old), Side.of(new), notice)
    _identity(d)
    _fields(d)
    _key(d)
    _time(d)
    _ranges(d)
    _invariants(d)
    _revision(d)
    _catalog(d)
    _evolution(d)
    _provenance(d)
    _targets(d)
    _severity(d)
    _docs(d)
    if not d.changes and _semantic(d.old.clauses) != _semantic(d.new.clauses):
        d.add("contract.unclassified", "contract", "the clause plans differ in a way no rule classifies",
              0, 0)
    return DiffReport(
        contract=new.name,
        old_version=old.version,
        new_version=new.version,
        old_path=old.path,
        new_path=new.path,
        changes=tuple(d.changes),
        declared_bump=declared_bump(old.version, new.version),
    )


def _severity(d: _Diff) -> None:
    """A clause in both versions whose severity changed: error -> warn loosens (with notice),
    warn -> error is breaking (rows that only warned now fail)."""
    old = {c.id: c for c in d.old.clauses}
    where_a, where_b = dict(d.a.severity_pos), dict(d.b.severity_pos)
    for cl in d.new.clauses:
        before = old.get(cl.id)
        if before is None or before.severity == cl.severity:
            continue
        ol = where_a.get(cl.id)
        nl = where_b.get(cl.id)
        if cl.warn:
            d.add("severity.loosened", "severity.warn",
                  f"{cl.id} made severity: warn (violations are reported, no longer enforced)",
                  before.line or None, nl.line if nl else None)
        else:
            d.add("severity.tightened", "severity.warn",
                  f"{cl.id} is an error again (was severity: warn); existing data may fail",
                  ol.line if ol else None, cl.line or None)


def _semantic(clauses: tuple[Clause, ...]) -> list[str]:
    return sorted(repr((c.kind, c.columns, c.params)) for c in clauses)


def _identity(d: _Diff) -> None:
    if d.a.name != d.b.name:
        d.add("contract.renamed", "contract", f"contract renamed from '{d.a.name}' to '{d.b.name}'",
              top_line(d.a, "contract"), top_line(d.b, "contract"))


def _match_fields(d: _Diff) -> tuple[list[Field], list[Field], list[tuple[Field, Field, str]]]:
    """(removed, added, renamed pairs (old, new, how)); renames fill `d.o2n`."""
    new_names = set(d.b.column_names)
    old_names = set(d.a.column_names)
    removed = [f for f in d.a.fields if f.name not in new_names]
    added = [f for f in d.b.fields if f.name not in old_names]
    pairs: list[tuple[Field, Field, str]] = []
    for nf in list(added):
        for alias in nf.aliases:
            of = next((f for f in removed if f.name == alias), None)
            if of is not None:
                pairs.append((of, nf, "aliases"))
                removed.remove(of)
                added.remove(nf)
                break
    # heuristic: same type and unit; best name similarity first
    def signature(f: Field) -> tuple[str, str | None]:
        return str(f.type), unit_text(f)

    candidates = []
    for of in removed:
        for nf in added:
            if signature(of) == signature(nf):
                ratio = difflib.SequenceMatcher(None, of.name, nf.name).ratio()
                candidates.append((-ratio, d.a.fields.index(of), d.b.fields.index(nf), of, nf))
    for neg_ratio, _, _, of, nf in sorted(candidates, key=lambda t: t[:3]):
        if of not in removed or nf not in added:
            continue
        same_sig_removed = [f for f in removed if signature(f) == signature(of)]
        same_sig_added = [f for f in added if signature(f) == signature(nf)]
        unique = len(same_sig_removed) == 1 and len(same_sig_added) == 1
        if unique or -neg_ratio >= 0.6:
            pairs.append((of, nf, "heuristic"))
            removed.remove(of)
            added.remove(nf)
    for of, nf, _ in pairs:
        d.o2n[of.name] = nf.name
    pairs.sort(key=lambda p: d.b.fields.index(p[1]))
    return removed, added, pairs


def _fields(d: _Diff) -> None:
    removed, added, pairs = _match_fields(d)
    reserved = set(d.a.evolution.reserved) | set(d.b.evolution.reserved)
    for of in removed:
        if of.name in d.b.evolution.reserved:
            action = "major version; dual-write period before the removal"
        else:
            action = (f"major version; dual-write period, then list '{of.name}' in "
                      "evolution.reserved so the name is never reused")
        d.add("field.removed", f"fields.{of.name}", f"field '{of.name}' ({of.type}) removed; consumers "
              "that read it by name break", field_line(d.a, of), None, action=action)
    for of, nf, how in pairs:
        if how == "aliases":
            d.add("field.renamed", f"fields.{nf.name}",
                  f"field '{of.name}' renamed to '{nf.name}' (declared by aliases: [{', '.join(nf.aliases)}]); "
                  "new readers resolve old data through the alias, existing consumers reading "
                  f"'{of.name}' by name break", field_line(d.a, of), field_line(d.b, nf, "aliases"))
        else:
            d.add("field.renamed_possible", f"fields.{nf.name}",
                  f"field '{of.name}' removed and '{nf.name}' added with the same type ({nf.type}) and "
                  f"unit ({unit_text(nf) or 'none'}): possibly a rename, which breaks consumers reading "
                  f"'{of.name}'", field_line(d.a, of), field_line(d.b, nf),
                  action=f"major version; if it is a rename, declare 'aliases: [{of.name}]' on "
                  f"'{nf.name}' and dual-write both names for {d.notice}")
    for nf in added:
        line = field_line(d.b, nf)
        if nf.name in reserved:
            d.add("field.added_reserved", f"fields.{nf.name}",
                  f"field '{nf.name}' added, but the name is reserved (a removed field); reusing it "
                  "gives old data a new meaning", None, line)
        elif nf.nullable:
            d.add("field.added", f"fields.{nf.name}", f"nullable field '{nf.name}' ({nf.type}) added",
                  None, line)
        else:
            d.add("field.added_required", f"fields.{nf.name}",
                  f"required field '{nf.name}' ({nf.type}) added ({_never_null_reason(d.b, nf)}); "
                  "data written under the old version has no such column", None, line)
    for of in d.a.fields:
        both = d.b.field(d.new_name(of.name))
        if both is not None:
            _field_pair(d, of, both)
    # order of the fields both versions have
    old_order = [d.new_name(f.name) for f in d.a.fields if d.b.field(d.new_name(f.name))]
    new_order = [f.name for f in d.b.fields if f.name in old_order]
    if old_order != new_order:
        d.add("field.moved", "fields", "field order changed: " + ", ".join(new_order),
              top_line(d.a, "fields"), top_line(d.b, "fields"))


def _field_pair(d: _Diff, of: Field, nf: Field) -> None:
    p = f"fields.{nf.name}"
    # type
    for code, why in type_change(of.type, nf.type):
        msg = f"type of '{nf.name}' changed: {why}"
        action = None
        if code == "field.type_changed":
            action = (f"major version; or add a new field (e.g. '{nf.name}_v2') beside '{nf.name}'")
        d.add(code, f"{p}.type", msg, field_line(d.a, of, "type"), field_line(d.b, nf, "type"),
              action=action)
    # unit
    uo, un = unit_text(of), unit_text(nf)
    if uo != un:
        if same_unit(uo, un):
            d.add("field.unit_respelled", f"{p}.unit", f"unit of '{nf.name}' respelled: {uo} -> {un} "
                  "(the same unit)", field_line(d.a, of, "unit"), field_line(d.b, nf, "unit"))
        else:
            suggestion = suggest_field_name(nf.name, un, d.b.column_names)
            detail = ""
            if uo is not None and un is not None:
                factor = unit_factor(uo, un)
                if factor is not None:
                    detail = f" (same dimension, {factor}: every value changes scale)"
            msg = (f"unit of '{nf.name}' changed from {uo or 'none'} to {un or 'none'}{detail}; a unit "
                   f"change is never a version bump on the same field: add '{suggestion}' beside "
                   f"'{nf.name}'")
            action = (f"new field name: add '{suggestion}' ({un or 'no unit'}) beside '{nf.name}' "
                      f"({uo or 'no unit'}) and keep writing both for {d.notice}; dropping "
                      f"'{nf.name}' later is a major version")
            d.add("field.unit_changed", f"{p}.unit", msg, field_line(d.a, of, "unit"),
                  field_line(d.b, nf, "unit"), action=action)
    elif of.dimension != nf.dimension:
        d.add("field.dimension_changed", f"{p}.dimension",
              f"dimension of '{nf.name}' changed: {of.dimension or 'none'} -> {nf.dimension or 'none'} "
              f"(unit unchanged: {un or 'none'})",
              field_line(d.a, of, "dimension"), field_line(d.b, nf, "dimension"))
    # fixed value
    if of.has_value and nf.has_value and of.value != nf.value:
        d.add("field.fixed_value_changed", f"{p}.value",
              f"fixed value of '{nf.name}' changed: {of.value!r} -> {nf.value!r}; every row changes",
              field_line(d.a, of, "value"), field_line(d.b, nf, "value"))
    elif nf.has_value and not of.has_value:
        d.add("field.fixed_value_added", f"{p}.value",
              f"'{nf.name}' now has the fixed value {nf.value!r}; existing rows with other values fail",
              field_line(d.a, of), field_line(d.b, nf, "value"))
    elif of.has_value and not nf.has_value:
        d.add("field.fixed_value_removed", f"{p}.value",
              f"'{nf.name}' no longer has a fixed value (was {of.value!r})",
              field_line(d.a, of, "value"), field_line(d.b, nf))
    # nullability (a fixed value added already says "never null")
    if of.nullable and not nf.nullable and not (nf.has_value and not of.has_value):
        d.add("field.nullability_tightened", f"{p}.nullable",
              f"'{nf.name}' is no longer nullable ({_never_null_reason(d.b, nf)}); existing null rows fail",
              field_line(d.a, of, "nullable"), field_line(d.b, nf, "nullable"))
    elif not of.nullable and nf.nullable:
        d.add("field.nullability_relaxed", f"{p}.nullable",
              f"'{nf.name}' may now be null (was never null: {_never_null_reason(d.a, of)})",
              field_line(d.a, of, "nullable"), field_line(d.b, nf, "nullable"))
    _pattern(d, of, nf, p)
    if of.references != nf.references:
        lines = field_line(d.a, of, "references"), field_line(d.b, nf, "references")
        old_ref = ".".join(of.references) if of.references else ""
        new_ref = ".".join(nf.references) if nf.references else ""
        if not old_ref:
            d.add("field.references_added", f"{p}.references",
                  f"'{nf.name}' must now be a value of {new_ref}", *lines)
        elif not new_ref:
            d.add("field.references_removed", f"{p}.references",
                  f"'{nf.name}' no longer references {old_ref}", *lines)
        else:
            d.add("field.references_changed", f"{p}.references",
                  f"'{nf.name}' references {new_ref} (was {old_ref})", *lines)
    if of.plausible != nf.plausible:
        lines = field_line(d.a, of, "plausible"), field_line(d.b, nf, "plausible")
        if nf.plausible is not None:
            d.add("field.plausible_added", f"{p}.plausible",
                  f"'{nf.name}' warns outside its series' plausible bounds (from the catalog); "
                  "a warning, never a failure", *lines)
        else:
            d.add("field.plausible_removed", f"{p}.plausible",
                  f"'{nf.name}' no longer warns outside its plausible bounds", *lines)
    # documentation
    for attr in ("description", "note"):
        if getattr(of, attr) != getattr(nf, attr):
            d.add("field.doc_changed", f"{p}.{attr}", f"{attr} of '{nf.name}' changed",
                  field_line(d.a, of, attr), field_line(d.b, nf, attr))
    if (of.lint_allow, of.lint_reason) != (nf.lint_allow, nf.lint_reason):
        d.add("field.doc_changed", f"{p}.lint", f"lint waiver of '{nf.name}' changed",
              field_line(d.a, of, "lint"), field_line(d.b, nf, "lint"))
    if of.meta != nf.meta:
        d.add("field.doc_changed", p, f"x-* metadata of '{nf.name}' changed",
              field_line(d.a, of), field_line(d.b, nf))
    if of.aliases != nf.aliases and not (of.name != nf.name and of.name in nf.aliases):
        d.add("field.aliases_changed", f"{p}.aliases",
              f"aliases of '{nf.name}': [{', '.join(of.aliases)}] -> [{', '.join(nf.aliases)}]",
              field_line(d.a, of, "aliases"), field_line(d.b, nf, "aliases"))


def _pattern(d: _Diff, of: Field, nf: Field, p: str) -> None:
    """A tighter pattern (fewer values match, or not provably more) is breaking; a looser one is
    with notice; the same set of values (respelled, anchors added) is a patch."""
    from tacit_gen.sql.pattern import includes, normalize

    if of.pattern == nf.pattern:
        return
    lines = field_line(d.a, of, "pattern"), field_line(d.b, nf, "pattern")
    if of.pattern is None:
        d.add("field.pattern_added", f"{p}.pattern", f"'{nf.name}' must now match {nf.pattern}", *lines)
        return
    if nf.pattern is None:
        d.add("field.pattern_removed", f"{p}.pattern", f"'{nf.name}' no longer has a pattern "
              f"(was {of.pattern})", *lines)
        return
    ob, nb = normalize(of.pattern), normalize(nf.pattern)
    wider = includes(nb, ob)  # every old value still matches
    narrower = includes(ob, nb)
    change = f"pattern of '{nf.name}': {of.pattern} -> {nf.pattern}"
    if wider and narrower:
        d.add("field.pattern_respelled", f"{p}.pattern", change + " (the same values match)", *lines)
    elif wider:
        d.add("field.pattern_widened", f"{p}.pattern", change + " (every old value still matches)", *lines)
    else:
        why = "fewer values match" if narrower else "some old values no longer match"
        if wider is None or narrower is None:
            why = "cannot prove every old value still matches"
        d.add("field.pattern_tightened", f"{p}.pattern", f"{change} ({why})", *lines)


def _key(d: _Diff) -> None:
    old_key = tuple(d.new_name(k) for k in d.a.key)
    if old_key == d.b.key:
        return
    ol, nl = d.a.key_pos.line or None, d.b.key_pos.line or None
    if set(old_key) == set(d.b.key) and len(old_key) == len(d.b.key):
        d.add("key.reordered", "key", f"key columns reordered: [{', '.join(d.a.key)}] -> "
              f"[{', '.join(d.b.key)}]", ol, nl)
        return
    d.add("key.changed", "key", f"natural key changed: [{', '.join(d.a.key)}] -> [{', '.join(d.b.key)}]; "
          "the same rows now mean different things", ol, nl,
          action=f"new dataset: publish '{d.b.name}' under a new contract name (e.g. '{d.b.name}_v2') "
          "beside the old one and migrate consumers")


def _tline(c: Contract, key: str) -> int | None:
    if c.time is None:
        return None
    lines = dict(c.time.lines)
    return lines.get(key, c.time.pos.line)


def _time(d: _Diff) -> None:
    ta, tb = d.a.time, d.b.time
    col_a = d.new_name(ta.column) if ta is not None else None
    col_b = tb.column if tb is not None else None
    if col_a != col_b:
        d.add("time.column_changed", "time.column",
              f"time column changed: {ta.column if ta else 'none'} -> {col_b or 'none'}",
              _tline(d.a, "column"), _tline(d.b, "column"))
    _completeness(d, ta.completeness if ta else None, tb.completeness if tb else None)
    if ta is None or tb is None:
        _cadence(d, ta.cadence if ta else None, tb.cadence if tb else None)
        _freshness(d, ta.freshness if ta else None, tb.freshness if tb else None)
        return
    if timezone_of(d.a) != timezone_of(d.b):
        d.add("time.timezone_changed", "time.timezone",
              f"timezone convention changed: '{timezone_of(d.a)}' -> '{timezone_of(d.b)}'",
              _tline(d.a, "timezone"), _tline(d.b, "timezone"))
    if ta.precision != tb.precision:
        fa, fb = d.a.field(ta.column), d.b.field(tb.column)
        if fa is None or fb is None or str(fa.type) == str(fb.type):
            d.add("time.precision_changed", "time.precision",
                  f"declared time precision changed: {ta.precision or 'none'} -> {tb.precision or 'none'}",
                  _tline(d.a, "precision"), _tline(d.b, "precision"))
    _cadence(d, ta.cadence, tb.cadence)
    _calendar(d, ta, tb)
    _freshness(d, ta.freshness, tb.freshness)
    ia = d.new_name(ta.ingest_column) if ta.ingest_column else None
    if ia != tb.ingest_column:
        d.add("time.ingest_column_changed", "time.ingest_column",
              f"ingest column changed: {ta.ingest_column or 'none'} -> {tb.ingest_column or 'none'}",
              _tline(d.a, "ingest_column"), _tline(d.b, "ingest_column"))


def _calendar(d: _Diff, ta: Any, tb: Any) -> None:
    def show(t: Any) -> str:
        cal = "per series from catalog" if t.calendar_from_catalog else (t.calendar or "none")
        mode = t.cadence.sessions if t.cadence is not None and t.cadence.sessions else "no sessions"
        return f"calendar {cal}, cadence {mode}"

    if show(ta) != show(tb):
        d.add("time.calendar_changed", "time.calendar",
              f"{show(ta)} -> {show(tb)}; bars outside sessions, holidays and trading days are "
              "judged differently", _tline(d.a, "calendar"), _tline(d.b, "calendar"))


def _cadence_text(c: Cadence) -> str:
    if c.from_catalog:
        return "per series from catalog"
    return c.interval.text if c.interval else "none"


def _cadence(d: _Diff, ca: Cadence | None, cb: Cadence | None) -> None:
    ol, nl = _tline(d.a, "cadence"), _tline(d.b, "cadence")
    if ca is None and cb is None:
        return
    if ca is None:
        assert cb is not None
        d.add("time.cadence_added", "time.cadence", f"cadence added: {_cadence_text(cb)}; existing "
              "series may have gaps or off-grid points", None, nl)
        return
    if cb is None:
        d.add("time.cadence_removed", "time.cadence",
              f"cadence removed (was {_cadence_text(ca)}); spacing is no longer checked", ol, None)
        return
    ia = ca.interval.seconds if ca.interval else None
    ib = cb.interval.seconds if cb.interval else None
    if ca.from_catalog != cb.from_catalog or ia != ib:
        d.add("time.cadence_changed", "time.cadence",
              f"cadence changed: {_cadence_text(ca)} -> {_cadence_text(cb)}", ol, nl)
    ta, tb = Decimal(ca.tolerance_pct), Decimal(cb.tolerance_pct)
    if tb > ta:
        d.add("time.cadence_relaxed", "time.cadence", f"cadence tolerance widened: +/-{ca.tolerance_pct}% "
              f"-> +/-{cb.tolerance_pct}%", ol, nl)
    elif tb < ta:
        d.add("time.cadence_tightened", "time.cadence", f"cadence tolerance narrowed: "
              f"+/-{ca.tolerance_pct}% -> +/-{cb.tolerance_pct}%; existing points may fall off the grid",
              ol, nl)
    if cb.gaps_allowed and not ca.gaps_allowed:
        d.add("time.cadence_relaxed", "time.cadence", "gaps are now allowed", ol, nl)
    elif ca.gaps_allowed and not cb.gaps_allowed:
        d.add("time.cadence_tightened", "time.cadence", "gaps are no longer allowed; existing series "
              "with gaps fail", ol, nl)
    if ca.note != cb.note:
        d.add("time.cadence_note_changed", "time.cadence",
              f"cadence note changed: '{ca.note or ''}' -> '{cb.note or ''}'", ol, nl)


def _completeness(d: _Diff, ca: Completeness | None, cb: Completeness | None) -> None:
    """More readings expected (count or share) or a gap type no longer allowed: breaking; fewer
    expected or a gap type newly allowed: with notice; another window: breaking."""
    ol, nl = _tline(d.a, "completeness"), _tline(d.b, "completeness")
    if ca is None or cb is None:
        if cb is not None:
            d.add("time.completeness_added", "time.completeness", f"completeness added: {cb.text}; "
                  "existing series may have short windows", None, nl)
        elif ca is not None:
            d.add("time.completeness_removed", "time.completeness",
                  f"completeness removed (was {ca.text}); readings per window are no longer counted",
                  ol, None)
        return
    wa = ca.window.seconds if ca.window else None
    wb = cb.window.seconds if cb.window else None
    if wa != wb:
        d.add("time.completeness_changed", "time.completeness",
              f"completeness window changed: {ca.text} -> {cb.text}", ol, nl)
        return
    need_a, need_b = ca.expected * Decimal(ca.min_pct), cb.expected * Decimal(cb.min_pct)
    change = f"{ca.expected} at {ca.min_pct}% -> {cb.expected} at {cb.min_pct}%"
    if need_b > need_a:
        d.add("time.completeness_tightened", "time.completeness",
              f"more readings expected per window: {change}", ol, nl)
    elif need_b < need_a:
        d.add("time.completeness_relaxed", "time.completeness",
              f"fewer readings expected per window: {change}", ol, nl)
    dropped = sorted(set(ca.allowed_gaps) - set(cb.allowed_gaps))
    added = sorted(set(cb.allowed_gaps) - set(ca.allowed_gaps))
    if dropped:
        d.add("time.completeness_tightened", "time.completeness",
              "gap type(s) no longer allowed: " + ", ".join(dropped), ol, nl)
    if added:
        d.add("time.completeness_relaxed", "time.completeness",
              "gap type(s) now allowed: " + ", ".join(added), ol, nl)


def _freshness(d: _Diff, fa: Duration | None, fb: Duration | None) -> None:
    ol, nl = _tline(d.a, "freshness"), _tline(d.b, "freshness")
    if fa is None and fb is None:
        return
    if fa is None:
        assert fb is not None
        d.add("time.freshness_tightened", "time.freshness", f"freshness promise added: {fb.text}", None, nl)
    elif fb is None:
        d.add("time.freshness_loosened", "time.freshness", f"freshness promise removed (was {fa.text})",
              ol, None)
    elif fb.seconds < fa.seconds:
        d.add("time.freshness_tightened", "time.freshness", f"freshness tightened: {fa.text} -> {fb.text}",
              ol, nl)
    elif fb.seconds > fa.seconds:
        d.add("time.freshness_loosened", "time.freshness", f"freshness loosened: {fa.text} -> {fb.text}",
              ol, nl)


def _ranges(d: _Diff) -> None:
    old_by_new = {d.new_name(c): cl for c, cl in d.old.ranges.items()}
    names = [f.name for f in d.b.fields if f.name in old_by_new or f.name in d.new.ranges]
    for col in names:
        old_col = next((o for o in d.a.column_names if d.new_name(o) == col), None)
        if old_col is None:
            continue  # a new field: nothing old to tighten
        ro, rn = old_by_new.get(col), d.new.ranges.get(col)
        if ro is not None and rn is not None and ro.params_dict == {**rn.params_dict, "column": old_col}:
            if ro.text != rn.text and old_col == col:
                d.add("invariant.reworded", d.new.invariant_path(rn.text),
                      f"range of '{col}' reworded: '{ro.text}' -> '{rn.text}'", ro.line or 0, rn.line or 0)
            continue
        tighter, looser = range_cmp(ro, rn)
        if not tighter and not looser:
            continue
        before, after = range_interval(ro, col), range_interval(rn, col)
        path = d.new.invariant_path(rn.text) if rn is not None else d.old.invariant_path(ro.text if ro else "")
        ol = ro.line if ro is not None else None
        nl = rn.line if rn is not None else None
        if tighter:
            code = "range.added" if ro is None else "range.tightened"
            d.add(code, path, f"range of '{col}' tightened: {before} -> {after}; existing data may fail",
                  ol, nl)
        else:
            code = "range.removed" if rn is None else "range.widened"
            d.add(code, path, f"range of '{col}' widened: {before} -> {after}", ol, nl)


def _invariants(d: _Diff) -> None:
    old = [(canonical_expr(cl, d.o2n), cl) for cl in d.old.invariants]
    new = [(canonical_expr(cl), cl) for cl in d.new.invariants]
    new_exprs = {e for e, _ in new}
    old_exprs = {e for e, _ in old}
    for e, cl in old:
        if e not in new_exprs:
            d.add("invariant.removed", d.old.invariant_path(cl.text),
                  f"invariant removed: '{cl.text}'", cl.line, None)
    for e, cl in new:
        if e not in old_exprs:
            d.add("invariant.added", d.new.invariant_path(cl.text),
                  f"invariant added: '{cl.text}'; existing rows may violate it", None, cl.line)
        else:
            ocl = next(o for oe, o in old if oe == e)
            if ocl.text != cl.text and canonical_expr(ocl) == e:  # not just a renamed column
                d.add("invariant.reworded", d.new.invariant_path(cl.text),
                      f"invariant reworded: '{ocl.text}' -> '{cl.text}'", ocl.line, cl.line)


def _catalog(d: _Diff) -> None:
    def key(cl: Clause, mapping: dict[str, str]) -> str:
        k = f"{cl.kind}:{mapping.get(str(cl.param('column')), cl.param('column'))}"
        # a catalog unit's dimension: another dimension is another check (removed, then added)
        return f"{k}:{cl.param('dimension')}" if cl.kind == "catalog_dimension" else k

    def path(side: Side, cl: Clause) -> str:
        if cl.kind == "catalog_dimension":
            return f"fields.{cl.param('column')}.dimension"
        return side.invariant_path(cl.text)

    old = {key(cl, d.o2n): cl for cl in d.old.catalog.values()}
    new = {key(cl, {}): cl for cl in d.new.catalog.values()}
    for k, cl in old.items():
        if k not in new:
            d.add("catalog_check.removed", path(d.old, cl),
                  f"catalog check removed: '{cl.text}'", cl.line, None)
    for k, cl in new.items():
        if k not in old:
            d.add("catalog_check.added", path(d.new, cl),
                  f"catalog check added: '{cl.text}'; existing rows may violate it", None, cl.line)
    ca, cb = d.a.catalog, d.b.catalog
    if ca != cb:
        def show(c: Any) -> str:
            if c is None:
                return "none (default series_catalog)"
            return (f"{c.relation} (key {c.key or 'series key'}, unit {c.unit}, bounds {c.hard_min}/"
                    f"{c.hard_max}, cadence {c.cadence}, plausible {c.plausible_min}/{c.plausible_max})")

        d.add("catalog.changed", "catalog", f"catalog changed: {show(ca)} -> {show(cb)}",
              top_line(d.a, "catalog"), top_line(d.b, "catalog"))
    if d.a.calendar != d.b.calendar:
        def cshow(c: Any) -> str:
            if c is None:
                return "none (default trading_sessions)"
            return f"{c.relation} ({c.calendar}, {c.session}, {c.open}, {c.close})"

        d.add("calendar.changed", "calendar",
              f"sessions relation changed: {cshow(d.a.calendar)} -> {cshow(d.b.calendar)}",
              top_line(d.a, "calendar"), top_line(d.b, "calendar"))


def revision_policy_or_default(c: Contract) -> RevisionPolicy:
    return c.revision_policy if c.revision_policy is not None else RevisionPolicy(allowed=True)


def _revision(d: _Diff) -> None:
    ra, rb = revision_policy_or_default(d.a), revision_policy_or_default(d.b)
    ola = d.a.revision_policy.pos.line if d.a.revision_policy else None
    nla = d.b.revision_policy.pos.line if d.b.revision_policy else None

    def line(c: Contract, base: int | None, key: str) -> int | None:
        return (c.positions.line("revision_policy", key) or base) if base else None

    def add(code: str, key: str, msg: str) -> None:
        d.add(code, f"revision_policy.{key}", msg, line(d.a, ola, key), line(d.b, nla, key))

    if ra.allowed and not rb.allowed:
        add("revision.tightened", "allowed", "revisions are no longer allowed; existing restated rows fail")
    elif rb.allowed and not ra.allowed:
        add("revision.relaxed", "allowed", "revisions are now allowed: points may be restated")
    if ra.allowed and rb.allowed:
        wa, wb = ra.window, rb.window
        if wa is None and wb is not None:
            add("revision.tightened", "window", f"revision window added: {wb.text} (was unbounded)")
        elif wa is not None and wb is None:
            add("revision.relaxed", "window", f"revision window removed (was {wa.text}): restatements "
                "may come at any time")
        elif wa is not None and wb is not None and wa.text != wb.text:
            sa, sb = duration_seconds(wa), duration_seconds(wb)
            if sb < sa:
                add("revision.tightened", "window", f"revision window shortened: {wa.text} -> {wb.text}")
            elif sb > sa:
                add("revision.relaxed", "window", f"revision window lengthened: {wa.text} -> {wb.text}")
            else:
                add("revision.doc_changed", "window", f"revision window respelled: {wa.text} -> {wb.text}")
    added = [r for r in rb.reasons if r not in ra.reasons]
    removed = [r for r in ra.reasons if r not in rb.reasons]
    if added:
        add("revision.relaxed", "reasons", "revision reasons added: " + ", ".join(added))
    if removed:
        add("revision.tightened", "reasons", "revision reasons removed: " + ", ".join(removed))
    if ra.notification != rb.notification:
        add("revision.notification_changed", "notification",
            f"revision notification changed: {ra.notification or 'none'} -> {rb.notification or 'none'}")
    if ra.by and not rb.by:
        add("revision.relaxed", "by", "who may restate is no longer checked (was " + ", ".join(ra.by) + ")")
    elif rb.by and not ra.by:
        add("revision.tightened", "by", "only " + ", ".join(rb.by) + " may restate now")
    else:
        if [b for b in rb.by if b not in ra.by]:
            add("revision.relaxed", "by", "may now also restate: " + ", ".join(b for b in rb.by if b not in ra.by))
        if [b for b in ra.by if b not in rb.by]:
            add("revision.tightened", "by", "may no longer restate: " + ", ".join(b for b in ra.by if b not in rb.by))
    if ra.by_column != rb.by_column:
        add("revision.tightened", "by_column", f"who restated is read from another column: "
            f"{ra.by_column or 'default'} -> {rb.by_column or 'default'}")
    for attr in ("note",):
        if getattr(ra, attr) != getattr(rb, attr):
            add("revision.doc_changed", attr, f"revision policy '{attr}' changed")


def _evolution(d: _Diff) -> None:
    ea, eb = d.a.evolution, d.b.evolution
    ta, tb = top_line(d.a, "evolution"), top_line(d.b, "evolution")

    def add(code: str, key: str, msg: str) -> None:
        ol = (d.a.positions.line("evolution", key) or ta) if ta else None
        nl = (d.b.positions.line("evolution", key) or tb) if tb else None
        d.add(code, f"evolution.{key}", msg, ol, nl)

    if ea.compatibility != eb.compatibility:
        covers = _mode_covers(eb.compatibility, ea.compatibility)
        msg = f"compatibility mode changed: {ea.compatibility} -> {eb.compatibility}"
        if covers:
            add("evolution.compatibility_strengthened", "compatibility", msg + " (a stronger promise)")
        else:
            add("evolution.compatibility_changed", "compatibility", msg + " (a weaker promise)")
    pa, pb = ea.notice_period, eb.notice_period
    if (pa.text if pa else None) != (pb.text if pb else None):
        if pb is None or (pa is not None and duration_seconds(pb) < duration_seconds(pa)):
            add("evolution.notice_period_shortened", "notice_period",
                f"notice period shortened: {pa.text if pa else 'none'} -> {pb.text if pb else 'none'}")
        else:
            add("evolution.notice_period_changed", "notice_period",
                f"notice period: {pa.text if pa else 'none'} -> {pb.text}")
    gone = [r for r in ea.reserved if r not in eb.reserved]
    new = [r for r in eb.reserved if r not in ea.reserved]
    if gone:
        add("evolution.unreserved", "reserved", "reserved names released: " + ", ".join(gone))
    if new:
        add("evolution.reserved_changed", "reserved", "names reserved: " + ", ".join(new))


def _provenance(d: _Diff) -> None:
    pa = tuple(d.new_name(p) for p in d.a.provenance_required)
    if pa != d.b.provenance_required:
        d.add("provenance.changed", "provenance_required",
              f"provenance columns: [{', '.join(d.a.provenance_required)}] -> "
              f"[{', '.join(d.b.provenance_required)}]",
              d.a.provenance_pos.line or None, d.b.provenance_pos.line or None)


def _name_option(target: str) -> str | None:
    """The option naming the target's artifact (`model`, `dataset`...), from the target itself."""
    from tacit_gen import registry

    try:
        return registry.get(target).artifact_name_option
    except KeyError:  # a target this installation does not have: its options are just options
        return None


def _targets(d: _Diff) -> None:
    ta, tb = dict(d.a.targets), dict(d.b.targets)
    ol, nl = top_line(d.a, "targets"), top_line(d.b, "targets")
    for target in sorted(set(ta) | set(tb)):
        oa, ob = dict(ta.get(target, ())), dict(tb.get(target, ()))
        if oa == ob:
            continue
        name_key = _name_option(target)
        if name_key is not None and oa.get(name_key) != ob.get(name_key):
            k = name_key
            d.add("targets.renamed", f"targets.{target}.{k}",
                  f"{target} {k} renamed: {oa.get(k) or '(default)'} -> {ob.get(k) or '(default)'}",
                  ol, nl)
        others = sorted(k for k in set(oa) | set(ob) if k != name_key and oa.get(k) != ob.get(k))
        for k in others:
            d.add("targets.changed", f"targets.{target}.{k}",
                  f"{target} option '{k}': {oa.get(k)!r} -> {ob.get(k)!r}", ol, nl)


def _docs(d: _Diff) -> None:
    if d.a.source_system != d.b.source_system:
        d.add("doc.changed", "source", f"source changed: {d.a.source_system!r} -> {d.b.source_system!r}",
              top_line(d.a, "source"), top_line(d.b, "source"))
    for attr in ("owner", "description"):
        if getattr(d.a, attr) != getattr(d.b, attr):
            d.add("doc.changed", attr, f"{attr} changed: {getattr(d.a, attr)!r} -> {getattr(d.b, attr)!r}",
                  top_line(d.a, attr), top_line(d.b, attr))
    ma, mb = dict(d.a.meta), dict(d.b.meta)
    for k in sorted(set(ma) | set(mb)):
        if ma.get(k) != mb.get(k):
            d.add("doc.changed", k, f"metadata '{k}' changed", top_line(d.a, k), top_line(d.b, k))
