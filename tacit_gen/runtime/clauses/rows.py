"""Row clauses: a condition each row holds (not_null, accepted_values, fixed_value, range,
pattern, invariant, precision). A NULL condition is no violation (SQL CHECK semantics)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import PRECISION_US
from tacit_gen.runtime.backends import backend_name
from tacit_gen.runtime.clauses.base import EPOCH, us_between
from tacit_gen.runtime.clauses.catalog import inline_catalog
from tacit_gen.runtime.compile import ExprCompiler, parse_invariant, range_condition, value_literal

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import CatalogColumns, Context

__all__ = ["accepted_values", "fixed_value", "invariant", "not_null", "pattern", "precision", "range_"]


def not_null(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The column holds a value."""
    return t[c.param("column")].notnull()


def accepted_values(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The value is one of the listed values."""
    col = c.param("column")
    values = [value_literal(v, cx.types.get(col)) for v in c.param("values") or ()]
    return t[col].isin(values)


def fixed_value(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The value equals the fixed value."""
    col = c.param("column")
    return t[col] == value_literal(c.param("value"), cx.types.get(col))


def range_(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The value is within the bounds."""
    col = c.param("column")
    return range_condition(t[col], cx.types.get(col), c.params_dict)


def pattern(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The whole value matches the pattern."""
    return t[c.param("column")].re_search(_full_match(c.param("pattern"), t))  # pyright: ignore[reportAttributeAccessIssue]


def precision(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The instant has no digits finer than the precision (NULL passes)."""
    import ibis
    import ibis.expr.datatypes as dt

    x = t[c.param("column")]
    epoch = ibis.literal(EPOCH, type=dt.Timestamp(timezone="UTC"))
    return x.isnull() | ((us_between(epoch, x) % PRECISION_US[str(c.param("precision"))]) == 0)


def invariant(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """The expression holds; its catalog forms reuse the matching catalog clause's join."""
    node = c.expr if c.expr is not None else parse_invariant(str(c.param("expr") or c.text))
    return ExprCompiler(t, cx.types, inline_catalog(cx, t, cat)).condition(node)


def _full_match(body: str, table: ir.Table) -> str:
    """A pattern body as a whole-value regex in the flavor of the table's backend (Java's `$`
    also matches before a final newline: Spark gets `\\z`; RE2 and PostgreSQL read `$`)."""
    from tacit_gen.sql.pattern import full_match

    return full_match(body, "java" if backend_name(table) == "pyspark" else "re2")
