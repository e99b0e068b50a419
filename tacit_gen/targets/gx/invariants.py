"""The invariant compiler: what GX's native expectations can say of an invariant (a column pair,
a row condition, a range) as expectation data, else `NoNative` (the suite carries custom SQL)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.expr import nodes as n
from tacit_gen.targets.gx.numbers import json_number

if TYPE_CHECKING:
    pass


class NoNative(Exception):
    """The (sub)expression has no native GX form."""


def _col(node: n.Node) -> str:
    if isinstance(node, n.Column):
        return node.name
    raise NoNative(f"{type(node).__name__} is not a column")


def _lit(node: n.Node) -> Any:
    if isinstance(node, n.EnumLiteral | n.String):
        return node.value
    if isinstance(node, n.Number):
        return json_number(node.text)
    if isinstance(node, n.Neg) and isinstance(node.operand, n.Number):
        return -json_number(node.operand.text)
    if isinstance(node, n.Bool):
        return node.value
    raise NoNative(f"{type(node).__name__} is not a literal")


_NEG_OP = {"=": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_GX_OP = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _cmp_cond(column: str, op: str, value: Any) -> dict[str, Any]:
    return {"type": "comparison", "column": {"name": column}, "operator": op, "parameter": value}


def _null_cond(column: str, is_null: bool) -> dict[str, Any]:
    return {"type": "nullity", "column": {"name": column}, "is_null": is_null}


def _atom(node: n.Node, truth: bool) -> list[dict[str, Any]]:
    """Conditions (ANDed) selecting rows where the atom is TRUE (`truth`) or FALSE, never
    UNKNOWN: SQL semantics, so a NULL operand selects neither."""
    if isinstance(node, n.IsNull):
        return [_null_cond(_col(node.operand), node.negated != truth)]
    if isinstance(node, n.Compare) and len(node.ops) == 1:
        left, right = node.operands
        op = node.ops[0]
        if isinstance(right, n.Column) and not isinstance(left, n.Column):
            left, right, op = right, left, n.FLIPPED[op]
        c, v = _col(left), _lit(right)
        return [_null_cond(c, False), _cmp_cond(c, (_GX_OP if truth else _NEG_OP)[op], v)]
    if isinstance(node, n.InList):
        c = _col(node.operand)
        vals = [_lit(i) for i in node.items]
        return [_null_cond(c, False), _cmp_cond(c, "NOT_IN" if node.negated == truth else "IN", vals)]
    raise NoNative(f"no condition form for {type(node).__name__}")


def _atom_true(node: n.Node) -> list[dict[str, Any]]:
    return _atom(node, True)


def _atom_false(node: n.Node) -> list[dict[str, Any]]:
    return _atom(node, False)


def _dnf_false(node: n.Node) -> list[list[dict[str, Any]]]:
    """Rows where `node` is FALSE, as an OR of ANDs of atoms (GX allows no deeper nesting)."""
    if isinstance(node, n.And):  # false when either side is false
        return _dnf_false(node.left) + _dnf_false(node.right)
    if isinstance(node, n.Or):  # false when both sides are false
        out = []
        for a in _dnf_false(node.left):
            for b in _dnf_false(node.right):
                out.append(a + b)
        return out
    if isinstance(node, n.Not):
        return _dnf_true(node.operand)
    return [_atom_false(node)]


def _dnf_true(node: n.Node) -> list[list[dict[str, Any]]]:
    if isinstance(node, n.Or):
        return _dnf_true(node.left) + _dnf_true(node.right)
    if isinstance(node, n.And):
        out = []
        for a in _dnf_true(node.left):
            for b in _dnf_true(node.right):
                out.append(a + b)
        return out
    if isinstance(node, n.Not):
        return _dnf_false(node.operand)
    return [_atom_true(node)]


def _condition(dnf: list[list[dict[str, Any]]]) -> dict[str, Any]:
    ands = [c[0] if len(c) == 1 else {"type": "and", "conditions": c} for c in dnf]
    return ands[0] if len(ands) == 1 else {"type": "or", "conditions": ands}


# ---------------------------------------------------------------------------------------------
# clause -> expectations


def expectation(etype: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One expectation as data: its type and keyword arguments."""
    return {"type": etype, "kwargs": kwargs}


def range_kwargs(column: str, lo: str | None, hi: str | None, lo_incl: bool, hi_incl: bool) -> dict[str, Any]:
    """The kwargs of a between expectation (strict where a bound is exclusive)."""
    kw: dict[str, Any] = {"column": column}
    if lo is not None:
        kw["min_value"] = json_number(lo)
        kw["strict_min"] = not lo_incl
    if hi is not None:
        kw["max_value"] = json_number(hi)
        kw["strict_max"] = not hi_incl
    return kw


def _pair(a: n.Node, op: str, b: n.Node) -> dict[str, Any]:
    """One comparison `a op b` (NULL passes) as a native expectation."""
    an, bn = n.number_text(a), n.number_text(b)
    if isinstance(a, n.Column) and isinstance(b, n.Column):
        if op == "=":
            return expectation("expect_column_pair_values_to_be_equal",
                        {"column_A": a.name, "column_B": b.name,
                         "ignore_row_if": "either_value_is_missing"})
        if op in ("<", "<="):
            a, b = b, a
        if op in ("<", "<=", ">", ">="):
            return expectation("expect_column_pair_values_a_to_be_greater_than_b",
                        {"column_A": a.name, "column_B": b.name, "or_equal": op in ("<=", ">="),
                         "ignore_row_if": "either_value_is_missing"})
        raise NoNative("no pair expectation for !=")
    lit = b if isinstance(a, n.Column) else a
    if (isinstance(a, n.Column) or isinstance(b, n.Column)) and op in ("=", "!=") and isinstance(
        lit, n.String | n.EnumLiteral | n.Bool
    ):
        col = _col(a) if isinstance(a, n.Column) else _col(b)
        etype = "expect_column_values_to_be_in_set" if op == "=" else "expect_column_values_to_not_be_in_set"
        return expectation(etype, {"column": col, "value_set": [_lit(lit)]})
    if isinstance(a, n.Column) and bn is not None:
        col, op2, num = a.name, op, bn
    elif isinstance(b, n.Column) and an is not None:
        col, op2, num = b.name, n.FLIPPED[op], an
    else:
        raise NoNative("comparison is not column-vs-column or column-vs-number")
    if op2 in (">", ">="):
        return expectation("expect_column_values_to_be_between", range_kwargs(col, num, None, op2 == ">=", True))
    if op2 in ("<", "<="):
        return expectation("expect_column_values_to_be_between", range_kwargs(col, None, num, True, op2 == "<="))
    if op2 == "=":
        return expectation("expect_column_values_to_be_in_set", {"column": col, "value_set": [json_number(num)]})
    return expectation("expect_column_values_to_not_be_in_set", {"column": col, "value_set": [json_number(num)]})


def native_invariant(expr: n.Node) -> list[dict[str, Any]]:
    """Native expectations for an invariant, or raise NoNative."""
    if isinstance(expr, n.Compare):
        return [_pair(a, op, b) for a, op, b in zip(expr.operands, expr.ops, expr.operands[1:], strict=False)]
    if isinstance(expr, n.And):
        return native_invariant(expr.left) + native_invariant(expr.right)
    if isinstance(expr, n.IsNull) and expr.negated:
        return [expectation("expect_column_values_to_not_be_null", {"column": _col(expr.operand)})]
    if isinstance(expr, n.IsNull):
        return [expectation("expect_column_values_to_be_null", {"column": _col(expr.operand)})]
    if isinstance(expr, n.InList):
        etype = "expect_column_values_to_not_be_in_set" if expr.negated else "expect_column_values_to_be_in_set"
        return [expectation(etype, {"column": _col(expr.operand), "value_set": [_lit(i) for i in expr.items]})]
    if isinstance(expr, n.Between) and not expr.negated:
        lo, hi = n.number_text(expr.low), n.number_text(expr.high)
        if lo is None or hi is None:
            raise NoNative("between bounds are not numbers")
        return [expectation("expect_column_values_to_be_between",
                     range_kwargs(_col(expr.operand), lo, hi, True, True))]
    if isinstance(expr, n.OnlyWhen):
        # `A only when B`: a row violates when A is TRUE and B is FALSE.
        cond = _condition(_dnf_false(expr.right))
        left = expr.left
        if isinstance(left, n.IsNull):
            etype = ("expect_column_values_to_be_null" if left.negated
                     else "expect_column_values_to_not_be_null")
            return [expectation(etype, {"column": _col(left.operand), "row_condition": cond})]
        raise NoNative("the left side of `only when` is not `x is null` / `x is not null`")
    raise NoNative(f"no native form for {type(expr).__name__}")
