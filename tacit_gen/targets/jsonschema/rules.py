"""Per-record clauses as JSON Schema rules: a table from clause kind to the function that writes
its rule, every kind of `tacit_gen.plan_types.KINDS` either handled by `RULES` or declared
unsupported there; `READ` reads an ``allOf`` entry back by the kind its ``$comment`` names.

A rule of its own (a range, a null-only-when invariant) is one entry of the schema's top-level
``allOf``, named by its clause id in ``$comment`` (a keyword every validator ignores); the engine
maps a failed entry back to its clause through it, the reader reads the entry back. The
structural clauses, enums, fixed values and patterns live in the property's own schema.

Numbers: a bound is written as the JSON number that reads back as the bound exactly (an integer,
or a decimal whose double prints as itself); the engine loads the schema with
``parse_float=Decimal`` so the comparison is the exact one every SQL engine makes (a float32
value widened to a double against the decimal bound). A ``decimal(p,s)`` travels as a string,
where ``minimum`` says nothing: each bound is a pattern the string must not match (the sign
bounds ``>= 0``, ``> 0`` a short one; any other bound the texts beyond it, `decimal_bounds`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen.expr import nodes as n
from tacit_gen.targets import wire
from tacit_gen.targets.jsonschema.decimal_bounds import decimal_from_pattern, outside, read_bound
from tacit_gen.targets.kinds import Form, FormTable, KindTable

if TYPE_CHECKING:
    from tacit_gen.contract.model import Field
    from tacit_gen.plan_types import Clause

# A decimal string below zero (``-0.5``, ``-12``; not ``-0.000``), and one that is zero or below.
NEGATIVE = "^-[0.]*[1-9]"
NOT_POSITIVE = "^-|^[0.]*$"

# A rule: the ``allOf`` entry (without its ``$comment``), None when the property's own schema
# carries the clause, or a string saying why JSON Schema cannot state it.
Rule = dict[str, Any] | str | None
RuleFn = Callable[["Clause", Mapping[str, "Field"]], Rule]


def _in_property(clause: Clause, fields: Mapping[str, Field]) -> Rule:
    """Carried by the property's schema (`render.property_schema`): type, null, enum, const, pattern."""
    return None


def json_number(text: str) -> int | float | None:
    """The JSON number that reads back as the decimal `text` exactly, or None."""
    d = Decimal(text)
    if d == d.to_integral_value():
        return int(d)
    f = float(d)
    return f if Decimal(repr(f)) == d else None


def number_text(value: Any) -> str:
    """A bound read back from the schema as the plan writes it (``0``, ``-40``, ``0.5``)."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        return str(value)
    d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


def range_rule(clause: Clause, fields: Mapping[str, Field]) -> Rule:
    col = str(clause.param("column"))
    f = fields.get(col)
    lo, hi = clause.param("min"), clause.param("max")
    if f is not None and f.type.kind == "decimal":
        if hi is None and lo is not None and Decimal(lo) == 0:
            pattern = NEGATIVE if clause.param("min_inclusive") else NOT_POSITIVE
            return {"properties": {col: {"not": {"type": "string", "pattern": pattern}}}}
        # a decimal travels as a string: each bound is a pattern of the texts it refuses
        nots: list[dict[str, Any]] = [{"not": {"type": "string", "pattern": outside(str(b), upper, bool(inc))}}
                for b, upper, inc in ((lo, False, clause.param("min_inclusive")),
                                      (hi, True, clause.param("max_inclusive"))) if b is not None]
        prop: dict[str, Any] = nots[0] if len(nots) == 1 else {"allOf": nots}
        return {"properties": {col: prop}}
    if f is None or f.type.kind not in ("int32", "int64", "float32", "float64"):
        return "JSON Schema bounds numbers only"
    out: dict[str, Any] = {}
    for bound, inclusive, keys in ((lo, clause.param("min_inclusive"), ("minimum", "exclusiveMinimum")),
                                   (hi, clause.param("max_inclusive"), ("maximum", "exclusiveMaximum"))):
        if bound is None:
            continue
        number = json_number(str(bound))
        if number is None:
            return f"the bound {bound} has more digits than a JSON number keeps through a double"
        out[keys[0] if inclusive else keys[1]] = number
    return {"properties": {col: out}}


def _literal(node: n.Node, f: Field) -> Any:
    """The JSON value of a literal compared with field `f`, or raise ValueError."""
    kind = f.type.kind
    if isinstance(node, n.EnumLiteral) and kind == "enum":
        return node.value
    if isinstance(node, n.String) and kind in ("string", "enum"):
        return node.value
    if isinstance(node, n.Bool) and kind == "bool":
        return node.value
    if isinstance(node, n.Number) and kind in ("int32", "int64"):
        d = Decimal(node.text)
        if d == d.to_integral_value():
            return int(d)
    raise ValueError("a comparison JSON Schema states is a field equal to a string, an enum "
                     "value, a boolean or an integer")


def _predicate(node: n.Node, fields: Mapping[str, Field]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the schema of records where `node` is TRUE, of records where it is not FALSE) for a
    one-field predicate, SQL's three values kept: ``quality = bad`` is unknown on a null quality,
    and a missing key is a null. ValueError for anything else."""
    if isinstance(node, n.IsNull) and isinstance(node.operand, n.Column):
        c = node.operand.name
        if node.negated:
            s = {"required": [c], "properties": {c: {"not": {"type": "null"}}}}
        else:
            s = {"properties": {c: {"type": "null"}}}
        return s, s
    if isinstance(node, n.Compare) and node.ops == ("=",):
        a, b = node.operands
        if isinstance(b, n.Column) and not isinstance(a, n.Column):
            a, b = b, a
        if isinstance(a, n.Column) and a.name in fields:
            v = _literal(b, fields[a.name])
            return ({"required": [a.name], "properties": {a.name: {"const": v}}},
                    {"properties": {a.name: {"enum": [v, None]}}})
    if isinstance(node, n.InList) and not node.negated and isinstance(node.operand, n.Column):
        c = node.operand.name
        if c in fields:
            vs = [_literal(i, fields[c]) for i in node.items]
            return ({"required": [c], "properties": {c: {"enum": vs}}},
                    {"properties": {c: {"enum": [*vs, None]}}})
    raise ValueError("JSON Schema states `A only when B` where A and B each test one field "
                     "(is null, is not null, = a constant, in a list)")


def invariant_rule(clause: Clause, fields: Mapping[str, Field]) -> Rule:
    expr = clause.expr
    if not isinstance(expr, n.OnlyWhen):
        return ("JSON Schema compares a field with constants, not with other fields or "
                "arithmetic; the SQL and dataframe targets check this invariant")
    try:
        when, _ = _predicate(expr.left, fields)
        _, then = _predicate(expr.right, fields)
    except ValueError as e:
        return str(e)
    return {"if": when, "then": then}


_OTHER_DATA = ("{kind} reads other rows, other data or the clock; JSON Schema validates one "
               "record on its own")
RULES: KindTable[RuleFn] = KindTable("jsonschema", "render", {
    "column": _in_property,
    "no_unknown_columns": _in_property,
    "not_null": _in_property,
    "accepted_values": _in_property,
    "fixed_value": _in_property,
    "pattern": _in_property,
    "range": range_rule,
    "invariant": invariant_rule,
}, {
    **{kind: _OTHER_DATA.format(kind=kind)
       for kind in ("unique", "references", "freshness", "cadence", "completeness", "catalog_unit",
                    "catalog_bounds", "plausible", "catalog_dimension", "revision_window", "revision_by")},
    "precision": ("the instant's pattern allows no more fraction digits than its type's precision: "
                  "a finer value fails the type (column:), not this clause"),
})


def rule(clause: Clause, fields: Mapping[str, Field]) -> Rule:
    """The clause's rule, or why JSON Schema cannot state it (a kind in neither is a bug)."""
    fn = RULES.get(clause.kind)
    if fn is None and clause.kind == "references":  # the same words in every wire schema
        return wire.unsupported_reason('JSON Schema', clause)
    if fn is None:
        return RULES.unsupported[clause.kind]
    return fn(clause, fields)


def entry_of(schema: Mapping[str, Any], path: Any) -> str | None:
    """The clause id of the ``allOf`` entry a validation error's schema path starts in."""
    steps = list(path)
    if len(steps) < 2 or steps[0] != "allOf":
        return None
    entries = schema.get("allOf") or []
    i = steps[1]
    if not isinstance(i, int) or i >= len(entries) or not isinstance(entries[i], dict):
        return None
    cid = entries[i].get("$comment")
    return cid if isinstance(cid, str) else None




# --- reading a rule back ------------------------------------------------------------------------

def _const_node(value: Any, prop: Mapping[str, Any]) -> n.Node:
    if isinstance(value, bool):
        return n.Bool(value)
    if isinstance(value, int):
        return n.Number(str(value))
    if isinstance(value, str):
        return n.EnumLiteral(value) if "enum" in prop else n.String(value)
    raise ValueError(f"a constant JSON Schema compares is a string, boolean or integer, not {value!r}")


def _one(schema: Any) -> tuple[str, dict[str, Any], bool]:
    """(field, its sub-schema, whether the field is required) of a one-field predicate schema."""
    if not isinstance(schema, dict) or set(schema) - {"properties", "required"}:
        raise ValueError("not a one-field predicate")
    props = schema.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        raise ValueError("not a one-field predicate")
    (col, sub), = props.items()
    if not isinstance(sub, dict):
        raise ValueError("not a one-field predicate")
    return col, sub, schema.get("required") == [col]


def _predicate_of(schema: Any, props: Mapping[str, Any], truth: bool) -> n.Node:
    """The predicate a schema of `_predicate` states (`truth`: the TRUE form, else not-FALSE)."""
    col, sub, required = _one(schema)
    c, prop = n.Column(col), props.get(col) or {}
    if sub == {"type": "null"} and not required:
        return n.IsNull(c)
    if sub == {"not": {"type": "null"}} and required:
        return n.IsNull(c, negated=True)
    if truth and required and set(sub) == {"const"}:
        return n.Compare((c, _const_node(sub["const"], prop)), ("=",))
    values = sub.get("enum") if set(sub) == {"enum"} and isinstance(sub.get("enum"), list) else None
    if values and truth and required:
        return n.InList(c, tuple(_const_node(v, prop) for v in values))
    if values and not truth and not required and len(values) > 1 and values[-1] is None:
        nodes = tuple(_const_node(v, prop) for v in values[:-1])
        return n.Compare((c, nodes[0]), ("=",)) if len(nodes) == 1 else n.InList(c, nodes)
    raise ValueError(f"not a predicate tacit-gen writes: {schema}")


def _read_range(cid: str, entry: Mapping[str, Any], props: Mapping[str, Any]) -> Clause:
    from tacit_gen.plan_types import Clause, make_params

    rest = {k: v for k, v in entry.items() if k != "$comment"}
    col, sub, _ = _one(rest)
    lo = hi = None
    lo_inc = hi_inc = True
    nots = _decimal_nots(sub)
    if nots is not None:
        sign = [p for p in nots if p in (NEGATIVE, NOT_POSITIVE)]
        if sign and len(nots) == 1:
            lo, lo_inc = "0", sign[0] == NEGATIVE
        else:
            decl = decimal_of(props.get(col) or {})
            if decl is None:
                raise ValueError(f"range:{col}: a pattern bound on a property that is not a decimal")
            for pattern in nots:
                found_lo = read_bound(pattern, False, *decl)
                found_hi = read_bound(pattern, True, *decl)
                if found_lo is not None and lo is None:
                    lo, lo_inc = found_lo
                elif found_hi is not None and hi is None:
                    hi, hi_inc = found_hi
                else:
                    raise ValueError(f"range:{col}: a pattern tacit-gen does not write: {pattern!r}")
    else:
        unknown = set(sub) - {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
        if unknown or not sub:
            raise ValueError(f"range:{col}: keywords tacit-gen does not write: {sorted(unknown)}")
        for key, value in sub.items():
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"range:{col}: {key} is not a number")
        if "minimum" in sub or "exclusiveMinimum" in sub:
            lo_inc = "minimum" in sub
            lo = number_text(sub["minimum" if lo_inc else "exclusiveMinimum"])
        if "maximum" in sub or "exclusiveMaximum" in sub:
            hi_inc = "maximum" in sub
            hi = number_text(sub["maximum" if hi_inc else "exclusiveMaximum"])
    return Clause(f"range:{col}", "range", (col,),
                  make_params(column=col, min=lo, max=hi, min_inclusive=lo_inc, max_inclusive=hi_inc), "")


def _decimal_nots(sub: Mapping[str, Any]) -> list[str] | None:
    """The patterns of ``not: {type: string, pattern}`` (one, or an ``allOf`` of them), or None."""
    found = sub.get("allOf")
    items: list[Any] = found if set(sub) == {"allOf"} and isinstance(found, list) else [sub]
    out = []
    for item in items:
        inner = item.get("not") if isinstance(item, dict) and set(item) == {"not"} else None
        if not isinstance(inner, dict) or set(inner) != {"type", "pattern"} or not isinstance(inner["pattern"], str):
            return None
        out.append(inner["pattern"])
    return out


def decimal_of(prop: Mapping[str, Any]) -> tuple[int, int] | None:
    """(scale, integer digits) of a decimal property, from its pattern."""
    import re

    found = decimal_from_pattern(str(prop.get("pattern")))
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", found or "")
    return (int(m.group(2)), int(m.group(1)) - int(m.group(2))) if m else None


def _read_invariant(cid: str, entry: Mapping[str, Any], props: Mapping[str, Any]) -> Clause:
    from tacit_gen.expr.printer import to_text
    from tacit_gen.plan_types import Clause, make_params

    if set(entry) != {"$comment", "if", "then"}:
        raise ValueError(f"{cid}: an invariant entry is `if`/`then`")
    node = n.OnlyWhen(_predicate_of(entry["if"], props, True), _predicate_of(entry["then"], props, False))
    text = to_text(node)
    return Clause(cid, "invariant", n.columns(node), make_params(expr=text), "")


EntryReader = Callable[[str, Mapping[str, Any], Mapping[str, Any]], "Clause"]
# An ``allOf`` entry, by the kind its ``$comment`` names; the property's own schema carries the
# rest (`read.read`).
READ: FormTable[EntryReader] = FormTable("jsonschema", {
    "range": Form(("range",), _read_range),
    "invariant": Form(("invariant",), _read_invariant),
}, elsewhere={
    "column": "a property's type, description and tacit note",
    "no_unknown_columns": "additionalProperties: false",
    "not_null": "the required list and a type without null",
    "accepted_values": "a property's enum",
    "fixed_value": "a property's const",
    "pattern": "a string property's pattern",
}, unsupported=RULES.unsupported)


def read_entry(entry: Mapping[str, Any], props: Mapping[str, Any]) -> Clause:
    """The clause an ``allOf`` entry states, its params recovered from the entry's keywords (so a
    hand edit of a bound reads as a changed parameter). ValueError for an entry tacit-gen does
    not write."""
    cid = entry.get("$comment")
    if not isinstance(cid, str):
        raise ValueError("an allOf entry without its clause id in $comment")
    form = READ.get(cid.partition(":")[0])
    if form is None:
        raise ValueError(f"{cid}: not a clause kind the schema's allOf carries")
    return form.read(cid, entry, props)


__all__ = ["READ", "RULES", "entry_of", "json_number", "number_text", "read_entry", "rule"]
