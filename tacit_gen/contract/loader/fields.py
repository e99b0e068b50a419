"""`fields:` entries: type, nullability, unit, pattern, references, plausible bounds, fixed values."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tacit_gen.contract import names, yamlpos
from tacit_gen.contract.loader.base import (
    FIELD_KEYS,
    Ctx,
    bool_value,
    check_keys,
    key_node,
    lint_waiver,
    misspelled,
    name_list,
    pos_of,
    text_value,
    value_offset,
)
from tacit_gen.contract.model import Field, Pos
from tacit_gen.contract.types import DataType, TypeSyntaxError, parse_type
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import close_matches


def load_field(ctx: Ctx, knode: YNode, vnode: YNode, key_cols: set[str]) -> Field | None:
    name = str(knode.value)
    problem = names.name_problem(name, "column name")
    if problem is not None:
        ctx.error(knode, "TG115", problem, name)
        return None
    text = ctx.text_of(vnode, knode)
    if vnode.kind == "scalar":
        spec: dict[str, YNode] = {"type": vnode}
    elif vnode.kind == "map":
        check_keys(ctx, vnode, FIELD_KEYS, f"field '{name}'")
        spec = {str(k.value): v for k, v in vnode.value}
    else:
        ctx.error(vnode, "TG103", f"field '{name}' must be a mapping such as {{type: string}}", name)
        return None
    tnode = spec.get("type")
    if tnode is None:
        if not misspelled(ctx, vnode, "type"):
            ctx.error(knode, "TG104", f"field '{name}' has no 'type'", name)
        return None
    ttext = text_value(ctx, tnode, f"the type of '{name}'")
    if ttext is None:
        if tnode.kind == "scalar":
            ctx.error(tnode, "TG105", f"the type of '{name}' is empty", name)
        return None
    try:
        dtype = parse_type(ttext)
    except TypeSyntaxError as e:
        message = str(e)
        if message == f"unknown type '{ttext.strip()}'":
            message += type_hint(ttext.strip())
        ctx.error(tnode, "TG105", message, e.word or ttext, value_offset(tnode) + e.offset)
        return None
    nullable_node = spec.get("nullable")
    nullable = bool_value(ctx, nullable_node, f"'nullable' of '{name}'")
    unit_text = text_value(ctx, spec.get("unit"), f"the unit of '{name}'")
    unit_from_catalog = False
    if unit_text is not None and unit_text.strip().lower() == "per series from catalog":
        unit_from_catalog, unit_text = True, None
    dim = text_value(ctx, spec.get("dimension"), f"the dimension of '{name}'")
    has_value = "value" in spec
    value: Any = None
    if has_value:
        vn = spec["value"]
        if vn.kind != "scalar" or vn.value is None:
            ctx.error(vn, "TG114", f"the fixed value of '{name}' must be a single non-null value", vn.raw)
            has_value = False
        else:
            value = _fixed_value(ctx, vn, dtype, name)
            if value is _BAD:
                has_value = False
                value = None
    never_null = name in key_cols or has_value
    if nullable is True and never_null:
        why = "a key column" if name in key_cols else "a fixed-value field"
        assert nullable_node is not None
        ctx.error(
            key_node(vnode, "nullable") or nullable_node,
            "TG112",
            f"'{name}' is {why} and is never null; 'nullable: true' contradicts it",
            "nullable",
        )
    aliases = [a for a, _ in name_list(ctx, spec.get("aliases"), f"'aliases' of '{name}'")]
    allow, reason = lint_waiver(ctx, spec.get("lint"), name)
    pattern = _pattern(ctx, spec.get("pattern"), name, dtype)
    plausible = _plausible(ctx, spec.get("plausible"), name, dtype)
    references = _references(ctx, spec.get("references"), name)
    return Field(
        name=name,
        type=dtype,
        nullable=(nullable if nullable is not None else True) and not never_null,
        unit=unit_text,
        unit_from_catalog=unit_from_catalog,
        dimension=dim,
        has_value=has_value,
        value=value,
        note=text_value(ctx, spec.get("note"), f"the note of '{name}'"),
        description=text_value(ctx, spec.get("description"), f"the description of '{name}'"),
        constraint=text_value(ctx, spec.get("constraint"), f"the constraint of '{name}'"),
        pattern=pattern,
        plausible=plausible,
        references=references,
        aliases=tuple(aliases),
        lint_allow=allow,
        lint_reason=reason,
        meta=tuple((k, yamlpos.plain(v)) for k, v in spec.items() if k.startswith("x-")),
        pos=pos_of(knode),
        text=text,
        type_pos=Pos(tnode.line, tnode.col + value_offset(tnode)),
    )


_BAD = object()


def _pattern(ctx: Ctx, node: YNode | None, name: str, dtype: DataType) -> str | None:
    """A field's `pattern:`: a string field's regex in the portable subset (TG130)."""
    text = text_value(ctx, node, f"the pattern of '{name}'")
    if text is None or node is None:
        return None
    if dtype.kind != "string":
        ctx.error(node, "TG110", f"'pattern' applies to string fields; '{name}' is {dtype}", text)
        return None
    from tacit_gen.sql.pattern import PatternError, normalize

    try:
        normalize(text)
    except PatternError as e:
        # in a double-quoted scalar escapes shift columns: point at the value's start there
        offset = value_offset(node) + e.offset if node.style != '"' else 0
        ctx.error(node, "TG130", f"pattern of '{name}': {e}", e.word or text, offset)
        return None
    return text


def _references(ctx: Ctx, node: YNode | None, name: str) -> tuple[str, str] | None:
    """A field's `references: <relation>.<column>`: a foreign key (TG140 when not that form; a
    list, a mapping or a column list in parentheses is a composite key, which is not expressible)."""
    composite = (f"references of '{name}': a composite foreign key (several columns) is not "
                 "expressible; a reference is one <relation>.<column> (such as "
                 "customers.customer_id), on the one field it constrains")
    if node is not None and node.kind == "seq" and len(node.value) > 1:
        second = node.value[1]  # the second column is the word that makes it composite
        ctx.error(second, "TG140", composite, str(second.raw) if second.kind == "scalar" else "")
        return None
    if node is not None and node.kind == "map":
        first = node.key_nodes()[0] if node.key_nodes() else node
        ctx.error(first, "TG140", composite, str(first.raw) if first.kind == "scalar" else "")
        return None
    text = text_value(ctx, node, f"the reference of '{name}'")
    if text is None or node is None:
        return None
    cut = min((i for i in (text.find("("), text.find(",")) if i >= 0), default=-1)
    exact = node.style != '"' or "\\" not in ctx.text_of(node)  # escapes shift columns
    if cut >= 0:
        word = text[cut:].strip()
        ctx.error(node, "TG140", composite, word,
                  value_offset(node) + text.find(word) if exact else 0)
        return None
    rel, dot, col = text.strip().rpartition(".")
    if not dot or names.IDENT.fullmatch(rel) is None or names.IDENT.fullmatch(col) is None:
        word = next((w for w in (rel, col) if w and names.IDENT.fullmatch(w) is None), text)
        ctx.error(node, "TG140", f"references of '{name}' must be <relation>.<column> (one "
                  f"identifier each, such as customers.customer_id), not '{text}'", word,
                  value_offset(node) + max(text.find(word), 0) if node.style != '"' else 0)
        return None
    return rel, col


PLAUSIBLE_SOURCES = ("catalog",)


def plausible_series(ctx: Ctx, fields: list[Field], key: list[str], time: Any,
                      fnode: YNode | None) -> None:
    """`plausible: catalog` joins the catalog on one series column (as `profile` writes it)."""
    tcol = time.column if time is not None else None
    series = [k for k in key if k not in (tcol, "revision")]
    if len(series) == 1:
        return
    for f in fields:
        if f.plausible is None:
            continue
        spec = fnode.get(f.name) if fnode is not None else None
        pn = spec.get("plausible") if spec is not None and spec.kind == "map" else None
        ctx.error(pn, "TG110", f"'plausible' of '{f.name}' reads the catalog row of one series "
                  f"column; the series key is {', '.join(series) or 'empty'}", "plausible")


def _plausible(ctx: Ctx, node: YNode | None, name: str, dtype: DataType) -> str | None:
    """A field's `plausible:`: `catalog` (the catalog's plausible_min/plausible_max per series,
    which `tacit-gen profile` proposes); numeric fields only. Always a warning."""
    text = text_value(ctx, node, f"'plausible' of '{name}'")
    if text is None or node is None:
        return None
    if not dtype.is_numeric:
        ctx.error(node, "TG110", f"'plausible' applies to numeric fields; '{name}' is {dtype}", text)
        return None
    if text.strip().lower() not in PLAUSIBLE_SOURCES:
        ctx.error(node, "TG110", f"'plausible' of '{name}' takes 'catalog' (the bounds per series "
                  f"in the catalog's plausible_min/plausible_max columns), not '{text}'", text)
        return None
    return text.strip().lower()


def _fixed_value(ctx: Ctx, vn: YNode, dtype: DataType, name: str) -> Any:
    v = vn.value
    ok = True
    if dtype.kind == "bool":
        ok = isinstance(v, bool)
    elif dtype.is_integer:
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif dtype.is_numeric:
        ok = isinstance(v, int | Decimal) and not isinstance(v, bool)
    elif dtype.kind == "enum":
        v = vn.raw
        ok = v in dtype.values
    elif dtype.kind == "string":
        v = vn.raw if not isinstance(v, str) else v
    else:
        v = vn.raw
    if not ok:
        ctx.error(
            vn,
            "TG114",
            f"fixed value '{vn.raw}' of '{name}' does not match its type {dtype}",
            vn.raw,
        )
        return _BAD
    if dtype.is_numeric:
        from tacit_gen.contract.semantics import number_problem

        problem = number_problem(Decimal(v), dtype)
        if problem is not None:
            ctx.error(vn, "TG117", f"fixed value '{vn.raw}' of '{name}' {problem}", vn.raw)
            return _BAD
        held = _unheld(Decimal(v), dtype)
        if held is not None:
            ctx.error(vn, "TG114", f"fixed value '{vn.raw}' of '{name}' is not a value of {dtype} ({held}): "
                      "no row can hold it, so every row would fail; fix a value of the type, or "
                      "declare a type that holds it", vn.raw)
            return _BAD
        if not dtype.is_integer:
            return str(v)
    return v


def _unheld(value: Decimal, dtype: DataType) -> str | None:
    """Why no value of `dtype` equals the number, or None (a fixed value's check; a bound may lie
    beyond the type). Every target compares a column as the value it holds: a float32 as the
    double it is (DuckDB alone rounded the number to float32 and passed a stored 0.1), a decimal
    exactly (found 2026-12-04)."""
    if dtype.kind == "int32" and not -(2**31) <= value <= 2**31 - 1:
        return "int32 holds -2147483648 to 2147483647"
    if dtype.kind == "float32":
        from tacit_gen.expr.bounds import float32_value, nearest_float32

        if not float32_value(str(value)):
            return f"float32 holds {nearest_float32(str(value))} for it; float64 or decimal(p,s) hold it"
    if dtype.is_decimal and dtype.precision is not None and dtype.scale is not None:
        exponent = value.normalize().as_tuple().exponent
        fraction = max(0, -exponent) if isinstance(exponent, int) else 0
        whole = len(str(int(value.copy_abs()))) if value.copy_abs() >= 1 else 0
        if fraction > dtype.scale or whole > dtype.precision - dtype.scale:
            return (f"at most {dtype.precision - dtype.scale} digit(s) before the point and "
                    f"{dtype.scale} after it")
    return None


# The names other tools give the contract's types (SQL, Python, JSON Schema, Avro...).
TYPE_SYNONYMS = {
    "int": "int64", "integer": "int64", "long": "int64", "bigint": "int64", "int8": "int64",
    "smallint": "int32", "int4": "int32", "short": "int32",
    "float": "float64", "double": "float64", "real": "float32", "number": "float64",
    "str": "string", "text": "string", "varchar": "string", "char": "string",
    "boolean": "bool", "numeric": "decimal(p,s)", "decimal": "decimal(p,s)",
    "datetime": "timestamp_ms_utc", "enum": "enum[a, b, ...]",
}


def type_hint(word: str) -> str:
    """"; did you mean 'int64'?" for a type the contract language spells otherwise (a synonym
    from SQL or Python, or a typo of one of its types), else empty."""
    from tacit_gen.contract.types import SIMPLE

    low = word.lower()
    if low in SIMPLE:
        return f"; did you mean '{low}'?"
    if low in TYPE_SYNONYMS:
        return f"; did you mean '{TYPE_SYNONYMS[low]}'?"
    close = close_matches(low, [*SIMPLE, *TYPE_SYNONYMS], n=1)
    if close:
        return f"; did you mean '{TYPE_SYNONYMS.get(close[0], close[0])}'?"
    return ""

