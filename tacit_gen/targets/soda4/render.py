"""Soda v4 target: one Soda Core 4 data contract per contract (`soda4/<contract>.yml`).

Soda Core 4 replaced SodaCL with data contract YAML (`dataset`, `columns` with `data_type` and
column checks, dataset `checks`), validated against the JSON Schema soda-core 4.28 ships
(`soda_core/contracts/soda_data_contract_json_schema_1_0_0.json`). Each clause becomes one check
whose `qualifier` is the clause id (Soda identifies a check by type, column and qualifier, so two
`failed_rows` checks need distinct qualifiers anyway) and whose `name` is the verbatim contract
text, whitespace normalised. The `column:` clauses and `no_unknown_columns` are the column list
plus ONE `schema` check (`allow_extra_columns: false`, any column order).

The SQL of invariants and of the time-series and catalog clauses is the Soda v3 target's (one
sqlglot tree per clause, printed for the dialect): `failed_rows` with `expression` (the rows where
the condition is FALSE) or `query` (the failing rows). See docs/engines/soda4-contract.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.sql.dialects import DIALECTS
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    Unsupported,
)
from tacit_gen.targets.header import comment_header, one_line
from tacit_gen.targets.kinds import KindTable
from tacit_gen.targets.soda.queries import (
    fail_query_sql,
    invariant_sql,
    normalize_sql,
    strip_parens,
)
from tacit_gen.targets.soda.writer import Block, Num, dump

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

NAME = "soda4"
SINCE_VARIABLE = "tacit_since"
DATA_SOURCE = "tacit"
SCHEMA_QUALIFIER = "schema"
CLAUSE_MARK = "-- tacit_clause: "
# The dataset prefix (database / schema) Soda 4 expects on each data source, before the relation.
PREFIX = {"duckdb": "main", "postgres": "postgres/public"}
# Soda resolves `${namespace.name}` anywhere in a contract (no escape exists): a clause whose
# text or SQL holds one is declared unsupported rather than silently rewritten.
VARIABLE = re.compile(r"\$\{ *([a-z]+)\.([a-zA-Z_][a-zA-Z_0-9]*) *\}")
# Contract type -> the `data_type` the schema check compares. On DuckDB (and dialects not listed)
# Soda's data-source-neutral names (SodaDataTypeName), which its DuckDB data source maps to its
# own (`timestamp_tz` is `TIMESTAMP WITH TIME ZONE`); PostgreSQL's data source compares its own
# names with only its own synonyms (`text` is not `varchar` there), so it gets those.
TYPES = {"string": "varchar", "bool": "boolean", "int32": "integer", "int64": "bigint",
         "float32": "float", "float64": "double", "date": "date", "timestamp": "timestamp_tz",
         "decimal": "decimal"}
DIALECT_TYPES = {"postgres": {**TYPES, "string": "text", "float32": "real",
                              "float64": "double precision", "timestamp": "timestamp with time zone",
                              "decimal": "numeric"}}
COUNT_METRIC = {"missing": "missing_count", "invalid": "invalid_count",
                "duplicate": "duplicate_count", "failed_rows": "failed_rows_count"}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")
# Clauses checked by a dataset `failed_rows` query: the Soda v3 target's fail query, verbatim.
FAIL_QUERY_KINDS = ("cadence", "catalog_bounds", "catalog_dimension", "catalog_unit", "completeness",
                    "plausible", "precision", "revision_window", "revision_by")


def soda4_type(contract_type: str, dialect: str = "duckdb") -> tuple[str, int | None, int | None]:
    """(data_type, numeric_precision, numeric_scale) of a contract type on a dialect."""
    table = DIALECT_TYPES.get(dialect, TYPES)
    t = contract_type.replace(" ", "")
    if t in table and t not in ("timestamp", "decimal"):
        return table[t], None, None
    if t.startswith("timestamp_"):
        return table["timestamp"], None, None
    if t.startswith("enum["):
        return table["string"], None, None
    m = _DECIMAL.fullmatch(t)
    if m:
        return table["decimal"], int(m.group(1)), int(m.group(2))
    raise ValueError(f"no Soda 4 data type for '{contract_type}'")


def unique_filter(columns: Any, dialect: str) -> str:
    """The `filter` of a `unique:` duplicate check: the rows whose key holds no NULL."""
    from tacit_gen import sql

    return " AND ".join(f"{sql.ident(str(c), dialect)} IS NOT NULL" for c in columns)


def pattern_regex(body: str, dialect: str) -> str:
    """A `pattern:` body as the `valid_format` regex: a whole-value match in the dialect's regex
    flavor (`tacit_gen.sql.pattern`). Soda 4 quotes it as an SQL literal itself
    (`SqlDialect._build_regex_like_sql`), so it is written unescaped."""
    from tacit_gen.sql.pattern import DIALECT_FLAVOR, full_match

    return full_match(body, DIALECT_FLAVOR.get(dialect, "re2"))


def type_text(data_type: str, precision: Any = None, scale: Any = None) -> str:
    """One text for a column's type as the contract file states it: `decimal(18,8)`, `bigint`."""
    if precision is not None or scale is not None:
        return f"{data_type}({precision},{scale})"
    return str(data_type)


def dataset_name(contract: Contract) -> str:
    """The relation: the contract name unless `targets: {soda4: {dataset: ...}}` says otherwise."""
    return str(contract.target_option(NAME, "dataset", contract.name))


def qualified_name(contract: Contract, dialect: str) -> str:
    """`<data source>/<prefix...>/<relation>`, as Soda 4's `dataset:` wants it."""
    source = str(contract.target_option(NAME, "data_source", DATA_SOURCE))
    return f"{source}/{PREFIX.get(dialect, 'main')}/{dataset_name(contract)}"


def reference_dataset(contract: Contract, relation: str, dialect: str) -> str:
    """The qualified name of a relation a `references:` clause reads: the dataset's data source
    and prefix, that relation."""
    return qualified_name(contract, dialect).rsplit("/", 1)[0] + "/" + relation


def artifact_path(contract: Contract) -> str:
    return f"{NAME}/{contract.name}.yml"


def check_name(clause: Clause) -> str:
    """The verbatim contract text of a clause, whitespace normalised (its id is the qualifier)."""
    if clause.kind == "invariant":
        return clause.id.removeprefix("invariant:")
    return one_line(clause.text) or clause.id


def freshness_threshold(seconds: int) -> tuple[str, Num]:
    """(unit, number) of a freshness threshold: days, hours or minutes, whichever is whole; else
    minutes as the float Soda computes (it divides whole seconds by 60)."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            return unit, Num(str(seconds // size))
    return "minute", Num(repr(seconds / 60))


def _query_block(clause_id: str, text: str) -> Block:
    return Block(CLAUSE_MARK + clause_id + "\n" + text.rstrip("\n") + "\n")


def _range_inclusive(c: Clause) -> bool:
    return ((c.param("min") is None or bool(c.param("min_inclusive", True)))
            and (c.param("max") is None or bool(c.param("max_inclusive", True))))


def _row_sql(c: Clause, dialect: str) -> str | None:
    """The condition a row must meet, as SQL, for clauses checked with a failed_rows expression."""
    if c.kind == "fixed_value":
        from tacit_gen import sql

        col = sql.ident(c.param("column"), dialect)
        value = c.param("value")
        lit = ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value)
        return f"{col} = {lit}"
    return invariant_sql(c, dialect)


def _uses_expression(c: Clause) -> bool:
    """Clauses checked by a `failed_rows` expression rather than a native column check: a
    range Soda 4 cannot say (an exclusive side) or would decide in float32 (a float32 column and
    a bound float32 does not hold: `tacit_gen.expr.bounds.pasted_exactly`), a boolean fixed value."""
    from tacit_gen.expr.bounds import range_pasted_exactly

    if c.kind == "range":
        return not _range_inclusive(c) or not range_pasted_exactly(c)
    return c.kind == "fixed_value" and isinstance(c.param("value"), bool)


def _warn_levels(warn: set[str], columns: dict[str, dict[str, Any]],
                 dataset_checks: list[dict[str, Any]]) -> None:
    """The checks of `severity: warn` clauses get a threshold of level `warn` (Soda 4's outcome
    WARN, which fails nothing): the count checks `must_be: 0`, freshness its own threshold."""
    if not warn:
        return
    items = [x for col in columns.values() for x in col.get("checks", ())] + dataset_checks
    for item in items:
        kind, body = next(iter(item.items()))
        if body.get("qualifier") not in warn:
            continue
        if kind == "freshness":
            body["threshold"] = {**body["threshold"], "level": "warn"}
        else:
            body["threshold"] = {"must_be": Num("0"), "level": "warn"}


def build(contract: Contract, clauses: tuple[Clause, ...],
          dialect: str = "duckdb") -> tuple[dict[str, Any], list[Unsupported]]:
    """The contract document (a mapping in file order) and the clauses it cannot state."""
    unsupported: list[Unsupported] = []
    cols = [c for c in clauses if c.kind == "column"]
    columns: dict[str, dict[str, Any]] = {}
    for c in cols:
        data_type, precision, scale = soda4_type(str(c.param("type")), dialect)
        entry: dict[str, Any] = {"name": c.param("column"), "data_type": data_type}
        if precision is not None:
            entry["numeric_precision"] = Num(str(precision))
            entry["numeric_scale"] = Num(str(scale))
        columns[c.param("column")] = entry
    dataset_checks: list[dict[str, Any]] = []
    if cols:
        schema: dict[str, Any] = {
            "name": "every contract column is present with its type",
            "qualifier": SCHEMA_QUALIFIER,
            "allow_other_column_order": True,
        }
        if any(c.kind == "no_unknown_columns" for c in clauses):
            schema["name"] += ", and no other column"
            schema["allow_extra_columns"] = False
        else:
            schema["allow_extra_columns"] = True
        dataset_checks.append({"schema": schema})

    parts = _Document(contract, dialect, columns, dataset_checks)
    for c in clauses:
        if c.kind not in ("column", "no_unknown_columns") and (VARIABLE.search(c.text) or VARIABLE.search(c.id)):
            unsupported.append(Unsupported(
                NAME, c.id, "its text holds ${namespace.name}, which Soda 4 resolves as a variable"))
            continue
        rule = RENDER.get(c.kind)
        reason = rule(parts, c) if rule is not None else RENDER.unsupported.get(
            c.kind, f"clause kind '{c.kind}' has no Soda 4 check")
        if reason is not None:
            unsupported.append(Unsupported(NAME, c.id, reason))
    since = _increment(contract, clauses, columns, dataset_checks, dialect)
    _warn_levels({c.id for c in clauses if c.warn}, columns, dataset_checks)
    doc: dict[str, Any] = {"dataset": qualified_name(contract, dialect)}
    if since:  # the increment's start: `--set tacit_since=<instant>`; unset, every row
        doc["variables"] = {SINCE_VARIABLE: {"default": ""}}
    if columns:
        doc["columns"] = list(columns.values())
    if dataset_checks:
        doc["checks"] = dataset_checks
    return doc, unsupported


def _increment(contract: Contract, clauses: tuple[Clause, ...], columns: dict[str, dict[str, Any]],
               dataset_checks: list[dict[str, Any]], dialect: str) -> bool:
    """Restrict the checks of row clauses, cadence, keys holding the time column and
    completeness's windows to the increment when the variable ``tacit_since`` is set (`tacit_gen.targets.soda.since`); whether
    any check reads it."""
    from tacit_gen import sql
    from tacit_gen.targets.soda import since

    tcol = contract.time.column if contract.time and contract.time.column else None
    if tcol is None:
        return False
    kinds = {c.id: c for c in clauses}
    col = sql.ident(tcol, dialect)
    used = False
    items = [x for entry in columns.values() for x in entry.get("checks", ())] + dataset_checks
    for item in items:
        kind, body = next(iter(item.items()))
        c = kinds.get(str(body.get("qualifier")))
        if c is None:
            continue
        keyed = c.kind == "unique" and tcol in (c.param("columns") or ())
        if c.kind == "unique" and not keyed and kind == "duplicate":
            # a key without the time column: the rows repeating a key of the increment
            key = [sql.ident(k, dialect) for k in c.param("columns")]
            cond = since.key_condition(sql.ident(dataset_name(contract), dialect), key, col,
                                       dialect, since.REF4, since.SODA4_DATASET)
            body["filter"] = f"{body['filter']} AND {cond}" if body.get("filter") else cond
            used = True
            continue
        windows = c.kind in since.WINDOW_KINDS
        if (c.kind not in since.ROW_KINDS and c.kind not in since.STEP_KINDS and not keyed
                and not windows):
            continue
        cond = since.condition(col, dialect, since.REF4)
        if kind in ("missing", "invalid"):
            ref = body.get("valid_reference_data")
            if isinstance(ref, dict) and str(ref.get("dataset", "")).split("/")[-1] == dataset_name(contract):
                # a reference to the dataset itself: Soda 4 joins the two copies, where the
                # filter's time column would be ambiguous; read as a whole
                continue
            body["filter"] = cond
        elif kind == "duplicate":
            body["filter"] = f"{body['filter']} AND {cond}" if body.get("filter") else cond
        elif kind == "failed_rows" and "expression" in body:
            body["expression"] = since.and_condition(str(body["expression"]), col, dialect, since.REF4)
        elif kind == "failed_rows" and "query" in body:
            body["query"] = Block(since.wrap_query(str(body["query"]), None if windows else col,
                                                   dialect, CLAUSE_MARK, since.REF4))
        else:
            continue
        used = True
    return used


@dataclass(frozen=True)
class _Document:
    """The parts of the contract document the clauses add to."""

    contract: Contract
    dialect: str
    columns: dict[str, dict[str, Any]]  # column name -> its entry (`checks` holds its checks)
    checks: list[dict[str, Any]]  # the dataset checks

    def column_check(self, c: Clause, kind: str, body: dict[str, Any]) -> str | None:
        """A check on the clause's column, or why there is none."""
        entry = self.columns.get(c.param("column"))
        if entry is None:  # a clause on a column the contract does not declare: no column entry
            return "its column has no column clause"
        entry.setdefault("checks", []).append({kind: {"name": check_name(c), "qualifier": c.id, **body}})
        return None

    def check(self, kind: str, c: Clause, body: dict[str, Any]) -> None:
        """A dataset check."""
        self.checks.append({kind: {"name": check_name(c), "qualifier": c.id, **body}})


# ---------------------------------------------------------------------------------------------
# one function per kind: (document, clause) -> None, or why the clause has no check

Rule = Callable[[_Document, Clause], "str | None"]


def _in_columns(doc: _Document, c: Clause) -> None:
    """The column list and the one schema check `build` writes first."""


def _not_null(doc: _Document, c: Clause) -> str | None:
    return doc.column_check(c, "missing", {})


def _unique(doc: _Document, c: Clause) -> None:
    # SQL UNIQUE: only the rows whose key holds no NULL (Soda 4 counts NULLs as a value)
    doc.check("duplicate", c, {"columns": list(c.param("columns")),
                               "filter": unique_filter(c.param("columns"), doc.dialect)})


def _accepted_values(doc: _Document, c: Clause) -> str | None:
    return doc.column_check(c, "invalid", {"valid_values": [str(v) for v in c.param("values")]})


def _pattern(doc: _Document, c: Clause) -> str | None:
    """Soda 4 writes the regex as an SQL literal itself (escaped once)."""
    return doc.column_check(c, "invalid", {"valid_format": {
        "name": str(c.param("pattern")), "regex": pattern_regex(str(c.param("pattern")), doc.dialect)}})


def _references(doc: _Document, c: Clause) -> str | None:
    """An invalid check against the referenced relation's column."""
    return doc.column_check(c, "invalid", {"valid_reference_data": {
        "dataset": reference_dataset(doc.contract, str(c.param("to_relation")), doc.dialect),
        "column": c.param("to_column")}})


def _fixed_value(doc: _Document, c: Clause) -> str | None:
    if _uses_expression(c):
        return _expression(doc, c)
    v = c.param("value")
    return doc.column_check(c, "invalid", {"valid_values": [Num(str(v)) if isinstance(v, int) else str(v)]})


def _range(doc: _Document, c: Clause) -> str | None:
    if _uses_expression(c):
        return _expression(doc, c)
    body: dict[str, Any] = {}
    if c.param("min") is not None:
        body["valid_min"] = Num(str(c.param("min")))
    if c.param("max") is not None:
        body["valid_max"] = Num(str(c.param("max")))
    return doc.column_check(c, "invalid", body)


def _expression(doc: _Document, c: Clause) -> str | None:
    """A `failed_rows` expression: the rows where the clause's condition is FALSE."""
    text = _row_sql(c, doc.dialect)
    if text is None or VARIABLE.search(text):
        return "no single-row SQL form"
    doc.check("failed_rows", c, {"expression": f"NOT ({strip_parens(text)})"})
    return None


def _freshness(doc: _Document, c: Clause) -> str | None:
    if c.param("whole_days"):
        return DATE_FRESHNESS_REASON
    unit, value = freshness_threshold(int(c.param("max_age_seconds")))
    doc.check("freshness", c, {"column": c.param("column"),
                               "threshold": {"unit": unit, "must_be_less_than_or_equal": value}})
    return None


def _fail_query(doc: _Document, c: Clause) -> str | None:
    """A `failed_rows` query: the Soda v3 target's fail query, verbatim."""
    text = fail_query_sql(doc.contract, c, doc.dialect)
    if text is None:
        return ("the revision policy states no row-level rule (no ingest column or no window)"
                if c.kind == "revision_window" else "a catalog cadence needs exactly one series "
                "column, and is not expressed within sessions")
    if VARIABLE.search(text):
        return "its SQL holds a Soda variable reference"
    doc.check("failed_rows", c, {"query": _query_block(c.id, text)})
    return None


RENDER: KindTable[Rule] = KindTable("soda4", "render", {
    "column": _in_columns,
    "no_unknown_columns": _in_columns,
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
    "pattern": _pattern,
    "references": _references,
    "range": _range,
    "invariant": _expression,
    "freshness": _freshness,
    **{kind: _fail_query for kind in FAIL_QUERY_KINDS},
})


class Soda4Target(Target):
    """Renders Soda Core 4 contracts and reads them back."""

    name = NAME
    options = NoOptions
    contract_keys = (
        ContractKey("dataset", "Soda 4 dataset (relation) name"),
        ContractKey("data_source", "Soda 4 data source name, the first part of the qualified "
                    f"dataset name (default {DATA_SOURCE})"),
        ContractKey("dialect", "SQL dialect of the target's queries (default: the --dialect option, "
                    "else the dbt adapter's, else duckdb)", kind="choice", choices=DIALECTS),
    )
    artifact_name_option = "dataset"
    reader = "tacit_gen.targets.soda4.read:read"
    # no Spark: soda-sparkdf is not in soda-core 4's environment
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.soda4.engine", (), cost=40, batch=True,
                         environment="tacit_gen.targets.soda4.env"),
        "postgres": Engine("tacit_gen.targets.soda4.engine", ("psycopg2",), "postgres", cost=40,
                           batch=True, environment="tacit_gen.targets.soda4.env"),
    }
    templates = False
    increments = True  # the variable tacit_since

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (artifact_path(contract),)

    def render(self, contract: Contract, clauses: tuple[Clause, ...],
               options: RenderOptions) -> RenderResult:
        dialect = options.dialect_for(NAME, contract)
        doc, unsupported = build(contract, clauses, dialect)
        head = comment_header(contract)
        head += (f"# Soda Core 4 data contract. Run: soda contract verify -ds <data source>.yml "
                 f"-c {artifact_path(contract)}")
        if any(c.kind == "freshness" for c in clauses):
            head += " (pin the freshness clock with --data-timestamp <ISO-8601 UTC instant>)"
        head += "\n"
        if dialect != "duckdb":
            head += f"# SQL dialect: {dialect}\n"
        if unsupported:
            head += "# Clauses this file cannot check (unsupported by the Soda 4 target):\n"
            for u in unsupported:
                head += f"#   - {one_line(u.clause_id)}: {one_line(u.reason)}\n"
        return RenderResult(artifacts=(Artifact(artifact_path(contract), head + dump(doc)),),
                            unsupported=tuple(unsupported))

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """What a faithful Soda 4 contract says about `clause` (the reader returns exactly this);
        None when the clause is unsupported."""
        return project(contract, clause, options.dialect_for(NAME, contract))


# Soda 4's freshness measures the time since the newest value; a date column's freshness counts
# whole days against the UTC date of now (tacit_gen.semantics.freshness).
DATE_FRESHNESS_REASON = ("a date column's freshness counts whole days against the UTC date of now; "
                         "Soda 4's freshness check counts time since the newest value")


def project(contract: Contract, clause: Clause, dialect: str = "duckdb") -> Clause | None:
    """What a faithful Soda 4 contract says about `clause`, through `PROJECT` (None: unsupported)."""
    k = clause.kind
    if k not in ("column", "no_unknown_columns") and (VARIABLE.search(clause.text)
                                                      or VARIABLE.search(clause.id)):
        return None
    rule = PROJECT.get(k)
    said = rule(contract, clause, dialect) if rule is not None else None
    if said is None:
        return None
    params, cols = said
    # the column clauses share the column list and the schema check: no text of their own
    text = "" if k in ("column", "no_unknown_columns") else check_name(clause)
    return Clause(clause.id, k, cols, make_params(**params), text, severity=clause.severity)


# ---------------------------------------------------------------------------------------------
# one function per kind: (contract, clause, dialect) -> (params, columns) the reader returns, or None

Said = tuple[dict[str, Any], tuple[str, ...]]
Projection = Callable[["Contract", Clause, str], "Said | None"]


def _on_column(*keys: str) -> Projection:
    """The clause's `keys` as they are, read back on its column."""
    def said(contract: Contract, clause: Clause, dialect: str) -> Said:
        return {key: clause.param(key) for key in keys}, (clause.param("column"),)

    return said


def _column_said(contract: Contract, clause: Clause, dialect: str) -> Said:
    p = clause.param
    return {"column": p("column"), "soda4_type": type_text(*soda4_type(str(p("type")), dialect))}, (p("column"),)


def _on_columns(contract: Contract, clause: Clause, dialect: str) -> Said:
    columns = tuple(clause.param("columns"))
    return {"columns": columns}, columns


def _accepted_values_said(contract: Contract, clause: Clause, dialect: str) -> Said:
    return ({"column": clause.param("column"), "values": tuple(str(v) for v in clause.param("values"))},
            (clause.param("column"),))


def _expression_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    text = _row_sql(clause, dialect)
    return None if text is None or VARIABLE.search(text) else ({"sql": normalize_sql(text)}, ())


def _fixed_value_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if _uses_expression(clause):
        return _expression_said(contract, clause, dialect)
    return {"column": clause.param("column"), "values": (str(clause.param("value")),)}, (clause.param("column"),)


def _range_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if _uses_expression(clause):
        return _expression_said(contract, clause, dialect)
    return _on_column("column", "min", "max")(contract, clause, dialect)


def _freshness_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    if clause.param("whole_days"):
        return None
    col = clause.param("column")
    return {"column": col, "max_age_seconds": int(clause.param("max_age_seconds"))}, (col,)


def _query_said(contract: Contract, clause: Clause, dialect: str) -> Said | None:
    text = fail_query_sql(contract, clause, dialect)
    return None if text is None or VARIABLE.search(text) else ({"sql": normalize_sql(text)}, ())


PROJECT: KindTable[Projection] = KindTable("soda4", "project", {
    "column": _column_said,
    "no_unknown_columns": _on_columns,
    "not_null": _on_column("column"),
    "unique": _on_columns,
    "accepted_values": _accepted_values_said,
    "fixed_value": _fixed_value_said,
    "pattern": _on_column("column", "pattern"),
    "references": _on_column("column", "to_relation", "to_column"),
    "range": _range_said,
    "invariant": _expression_said,
    "freshness": _freshness_said,
    **{kind: _query_said for kind in FAIL_QUERY_KINDS},
})
