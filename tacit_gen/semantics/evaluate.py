"""The reference three-valued row evaluator: what an invariant means on one row, in SQL logic.

`sample` proves its data with it, and drift (`drift/equivalence.py`) decides with it whether two
wordings of an invariant reject the same rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen.expr import nodes as n

if TYPE_CHECKING:
    from tacit_gen.semantics.catalog import CatalogData


class _Missing(Exception):
    """A column the expression reads is not in the data."""


def _num(a: Any, b: Any) -> tuple[Any, Any]:
    if isinstance(a, float) or isinstance(b, float):
        return float(a), float(b)
    return a, b


def compare3(a: Any, op: str, b: Any) -> bool | None:
    """`a op b` in SQL: UNKNOWN (None) when either side is NULL or they do not compare."""
    if a is None or b is None:
        return None
    try:
        if op == "=":
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        if op == "<":
            return bool(a < b)
        if op == "<=":
            return bool(a <= b)
        if op == ">":
            return bool(a > b)
        return bool(a >= b)
    except TypeError:
        return None


def and3(a: bool | None, b: bool | None) -> bool | None:
    """SQL AND over TRUE, FALSE and UNKNOWN (None)."""
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def or3(a: bool | None, b: bool | None) -> bool | None:
    """SQL OR over TRUE, FALSE and UNKNOWN (None)."""
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def not3(a: bool | None) -> bool | None:
    """SQL NOT: UNKNOWN stays UNKNOWN."""
    return None if a is None else not a


def evaluate(
    node: n.Node,
    row: Mapping[str, Any],
    catalog: CatalogData | None = None,
    lookup: Mapping[Any, Mapping[str, Any]] | None = None,
) -> Any:
    """Evaluate a resolved expression on one row with SQL three-valued logic.

    Returns True, False or None (UNKNOWN) for a condition, the value for a value expression.
    Catalog forms: a null subject is UNKNOWN (passes); a key with no catalog entry is FALSE.

    Raises:
        KeyError: a column the expression reads is not in ``row``.
    """
    if catalog is not None and lookup is None:
        lookup = catalog.lookup()

    def go(x: n.Node) -> Any:
        if isinstance(x, n.Column | n.Name):
            if x.name not in row:
                raise _Missing(x.name)
            return row[x.name]
        if isinstance(x, n.EnumLiteral):
            return x.value
        if isinstance(x, n.String):
            return x.value
        if isinstance(x, n.Number):
            return Decimal(x.text)
        if isinstance(x, n.Bool):
            return x.value
        if isinstance(x, n.Neg):
            v = go(x.operand)
            return None if v is None else -v
        if isinstance(x, n.BinOp):
            a, b = go(x.left), go(x.right)
            if a is None or b is None:
                return None
            a, b = _num(a, b)
            try:
                if x.op == "+":
                    return a + b
                if x.op == "-":
                    return a - b
                if x.op == "*":
                    return a * b
                return None if b == 0 else a / b
            except TypeError:
                return None
        if isinstance(x, n.Compare):
            vals = [go(o) for o in x.operands]
            out: bool | None = True
            for a, op, b in zip(vals, x.ops, vals[1:], strict=False):
                out = and3(out, compare3(a, op, b))
            return out
        if isinstance(x, n.IsNull):
            v = go(x.operand)
            return (v is not None) if x.negated else (v is None)
        if isinstance(x, n.InList):
            v = go(x.operand)
            res: bool | None = False
            for item in x.items:
                res = or3(res, compare3(v, "=", go(item)))
            return not3(res) if x.negated else res
        if isinstance(x, n.Between):
            v = go(x.operand)
            res = and3(compare3(go(x.low), "<=", v), compare3(v, "<=", go(x.high)))
            return not3(res) if x.negated else res
        if isinstance(x, n.And):
            return and3(go(x.left), go(x.right))
        if isinstance(x, n.Or):
            return or3(go(x.left), go(x.right))
        if isinstance(x, n.Not):
            return not3(go(x.operand))
        if isinstance(x, n.OnlyWhen):
            return or3(not3(go(x.left)), go(x.right))
        if isinstance(x, n.CatalogUnit | n.CatalogBounds):
            if catalog is None or lookup is None:
                raise _Missing("<catalog>")
            v, k = go(x.subject), go(x.key)
            if v is None:
                return None
            entry = lookup.get(k) if k is not None else None
            if entry is None:
                return False
            if isinstance(x, n.CatalogUnit):
                return compare3(v, "=", entry.get(catalog.spec.unit or ""))
            lo = entry.get(catalog.spec.hard_min or "")
            hi = entry.get(catalog.spec.hard_max or "")
            return and3(compare3(lo, "<=", v), compare3(v, "<=", hi))
        raise TypeError(f"cannot evaluate {type(x).__name__}")

    try:
        return go(node)
    except _Missing as e:
        raise KeyError(str(e)) from None
