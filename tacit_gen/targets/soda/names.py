"""The Soda target's vocabulary: its name, check names, dataset, column types per dialect,
identifiers and literals, Jinja escaping."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tacit_gen import sql
from tacit_gen.plan_types import Clause

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

NAME = "soda"
SCHEMA_IDENTITY = "column:*"
UNKNOWN_COLUMNS_METRIC = "unknown_column_count"
CLAUSE_MARK = "-- tacit_clause: "
NOW_VARIABLE = "NOW"

# Contract type -> the type Soda's data source reports for the column (lower-cased
# information_schema data_type), per dialect. enum columns are strings in the data; their values
# are the accepted_values check's job. PostgreSQL reports `numeric` without precision and `text`.
SODA_TYPES: dict[str, dict[str, str]] = {
    "duckdb": {"string": "varchar", "bool": "boolean", "int32": "integer", "int64": "bigint",
               "float32": "float", "float64": "double", "date": "date",
               "timestamp": "timestamp with time zone", "decimal": "decimal({p},{s})"},
    "postgres": {"string": "text", "bool": "boolean", "int32": "integer", "int64": "bigint",
                 "float32": "real", "float64": "double precision", "date": "date",
                 "timestamp": "timestamp with time zone", "decimal": "numeric"},
    "spark": {"string": "string", "bool": "boolean", "int32": "int", "int64": "bigint",
              "float32": "float", "float64": "double", "date": "date",
              "timestamp": "timestamp", "decimal": "decimal({p},{s})"},
    "snowflake": {"string": "text", "bool": "boolean", "int32": "number", "int64": "number",
                  "float32": "float", "float64": "float", "date": "date",
                  "timestamp": "timestamp_tz", "decimal": "number"},
    "bigquery": {"string": "string", "bool": "bool", "int32": "int64", "int64": "int64",
                 "float32": "float64", "float64": "float64", "date": "date",
                 "timestamp": "timestamp", "decimal": "numeric"},
}
SODA_TYPES["databricks"] = SODA_TYPES["spark"]
TIMESTAMP_TZ = "timestamp with time zone"


def soda_type(contract_type: str, dialect: str = "duckdb") -> str:
    """The type text a schema check expects for a contract type on a dialect's data source."""
    table = SODA_TYPES[dialect]
    if contract_type in table:
        return table[contract_type]
    if contract_type.startswith("timestamp_"):
        return table["timestamp"]
    if contract_type.startswith("enum["):
        return table["string"]
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", contract_type.replace(" ", ""))
    if m:
        return table["decimal"].format(p=m.group(1), s=m.group(2))
    raise ValueError(f"no Soda type for '{contract_type}'")


# Names SodaCL's own parser reads as its words unless quoted (a time unit, a word of a check
# line): `missing_count(change) = 0` and `max(d) < 5` are syntax errors in soda-core 3.5 and the
# scan errors. SQL keywords among them (`for`, `and`, `in`, `filter` ...) are quoted by
# `sql.ident` already. Measured by scanning a DuckDB column of each name (tests/targets/soda).
SODACL_WORDS = frozenset({"d", "h", "m", "change", "last", "percent", "warn", "fail", "pass", "must",
                          "filter", "for", "and", "between", "not", "in", "with", "default", "group",
                          "is", "or"})


def ident(name: str, dialect: str = "duckdb") -> str:
    """An identifier of the dialect, quoted only when it must be (for the dialect, or for
    SodaCL's parser)."""
    if name in SODACL_WORDS:
        from sqlglot import exp

        return str(exp.Identifier(this=name, quoted=True).sql(dialect=sql.sqlglot_dialect(dialect)))
    return sql.ident(name, dialect)


def literal(value: str, dialect: str = "duckdb") -> str:
    """A SQL string literal of the dialect."""
    return sql.literal(value, dialect)


_JINJA_OPEN = re.compile(r"\$\{|\{%|\{#")


def jinja_escape(text: str) -> str:
    """Soda runs names and SQL through Jinja (`${var}`, `{% %}`, `{# #}`): keep openers literal."""
    return _JINJA_OPEN.sub(lambda m: "${'" + m.group(0) + "'}", text)


def check_name(clause: Clause, part: str = "") -> str:
    """A check's `name:`: ``<clause id>: <verbatim contract text>`` with whitespace normalised,
    so two checks from one contract line (``key: [order_id]`` gives not-null and unique) read
    apart. An invariant's id already is its text: the name is the id."""
    if clause.kind == "invariant":
        return jinja_escape(clause.id)
    return jinja_escape(f"{clause.id}{part}: {' '.join(clause.text.split())}")


def jinja_unescape(text: str) -> str:
    return re.sub(r"\$\{'(\$\{|\{%|\{#)'\}", lambda m: m.group(1), text)


def dataset_name(contract: Contract) -> str:
    """The Soda dataset: the contract name unless `targets: {soda: {dataset: ...}}` says otherwise."""
    return str(contract.target_option(NAME, "dataset", contract.name))


def artifact_path(contract: Contract) -> str:
    return f"soda/{contract.name}.yml"
