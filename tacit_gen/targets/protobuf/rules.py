"""Per-record clauses as protovalidate (``buf.validate``) rules: `RULES` maps each clause kind to
the function writing its rule (a field option, or a message-level CEL rule), every other kind of
`tacit_gen.plan_types.KINDS` is declared unsupported there.

- ``not_null`` on a field with presence (``optional``, a Timestamp): ``required = true``; a field
  without presence says it by having none (`verify` refuses a NULL there, as before);
- ``accepted_values``: a protobuf enum is ``enum = {defined_only: true, not_in: [0]}`` (the zero
  value is ``<FIELD>_UNSPECIFIED``), a string field ``string = {in: [...]}``;
- ``fixed_value``: ``<type>.const`` (string, bool, integers, double);
- ``pattern``: ``string.pattern`` (RE2, a whole-value match);
- ``range``: ``int64 = {gte: ..}`` and the like on integers and doubles; on a decimal (a string
  on the wire) a field-level CEL rule: ``double(this)`` compared with each bound where the double
  is exact (precision <= 15 digits: any two such decimals are distinct doubles, in order), and a
  sign bound (>= 0, > 0) as a pattern the text must not match, at any precision;
- ``invariant``: a message-level CEL rule whose id is the clause id, written from the expression
  under SQL CHECK semantics (a row fails only when the expression is FALSE: an unset field with
  presence is NULL, and a comparison with NULL is unknown).

CEL has no decimal type, so a comparison of decimals wider than 15 digits, arithmetic and
anything reading another row or the clock are declared unsupported, with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from tacit_gen.expr import nodes as n
from tacit_gen.targets import wire
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

IMPORT = "buf/validate/validate.proto"
FIELD = "(buf.validate.field)"
MESSAGE = "(buf.validate.message)"
# A decimal text below zero (``-0.5``; not ``-0.000``), and one that is zero or below.
NEGATIVE = "^-[0.]*[1-9]"
NOT_POSITIVE = "^-|^[0.]*$"
EXACT_DIGITS = 15  # DBL_DIG: a decimal of at most 15 significant digits survives a double


@dataclass(frozen=True)
class Col:
    """What a rule needs to know of one message field.

    Attributes:
        kind: the contract type's kind (``int64``, ``decimal``, ``enum``, ...).
        precision: a decimal's precision (None otherwise).
        presence: the field has presence (``optional``, a message): unset is NULL.
        enum: an enum field's value -> number (None: not a protobuf enum).
    """

    name: str
    kind: str
    precision: int | None = None
    presence: bool = False
    enum: Mapping[str, int] | None = None


@dataclass(frozen=True)
class FieldRule:
    """One ``(buf.validate.field)`` option of one field, for one clause."""

    column: str
    clause_id: str
    option: str


@dataclass(frozen=True)
class MessageRule:
    """One message-level CEL rule (``(buf.validate.message).cel``)."""

    clause_id: str
    expression: str


Rule = list[FieldRule] | MessageRule | str | None
RuleFn = Callable[["Clause", Mapping[str, Col]], Rule]


def text(value: str) -> str:
    """A protobuf (and CEL) string literal."""
    return json.dumps(value, ensure_ascii=False)


def _col(clause: Clause, cols: Mapping[str, Col]) -> Col | None:
    return cols.get(str(clause.param("column")))


def _not_null(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    c = _col(clause, cols)
    if c is None or not c.presence:
        return None  # no presence: the field cannot be NULL on the wire
    return [FieldRule(c.name, clause.id, f"{FIELD}.required = true")]


def _accepted_values(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    c = _col(clause, cols)
    if c is None:
        return None
    if c.enum is not None:
        return [FieldRule(c.name, clause.id, f"{FIELD}.enum = {{defined_only: true, not_in: [0]}}")]
    values = ", ".join(text(str(v)) for v in clause.param("values") or ())
    return [FieldRule(c.name, clause.id, f"{FIELD}.string = {{in: [{values}]}}")]


_CONST_TYPES = {"string": "string", "bool": "bool", "int32": "int32", "int64": "int64", "float64": "double"}


def _literal_text(kind: str, value: object) -> str:
    if kind == "string":
        return text(str(value))
    if kind == "bool":
        return "true" if value in (True, "true") else "false"
    return str(value)


def _fixed_value(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    c = _col(clause, cols)
    if c is None or c.kind not in _CONST_TYPES:
        return ("protovalidate's const compares the value as the wire carries it: a decimal's text "
                "has many spellings of one number, and instants and dates have no const")
    value = clause.param("value")
    return [FieldRule(c.name, clause.id, f"{FIELD}.{_CONST_TYPES[c.kind]}.const = {_literal_text(c.kind, value)}")]


def pattern_text(body: str) -> str:
    from tacit_gen.sql.pattern import full_match, normalize

    return full_match(normalize(body), "re2")


def _pattern(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    c = _col(clause, cols)
    if c is None or c.kind not in ("string", "enum") or c.enum is not None:
        return "protovalidate matches a pattern on a string field only"
    return [FieldRule(c.name, clause.id, f"{FIELD}.string.pattern = {text(pattern_text(str(clause.param('pattern'))))}")]


def exact_double(number: str) -> bool:
    """Whether the decimal text keeps its value and order through a double."""
    d = Decimal(number)
    return len(d.normalize().as_tuple().digits) <= EXACT_DIGITS and abs(d) < Decimal("1e300")


def double_literal(number: str) -> str:
    """A CEL double literal (``-40.0``, ``0.5``)."""
    d = Decimal(number)
    if d == d.to_integral_value():
        return f"{int(d)}.0"
    return format(d.normalize(), "f")


def number_text(text_: str) -> str:
    """A bound read back as the plan writes it (``0``, ``-40``, ``0.5``)."""
    d = Decimal(text_)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


_BOUND_KEYS = ((">=", "gte"), (">", "gt"), ("<=", "lte"), ("<", "lt"))
_INT_RULES = {"int32": "int32", "int64": "int64"}


def _bounds(clause: Clause) -> list[tuple[str, str]]:
    """[(operator, bound)] of a range clause, lower bound first."""
    out = []
    lo, hi = clause.param("min"), clause.param("max")
    if lo is not None:
        out.append((">=" if clause.param("min_inclusive") else ">", str(lo)))
    if hi is not None:
        out.append(("<=" if clause.param("max_inclusive") else "<", str(hi)))
    return out


def _range(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    c = _col(clause, cols)
    bounds = _bounds(clause)
    if c is None or not bounds:
        return "protovalidate bounds numbers only"
    keys = dict(_BOUND_KEYS)
    if c.kind in _INT_RULES:
        if any(Decimal(b) != Decimal(b).to_integral_value() for _, b in bounds):
            return "an integer field's bound is a whole number in protovalidate"
        body = ", ".join(f"{keys[op]}: {int(Decimal(b))}" for op, b in bounds)
        return [FieldRule(c.name, clause.id, f"{FIELD}.{_INT_RULES[c.kind]} = {{{body}}}")]
    if c.kind == "float64":
        if not any(op in ("<=", "<") for op, _ in bounds):
            return ("protovalidate fails NaN against any bound, where SQL orders NaN above every "
                    "number (a lower bound alone passes it)")
        if not all(exact_double(b) for _, b in bounds):
            return "a bound has more digits than a double keeps"
        body = ", ".join(f"{keys[op]}: {double_literal(b)}" for op, b in bounds)
        return [FieldRule(c.name, clause.id, f"{FIELD}.double = {{{body}}}")]
    if c.kind == "decimal":
        if len(bounds) == 1 and bounds[0][0] in (">=", ">") and Decimal(bounds[0][1]) == 0:
            pattern = NEGATIVE if bounds[0][0] == ">=" else NOT_POSITIVE
            return [FieldRule(c.name, clause.id, cel_option(clause.id, f"!this.matches({text(pattern)})"))]
        if (c.precision or 99) > EXACT_DIGITS or not all(exact_double(b) for _, b in bounds):
            return (f"CEL has no decimal type: a decimal({c.precision},..) has more digits than a "
                    "double keeps, so only a sign bound (>= 0, > 0) is stated")
        expr = " && ".join(f"double(this) {op} {double_literal(b)}" for op, b in bounds)
        return [FieldRule(c.name, clause.id, cel_option(clause.id, expr))]
    return "protovalidate bounds integers and doubles (a float32's bound is a float32 there)"


def cel_id(clause_id: str) -> str:
    """A CEL rule's id for a clause: protovalidate allows ``[A-Za-z0-9._-]`` only
    (``invariant.low_open_high``); the clause id itself is the rule's message."""
    kind, _, rest = clause_id.partition(":")
    return f"{kind}.{re.sub(r'[^A-Za-z0-9._-]+', '_', rest).strip('_')}".rstrip(".")


def cel_body(clause_id: str, expression: str) -> str:
    """``id``, ``message`` (the clause id) and ``expression`` of a CEL rule, as option text."""
    return (f"id: {text(cel_id(clause_id))}, message: {text(clause_id)}, "
            f"expression: {text(expression)}")


def cel_option(clause_id: str, expression: str) -> str:
    return f"{FIELD}.cel = {{{cel_body(clause_id, expression)}}}"


def read_range(expression: str) -> list[tuple[str, str]] | None:
    """[(operator, bound)] of a decimal range's CEL rule as `_range` writes it, else None."""
    if expression == f"!this.matches({text(NEGATIVE)})":
        return [(">=", "0")]
    if expression == f"!this.matches({text(NOT_POSITIVE)})":
        return [(">", "0")]
    out = []
    for term in expression.split(" && "):
        m = re.fullmatch(r"double\(this\) (>=|>|<=|<) (-?[0-9]+(?:\.[0-9]+)?)", term)
        if m is None:
            return None
        out.append((m.group(1), m.group(2)))
    return out


# --- invariants: an expression as CEL under SQL CHECK semantics ---------------------------------

class Inexpressible(ValueError):
    """The expression has no exact CEL form here; the message says why."""


_OPS = {"=": "==", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_NUMERIC = ("int32", "int64", "float32", "float64", "decimal")


def _and(*parts: str) -> str:
    kept = [p for p in parts if p != "true"]
    if "false" in kept:
        return "false"
    # && binds tighter than ||: only a disjunction needs parentheses inside a conjunction
    return " && ".join(f"({p})" if "||" in p and len(kept) > 1 else p for p in kept) if kept else "true"


def _or(*parts: str) -> str:
    kept = [p for p in parts if p != "false"]
    if "true" in kept:
        return "true"
    return " || ".join(kept) if kept else "false"


def _not(p: str) -> str:
    if p in ("true", "false"):
        return {"true": "false", "false": "true"}[p]
    return f"!{p}" if re.fullmatch(r"[\w.]+(\([\w.]*\))?", p) else f"!({p})"


def _may_be_nan(c: Col | None) -> bool:
    return c is not None and c.kind in ("float32", "float64")


def _sql_order(a: str, op: str, b: str, a_nan: bool, b_nan: bool) -> str:
    """``a op b`` as SQL orders floats (the contract's semantics): NaN equals NaN and is above
    every number. CEL compares doubles as IEEE does (every comparison with NaN false), so an
    operand that can be NaN gets its own test (``x != x``)."""
    if not (a_nan or b_nan):
        return f"{a} {_OPS[op]} {b}"
    if op in (">", ">="):
        return _sql_order(b, {">": "<", ">=": "<="}[op], a, b_nan, a_nan)
    a_is = f"{a} != {a}" if a_nan else "false"
    b_is = f"{b} != {b}" if b_nan else "false"
    if op in ("=", "!=", "<>"):
        eq = _or(_and(a_is, b_is), f"{a} == {b}")
        return eq if op == "=" else _not(eq)
    if op == "<":  # a is a number, and b is NaN or above it
        return _and(_not(a_is), _or(b_is, f"{a} < {b}"))
    return _or(b_is, _and(_not(a_is), f"{a} <= {b}"))  # <=


class _Cel:
    def __init__(self, cols: Mapping[str, Col]) -> None:
        self.cols = cols

    def column(self, node: n.Node) -> Col:
        if not isinstance(node, n.Column) or node.name not in self.cols:
            raise Inexpressible("CEL compares a field with a field or a constant here; arithmetic "
                                "is left to the SQL and dataframe targets")
        return self.cols[node.name]

    def guard(self, c: Col) -> str:
        return f"has(this.{c.name})" if c.presence else "true"

    def operand(self, node: n.Node, numeric: bool, other: Col | None) -> tuple[str, str]:
        """(CEL text, guard) of one comparison operand; `numeric`: compared as doubles."""
        if isinstance(node, n.Neg) and isinstance(node.operand, n.Number):
            node = n.Number("-" + node.operand.text)
        if isinstance(node, n.Number):
            if not exact_double(node.text):
                raise Inexpressible(f"the constant {node.text} has more digits than a double keeps")
            if numeric:
                return double_literal(node.text), "true"
            d = Decimal(node.text)
            if d != d.to_integral_value():
                raise Inexpressible("an integer field compared with a fraction")
            return str(int(d)), "true"
        if isinstance(node, n.String | n.EnumLiteral):
            if other is not None and other.enum is not None:
                if node.value not in other.enum:
                    raise Inexpressible(f"'{node.value}' is not a value of {other.name}")
                return str(other.enum[node.value]), "true"
            return text(node.value), "true"
        if isinstance(node, n.Bool):
            return ("true" if node.value else "false"), "true"
        c = self.column(node)
        if c.kind in _NUMERIC and numeric:
            if c.kind == "decimal" and (c.precision or 99) > EXACT_DIGITS:
                raise Inexpressible(f"CEL has no decimal type, and {c.name} (a decimal of {c.precision} "
                                    "digits) has more digits than a double keeps")
            if c.kind == "int64":
                raise Inexpressible(f"{c.name} (int64) compared with a fraction or a decimal: a "
                                    "double does not keep every int64")
            ref = f"double(this.{c.name})" if c.kind != "float64" and c.kind != "float32" else f"this.{c.name}"
            return ref, self.guard(c)
        if c.kind in ("timestamp", "date"):
            raise Inexpressible("instants and dates are compared by the SQL and dataframe targets")
        return f"this.{c.name}", self.guard(c)

    def compare(self, a: n.Node, op: str, b: n.Node) -> tuple[str, str]:
        """(TRUE form, FALSE form) of ``a op b``."""
        kinds = []
        for x in (a, b):
            if isinstance(x, n.Column) and x.name in self.cols:
                kinds.append(self.cols[x.name].kind)
            elif isinstance(x, n.Number | n.Neg):
                t = x.operand.text if isinstance(x, n.Neg) and isinstance(x.operand, n.Number) else getattr(x, "text", "0")
                kinds.append("int64" if Decimal(t) == Decimal(t).to_integral_value() else "float64")
        numeric = bool(kinds) and all(k in _NUMERIC for k in kinds) and not all(k in ("int32", "int64") for k in kinds)
        left = self.cols.get(a.name) if isinstance(a, n.Column) else None
        right = self.cols.get(b.name) if isinstance(b, n.Column) else None
        ta, ga = self.operand(a, numeric, right)
        tb, gb = self.operand(b, numeric, left)
        cmp = _sql_order(ta, op, tb, _may_be_nan(left) and numeric, _may_be_nan(right) and numeric)
        return _and(ga, gb, cmp), _and(ga, gb, _not(cmp))

    def both(self, node: n.Node) -> tuple[str, str]:
        """(CEL true when `node` is TRUE, CEL true when `node` is FALSE)."""
        if isinstance(node, n.Compare):
            pairs = [self.compare(node.operands[i], op, node.operands[i + 1]) for i, op in enumerate(node.ops)]
            return _and(*(t for t, _ in pairs)), _or(*(f for _, f in pairs))
        if isinstance(node, n.Between):
            t, f = self.both(n.And(n.Compare((node.low, node.operand), ("<=",)),
                                   n.Compare((node.operand, node.high), ("<=",))))
            return (f, t) if node.negated else (t, f)
        if isinstance(node, n.IsNull):
            c = self.column(node.operand)
            is_null = f"!has(this.{c.name})" if c.presence else "false"
            not_null = f"has(this.{c.name})" if c.presence else "true"
            return (not_null, is_null) if node.negated else (is_null, not_null)
        if isinstance(node, n.InList):
            c = self.column(node.operand)
            items = [self.operand(i, c.kind in _NUMERIC and c.kind not in ("int32", "int64"), c)[0]
                     for i in node.items]
            ref, g = self.operand(node.operand, c.kind in _NUMERIC and c.kind not in ("int32", "int64"), None)
            member = _or(*(f"{ref} == {i}" for i in items))
            t, f = _and(g, member), _and(g, _not(member))
            return (f, t) if node.negated else (t, f)
        if isinstance(node, n.And):
            (tl, fl), (tr, fr) = self.both(node.left), self.both(node.right)
            return _and(tl, tr), _or(fl, fr)
        if isinstance(node, n.Or):
            (tl, fl), (tr, fr) = self.both(node.left), self.both(node.right)
            return _or(tl, tr), _and(fl, fr)
        if isinstance(node, n.Not):
            t, f = self.both(node.operand)
            return f, t
        if isinstance(node, n.OnlyWhen):  # NOT left OR right
            (tl, fl), (tr, fr) = self.both(node.left), self.both(node.right)
            return _or(fl, tr), _and(tl, fr)
        if isinstance(node, n.Column) and node.name in self.cols and self.cols[node.name].kind == "bool":
            c = self.cols[node.name]
            return _and(self.guard(c), f"this.{c.name}"), _and(self.guard(c), f"!this.{c.name}")
        raise Inexpressible("CEL states comparisons, is null, in lists and and/or/not here; this "
                            "expression is left to the SQL and dataframe targets")


def invariant_cel(expr: n.Node, cols: Mapping[str, Col]) -> str:
    """The CEL expression true for every row the invariant does not reject.

    Raises:
        Inexpressible: no exact CEL form.
    """
    _true, false = _Cel(cols).both(expr)
    return _not(false)


def _invariant(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    if clause.expr is None:
        return "an invariant without an expression"
    try:
        return MessageRule(clause.id, invariant_cel(clause.expr, cols))
    except Inexpressible as e:
        return str(e)


_OTHER_DATA = ("{kind} reads other rows, other data or the clock; protovalidate validates one "
               "message on its own")
def _declared(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    """Carried by the field's declaration: its type, presence, the message's list of fields."""
    return None


RULES: KindTable[RuleFn] = KindTable("protobuf", "render", {
    "column": _declared,
    "no_unknown_columns": _declared,
    "not_null": _not_null,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
    "pattern": _pattern,
    "range": _range,
    "invariant": _invariant,
}, {
    **{kind: _OTHER_DATA.format(kind=kind)
       for kind in ("unique", "references", "freshness", "cadence", "completeness", "catalog_unit",
                    "catalog_bounds", "plausible", "catalog_dimension", "revision_window",
                    "revision_by")},
    "precision": ("a google.protobuf.Timestamp holds nanoseconds and tacit-gen writes no rule on "
                  "its digits: the SQL and dataframe targets check the precision"),
})


def rule(clause: Clause, cols: Mapping[str, Col]) -> Rule:
    """The clause's rule, None when the field's declaration carries it, or why it cannot be said."""
    fn = RULES.get(clause.kind)
    if fn is None and clause.kind == "references":  # the same words in every wire schema
        return wire.unsupported_reason('Protobuf', clause)
    if fn is None:
        return RULES.unsupported.get(clause.kind, f"{clause.kind}: no protovalidate rule")
    return fn(clause, cols)


__all__ = ["IMPORT", "RULES", "Col", "FieldRule", "Inexpressible", "MessageRule", "invariant_cel",
           "number_text", "read_range", "rule"]
