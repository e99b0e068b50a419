"""Invariant ASTs and clause parameters -> ibis boolean expressions (SQL CHECK semantics).

Every function returns the *condition* a row must satisfy; the evaluator counts a row as a
violation only when the condition is FALSE (``(~cond).fill_null(False)``), so NULL passes.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tacit_gen.expr import nodes as n
from tacit_gen.expr.parser import parse

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.contract.types import DataType


class CompileError(ValueError):
    """An expression that cannot be turned into an ibis expression for this table."""


def number_literal(text: str) -> ir.Value:
    """A numeric literal with its exact precision (no float rounding)."""
    import ibis
    import ibis.expr.datatypes as dt

    d = decimal.Decimal(text)
    if d == d.to_integral_value() and "." not in text and "e" not in text.lower():
        return ibis.literal(int(d), type=dt.int64)
    _sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    scale = max(0, -exp)
    precision = max(len(digits), scale, 1)
    if exp > 0:
        precision = len(digits) + exp
    return ibis.literal(d, type=dt.Decimal(min(precision, 38), scale))


def value_literal(value: Any, column_type: DataType | None = None) -> ir.Value:
    """A literal for a clause parameter value (decimal text for numeric columns)."""
    import ibis

    if isinstance(value, bool):
        return ibis.literal(value)
    if isinstance(value, str) and column_type is not None and column_type.is_numeric:
        return number_literal(value)
    if isinstance(value, decimal.Decimal):
        return number_literal(str(value))
    return ibis.literal(value)


CatalogLookup = Callable[[str, n.Node, n.Node], "ir.Value"]


class ExprCompiler:
    """Compile one invariant AST against a table's columns.

    Args:
        table: the (converted, widened) table the expression reads.
        columns: data column name -> contract type; a bare name that is not a column is an enum
            literal (the contract checker already proved it is a value of the compared enum).
        catalog: optional callback for the catalog forms inside an invariant:
            ``catalog(form, subject, key)`` returns the condition.
    """

    def __init__(
        self,
        table: ir.Table,
        columns: Mapping[str, DataType],
        catalog: CatalogLookup | None = None,
    ) -> None:
        self.table = table
        self.columns = columns
        self.catalog = catalog

    def condition(self, node: n.Node) -> ir.BooleanValue:
        import ibis.expr.types as ir

        out = self.compile(node)
        if not isinstance(out, ir.BooleanValue):
            raise CompileError(f"expression is not a condition: {type(out).__name__}")
        return out

    def compile(self, node: n.Node) -> Any:
        import ibis

        if isinstance(node, n.Column | n.Name):
            if node.name in self.columns:
                return self.table[node.name]
            if isinstance(node, n.Column):
                raise CompileError(f"unknown column {node.name!r}")
            return ibis.literal(node.name)  # bare enum literal
        if isinstance(node, n.EnumLiteral):
            return ibis.literal(node.value)
        if isinstance(node, n.Number):
            return number_literal(node.text)
        if isinstance(node, n.String):
            return ibis.literal(node.value)
        if isinstance(node, n.Bool):
            return ibis.literal(node.value)
        if isinstance(node, n.Neg):
            return -self.compile(node.operand)
        if isinstance(node, n.BinOp):
            left, right = self.compile(node.left), self.compile(node.right)
            return _ARITH[node.op](left, right)
        if isinstance(node, n.Compare):
            values = [self.compile(o) for o in node.operands]
            parts = [
                _CMP[op](a, b) for op, a, b in zip(node.ops, values, values[1:], strict=False)
            ]
            out = parts[0]
            for p in parts[1:]:
                out = out & p
            return out
        if isinstance(node, n.IsNull):
            v = self.compile(node.operand)
            return v.notnull() if node.negated else v.isnull()
        if isinstance(node, n.InList):
            v = self.compile(node.operand)
            items = [self.compile(i) for i in node.items]
            return v.notin(items) if node.negated else v.isin(items)
        if isinstance(node, n.Between):
            v = self.compile(node.operand)
            cond = v.between(self.compile(node.low), self.compile(node.high))
            return ~cond if node.negated else cond
        if isinstance(node, n.And):
            return self.compile(node.left) & self.compile(node.right)
        if isinstance(node, n.Or):
            return self.compile(node.left) | self.compile(node.right)
        if isinstance(node, n.Not):
            return ~self.compile(node.operand)
        if isinstance(node, n.OnlyWhen):  # A only when B == not A or B
            return ~self.compile(node.left) | self.compile(node.right)
        if isinstance(node, n.CatalogUnit | n.CatalogBounds):
            if self.catalog is None:
                raise CompileError("a catalog form needs the catalog (pass catalog=)")
            form = "unit" if isinstance(node, n.CatalogUnit) else "bounds"
            return self.catalog(form, node.subject, node.key)
        raise CompileError(f"unsupported expression node {type(node).__name__}")


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    # NULL when dividing by zero (UNKNOWN: the row passes), on every backend: DuckDB >= 1.1
    # gives inf or NaN for x / 0, PostgreSQL raises, Spark in ANSI mode raises
    "/": lambda a, b: a / b.nullif(0),
}
_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def parse_invariant(text: str) -> n.Node:
    """Parse canonical invariant text (``params['expr']``) into an AST."""
    return parse(text)


def range_condition(
    col: ir.Value, column_type: DataType | None, params: Mapping[str, Any]
) -> ir.BooleanValue:
    """``min <= col <= max`` with the clause's inclusivity; a missing side is unbounded."""
    import ibis

    parts: list[Any] = []
    lo, hi = params.get("min"), params.get("max")
    if lo is not None:
        lit = value_literal(str(lo), column_type) if column_type else number_literal(str(lo))
        parts.append((col >= lit) if params.get("min_inclusive", True) else (col > lit))
    if hi is not None:
        lit = value_literal(str(hi), column_type) if column_type else number_literal(str(hi))
        parts.append((col <= lit) if params.get("max_inclusive", True) else (col < lit))
    if not parts:
        return ibis.literal(True)  # type: ignore[no-any-return]
    cond = parts[0]
    for p in parts[1:]:
        cond = cond & p
    return cond  # type: ignore[no-any-return]
