"""Invariant ASTs and clause parameters -> ibis boolean expressions (SQL CHECK semantics).

Every function returns the *condition* a row must satisfy; the evaluator counts a row as a
violation only when the condition is FALSE (``(~cond).fill_null(False)``), so NULL passes.
"""

from __future__ import annotations

import decimal
import functools
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
    if (d == d.to_integral_value() and "." not in text and "e" not in text.lower()
            and -(2**63) <= int(d) < 2**63):
        return ibis.literal(int(d), type=dt.int64)
    _sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    scale = max(0, -exp)
    precision = max(len(digits), scale, 1)
    if exp > 0:
        precision = len(digits) + exp
    if precision > 38:
        # past the 38 digits of any decimal: a double, as DuckDB reads such a literal
        return ibis.literal(float(d), type=dt.float64)
    # an integer past int64 (a decimal(38, 0) bound): a decimal of its digits, exactly
    return ibis.literal(d, type=dt.Decimal(precision, scale))


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


@functools.cache
def _convert_to() -> Any:
    import ibis
    import ibis.expr.datatypes as dt

    # the signature given as types: this module's annotations are strings ibis cannot resolve
    @ibis.udf.scalar.builtin(name="convert_to", signature=((dt.string, dt.string), dt.binary))
    def convert_to(s, enc):  # type: ignore[no-untyped-def]
        ...

    return convert_to


def _utf8_bytes(value: Any, encoding: str) -> Any:
    """PostgreSQL's ``convert_to(value, encoding)``: the text's bytes (bytea orders bytewise)."""
    return _convert_to()(value, encoding)


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
        self._postgres: bool | None = None  # bound to a PostgreSQL backend (asked once)

    def ordered(self, nodes: tuple[n.Node, ...]) -> list[Any]:
        """The operands of an ordering comparison (or ``between``). Strings order by code point,
        as in DuckDB, Spark and pandas; PostgreSQL orders them by the database's collation
        (``'B' < 'b'`` is false under ``en_US``) and ibis 12 has no COLLATE, so there a comparison
        with a string column compares the values' UTF-8 bytes (``convert_to(x, 'UTF8')``),
        which order as code points."""
        values = [self.compile(x) for x in nodes]
        textual = any(isinstance(x, n.Column | n.Name) and x.name in self.columns
                      and self.columns[x.name].is_textual for x in nodes)
        if not textual or not self._on_postgres():
            return values
        return [_utf8_bytes(v, "UTF8") for v in values]

    def _on_postgres(self) -> bool:
        if self._postgres is None:
            from tacit_gen.runtime.backends import backend_name

            self._postgres = backend_name(self.table) == "postgres"
        return self._postgres

    def condition(self, node: n.Node) -> ir.BooleanValue:
        import ibis.expr.types as ir

        out = self.compile(node)
        if not isinstance(out, ir.BooleanValue):
            raise CompileError(f"expression is not a condition: {type(out).__name__}")
        return out

    def term(self, node: n.Node) -> Any:
        """An operand of + - * or unary minus: an integer column as ``decimal(38, 0)``, so the
        arithmetic is exact (as `tacit_gen.sql.condition` writes it for the SQL targets), not
        the engine's int32/int64 (an error in DuckDB and PostgreSQL, a wrap in Spark)."""
        out = self.compile(node)
        if isinstance(node, n.Column | n.Name) and node.name in self.columns \
                and self.columns[node.name].is_integer:
            return out.cast("decimal(38, 0)")
        return out

    def compile(self, node: n.Node) -> Any:
        import ibis

        if isinstance(node, n.Column | n.Name):
            if node.name in self.columns:
                return widened(self.table[node.name], self.columns[node.name])
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
            return -self.term(node.operand)
        if isinstance(node, n.BinOp):
            if node.op == "/":
                return _ARITH[node.op](self.compile(node.left), self.compile(node.right))
            return _ARITH[node.op](self.term(node.left), self.term(node.right))
        if isinstance(node, n.Compare):
            parts = []
            for i, op in enumerate(node.ops):
                pair = node.operands[i:i + 2]
                a, b = self.ordered(pair) if op in ("<", "<=", ">", ">=") else map(self.compile, pair)
                parts.append(_CMP[op](a, b))
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
            v, lo, hi = self.ordered((node.operand, node.low, node.high))
            cond = v.between(lo, hi)
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


def widened(col: Any, column_type: DataType | None) -> Any:
    """A float32 column as a float64: compared and computed as the value it holds, as the SQL
    targets write it (`tacit_gen.sql.build.widened`). ibis leaves a float32 compared with a
    decimal literal to the engine, and DuckDB compares it in float32: a stored 0.1 passed
    ``x <= 0.1`` there and failed on PostgreSQL (found 2026-12-04)."""
    if column_type is not None and column_type.kind == "float32":
        return col.cast("float64")
    return col


def range_condition(
    col: ir.Value, column_type: DataType | None, params: Mapping[str, Any]
) -> ir.BooleanValue:
    """``min <= col <= max`` with the clause's inclusivity; a missing side is unbounded."""
    import ibis

    col = widened(col, column_type)
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
