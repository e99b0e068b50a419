"""How a contract's names, values and types are spelled in a dbt properties file: data types per
adapter, Jinja-safe text, test names, identifiers, `ref()`, YAML numbers, and one data test entry.
Shared by the clause table (`properties.py`), the renderer, the reader and the engine."""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from tacit_gen.sql.types import column_type, is_key_not_null, key_not_null

if TYPE_CHECKING:
    from tacit_gen.contract.types import DataType
    from tacit_gen.plan_types import Clause

NAME = "dbt"
ADAPTERS = ("duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark")
DIALECT = {a: a for a in ADAPTERS}
# Adapters whose tables enforce no not_null constraint (dbt-spark on Parquet/Hive tables: only
# Delta takes ALTER ... SET NOT NULL): there the not_null clauses are always `not_null` data tests
# (whatever dbt.not_null says).
NOT_NULL_AS_TESTS = frozenset({"spark"})



_JINJA_OPENERS = ("{{", "{%", "{#")
_JINJA_WRAPPED = re.compile(r'^\{\{ (".*") \}\}$', re.S)
_SAFE_VALUE = re.compile(r"^[^'\\{}]*$")


def data_type(t: DataType, adapter: str = "duckdb") -> str:
    """The adapter's `data_type` text for a contract type: its dialect's column type
    (`tacit_gen.sql.types.column_type`; each adapter is the dialect of its name)."""
    return column_type(t, adapter)


_DOC_BLOCK = re.compile(r'^\{\{ doc\("[A-Za-z_][A-Za-z0-9_]*"\) \}\}$')


def description_safe(text: str) -> str:
    """A description for dbt: ``{{ doc("name") }}`` (exactly that form) passes through, so dbt
    renders the project's doc block; any other Jinja is neutralised (`jinja_safe`)."""
    if _DOC_BLOCK.match(text):
        return text
    return jinja_safe(text)


def jinja_safe(text: str) -> str:
    """dbt renders Jinja in descriptions, meta and test arguments: neutralise contract text.

    A string holding a Jinja opener becomes ``{{ "<json-escaped text>" }}``, which dbt renders
    back to the exact text; other strings are left as they are.
    """
    if "{" in text and any(o in text for o in _JINJA_OPENERS):
        return "{{ " + json.dumps(text, ensure_ascii=False) + " }}"
    return text


def jinja_safe_data(value: Any) -> Any:
    """`jinja_safe` over every string of a JSON-able value (x-* metadata)."""
    if isinstance(value, str):
        return jinja_safe(value)
    if isinstance(value, dict):
        return {k: jinja_safe_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jinja_safe_data(v) for v in value]
    return value


def jinja_unsafe(value: Any) -> Any:
    """Inverse of `jinja_safe` for values read back from a properties file."""
    if isinstance(value, str):
        m = _JINJA_WRAPPED.match(value)
        if m:
            try:
                decoded = json.loads(m.group(1))
            except ValueError:
                return value
            if isinstance(decoded, str):
                return decoded
    return value


def dbt_name(clause_id: str) -> str:
    """A clause id made a valid dbt (and file) name: ``range:volume`` -> ``range_volume``."""
    words = {"<=": "_le_", ">=": "_ge_", "!=": "_ne_", "<": "_lt_", ">": "_gt_", "=": "_eq_"}
    text = re.sub(r"<=|>=|!=|<|>|=", lambda m: words[m.group(0)], clause_id)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "clause"
    if slug[0].isdigit():
        slug = "c_" + slug
    if len(slug) > 60:
        digest = hashlib.sha1(clause_id.encode("utf-8")).hexdigest()[:8]
        slug = slug[:51].rstrip("_") + "_" + digest
    return slug


def ident(name: str, adapter: str = "duckdb") -> str:
    """A column or relation name as SQL, quoted only when it must be."""
    from tacit_gen.sql import ident as sql_ident

    return sql_ident(name, DIALECT.get(adapter, "duckdb"))


def unident(text: str) -> str:
    """Inverse of `ident`: ``"value"`` -> ``value``."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in '"`':
        q = t[0]
        return t[1:-1].replace(q + q, q)
    return t


MODEL_HOLE = "__tacit_model__"  # the tested model, put in by the tacit_completeness macro
OUTAGES_HOLE = "__tacit_outages__"  # the outages relation (the test's `outages` argument)
SESSIONS_HOLE = "__tacit_sessions__"  # per session: the sessions relation (`sessions`)
CATALOG_HOLE = "__tacit_calendar_catalog__"  # a per-series calendar: the catalog (`calendar_catalog`)


def completeness_sql(clause: Clause, dialect: str) -> str:
    """The series windows short of readings (`tacit_gen.sql.completeness`) in `dialect`, the
    model and the outages, sessions and catalog relations as holes the macro fills."""
    from tacit_gen.sql import relation
    from tacit_gen.sql.completeness import short_windows_sql, templated

    return templated("dbt.completeness", clause, dialect, None, lambda c, _: short_windows_sql(
        c, relation(MODEL_HOLE), dialect, relation(OUTAGES_HOLE), relation(SESSIONS_HOLE),
        relation(CATALOG_HOLE)))


def completeness_relations(p: dict[str, Any]) -> dict[str, str]:
    """The relations a completeness test reads besides its model, as `ref()` arguments: the
    outages (gap types allowed), the sessions (per session) and the catalog (a per-series
    calendar)."""
    out: dict[str, str] = {}
    if p.get("outages_relation") is not None:
        out["outages"] = relation_ref(p["outages_relation"])
    if p.get("window_seconds") is None and p.get("sessions_relation") is not None:
        out["sessions"] = relation_ref(p["sessions_relation"])
        if p.get("calendar_catalog") is not None:
            out["calendar_catalog"] = relation_ref(p["calendar_catalog"])
    return out


def relation_ref(relation: str) -> str:
    """``ref('<relation>')`` with the name as a Jinja string literal."""
    if re.match(r"^[A-Za-z0-9_.\-]+$", relation):
        return f"ref('{relation}')"
    return "ref(" + json.dumps(relation, ensure_ascii=False) + ")"


def session_args(p: dict[str, Any], adapter: str) -> dict[str, Any]:
    """The sessions relation and its columns, and the calendar code, as test arguments."""
    if p.get("sessions_relation") is None:
        return {}
    args = {"calendar": p["calendar"], "sessions_relation": relation_ref(p["sessions_relation"]),
            **{k: ident(p[k], adapter) for k in ("sessions_calendar", "sessions_session",
                                                 "sessions_open", "sessions_close")}}
    if p.get("calendar_catalog") is not None:  # a per-series calendar: the catalog names each code
        args["calendar_catalog"] = relation_ref(p["calendar_catalog"])
        args.update({k: ident(p[k], adapter) for k in ("calendar_catalog_key", "calendar_catalog_column",
                                                       "calendar_series")})
    return args


def yaml_number(text: str) -> int | float | str:
    """A decimal text as the YAML scalar that keeps it exactly (int, float, or the text).

    An integer past int64 stays text: dbt stores test arguments in its msgpack manifest, which
    refuses it ("OverflowError: Integer value out of range": no run_results.json, every test of
    the project errored; found 2026-12-03). Jinja prints the text into the SQL as the number."""
    if re.match(r"^-?\d+$", text):
        return int(text) if -(2**63) <= int(text) < 2**63 else text
    try:
        f = float(text)
        # a float Python prints in exponent form (1e-05) reaches the SQL as a double literal,
        # which compares a decimal column in double: the text keeps the exact decimal
        if Decimal(repr(f)) == Decimal(text) and "e" not in repr(f):
            return f
    except (ValueError, InvalidOperation):
        pass
    return text


def sql_literal(value: str) -> str:
    """A SQL string literal (DuckDB's spelling: quotes doubled; see `tacit_gen.sql.literal`)."""
    from tacit_gen.sql import literal

    return literal(value)


def _meta(clause: Clause) -> dict[str, Any]:
    return {"meta": {"tacit_clause": jinja_safe(clause.id), "tacit_text": jinja_safe(clause.text)}}


def unique_where(columns: list[str]) -> str:
    """The `where:` of a compound `unique:` test: the rows whose key holds no NULL
    (`tacit_gen.sql.types.key_not_null`)."""
    return key_not_null(columns)


def is_unique_where(where: Any, columns: list[str]) -> bool:
    """Whether a test's `where:` is the compound `unique:` test's own (`unique_where`), spacing
    and case aside: the key's SQL UNIQUE semantics, not a weakening."""
    return is_key_not_null(where, columns)


def make_test(kind: str, clause: Clause, name: str, args: dict[str, Any],
              inline: bool = False) -> dict[str, Any]:
    """One data test entry: `{kind: {name, arguments, config}}` (dbt < 1.10: `inline` arguments)."""
    body: dict[str, Any] = {"name": name}
    if args and inline:  # dbt < 1.10: arguments beside name and config
        body.update(args)
    elif args:
        body["arguments"] = args
    config = _meta(clause)
    if clause.warn:  # dbt reports the test as `warn`, and the build goes on
        config["severity"] = "warn"
    body["config"] = config
    return {kind: body}


def values_arg(values: list[Any], col_type: DataType | None) -> tuple[list[Any], bool]:
    """Accepted values as YAML plus whether dbt must quote them.

    Booleans and numbers are passed unquoted (dbt would otherwise render ``'False'``); strings
    that dbt's accepted_values would not escape are passed as ready SQL literals, unquoted.
    """
    if all(isinstance(v, bool) for v in values):
        return list(values), False
    if col_type is not None and col_type.is_numeric:
        return [yaml_number(str(v)) for v in values], False
    strs = [str(v) for v in values]
    if all(_SAFE_VALUE.match(s) for s in strs):
        return strs, True
    return [jinja_safe(sql_literal(s)) for s in strs], False
