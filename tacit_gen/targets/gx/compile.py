"""Great Expectations: a clause to its expectations (type + kwargs) through `RENDER`, one function
per kind, and the type lists.

The suite writer (`suite.py`) adds the meta every expectation carries; the invariant compiler is
`invariants.py` and the custom SQL `queries.py`. Imports nothing from great_expectations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tacit_gen import sql
from tacit_gen.expr import nodes as n
from tacit_gen.targets.gx.invariants import (
    NoNative,
    expectation,
    native_invariant,
    range_kwargs,
)
from tacit_gen.targets.gx.queries import (
    cadence_query,
    catalog_bounds_query,
    catalog_dimension_query,
    catalog_unit_query,
    completeness_query,
    decimal_type_query,
    freshness_query,
    invariant_query,
    precision_query,
    range_query,
    references_query,
    revision_by_query,
    revision_window_query,
    timestamp_tz_query,
    unexpected_rows,
)
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

NAME = "gx"
SEVERITY = "critical"
WARN_SEVERITY = "warning"  # GX's FailureSeverity for a `severity: warn` clause
NOW_TOKEN = "current_timestamp"  # the freshness query's "now"; `verify` substitutes a pinned literal

# Types: one expect_column_values_to_be_in_type_list per column whose list names the type for
# pandas (first entries) and for SQLAlchemy dialects (upper-case / class names). GX skips names a
# backend does not know, so one list works on both. The pandas names assume the frame convention
# of tacit_gen.targets.gx.engine.to_pandas (nullable Int32/Int64/boolean dtypes; str, Decimal, date and
# tz-aware Timestamp values in object columns, checked value by value). See docs/engines/gx.md.
_TS_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


# SQL-only dialects (the whole suite runs in the engine, never on pandas): the type names the
# dialect's SQLAlchemy reflection reports, precision and scale included (PostgreSQL: NUMERIC(18, 8),
# TIMESTAMP WITH TIME ZONE), so no custom SQL is needed for a decimal's precision.
_SQL_TYPES: dict[str, dict[str, list[str]]] = {
    "postgres": {"string": ["TEXT"], "bool": ["BOOLEAN"], "int32": ["INTEGER"],
                 "int64": ["BIGINT"], "float32": ["REAL"], "float64": ["DOUBLE PRECISION"],
                 "date": ["DATE"], "timestamp": ["TIMESTAMP WITH TIME ZONE"],
                 "decimal": ["NUMERIC({p}, {s})"]},
}


# Spark: the suite runs on a Spark dataframe, where GX tests `isinstance(field.dataType,
# getattr(pyspark.sql.types, name))`: class names, no precision (a decimal's precision and scale are
# checked by custom SQL on Spark's typeof()). TimestampNTZType is no TimestampType: a naive column fails.
_SPARK_TYPES: dict[str, list[str]] = {
    "string": ["StringType"], "bool": ["BooleanType"], "int32": ["IntegerType"],
    "int64": ["LongType"], "float32": ["FloatType"], "float64": ["DoubleType"],
    "date": ["DateType"], "timestamp": ["TimestampType"], "decimal": ["DecimalType"],
}


def type_list(type_text: str, dialect: str = "duckdb") -> list[str]:
    """The GX type list for a contract type (canonical type text) on a dialect."""
    if dialect == "spark":
        key = ("string" if type_text.startswith("enum[") else
               "timestamp" if type_text.startswith("timestamp_") else
               "decimal" if type_text.startswith("decimal(") else type_text)
        if key in _SPARK_TYPES:
            return list(_SPARK_TYPES[key])
        raise ValueError(f"no GX type list for type '{type_text}' on {dialect}")
    if dialect in _SQL_TYPES:
        table = _SQL_TYPES[dialect]
        m = re.fullmatch(r"decimal\((\d+),(\d+)\)", type_text)
        if m:
            return [t.format(p=m.group(1), s=m.group(2)) for t in table["decimal"]]
        key = ("string" if type_text.startswith("enum[") else
               "timestamp" if type_text.startswith("timestamp_") else type_text)
        if key in table:
            return list(table[key])
        raise ValueError(f"no GX type list for type '{type_text}' on {dialect}")
    return _duckdb_type_list(type_text)


def _duckdb_type_list(type_text: str) -> list[str]:
    """The list for DuckDB (pandas names first, then SQLAlchemy names)."""
    if type_text == "string":
        return ["str", "String", "VARCHAR", "TEXT"]
    if type_text.startswith("enum["):
        return ["str", "String", "VARCHAR", "TEXT", "Enum"]
    if type_text == "bool":
        return ["BooleanDtype", "Boolean", "BOOLEAN"]
    if type_text == "int32":
        return ["Int32Dtype", "INTEGER", "Integer", "INT"]
    if type_text == "int64":
        return ["Int64Dtype", "BIGINT", "BigInteger"]
    if type_text == "float32":
        return ["float32", "REAL", "FLOAT", "Float"]
    if type_text == "float64":
        return ["float64", "DOUBLE", "DOUBLE_PRECISION", "Double", "FLOAT", "Float"]
    if type_text == "date":
        return ["date", "Date", "DATE"]
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", type_text)
    if m:
        # No "DECIMAL(18,8)": numpy parses a comma in a type name as a record format and raises
        # ValueError (not TypeError), which aborts the whole expectation on pandas.
        return ["Decimal", "DECIMAL", "NUMERIC"]
    m = re.fullmatch(r"timestamp_(s|ms|us|ns)_utc", type_text)
    if m:
        digits = _TS_DIGITS[m.group(1)]
        return ["Timestamp", "TIMESTAMP", "DateTime", f"TIMESTAMP({digits}) WITH TIME ZONE"]
    raise ValueError(f"no GX type list for type '{type_text}'")


def type_from_list(
    types: Any, enum_values: tuple[str, ...] | None, meta_type: str | None = None
) -> str | None:
    """The contract type a rendered type list stands for, or None when it is not one of ours.

    A decimal's precision and scale are checked by no backend through GX (pandas sees Decimal
    objects, SQLAlchemy classes carry no precision in an isinstance test): they come from
    ``meta.tacit_type`` when that names a decimal.
    """
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        return None
    for key, names in _SPARK_TYPES.items():
        if types == names:
            if key == "decimal":
                return meta_type if meta_type and re.fullmatch(r"decimal\(\d+,\d+\)", meta_type) else "decimal"
            if key == "timestamp":
                return meta_type if meta_type and meta_type.startswith("timestamp_") else "timestamp_us_utc"
            if key == "string" and meta_type and meta_type.startswith("enum["):
                return "enum[" + ", ".join(enum_values) + "]" if enum_values else "enum[?]"
            return key
    for dialect in _SQL_TYPES:
        m = re.fullmatch(r"NUMERIC\((\d+), (\d+)\)", types[0]) if len(types) == 1 else None
        if m and types == type_list(f"decimal({m.group(1)},{m.group(2)})", dialect):
            return f"decimal({m.group(1)},{m.group(2)})"
        for cand in ("string", "bool", "int32", "int64", "float32", "float64", "date"):
            if types == type_list(cand, dialect):
                if cand == "string" and meta_type and meta_type.startswith("enum["):
                    return "enum[" + ", ".join(enum_values) + "]" if enum_values else "enum[?]"
                return cand
        if types == type_list("timestamp_us_utc", dialect):
            if meta_type and meta_type.startswith("timestamp_"):
                return meta_type
            return "timestamp_us_utc"
    candidates = ["string", "bool", "int32", "int64", "float32", "float64", "date"]
    candidates += [f"timestamp_{u}_utc" for u in _TS_DIGITS]
    for cand in candidates:
        if type_list(cand) == types:
            return cand
    if types[:5] == type_list("enum[a]") and len(types) == 5:
        return "enum[" + ", ".join(enum_values) + "]" if enum_values else "enum[?]"
    if types == type_list("decimal(1,0)"):
        if meta_type and re.fullmatch(r"decimal\(\d+,\d+\)", meta_type):
            return meta_type
        return "decimal"
    return None


# ---------------------------------------------------------------------------------------------
# clause -> expectations (the invariant compiler is invariants.py, the SQL queries.py)


def expectations_for(clause: Clause, has_revision: bool, dialect: str = "duckdb") -> list[dict[str, Any]]:
    """The expectations (type + kwargs, no meta) for one clause, through `RENDER`.

    Raises:
        ValueError: the clause has no GX form (reported as Unsupported).
    """
    rule = RENDER.get(clause.kind)
    if rule is None:
        raise ValueError(RENDER.unsupported.get(clause.kind, f"unknown clause kind '{clause.kind}'"))
    return rule(clause, has_revision, dialect)


# ---------------------------------------------------------------------------------------------
# one function per kind: (clause, whether the data has a revision column, dialect) -> its
# expectations; ValueError when this clause has no GX form

Expectations = list[dict[str, Any]]
Rule = Callable[["Clause", bool, str], Expectations]


def _column(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    p = clause.param
    out = [
        expectation("expect_column_to_exist", {"column": p("column")}),
        {**expectation("expect_column_values_to_be_in_type_list",
                       {"column": p("column"), "type_list": type_list(p("type"), dialect)}),
         "meta": {"tacit_type": p("type")}},
    ]
    m = re.fullmatch(r"decimal\((\d+),(\d+)\)", str(p("type")))
    if m and dialect not in _SQL_TYPES:
        # No type list carries precision and scale (see type_list), so a SQL datasource checks
        # them: DuckDB's typeof() names the exact DECIMAL(p,s). Custom SQL, flagged in meta.
        out.append(unexpected_rows(decimal_type_query(str(p("column")), int(m.group(1)), int(m.group(2)),
                                                      dialect),
                                   f"{p('column')} is DECIMAL({m.group(1)},{m.group(2)})"))
    if str(p("type")).startswith("timestamp_") and dialect == "duckdb":
        # The type list admits a naive TIMESTAMP on the SQL datasource (see timestamp_tz_query).
        out.append(unexpected_rows(timestamp_tz_query(str(p("column")), dialect),
                                   f"{p('column')} is TIMESTAMP WITH TIME ZONE"))
    return out


def _no_unknown_columns(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    return [expectation("expect_table_columns_to_match_set",
                        {"column_set": list(clause.param("columns")), "exact_match": True})]


def _not_null(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    return [expectation("expect_column_values_to_not_be_null", {"column": clause.param("column")})]


def _unique(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    cols = list(clause.param("columns"))
    if len(cols) == 1:
        return [expectation("expect_column_values_to_be_unique", {"column": cols[0]})]
    return [expectation("expect_compound_columns_to_be_unique",
                        {"column_list": cols, "ignore_row_if": "any_value_is_missing"})]


def _accepted_values(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    return [expectation("expect_column_values_to_be_in_set",
                        {"column": clause.param("column"), "value_set": list(clause.param("values"))})]


def _fixed_value(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    p = clause.param
    v = p("value")
    if isinstance(v, str) and clause.column_type(str(p("column"))) in ("float32", "float64"):
        # the plan keeps a number as its decimal text; GX compares a float column's values (on
        # pandas) with the set's items as they are, and "0.5" is no float: every row failed
        # (found 2026-12-04). A float32 value is one float32 holds (TG114), so exact.
        v = float(v)
    return [expectation("expect_column_values_to_be_in_set", {"column": p("column"), "value_set": [v]})]


def _range(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    p = clause.param
    if not natives_exact(clause):
        return [{**unexpected_rows(range_query(clause, dialect), f"{p('column')} outside its range"),
                 "meta": {"tacit_types": dict(clause.types)}}]
    return [expectation("expect_column_values_to_be_between",
                        range_kwargs(p("column"), p("min"), p("max"),
                                     bool(p("min_inclusive", True)), bool(p("max_inclusive", True))))]


def _pattern(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    from tacit_gen.sql.pattern import full_match

    flavor = "java" if dialect in ("spark", "databricks") else "python"  # natives: Spark, or pandas
    return [expectation("expect_column_values_to_match_regex",
                        {"column": clause.param("column"), "regex": full_match(clause.param("pattern"), flavor)})]


def _invariant(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    if clause.expr is None:
        raise ValueError("the invariant has no resolved expression")
    # GX's native expectations compare in the database's collation: an invariant that
    # orders strings is custom SQL on PostgreSQL, where that SQL says COLLATE "C"
    # and GX's natives take their numbers as floats: an invariant comparing a column with a
    # number a double does not keep for its type is custom SQL too (`natives_exact`)
    exact = natives_exact(clause)
    if exact and not (dialect == "postgres" and sql.orders_strings(clause.expr, clause.strings)):
        try:
            return native_invariant(clause.expr)
        except NoNative:
            pass
    try:
        custom = unexpected_rows(invariant_query(clause.expr, dialect, clause.integers, clause.strings,
                                                 clause.singles),
                                 f"rows violating: {clause.param('expr')}")
        return [custom if exact else {**custom, "meta": {"tacit_types": dict(clause.types)}}]
    except ValueError as e:
        raise ValueError(f"no SQL form: {e}") from e


def _freshness(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    p = clause.param
    return [unexpected_rows(freshness_query(p("column"), int(p("max_age_seconds")), dialect,
                                            bool(p("whole_days", False))),
                            f"latest {p('column')} older than {int(p('max_age_seconds'))} s")]


def _revision_window(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    p = clause.param
    if not p("allowed"):
        return [expectation("expect_column_values_to_be_in_set",
                            {"column": p("column") or "revision", "value_set": [0]})]
    if p("ingest_column") and (p("window_seconds") is not None or p("business_days") is not None):
        return [unexpected_rows(revision_window_query(clause, dialect), "revisions outside the window")]
    raise ValueError("revisions are allowed but no window and ingest column to check")


def _query(query: Callable[[Clause, str], str], describe: Callable[[Clause], str]) -> Rule:
    """A clause checked by custom SQL only: `query` the rows that fail, `describe` them."""
    def rule(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
        return [unexpected_rows(query(clause, dialect), describe(clause))]

    return rule


def _cadence(clause: Clause, has_revision: bool, dialect: str) -> Expectations:
    return [unexpected_rows(cadence_query(clause, has_revision, dialect),
                            f"consecutive {clause.param('column')} points off cadence")]


RENDER: KindTable[Rule] = KindTable("gx", "render", {
    "column": _column,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
    "pattern": _pattern,
    "references": _query(references_query, lambda c: (
        f"rows whose {c.param('column')} is not in {c.param('to_relation')}.{c.param('to_column')}")),
    "range": _range,
    "invariant": _invariant,
    "precision": _query(precision_query,
                        lambda c: f"{c.param('column')} finer than {c.param('precision')} precision"),
    "freshness": _freshness,
    "cadence": _cadence,
    "completeness": _query(completeness_query,
                           lambda c: f"series windows short of {c.param('expected')} readings"),
    "catalog_unit": _query(catalog_unit_query, lambda c: f"{c.param('column')} differs from the catalog unit"),
    "catalog_bounds": _query(catalog_bounds_query,
                             lambda c: f"{c.param('column')} outside the catalog hard bounds"),
    # the catalog_bounds query on the plausible columns; severity warning
    "plausible": _query(catalog_bounds_query,
                        lambda c: f"{c.param('column')} outside its series' plausible bounds"),
    "catalog_dimension": _query(catalog_dimension_query, lambda c: (
        f"a series whose catalog unit is not a unit of {c.param('dimension')}")),
    "revision_window": _revision_window,
    "revision_by": _query(revision_by_query,
                          lambda c: f"restated rows whose {c.param('column')} may not restate"),
})


def _column_numbers(node: n.Node) -> list[tuple[str, str]]:
    """(column, number) of every comparison of a column with a number literal in `node`."""
    out: list[tuple[str, str]] = []
    if isinstance(node, n.Compare):
        for a, b in zip(node.operands, node.operands[1:], strict=False):
            if isinstance(a, n.Column) and isinstance(b, n.Number):
                out.append((a.name, b.text))
            elif isinstance(b, n.Column) and isinstance(a, n.Number):
                out.append((b.name, a.text))
    elif isinstance(node, n.Between) and isinstance(node.operand, n.Column):
        out += [(node.operand.name, x.text) for x in (node.low, node.high) if isinstance(x, n.Number)]
    for child in n.children(node):
        out += _column_numbers(child)
    return out


def natives_exact(clause: Clause) -> bool:
    """Whether GX's native expectations decide `clause` exactly. Their bounds are floats (GX's
    ``Comparable`` is ``float``; an int is coerced), so the database compares the column with
    the rounded bound in double: exact only where `compares_in_double` says so. Elsewhere the
    clause is custom SQL with the contract's number (``i64 <= 9007199254740993`` failed the row
    at the bound, a decimal(38,20) 0.3 passed ``d > 0.3``; found 2026-12-03)."""
    from tacit_gen.expr.bounds import compares_in_double

    if clause.kind == "range":
        ctype = clause.column_type(str(clause.param("column")))
        return all(compares_in_double(str(b), ctype)
                   for b in (clause.param("min"), clause.param("max")) if b is not None)
    if clause.expr is None:
        return True
    return all(compares_in_double(num, clause.column_type(col))
               for col, num in _column_numbers(clause.expr))


def params_meta(clause: Clause) -> dict[str, Any]:
    """Clause params as JSON-able meta (kept for the reader to re-render custom SQL)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in clause.params}


