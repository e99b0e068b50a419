"""dbt target: a properties YAML per contract (enforced model contract + data tests) and a shared
macros file of generic tests for the clauses dbt has no built-in test for.

Layout under the output root (dbt takes both folders as they are: ``dbt/`` in `model-paths`,
``dbt_macros/`` in `macro-paths`)::

    dbt/<contract>.yml             model properties: contract, columns, constraints, data_tests
    dbt_macros/tacit_tests.sql     generic tests (time series, catalog, native replacements)

The macros file does not depend on the contract: every contract renders it byte-identical. Test
names carry the model (``orders__range_amount``). The YAML form follows the dbt version: from
1.10, ``data_tests:`` with ``arguments:``; 1.8-1.9 ``data_tests:`` and 1.7 ``tests:``, with the
arguments inline.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import yaml

from tacit_gen.plan_types import make_params, uses_sessions
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    RenderOptions,
    RenderResult,
    Unsupported,
    flag,
    float_fixed,
    sql_projection,
)
from tacit_gen.targets.header import GENERATED_MARK, comment_header, plain_value
from tacit_gen.yamltext import BlockWriter

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.contract.types import DataType
    from tacit_gen.plan_types import Clause

NAME = "dbt"
MACROS_FILE = "tacit_tests.sql"
MACROS_PATH = "dbt_macros/" + MACROS_FILE  # the default, under the output root
LEGACY_MACROS_PATH = "dbt/macros/" + MACROS_FILE  # earlier releases: inside dbt/ (a model folder)
NEWEST_FORM = (1, 10)
ADAPTERS = ("duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark")
TEST_STYLES = ("dbt_utils", "native")
NOT_NULL_MODES = ("constraint", "test", "both")


def properties_yaml(data: Any) -> str:
    """The properties file's YAML through PyYAML (libyaml's emitter where installed)."""
    return yaml.dump(
        data,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),  # libyaml's emitter: same text, faster
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
        default_flow_style=False,
    )


# The same text written directly where it can (the representer was a tenth of a render).
_WRITER = BlockWriter(properties_yaml, indentless=True)


@dataclass(frozen=True)
class DbtOptions:
    """How the dbt properties are written: the `--dbt-*` flags, or `[dbt]` in tacit-gen.toml."""

    adapter: str = field(default="duckdb", metadata=flag(
        "--dbt-adapter", "The warehouse the model runs on (column data types, SQL dialect). "
        "[settings: dbt.adapter; default: duckdb]", ADAPTERS))
    tests: str = field(default="dbt_utils", metadata=flag(
        "--dbt-tests", "dbt_utils generic tests, or self-contained ones in the generated macros "
        "file. [settings: dbt.tests; default: dbt_utils]", TEST_STYLES))
    not_null: str = field(default="constraint", metadata=flag(
        "--dbt-not-null", "not_null as a model constraint (fails the build), a test (failure "
        "counts), or both. [settings: dbt.not_null; default: constraint]", NOT_NULL_MODES))
    version: str | None = field(default=None, metadata=flag(
        "--dbt-version", "The dbt-core the YAML is for: 1.10+ data_tests with arguments:, 1.8-1.9 "
        "data_tests, 1.7 tests, arguments inline. [settings: dbt.version; default: the installed "
        "dbt-core's, else the newest]"))
    macros: str = field(default="dbt_macros", metadata=flag(
        "--dbt-macros", "Folder of the generic-test macros (for macro-paths), relative to the "
        "output root. [settings: dbt.macros; default: OUT/dbt_macros]"))

    @property
    def sql_dialect(self) -> str:
        """The SQL dialect of the adapter (also the default of targets that take `--dialect`)."""
        from tacit_gen.sql.dialects import ADAPTER_DIALECT

        return ADAPTER_DIALECT.get(self.adapter, "duckdb")

    def for_engine(self, backend: str) -> DbtOptions:
        """These options as `verify`'s engine on `backend` reads the artifacts: the macros at the
        default place and, on PostgreSQL and Spark, the backend's adapter (on DuckDB, the adapter
        set: its SQL runs there as written)."""
        adapter = backend if backend in ("postgres", "spark") else self.adapter
        return replace(self, adapter=adapter, macros="dbt_macros")

_DIALECT = {a: a for a in ADAPTERS}
# Adapters whose tables enforce no not_null constraint (dbt-spark on Parquet/Hive tables: only
# Delta takes ALTER ... SET NOT NULL): there the not_null clauses are always `not_null` data tests
# (whatever dbt.not_null says).
NOT_NULL_AS_TESTS = frozenset({"spark"})

# Canonical type -> adapter data_type (enum is the string type; timestamps are tz-aware).
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
# dbt-spark and dbt-databricks name types alike (both are Spark SQL).
_TYPES["spark"] = _TYPES["databricks"]


_JINJA_OPENERS = ("{{", "{%", "{#")
_JINJA_WRAPPED = re.compile(r'^\{\{ (".*") \}\}$', re.S)
_SAFE_VALUE = re.compile(r"^[^'\\{}]*$")


# ---------------------------------------------------------------------------------------------
# helpers shared with the reader and the engine


def data_type(t: DataType, adapter: str = "duckdb") -> str:
    """The adapter's `data_type` text for a contract type."""
    table = _TYPES[adapter]
    if t.kind == "enum":
        return table["string"]
    if t.kind == "decimal":
        if adapter == "bigquery" and (
            (t.scale or 0) > 9 or (t.precision or 0) - (t.scale or 0) > 29
        ):
            return f"bignumeric({t.precision},{t.scale})"
        return table["decimal"].format(p=t.precision, s=t.scale)
    return table[t.kind]


_DOC_BLOCK = re.compile(r'^\{\{ doc\("[A-Za-z_][A-Za-z0-9_]*"\) \}\}$')


def description_safe(text: str) -> str:
    """A description for dbt: ``{{ doc("name") }}`` (exactly that form) passes through, so dbt
    renders the project's doc block; any other Jinja is neutralised (`jinja_safe`)."""
    if _DOC_BLOCK.match(text):
        return text
    return jinja_safe(text)


def version_form(version: str | None) -> tuple[int, int]:
    """(major, minor) of a dbt version text (None: the newest form)."""
    if not version:
        return NEWEST_FORM
    m = re.match(r"^(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else NEWEST_FORM


def macros_path(options: RenderOptions) -> str:
    """Where the macros file goes, relative to the output root."""
    return f"{options.get(DbtOptions).macros.rstrip('/')}/{MACROS_FILE}"


def jinja_safe(text: str) -> str:
    """dbt renders Jinja in descriptions, meta and test arguments: neutralise contract text.

    A string holding a Jinja opener becomes ``{{ "<json-escaped text>" }}``, which dbt renders
    back to the exact text; other strings are left as they are.
    """
    if "{" in text and any(o in text for o in _JINJA_OPENERS):
        return "{{ " + json.dumps(text, ensure_ascii=False) + " }}"
    return text


def _jinja_safe_data(value: Any) -> Any:
    """`jinja_safe` over every string of a JSON-able value (x-* metadata)."""
    if isinstance(value, str):
        return jinja_safe(value)
    if isinstance(value, dict):
        return {k: _jinja_safe_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jinja_safe_data(v) for v in value]
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

    return sql_ident(name, _DIALECT.get(adapter, "duckdb"))


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


def _session_args(p: dict[str, Any], adapter: str) -> dict[str, Any]:
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


def model_name(contract: Contract) -> str:
    """The dbt model the properties describe."""
    name = contract.target_option("dbt", "model")
    return str(name) if name else contract.name


def _template(name: str, options: RenderOptions) -> str:
    """A template file (see `tacit_gen.targets.templates` for the lookup order)."""
    from tacit_gen.targets.templates import read_template

    return read_template(NAME, name, options)


def templates_root() -> Path:
    """The folder holding the shipped dbt templates (wheel `_templates`, else repo `templates`)."""
    from tacit_gen.targets.templates import packaged_root

    return packaged_root(NAME)


def macros_text(options: RenderOptions) -> str:
    """The shared macros file: a contract-free header plus the generic tests."""
    head = (
        f"-- {GENERATED_MARK}: generic tests shared by every tacit-gen dbt model.\n"
        "-- Do not edit: re-render with tacit-gen.\n"
    )
    return head + _template("tacit_tests.sql", options)


# ---------------------------------------------------------------------------------------------
# rendering


def _meta(clause: Clause) -> dict[str, Any]:
    return {"meta": {"tacit_clause": jinja_safe(clause.id), "tacit_text": jinja_safe(clause.text)}}


def unique_where(columns: list[str]) -> str:
    """The `where:` of a compound `unique:` test: the rows whose key holds no NULL."""
    return " and ".join(f"{c} is not null" for c in columns)


def is_unique_where(where: Any, columns: list[str]) -> bool:
    """Whether a test's `where:` is the compound `unique:` test's own (`unique_where`), spacing
    and case aside: the key's SQL UNIQUE semantics, not a weakening."""
    return " ".join(str(where).split()).lower() == unique_where(columns).lower()


def _make_test(kind: str, clause: Clause, name: str, args: dict[str, Any],
               inline: bool = False) -> dict[str, Any]:
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


def _values(values: list[Any], col_type: DataType | None) -> tuple[list[Any], bool]:
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


class DbtTarget:
    """(The reader is bound in `target.py`.) Renderer and reader of dbt model properties."""

    name = NAME
    options = DbtOptions
    contract_keys = (ContractKey("model", "dbt model name"),)
    artifact_name_option = "model"
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.dbt.engine", ("dbt",), "dbt", cost=60, batch=True, warm=True),
        "postgres": Engine("tacit_gen.targets.dbt.engine", ("dbt", "psycopg2"), "postgres", cost=60,
                           batch=True, warm=True),
        "spark": Engine("tacit_gen.targets.dbt.spark", ("dbt", "pyspark"), cost=60, session=True),
    }
    templates = True

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"dbt/{contract.name}.yml", MACROS_PATH)  # the macros path with default options

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, invariant SQL in the adapter's dialect (what the reader returns)."""
        if clause.kind in ("cadence", "revision_window") and (
                clause.param("calendar_catalog") is not None
                or (clause.kind == "cadence" and clause.param("from_catalog")
                    and uses_sessions(clause))):
            return None
        if clause.kind == "completeness":  # the test carries its SQL (tacit_gen.sql.completeness)
            return replace(clause, params=make_params(
                sql=completeness_sql(clause, options.get(DbtOptions).sql_dialect),
                **completeness_relations(clause.params_dict)))
        # a float's fixed value is a YAML number in accepted_values (`0.50` reads back as 0.5)
        return float_fixed(sql_projection(clause, options.get(DbtOptions).sql_dialect))

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        opts = options.get(DbtOptions)
        adapter = opts.adapter
        if adapter not in ADAPTERS:
            raise ValueError(
                f"unknown dbt adapter {adapter!r}: expected one of {', '.join(ADAPTERS)}"
            )
        native = opts.tests == "native"
        if opts.not_null not in NOT_NULL_MODES:
            raise ValueError(f"unknown dbt not_null mode {opts.not_null!r}: "
                             "expected constraint, test or both")
        form = version_form(opts.version)
        inline = form < (1, 10)
        tests_key = "tests" if form < (1, 8) else "data_tests"
        model = model_name(contract)

        def _test(kind: str, clause: Clause, name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _make_test(kind, clause, name, args, inline)

        unsupported: list[Unsupported] = []
        columns: dict[str, dict[str, Any]] = {}
        col_tests: dict[str, list[dict[str, Any]]] = {}
        col_clauses: dict[str, dict[str, str]] = {}
        not_null: set[str] = set()
        model_tests: list[dict[str, Any]] = []
        model_clauses: dict[str, str] = {}
        enforced = False
        used_names: set[str] = set()

        def unique_name(clause_id: str) -> str:
            base = f"{model}__{dbt_name(clause_id)}"
            name = base
            if name in used_names:
                name = base + "_" + hashlib.sha1(clause_id.encode("utf-8")).hexdigest()[:8]
            used_names.add(name)
            return name

        def ftype(col: str) -> DataType | None:
            f = contract.field(col)
            return f.type if f else None

        def col_test(col: str, test: dict[str, Any]) -> None:
            col_tests.setdefault(col, []).append(test)

        for cl in clauses:
            k = cl.kind
            p = cl.params_dict
            args: dict[str, Any]
            if k == "column":
                from tacit_gen.contract.types import parse_type

                t = parse_type(p["type"])
                entry: dict[str, Any] = {"name": p["column"]}
                f = contract.field(p["column"])
                desc = (f.description or f.note) if f else None
                if desc:
                    entry["description"] = description_safe(desc)
                entry["data_type"] = data_type(t, adapter)
                if ident(p["column"], adapter) != p["column"]:
                    entry["quote"] = True
                meta: dict[str, Any] = {"tacit_type": p["type"]}
                if p.get("unit") is not None:
                    meta["tacit_unit"] = jinja_safe(str(p["unit"]))
                if p.get("dimension") is not None:
                    meta["tacit_dimension"] = jinja_safe(str(p["dimension"]))
                if f is not None:  # the field's x-* keys, as the column's meta
                    meta.update({k: _jinja_safe_data(plain_value(v)) for k, v in f.meta})
                entry["meta"] = meta
                columns[p["column"]] = entry
                col_clauses.setdefault(p["column"], {})[jinja_safe(cl.id)] = jinja_safe(cl.text)
            elif k == "no_unknown_columns":
                enforced = True
                model_clauses[cl.id] = jinja_safe(cl.text)
            elif k == "not_null":
                mode = "test" if opts.adapter in NOT_NULL_AS_TESTS else opts.not_null
                if cl.warn:  # a constraint cannot warn: it fails the build; a warn test reports
                    mode = "test"
                if mode in ("constraint", "both"):
                    not_null.add(p["column"])
                if mode in ("test", "both"):
                    col_test(p["column"], _test("not_null", cl, unique_name(cl.id), {}))
                col_clauses.setdefault(p["column"], {})[jinja_safe(cl.id)] = jinja_safe(cl.text)
            elif k == "unique":
                cols = list(p["columns"])
                if len(cols) == 1:
                    col_test(cols[0], _test("unique", cl, unique_name(cl.id), {}))
                else:
                    kind = (
                        "tacit_unique_combination_of_columns"
                        if native
                        else "dbt_utils.unique_combination_of_columns"
                    )
                    args = {"combination_of_columns": [ident(c, adapter) for c in cols]}
                    entry = _test(kind, cl, unique_name(cl.id), args)
                    # SQL UNIQUE: a row with a NULL in the key is not_null's failure, no duplicate
                    # (dbt's `unique` skips NULLs; the combination test groups them)
                    entry[kind]["config"]["where"] = unique_where(args["combination_of_columns"])
                    model_tests.append(entry)
            elif k in ("accepted_values", "fixed_value"):
                raw = list(p["values"]) if k == "accepted_values" else [p["value"]]
                values, quote = _values(raw, ftype(p["column"]))
                args = {"values": values} if quote else {"values": values, "quote": False}
                col_test(p["column"], _test("accepted_values", cl, unique_name(cl.id), args))
            elif k == "range":
                self._range(cl, p, native, unique_name, col_test, inline)
            elif k in ("pattern", "revision_by"):
                from tacit_gen.sql import generate, pattern_sql, revision_by_ok

                dialect = _DIALECT[adapter]
                text = (pattern_sql(p["column"], p["pattern"], dialect) if k == "pattern"
                        else generate(revision_by_ok(p["column"], tuple(p["values"]), p["revision_column"]),
                                      dialect))
                kind = "tacit_expression_is_true" if native else "dbt_utils.expression_is_true"
                model_tests.append(_test(kind, cl, unique_name(cl.id), {"expression": jinja_safe(text)}))
            elif k == "references":  # dbt's built-in relationships test (NULLs pass)
                args = {"to": relation_ref(p["to_relation"]), "field": ident(p["to_column"], adapter)}
                col_test(p["column"], _test("relationships", cl, unique_name(cl.id), args))
            elif k == "invariant":
                from tacit_gen.sql import to_sql

                if cl.expr is None:
                    unsupported.append(
                        Unsupported(NAME, cl.id, "invariant has no resolved expression")
                    )
                    continue
                try:
                    sql = to_sql(cl.expr, _DIALECT[adapter], cl.integers, cl.strings, cl.singles)
                except ValueError as e:
                    unsupported.append(Unsupported(NAME, cl.id, str(e)))
                    continue
                kind = "tacit_expression_is_true" if native else "dbt_utils.expression_is_true"
                model_tests.append(
                    _test(kind, cl, unique_name(cl.id), {"expression": jinja_safe(sql)})
                )
            elif k == "freshness" and p.get("whole_days"):  # a date column: whole days
                args = {"max_age_days": int(p["max_age_seconds"]) // 86400}
                col_test(p["column"], _test("tacit_freshness_days", cl, unique_name(cl.id), args))
            elif k == "freshness":
                args = {"max_age_seconds": p["max_age_seconds"]}
                col_test(p["column"], _test("tacit_freshness", cl, unique_name(cl.id), args))
            elif k == "cadence" and p.get("from_catalog") and uses_sessions(cl):
                unsupported.append(Unsupported(
                    NAME, cl.id, "a catalog interval within sessions is not expressed in dbt"))
            elif k == "cadence":
                series = list(p.get("series") or ())
                args = {"series": [ident(c, adapter) for c in series]}
                if p.get("from_catalog"):
                    if len(series) != 1:
                        unsupported.append(
                            Unsupported(
                                NAME,
                                cl.id,
                                "a catalog cadence joins on one series column; "
                                f"this series is {len(series)} columns",
                            )
                        )
                        continue
                    args["catalog"] = relation_ref(p["relation"])
                    args["catalog_key"] = ident(p["catalog_key"], adapter)
                    args["catalog_column"] = ident(p["catalog_column"], adapter)
                else:
                    args["interval_seconds"] = p["interval_seconds"]
                args["tolerance_pct"] = yaml_number(str(p.get("tolerance_pct") or "0"))
                args["gaps_allowed"] = bool(p.get("gaps_allowed"))
                if p.get("sessions") is not None:
                    args["sessions"] = p["sessions"]
                    args.update(_session_args(p, adapter))
                if contract.field("revision") is not None:
                    args["revision_column"] = ident("revision", adapter)
                col_test(p["column"], _test("tacit_cadence", cl, unique_name(cl.id), args))
            elif k == "completeness":
                args = {"windows_sql": jinja_safe(completeness_sql(cl, opts.sql_dialect)),
                        **completeness_relations(p)}
                col_test(p["column"], _test("tacit_completeness", cl, unique_name(cl.id), args))
            elif k == "catalog_unit":
                args = {
                    "key": ident(p["key"], adapter),
                    "catalog": relation_ref(p["relation"]),
                    "catalog_key": ident(p["catalog_key"], adapter),
                    "catalog_column": ident(p["catalog_column"], adapter),
                }
                col_test(p["column"], _test("tacit_catalog_unit", cl, unique_name(cl.id), args))
            elif k == "catalog_dimension":
                args = {
                    "key": ident(p["key"], adapter),
                    "catalog": relation_ref(p["relation"]),
                    "catalog_key": ident(p["catalog_key"], adapter),
                    "catalog_column": ident(p["catalog_column"], adapter),
                    "units": list(p["units"]),
                    "dimension": p["dimension"],
                }
                col_test(p["column"], _test("tacit_catalog_dimension", cl, unique_name(cl.id), args))
            elif k in ("catalog_bounds", "plausible"):
                args = {
                    "key": ident(p["key"], adapter),
                    "catalog": relation_ref(p["relation"]),
                    "catalog_key": ident(p["catalog_key"], adapter),
                    "min_column": ident(p["min_column"], adapter),
                    "max_column": ident(p["max_column"], adapter),
                }
                if p.get("as_double"):  # a float32 subject, compared as the double it holds
                    args["as_double"] = True
                test = "tacit_catalog_bounds" if k == "catalog_bounds" else "tacit_plausible"
                col_test(p["column"], _test(test, cl, unique_name(cl.id), args))
            elif k == "revision_window":
                args = {"allowed": bool(p.get("allowed", True))}
                for key in ("time_column", "ingest_column"):
                    if p.get(key) is not None:
                        args[key] = ident(p[key], adapter)
                for key in ("window_seconds", "business_days"):
                    if p.get(key) is not None:
                        args[key] = p[key]
                args.update(_session_args(p, adapter))
                col_test(p["column"], _test("tacit_revision_window", cl, unique_name(cl.id), args))
            else:
                unsupported.append(Unsupported(NAME, cl.id, f"no dbt form for clause kind {k!r}"))

        col_list: list[dict[str, Any]] = []
        for col, entry in columns.items():
            out = {k: entry[k] for k in ("name", "description", "data_type", "quote") if k in entry}
            if col in not_null:
                out["constraints"] = [{"type": "not_null"}]
            out["meta"] = {**entry["meta"], "tacit_clauses": col_clauses.get(col, {})}
            if col_tests.get(col):
                out[tests_key] = col_tests[col]
            col_list.append(out)
        for col in col_tests:
            if col not in columns:  # a test on a column without a column clause
                col_list.append({"name": col, tests_key: col_tests[col]})

        props: dict[str, Any] = {"name": model}
        if contract.description:
            props["description"] = description_safe(contract.description)
        model_meta: dict[str, Any] = {
            "tacit_contract": jinja_safe(contract.name),
            "tacit_version": jinja_safe(contract.version),
            "tacit_adapter": adapter,
        }
        model_meta.update({k: _jinja_safe_data(plain_value(v)) for k, v in contract.meta})
        if model_clauses:
            model_meta["tacit_clauses"] = model_clauses
        if unsupported:
            model_meta["tacit_unsupported"] = [
                {"clause": jinja_safe(u.clause_id), "reason": jinja_safe(u.reason)}
                for u in unsupported
            ]
        props["config"] = {"contract": {"enforced": enforced}, "meta": model_meta}
        props["columns"] = col_list
        if model_tests:
            props[tests_key] = model_tests
        doc = {"version": 2, "models": [props]}
        body = _WRITER.write(doc)
        if body is None:
            body = properties_yaml(doc)
        text = comment_header(contract) + body
        artifacts = (
            Artifact(f"dbt/{contract.name}.yml", text),
            Artifact(macros_path(options), macros_text(options)),
        )
        return RenderResult(artifacts=artifacts, unsupported=tuple(unsupported))

    @staticmethod
    def _range(
        cl: Clause, p: dict[str, Any], native: bool, unique_name: Any, col_test: Any,
        inline: bool = False,
    ) -> None:
        def _test(kind: str, clause: Clause, name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _make_test(kind, clause, name, args, inline)

        from tacit_gen.expr.bounds import range_pasted_exactly

        lo, hi = p.get("min"), p.get("max")
        lo_inc, hi_inc = bool(p.get("min_inclusive", True)), bool(p.get("max_inclusive", True))
        col = p["column"]
        # a float32 column and a bound float32 does not hold: compared as a double (DuckDB
        # compares a FLOAT with a number in float32), with tacit's test in either style
        widen = not range_pasted_exactly(cl)
        if native or widen:
            args: dict[str, Any] = {}
            if lo is not None:
                args["min_value"] = yaml_number(str(lo))
                args["min_inclusive"] = lo_inc
            if hi is not None:
                args["max_value"] = yaml_number(str(hi))
                args["max_inclusive"] = hi_inc
            if widen:
                args["as_double"] = True
            col_test(col, _test("tacit_accepted_range", cl, unique_name(cl.id), args))
            return
        if lo is None or hi is None or lo_inc == hi_inc:
            args = {}
            if lo is not None:
                args["min_value"] = yaml_number(str(lo))
            if hi is not None:
                args["max_value"] = yaml_number(str(hi))
            args["inclusive"] = lo_inc if lo is not None else hi_inc
            col_test(col, _test("dbt_utils.accepted_range", cl, unique_name(cl.id), args))
            return
        # dbt_utils.accepted_range has one `inclusive` flag: one test per side.
        name = unique_name(cl.id)
        col_test(
            col,
            _test(
                "dbt_utils.accepted_range",
                cl,
                name + "_min",
                {"min_value": yaml_number(str(lo)), "inclusive": lo_inc},
            ),
        )
        col_test(
            col,
            _test(
                "dbt_utils.accepted_range",
                cl,
                name + "_max",
                {"max_value": yaml_number(str(hi)), "inclusive": hi_inc},
            ),
        )
