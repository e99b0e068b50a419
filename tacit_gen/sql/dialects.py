"""The SQL dialects tacit-gen generates for, and the sqlglot dialect classes that print them.

One table per difference (sqlglot's own model): which sqlglot dialect a name maps to, which dbt
adapter implies which dialect. Printing goes through a subclass of each sqlglot dialect whose only
change is to write ``x IS NOT NULL`` / ``x NOT IN (...)`` / ``x NOT BETWEEN ...`` (sqlglot prints
``NOT x IS NULL``: the same meaning, but not what a reviewer expects to read in an artifact).
"""

from __future__ import annotations

from functools import cache
from typing import Any

DIALECTS = ("duckdb", "postgres", "spark", "databricks", "snowflake", "bigquery")
"""Every dialect tacit-gen writes SQL for."""

SQLGLOT_NAME = {
    "duckdb": "duckdb",
    "postgres": "postgres",
    "spark": "spark",
    "databricks": "databricks",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
}
# The dialect a dbt adapter's SQL is written in.
ADAPTER_DIALECT = {
    "duckdb": "duckdb",
    "postgres": "postgres",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "databricks": "databricks",
    "spark": "spark",
}
# Dialects whose string literals treat a backslash as an escape character (sqlglot escapes it).
BACKSLASH_ESCAPES = frozenset({"spark", "databricks", "snowflake", "bigquery"})
# Dialects whose quoted identifiers use backticks.
BACKTICK = frozenset({"spark", "databricks", "bigquery"})


class UnknownDialect(ValueError):
    """A dialect name tacit-gen does not generate for."""


def check_dialect(name: str) -> str:
    """`name` when it is one of `DIALECTS`, else UnknownDialect naming the choices."""
    if name not in SQLGLOT_NAME:
        raise UnknownDialect(f"unknown SQL dialect {name!r}: expected one of {', '.join(DIALECTS)}")
    return name


def _not_sql(base: Any) -> Any:
    """`not_sql` of a generator class: negated IS NULL / IN / BETWEEN read as written."""
    from sqlglot import exp

    def not_sql(self: Any, expression: Any) -> str:
        this = expression.this
        if isinstance(this, exp.Is) and isinstance(this.expression, exp.Null):
            return f"{self.sql(this, 'this')} IS NOT NULL"
        if isinstance(this, exp.In) and this.expressions and not this.args.get("query"):
            return f"{self.sql(this, 'this')} NOT IN ({self.expressions(this, flat=True)})"
        if isinstance(this, exp.Between):
            return (f"{self.sql(this, 'this')} NOT BETWEEN {self.sql(this, 'low')} "
                    f"AND {self.sql(this, 'high')}")
        return str(base.not_sql(self, expression))

    return not_sql


@cache
def sqlglot_dialect(name: str) -> Any:
    """The sqlglot Dialect instance that prints `name` (tacit-gen's printing of negations)."""
    from sqlglot.dialects.dialect import Dialect

    base: Any = type(Dialect.get_or_raise(SQLGLOT_NAME[check_dialect(name)]))
    generator = type("Generator", (base.Generator,), {"not_sql": _not_sql(base.Generator)})
    cls = type(f"Tacit{base.__name__}", (base,), {"Generator": generator})
    return cls()


__all__ = ["ADAPTER_DIALECT", "BACKSLASH_ESCAPES", "BACKTICK", "DIALECTS", "UnknownDialect",
           "check_dialect", "sqlglot_dialect"]
