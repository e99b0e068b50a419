"""Column types as each SQL dialect names them in DDL, and the predicate of a key's rows that
hold no NULL: what the dbt properties' `data_type` and `unique` tests, the ODCS export's physical
types and `import dbt` (reading those tests back) share. Imports nothing heavy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.contract.types import DataType

# Contract type -> the dialect's column type (enum is the string type; timestamps are tz-aware).
_TYPES: dict[str, dict[str, str]] = {
    "duckdb": {
        "string": "varchar",
        "bool": "boolean",
        "int32": "integer",
        "int64": "bigint",
        "float32": "float",
        "float64": "double",
        "date": "date",
        "timestamp": "timestamptz",
        "decimal": "decimal({p},{s})",
    },
    "postgres": {
        "string": "text",
        "bool": "boolean",
        "int32": "integer",
        "int64": "bigint",
        "float32": "real",
        "float64": "double precision",
        "date": "date",
        "timestamp": "timestamp with time zone",
        "decimal": "numeric({p},{s})",
    },
    "snowflake": {
        "string": "varchar",
        "bool": "boolean",
        "int32": "integer",
        "int64": "bigint",
        "float32": "float",
        "float64": "float",
        "date": "date",
        "timestamp": "timestamp_tz",
        "decimal": "number({p},{s})",
    },
    "bigquery": {
        "string": "string",
        "bool": "bool",
        "int32": "int64",
        "int64": "int64",
        "float32": "float64",
        "float64": "float64",
        "date": "date",
        "timestamp": "timestamp",
        "decimal": "numeric({p},{s})",
    },
    "databricks": {
        "string": "string",
        "bool": "boolean",
        "int32": "int",
        "int64": "bigint",
        "float32": "float",
        "float64": "double",
        "date": "date",
        "timestamp": "timestamp",
        "decimal": "decimal({p},{s})",
    },
}
# Spark and Databricks name types alike (both are Spark SQL).
_TYPES["spark"] = _TYPES["databricks"]


def column_type(t: DataType, dialect: str = "duckdb") -> str:
    """The column type `dialect` declares for a contract type, lower case (``decimal(9,3)``,
    ``timestamptz`` on DuckDB, ``bignumeric(38,10)`` on BigQuery past ``numeric``'s digits)."""
    table = _TYPES[dialect]
    if t.kind == "enum":
        return table["string"]
    if t.kind == "decimal":
        if dialect == "bigquery" and (
            (t.scale or 0) > 9 or (t.precision or 0) - (t.scale or 0) > 29
        ):
            return f"bignumeric({t.precision},{t.scale})"
        return table["decimal"].format(p=t.precision, s=t.scale)
    return table[t.kind]


def key_not_null(columns: list[str]) -> str:
    """The rows whose key holds no NULL: ``a is not null and b is not null`` (a compound key's
    SQL UNIQUE semantics: a row with a NULL in its key is no duplicate)."""
    return " and ".join(f"{c} is not null" for c in columns)


def is_key_not_null(where: Any, columns: list[str]) -> bool:
    """Whether `where` is `key_not_null` of `columns`, spacing and case aside."""
    return " ".join(str(where).split()).lower() == key_not_null(columns).lower()
