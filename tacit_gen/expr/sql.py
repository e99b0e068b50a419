"""Compile a resolved invariant AST to a boolean SQL expression for a dialect.

The result follows SQL CHECK semantics by construction: a row violates the invariant when
``NOT (<sql>)`` is TRUE; a NULL operand makes the expression UNKNOWN, and the row passes.
"""

from __future__ import annotations

import re

from tacit_gen.expr import nodes as n

BACKTICK_DIALECTS = frozenset({"bigquery", "databricks", "spark"})
DIALECTS = ("duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark")
RESERVED = frozenset(
    (
        "all", "and", "any", "as", "asc", "between", "by", "case", "cast", "check", "collate",
        "column", "constraint", "create", "cross", "current_date", "current_time",
        "current_timestamp", "current_user", "default", "desc", "distinct", "else", "end", "except",
        "false", "fetch", "for", "foreign", "from", "full", "grant", "group", "having", "in",
        "inner", "intersect", "interval", "into", "is", "join", "key", "lateral", "left", "like",
        "limit", "natural", "not", "null", "offset", "on", "or", "order", "outer", "over",
        "partition", "primary", "range", "references", "right", "rows", "select", "session_user",
        "some", "table", "then", "to", "true", "union", "unique", "user", "using", "value", "values",
        "when", "where", "window", "with",
    )
)
_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")


def ident(name: str, dialect: str = "duckdb") -> str:
    """A column or relation name, quoted only when it must be."""
    if _PLAIN.match(name) and name not in RESERVED:
        return name
    if dialect in BACKTICK_DIALECTS:
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


_CMP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def to_sql(node: n.Node, dialect: str = "duckdb") -> str:
    """The SQL text of a resolved expression (catalog forms are not expressions of one row)."""

    def val(x: n.Node) -> str:
        """An operand: a predicate used as a value is parenthesised (`(a = 0) = FALSE`)."""
        text = go(x)
        if isinstance(x, n.Compare | n.IsNull | n.InList | n.Between) and not text.startswith("("):
            return f"({text})"
        return text

    def go(x: n.Node) -> str:
        if isinstance(x, n.Column | n.Name):
            return ident(x.name, dialect)
        if isinstance(x, n.EnumLiteral):
            return literal(x.value)
        if isinstance(x, n.String):
            return literal(x.value)
        if isinstance(x, n.Number):
            return x.text if not x.text.startswith("-") else f"({x.text})"
        if isinstance(x, n.Bool):
            return "TRUE" if x.value else "FALSE"
        if isinstance(x, n.Neg):
            return f"(-{go(x.operand)})"
        if isinstance(x, n.BinOp):
            return f"({go(x.left)} {x.op} {go(x.right)})"
        if isinstance(x, n.Compare):
            parts = [
                f"{val(a)} {_CMP[op]} {val(b)}"
                for a, op, b in zip(x.operands, x.ops, x.operands[1:], strict=False)
            ]
            return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"
        if isinstance(x, n.IsNull):
            return f"{val(x.operand)} IS {'NOT ' if x.negated else ''}NULL"
        if isinstance(x, n.InList):
            items = ", ".join(val(i) for i in x.items)
            return f"{val(x.operand)} {'NOT ' if x.negated else ''}IN ({items})"
        if isinstance(x, n.Between):
            neg = "NOT " if x.negated else ""
            return f"{val(x.operand)} {neg}BETWEEN {val(x.low)} AND {val(x.high)}"
        if isinstance(x, n.And):
            return f"({go(x.left)} AND {go(x.right)})"
        if isinstance(x, n.Or):
            return f"({go(x.left)} OR {go(x.right)})"
        if isinstance(x, n.Not):
            return f"(NOT {go(x.operand)})"
        if isinstance(x, n.OnlyWhen):
            return f"(NOT ({go(x.left)}) OR {go(x.right)})"
        raise ValueError(f"{type(x).__name__} has no single-row SQL form")

    return go(node)
