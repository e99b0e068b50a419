"""A warehouse column type (dbt `data_type`, a catalog.json type, an ODCS `physicalType`) as a
contract type, per adapter; or why it has none. Never a guess: a type the table does not name
exactly (a naive timestamp, an unbounded numeric, json) has no contract type.
"""

from __future__ import annotations

import re

ADAPTERS = ("duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark")

# Spellings that mean the same on every adapter.
_COMMON: dict[str, str] = {
    "text": "string",
    "varchar": "string",
    "string": "string",
    "character varying": "string",
    "nvarchar": "string",
    "char": "string",
    "character": "string",
    "bpchar": "string",
    "boolean": "bool",
    "bool": "bool",
    "integer": "int32",
    "int": "int32",
    "int4": "int32",
    "smallint": "int32",
    "int2": "int32",
    "tinyint": "int32",
    "bigint": "int64",
    "int8": "int64",
    "long": "int64",
    "real": "float32",
    "float4": "float32",
    "double": "float64",
    "double precision": "float64",
    "float8": "float64",
    "date": "date",
    "timestamptz": "timestamp_us_utc",
    "timestamp with time zone": "timestamp_us_utc",
}

# Per adapter: spellings whose meaning is the adapter's own (FLOAT is 4 bytes in DuckDB and Spark,
# 8 in PostgreSQL and Snowflake; TIMESTAMP is an instant in BigQuery and Spark, naive elsewhere;
# a bare DECIMAL has the adapter's default precision).
_ADAPTER: dict[str, dict[str, str]] = {
    "duckdb": {"float": "float32", "decimal": "decimal(18,3)", "numeric": "decimal(18,3)"},
    "postgres": {"float": "float64"},
    "snowflake": {
        "float": "float64", "double": "float64", "real": "float64", "float4": "float64",
        "number": "decimal(38,0)", "decimal": "decimal(38,0)", "numeric": "decimal(38,0)",
        "integer": "int64", "int": "int64", "smallint": "int64", "tinyint": "int64",
        "timestamp_tz": "timestamp_ns_utc", "timestamp_ltz": "timestamp_ns_utc",
    },
    "bigquery": {
        "int64": "int64", "integer": "int64", "int": "int64", "float64": "float64",
        "numeric": "decimal(38,9)", "decimal": "decimal(38,9)", "timestamp": "timestamp_us_utc",
    },
    "databricks": {"float": "float32", "decimal": "decimal(10,0)", "timestamp": "timestamp_us_utc"},
}
_ADAPTER["spark"] = _ADAPTER["databricks"]

_NAIVE = re.compile(r"^(timestamp|datetime|timestamp without time zone|timestamp_ntz|"
                    r"timestamp_[smun]s?)(\(\d+\))?$")
_DECIMAL = re.compile(r"^(?:decimal|numeric|number|bignumeric)\((\d+)(?:,(\d+))?\)$")
_SIZED = re.compile(r"^(varchar|character varying|char|character|nvarchar|string|text|bpchar)\(\d+\)$")
_TZ_PRECISION = re.compile(r"^(timestamptz|timestamp with time zone|timestamp_tz|timestamp_ltz)"
                           r"\((\d)\)$|^timestamp\((\d)\) with time zone$")
_PRECISION_UNIT = {0: "s", 1: "ms", 2: "ms", 3: "ms", 4: "us", 5: "us", 6: "us", 7: "ns", 8: "ns",
                   9: "ns"}


def normalise(text: str) -> str:
    """Lower case, single spaces, no spaces around parentheses and commas."""
    t = re.sub(r"\s+", " ", str(text).strip().lower())
    return re.sub(r"\s*([(),])\s*", r"\1", t)


def contract_type(text: str | None, adapter: str) -> tuple[str | None, str]:
    """The contract type a warehouse type holds on `adapter`, or None and why.

    Args:
        text: the type as written (``numeric(9,3)``, ``TIMESTAMP WITH TIME ZONE``).
        adapter: one of ``ADAPTERS``.

    Returns:
        ``(type, "")`` or ``(None, reason)``.
    """
    if text is None or not str(text).strip():
        return None, "no type"
    t = normalise(text)
    own = _ADAPTER.get(adapter, {})
    if t in own:
        return own[t], ""
    if t in _COMMON:
        return _COMMON[t], ""
    m = _DECIMAL.match(t)
    if m:
        p, s = int(m.group(1)), int(m.group(2) or 0)
        if not 1 <= p <= 38 or s > p:
            return None, f"{text}: precision 1..38 and scale <= precision is what a contract holds"
        return f"decimal({p},{s})", ""
    if _SIZED.match(t):
        return "string", ""
    m = _TZ_PRECISION.match(t)
    if m:
        digits = int(m.group(2) or m.group(3))
        return f"timestamp_{_PRECISION_UNIT[digits]}_utc", ""
    if t in ("decimal", "numeric", "number"):
        return None, f"{text} without precision and scale is unbounded on {adapter}"
    if _NAIVE.match(t):
        return None, (f"{text} is a naive timestamp on {adapter}; a contract timestamp is a UTC "
                      "instant (timestamp with time zone)")
    return None, f"{text} has no contract type"
