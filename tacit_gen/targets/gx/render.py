"""Great Expectations 1.x target: one expectation-suite JSON per contract.

`gx/<contract>.json` is a GX 1.x suite (``{"name", "expectations", "meta"}``) that
``gx.ExpectationSuite(**json.load(f))`` accepts. Every expectation's ``meta`` carries the clause id
(``tacit_clause``) and the verbatim contract text (``tacit_text``); one clause may become several
expectations (a chain ``low <= open <= high`` is two pair expectations), all tagged with the same id.

Native expectations are preferred: they run on pandas and SQL alike. A clause no native expectation
expresses becomes an ``unexpected_rows_expectation`` (custom SQL, DuckDB dialect, SQL datasources
only); those are listed in the suite's ``meta.tacit_custom_sql``. The freshness query compares with
``current_timestamp``; `tacit-gen verify` pins it (see docs/engines/gx.md).

This module imports nothing from great_expectations: rendering and reading must stay fast.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen import sql
from tacit_gen.expr import nodes as n
from tacit_gen.sql import ident
from tacit_gen.sql.dialects import DIALECTS
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    NoOptions,
    RenderOptions,
    RenderResult,
    Unsupported,
    sql_projection,
)
from tacit_gen.targets.header import header_meta

if TYPE_CHECKING:

    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

NAME = "gx"
SEVERITY = "critical"
NOW_TOKEN = "current_timestamp"  # the freshness query's "now"; `verify` substitutes a pinned literal
CUSTOM_SQL = "unexpected_rows_expectation"

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


def type_list(type_text: str, dialect: str = "duckdb") -> list[str]:
    """The GX type list for a contract type (canonical type text) on a dialect."""
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
# numbers and literals


def json_number(text: str) -> int | float:
    """A contract number (decimal text) as a JSON number: int when integral text, else float."""
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def number_text(value: Any) -> str | None:
    """A JSON number back as decimal text (inverse of json_number for the texts it produces)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        d = Decimal(repr(value))
        text = format(d, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    if isinstance(value, str):
        return value
    return None


def _dec(text: str) -> Decimal:
    return Decimal(text)


def _sql_num(d: Decimal) -> str:
    text = format(d.normalize(), "f")
    return text


# ---------------------------------------------------------------------------------------------
# row conditions (GX 1.x condition objects, serialised as dicts)


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


def _exp(etype: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"type": etype, "kwargs": kwargs}


def _range_kwargs(column: str, lo: str | None, hi: str | None, lo_incl: bool, hi_incl: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {"column": column}
    if lo is not None:
        kw["min_value"] = json_number(lo)
        kw["strict_min"] = not lo_incl
    if hi is not None:
        kw["max_value"] = json_number(hi)
        kw["strict_max"] = not hi_incl
    return kw


def _num_text(node: n.Node) -> str | None:
    if isinstance(node, n.Number):
        return node.text
    if isinstance(node, n.Neg) and isinstance(node.operand, n.Number):
        return "-" + node.operand.text
    return None


def _pair(a: n.Node, op: str, b: n.Node) -> dict[str, Any]:
    """One comparison `a op b` (NULL passes) as a native expectation."""
    an, bn = _num_text(a), _num_text(b)
    if isinstance(a, n.Column) and isinstance(b, n.Column):
        if op == "=":
            return _exp("expect_column_pair_values_to_be_equal",
                        {"column_A": a.name, "column_B": b.name,
                         "ignore_row_if": "either_value_is_missing"})
        if op in ("<", "<="):
            a, b = b, a
        if op in ("<", "<=", ">", ">="):
            return _exp("expect_column_pair_values_a_to_be_greater_than_b",
                        {"column_A": a.name, "column_B": b.name, "or_equal": op in ("<=", ">="),
                         "ignore_row_if": "either_value_is_missing"})
        raise NoNative("no pair expectation for !=")
    lit = b if isinstance(a, n.Column) else a
    if (isinstance(a, n.Column) or isinstance(b, n.Column)) and op in ("=", "!=") and isinstance(
        lit, n.String | n.EnumLiteral | n.Bool
    ):
        col = _col(a) if isinstance(a, n.Column) else _col(b)
        etype = "expect_column_values_to_be_in_set" if op == "=" else "expect_column_values_to_not_be_in_set"
        return _exp(etype, {"column": col, "value_set": [_lit(lit)]})
    if isinstance(a, n.Column) and bn is not None:
        col, op2, num = a.name, op, bn
    elif isinstance(b, n.Column) and an is not None:
        col, op2, num = b.name, n.FLIPPED[op], an
    else:
        raise NoNative("comparison is not column-vs-column or column-vs-number")
    if op2 in (">", ">="):
        return _exp("expect_column_values_to_be_between", _range_kwargs(col, num, None, op2 == ">=", True))
    if op2 in ("<", "<="):
        return _exp("expect_column_values_to_be_between", _range_kwargs(col, None, num, True, op2 == "<="))
    if op2 == "=":
        return _exp("expect_column_values_to_be_in_set", {"column": col, "value_set": [json_number(num)]})
    return _exp("expect_column_values_to_not_be_in_set", {"column": col, "value_set": [json_number(num)]})


def native_invariant(expr: n.Node) -> list[dict[str, Any]]:
    """Native expectations for an invariant, or raise NoNative."""
    if isinstance(expr, n.Compare):
        return [_pair(a, op, b) for a, op, b in zip(expr.operands, expr.ops, expr.operands[1:], strict=False)]
    if isinstance(expr, n.And):
        return native_invariant(expr.left) + native_invariant(expr.right)
    if isinstance(expr, n.IsNull) and expr.negated:
        return [_exp("expect_column_values_to_not_be_null", {"column": _col(expr.operand)})]
    if isinstance(expr, n.IsNull):
        return [_exp("expect_column_values_to_be_null", {"column": _col(expr.operand)})]
    if isinstance(expr, n.InList):
        etype = "expect_column_values_to_not_be_in_set" if expr.negated else "expect_column_values_to_be_in_set"
        return [_exp(etype, {"column": _col(expr.operand), "value_set": [_lit(i) for i in expr.items]})]
    if isinstance(expr, n.Between) and not expr.negated:
        lo, hi = _num_text(expr.low), _num_text(expr.high)
        if lo is None or hi is None:
            raise NoNative("between bounds are not numbers")
        return [_exp("expect_column_values_to_be_between",
                     _range_kwargs(_col(expr.operand), lo, hi, True, True))]
    if isinstance(expr, n.OnlyWhen):
        # `A only when B`: a row violates when A is TRUE and B is FALSE.
        cond = _condition(_dnf_false(expr.right))
        left = expr.left
        if isinstance(left, n.IsNull):
            etype = ("expect_column_values_to_be_null" if left.negated
                     else "expect_column_values_to_not_be_null")
            return [_exp(etype, {"column": _col(left.operand), "row_condition": cond})]
        raise NoNative("the left side of `only when` is not `x is null` / `x is not null`")
    raise NoNative(f"no native form for {type(expr).__name__}")


BATCH = "__tacit_batch__"  # stands for GX's `{batch}` while the query is a sqlglot tree


def _batch(alias: str = "b") -> Any:
    from sqlglot import exp

    return exp.alias_(exp.to_table(BATCH), alias, table=True)


def _text(tree: Any, dialect: str) -> str:
    """One line of SQL with `{batch}` put back.

    GX substitutes a subquery for `{batch}` and aliases it itself (``AS subselect``) unless the
    query has a JOIN; then it writes ``({batch})`` bare and the query must alias it (PostgreSQL
    refuses an unaliased subquery in FROM). So `{batch}` is aliased exactly in join queries.
    """
    from sqlglot import exp

    if not tree.find(exp.Join):
        for t in tree.find_all(exp.Table):
            if t.name == BATCH:
                t.set("alias", None)
    return gx_query(sql.generate(tree, dialect))


# What SQLAlchemy's text() reads as a bind parameter (sqlalchemy.sql.compiler.BIND_PARAMS).
_SA_BIND = re.compile(r"(?<![:\w\x5c]):(\w+)(?!:)")


def gx_query(text: str) -> str:
    """SQL text as GX's `unexpected_rows_query`, with `BATCH` as `{batch}`.

    GX runs the query through `str.format` (every brace is a field: `'{batch}'` in a literal
    would be replaced by the batch, `'a{b'` fails the expectation) and then SQLAlchemy's
    `text()` (`:name` is a bind parameter): braces are doubled and such colons escaped (`\\:`),
    which each step turns back into the text the SQL means.
    """
    escaped = _SA_BIND.sub(lambda m: "\\:" + m.group(1), text.replace("{", "{{").replace("}", "}}"))
    # SQLAlchemy compiles text() through pyformat markers (`%(name)s`) even for numeric
    # paramstyles (duckdb_engine), without escaping: `%(` in a literal is split in two literals.
    escaped = _SQL_STRING.sub(lambda m: m.group(0).replace("%(", _PCT_SPLIT), escaped)
    return escaped.replace(BATCH, "{batch}")


_SQL_STRING = re.compile(r"'(?:[^']|'')*'")
_PCT_SPLIT = "%' || '("


def gx_unquery(query: str) -> str:
    """The SQL a `gx_query` text means (what GX and SQLAlchemy make of it)."""
    text = query.replace(_PCT_SPLIT, "%(").replace("{{", "\x00").replace("}}", "\x01")
    text = re.sub(r"\x5c:(\w)", r":\1", text)
    return text.replace("\x00", "{").replace("\x01", "}")


def decimal_type_query(column: str, precision: int, scale: int) -> str:
    """Rows whose column is not exactly DECIMAL(precision,scale) (DuckDB's typeof; DuckDB only:
    other dialects' type lists carry precision and scale)."""
    return f"SELECT * FROM {{batch}} WHERE typeof({ident(column)}) <> 'DECIMAL({precision},{scale})'"


_DECIMAL_QUERY = re.compile(r"^SELECT \* FROM \{batch\} WHERE typeof\((?P<col>.+)\) <> 'DECIMAL\((?P<p>\d+),(?P<s>\d+)\)'$")


def decimal_from_query(query: str) -> str | None:
    """The `decimal(p,s)` a decimal_type_query checks, or None."""
    m = _DECIMAL_QUERY.match(query)
    return f"decimal({m.group('p')},{m.group('s')})" if m else None


def _unexpected(query: str, description: str) -> dict[str, Any]:
    return _exp(CUSTOM_SQL, {"description": description, "unexpected_rows_query": query})


def invariant_query(expr: n.Node, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    cond = sql.condition(expr, dialect)
    q = exp.select(exp.Star()).from_(_batch()).where(exp.Not(this=exp.Paren(this=cond)))
    return _text(q, dialect)


def freshness_query(column: str, max_age_seconds: int, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    latest = sql.column("latest", "fresh")
    inner = (exp.select(exp.alias_(exp.Max(this=sql.column(column)), "latest"))
             .from_(_batch()).subquery("fresh"))
    edge = exp.Sub(this=exp.CurrentTimestamp(),
                   expression=exp.Interval(this=sql.string(str(max_age_seconds)),
                                           unit=exp.Var(this="SECOND")))
    q = exp.select(exp.Star()).from_(inner).where(
        exp.or_(sql.is_null(latest), exp.LT(this=latest.copy(), expression=edge)))
    return _text(q, dialect)


def cadence_query(clause: Clause, has_revision: bool, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    col = sql.column(clause.param("column"))
    series = [sql.column(s) for s in clause.param("series") or ()]
    tol = _dec(str(clause.param("tolerance_pct") or "0"))
    lo_f = Decimal(1000) * (Decimal(100) - tol) / Decimal(100)
    hi_f = Decimal(1000) * (Decimal(100) + tol) / Decimal(100)
    sel = [x.copy() for x in [*series, col]]
    # rows with a NULL time or series value are not points (not_null's business)
    present = exp.and_(*[sql.is_not_null(x.copy()) for x in [col, *series]])
    if has_revision:
        # rank(), not row_number(): every row at the latest revision counts, so an exact
        # duplicate of a point is a step of 0 (docs/architecture.md, cadence)
        rank = exp.Window(this=exp.Anonymous(this="rank"),
                          partition_by=[x.copy() for x in sel],
                          order=exp.Order(expressions=[exp.Ordered(this=sql.column("revision"),
                                                                   desc=True)]))
        pts = (exp.select(*[x.copy() for x in sel], exp.alias_(rank, "tacit_rn"))
               .from_(_batch()).where(present).subquery("pts"))
        latest = exp.select(*[x.copy() for x in sel]).from_(pts).where(
            exp.EQ(this=sql.column("tacit_rn"), expression=exp.Literal.number(1)))
    else:
        latest = exp.select(*[x.copy() for x in sel]).from_(_batch()).where(present)
    lag = sql.lag_over(col.copy(), [x.copy() for x in series], col.copy(), dialect)
    step = exp.Sub(this=sql.epoch_ms(col.copy(), dialect), expression=sql.epoch_ms(lag, dialect))
    steps = (exp.select(*[x.copy() for x in sel], exp.alias_(step, "tacit_step_ms"))
             .from_(latest.subquery("latest")).subquery("steps"))
    step_c = sql.column("tacit_step_ms", "steps")
    gaps = not clause.param("gaps_allowed")
    if clause.param("from_catalog"):
        if len(series) != 1:
            raise ValueError("a catalog cadence needs exactly one series column")
        icol = sql.column(clause.param("catalog_column"), "cat")
        cond: Any = exp.LT(this=step_c.copy(),
                           expression=exp.Mul(this=icol.copy(), expression=sql.number(_sql_num(lo_f))))
        if gaps:
            cond = exp.or_(cond, exp.GT(this=step_c.copy(), expression=exp.Mul(
                this=icol.copy(), expression=sql.number(_sql_num(hi_f)))))
        # a series with no catalog entry (or no interval) is a violation, never a silent pass
        on = exp.EQ(this=sql.column(clause.param("series")[0], "steps"),
                    expression=sql.column(clause.param("catalog_key"), "cat"))
        q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("steps")))
             .from_(steps)
             .join(exp.alias_(sql.relation(clause.param("relation")), "cat", table=True), on=on,
                   join_type="LEFT")
             .where(exp.or_(sql.is_null(icol.copy()), exp.Paren(this=cond))))
        return _text(q, dialect)
    interval = int(clause.param("interval_seconds"))
    cond = exp.LT(this=step_c.copy(), expression=sql.number(_sql_num(lo_f * interval)))
    if gaps:
        cond = exp.or_(cond, exp.GT(this=step_c.copy(),
                                    expression=sql.number(_sql_num(hi_f * interval))))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("steps")))
         .from_(steps).where(cond))
    return _text(q, dialect)


def _catalog_query(clause: Clause, bad: Any, dialect: str) -> str:
    from sqlglot import exp

    on = exp.EQ(this=sql.column(clause.param("key"), "b"),
                expression=sql.column(clause.param("catalog_key"), "cat"))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("b")))
         .from_(_batch())
         .join(exp.alias_(sql.relation(clause.param("relation")), "cat", table=True), on=on,
               join_type="LEFT")
         .where(exp.and_(sql.is_not_null(sql.column(clause.param("column"), "b")),
                         exp.Paren(this=exp.or_(
                             sql.is_null(sql.column(clause.param("catalog_key"), "cat")), bad)))))
    return _text(q, dialect)


def catalog_unit_query(clause: Clause, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    bad = exp.NullSafeNEQ(this=sql.column(clause.param("column"), "b"),
                          expression=sql.column(clause.param("catalog_column"), "cat"))
    return _catalog_query(clause, bad, dialect)


def catalog_bounds_query(clause: Clause, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    v = sql.column(clause.param("column"), "b")
    bad = exp.or_(exp.LT(this=v, expression=sql.column(clause.param("min_column"), "cat")),
                  exp.GT(this=v.copy(), expression=sql.column(clause.param("max_column"), "cat")))
    return _catalog_query(clause, bad, dialect)


def revision_window_query(clause: Clause, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    rev = sql.column(clause.param("column") or "revision")
    t, ing = sql.column(clause.param("time_column")), sql.column(clause.param("ingest_column"))
    base = [exp.GT(this=rev, expression=exp.Literal.number(0)), sql.is_not_null(t.copy()),
            sql.is_not_null(ing.copy())]
    bdays = clause.param("business_days")
    if bdays is not None:
        # Mon-Fri days after the event's UTC date up to the ingest's UTC date
        late: Any = exp.GT(
            this=exp.Sub(this=sql.weekdays_through(sql.utc_date(ing.copy(), dialect), dialect),
                         expression=sql.weekdays_through(sql.utc_date(t.copy(), dialect), dialect)),
            expression=exp.Literal.number(int(bdays)))
    else:
        window_ms = int(clause.param("window_seconds")) * 1000
        late = exp.GT(this=exp.Sub(this=sql.epoch_ms(ing.copy(), dialect),
                                   expression=sql.epoch_ms(t.copy(), dialect)),
                      expression=exp.Literal.number(window_ms))
    q = exp.select(exp.Star()).from_(_batch()).where(exp.and_(*base, late))
    return _text(q, dialect)


def expectations_for(clause: Clause, has_revision: bool, dialect: str = "duckdb") -> list[dict[str, Any]]:
    """The expectations (type + kwargs, no meta) for one clause.

    Raises:
        ValueError: the clause has no GX form (reported as Unsupported).
    """
    k = clause.kind
    p = clause.param
    if k == "column":
        out = [
            _exp("expect_column_to_exist", {"column": p("column")}),
            {**_exp("expect_column_values_to_be_in_type_list",
                    {"column": p("column"), "type_list": type_list(p("type"), dialect)}),
             "meta": {"tacit_type": p("type")}},
        ]
        m = re.fullmatch(r"decimal\((\d+),(\d+)\)", str(p("type")))
        if m and dialect not in _SQL_TYPES:
            # No type list carries precision and scale (see type_list), so a SQL datasource checks
            # them: DuckDB's typeof() names the exact DECIMAL(p,s). Custom SQL, flagged in meta.
            out.append(_unexpected(decimal_type_query(str(p("column")), int(m.group(1)), int(m.group(2))),
                                   f"{p('column')} is DECIMAL({m.group(1)},{m.group(2)})"))
        return out
    if k == "no_unknown_columns":
        return [_exp("expect_table_columns_to_match_set",
                     {"column_set": list(p("columns")), "exact_match": True})]
    if k == "not_null":
        return [_exp("expect_column_values_to_not_be_null", {"column": p("column")})]
    if k == "unique":
        cols = list(p("columns"))
        if len(cols) == 1:
            return [_exp("expect_column_values_to_be_unique", {"column": cols[0]})]
        return [_exp("expect_compound_columns_to_be_unique",
                     {"column_list": cols, "ignore_row_if": "never"})]
    if k == "accepted_values":
        return [_exp("expect_column_values_to_be_in_set",
                     {"column": p("column"), "value_set": list(p("values"))})]
    if k == "fixed_value":
        v = p("value")
        if isinstance(v, str) and not isinstance(v, bool):
            # decimals are kept as text in the plan; a numeric column compares with a number
            pass
        return [_exp("expect_column_values_to_be_in_set", {"column": p("column"), "value_set": [v]})]
    if k == "range":
        return [_exp("expect_column_values_to_be_between",
                     _range_kwargs(p("column"), p("min"), p("max"),
                                   bool(p("min_inclusive", True)), bool(p("max_inclusive", True))))]
    if k == "invariant":
        if clause.expr is None:
            raise ValueError("the invariant has no resolved expression")
        try:
            return native_invariant(clause.expr)
        except NoNative:
            pass
        try:
            return [_unexpected(invariant_query(clause.expr, dialect), f"rows violating: {p('expr')}")]
        except ValueError as e:
            raise ValueError(f"no SQL form: {e}") from e
    if k == "freshness":
        return [_unexpected(freshness_query(p("column"), int(p("max_age_seconds")), dialect),
                            f"latest {p('column')} older than {int(p('max_age_seconds'))} s")]
    if k == "cadence":
        return [_unexpected(cadence_query(clause, has_revision, dialect),
                            f"consecutive {p('column')} points off cadence")]
    if k == "catalog_unit":
        return [_unexpected(catalog_unit_query(clause, dialect),
                            f"{p('column')} differs from the catalog unit")]
    if k == "catalog_bounds":
        return [_unexpected(catalog_bounds_query(clause, dialect),
                            f"{p('column')} outside the catalog hard bounds")]
    if k == "revision_window":
        if not p("allowed"):
            return [_exp("expect_column_values_to_be_in_set",
                         {"column": p("column") or "revision", "value_set": [0]})]
        if p("ingest_column") and (p("window_seconds") is not None or p("business_days") is not None):
            return [_unexpected(revision_window_query(clause, dialect), "revisions outside the window")]
        raise ValueError("revisions are allowed but no window and ingest column to check")
    raise ValueError(f"unknown clause kind '{k}'")


def params_meta(clause: Clause) -> dict[str, Any]:
    """Clause params as JSON-able meta (kept for the reader to re-render custom SQL)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in clause.params}


# ---------------------------------------------------------------------------------------------
# the suite document


def _sorted(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in sorted(d)}


def build_expectation(exp: dict[str, Any], clause: Clause) -> dict[str, Any]:
    meta: dict[str, Any] = {"tacit_clause": clause.id, "tacit_text": clause.text, **exp.get("meta", {})}
    if exp["type"] == CUSTOM_SQL:
        meta["tacit_custom_sql"] = True
        meta["tacit_params"] = params_meta(clause)
        if NOW_TOKEN in exp["kwargs"]["unexpected_rows_query"].lower() and clause.kind == "freshness":
            meta["tacit_now"] = NOW_TOKEN
    return {
        "type": exp["type"],
        "kwargs": _sorted(exp["kwargs"]),
        "meta": _sorted(meta),
        "severity": SEVERITY,
    }


def suite_document(contract: Contract, clauses: tuple[Clause, ...],
                   dialect: str = "duckdb") -> tuple[dict[str, Any], list[Unsupported]]:
    has_revision = contract.field("revision") is not None
    expectations: list[dict[str, Any]] = []
    unsupported: list[Unsupported] = []
    custom: list[str] = []
    for clause in clauses:
        try:
            exps = expectations_for(clause, has_revision, dialect)
        except (ValueError, NoNative) as e:
            unsupported.append(Unsupported(NAME, clause.id, str(e)))
            continue
        for exp in exps:
            expectations.append(build_expectation(exp, clause))
            if exp["type"] == CUSTOM_SQL and clause.id not in custom:
                custom.append(clause.id)
    meta: dict[str, Any] = {
        "tacit_gen": header_meta(contract),
        "tacit_custom_sql": custom,
        "tacit_unsupported": [{"clause": u.clause_id, "reason": u.reason} for u in unsupported],
    }
    if dialect != "duckdb":
        meta["tacit_dialect"] = dialect
    name = contract.target_option(NAME, "suite") or contract.name
    return {"name": str(name), "expectations": expectations, "meta": meta}, unsupported


def dump(doc: dict[str, Any]) -> str:
    """Deterministic JSON: key order as built, indent 2, trailing newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


class GxTarget:
    """(The reader is bound in `target.py`.) Renderer and reader for GX 1.x expectation suites."""

    name = NAME
    options = NoOptions
    contract_keys = (
        ContractKey("suite", "Great Expectations suite name"),
        ContractKey("dialect", "SQL dialect of the target's queries and type names (default: the --dialect option, else the dbt adapter's, else duckdb)", kind="choice", choices=DIALECTS),
    )
    artifact_name_option = "suite"
    engine = "tacit_gen.targets.gx.engine"
    templates = False

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, plus invariant SQL in the dialect `options` give this target."""
        return sql_projection(clause, options.dialect_for(NAME, contract))

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"gx/{contract.name}.json",)

    def render(self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        doc, unsupported = suite_document(contract, clauses, options.dialect_for(NAME, contract))
        art = Artifact(self.artifact_paths(contract)[0], dump(doc))
        return RenderResult((art,), tuple(unsupported))



__all__ = ["GxTarget", "expectations_for", "type_list"]
