"""A contract's clauses into its dbt model properties, kind by kind through `RENDER`.

`Properties` holds what the clauses of one contract add up to (columns, constraints, column and
model tests, the clause texts kept in meta); each kind's function in `RENDER` adds one clause to
it. `render.py` writes the document it returns as YAML.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import uses_sessions
from tacit_gen.targets.base import Unsupported
from tacit_gen.targets.dbt.text import (
    DIALECT,
    NAME,
    NOT_NULL_AS_TESTS,
    completeness_relations,
    completeness_sql,
    data_type,
    dbt_name,
    description_safe,
    ident,
    jinja_safe,
    jinja_safe_data,
    make_test,
    relation_ref,
    session_args,
    since_where,
    unique_where,
    values_arg,
    yaml_number,
)
from tacit_gen.targets.header import plain_value
from tacit_gen.targets.kinds import KindTable

# Clauses on each row alone: with var('tacit_since') their tests read the increment's rows only.
SINCE_ROW_KINDS = frozenset({
    "not_null", "accepted_values", "fixed_value", "pattern", "range", "invariant", "references",
    "catalog_unit", "catalog_bounds", "plausible", "catalog_dimension", "revision_by",
    "precision",
})

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.contract.types import DataType
    from tacit_gen.plan_types import Clause
    from tacit_gen.targets.dbt.render import DbtOptions


@dataclass
class Properties:
    """The model properties of one contract, filled clause by clause (`add`)."""

    contract: Contract
    model: str
    opts: DbtOptions
    inline: bool  # dbt < 1.10: test arguments beside name and config
    unsupported: list[Unsupported] = field(default_factory=list)
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)
    col_tests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    col_clauses: dict[str, dict[str, str]] = field(default_factory=dict)
    not_null: set[str] = field(default_factory=set)
    model_tests: list[dict[str, Any]] = field(default_factory=list)
    model_clauses: dict[str, str] = field(default_factory=dict)
    enforced: bool = False
    used_names: set[str] = field(default_factory=set)

    @property
    def adapter(self) -> str:
        return self.opts.adapter

    @property
    def native(self) -> bool:
        """Self-contained tests from the macros file instead of dbt_utils'."""
        return self.opts.tests == "native"

    def add(self, clause: Clause) -> None:
        """Compile one clause through `RENDER`."""
        rule = RENDER.get(clause.kind)
        if rule is None:
            reason = RENDER.unsupported.get(clause.kind, f"no dbt form for clause kind {clause.kind!r}")
            self.unsupported.append(Unsupported(NAME, clause.id, reason))
            return
        rule(self, clause)

    def refuse(self, clause: Clause, reason: str) -> None:
        self.unsupported.append(Unsupported(NAME, clause.id, reason))

    def unique_name(self, clause_id: str) -> str:
        base = f"{self.model}__{dbt_name(clause_id)}"
        name = base
        if name in self.used_names:
            name = base + "_" + hashlib.sha1(clause_id.encode("utf-8")).hexdigest()[:8]
        self.used_names.add(name)
        return name

    def ftype(self, col: str) -> DataType | None:
        f = self.contract.field(col)
        return f.type if f else None

    def test(self, kind: str, clause: Clause, name: str, args: dict[str, Any]) -> dict[str, Any]:
        entry = make_test(kind, clause, name, args, self.inline)
        column = self.since_column
        if clause.kind in SINCE_ROW_KINDS and column is not None:
            # var('tacit_since') restricts a row test to the increment (docs/increments.md)
            entry[kind]["config"]["where"] = since_where(ident(column, self.adapter), self.adapter)
        return entry

    @property
    def since_column(self) -> str | None:
        """The time column an increment selects on (None: the contract has none)."""
        return self.contract.time.column if self.contract.time and self.contract.time.column else None

    def col_test(self, col: str, test: dict[str, Any]) -> None:
        self.col_tests.setdefault(col, []).append(test)

    def column_test(self, clause: Clause, kind: str, args: dict[str, Any]) -> None:
        """A test of `kind` on the clause's column, named after the clause."""
        col = clause.param("column")
        self.col_test(col, self.test(kind, clause, self.unique_name(clause.id), args))

    def keep_text(self, column: str, clause: Clause) -> None:
        """The clause's text in the column's meta (`tacit_clauses`)."""
        self.col_clauses.setdefault(column, {})[jinja_safe(clause.id)] = jinja_safe(clause.text)

    def expression_test(self, clause: Clause, sql: str) -> None:
        """A model test that every row meets `sql`."""
        kind = "tacit_expression_is_true" if self.native else "dbt_utils.expression_is_true"
        self.model_tests.append(self.test(kind, clause, self.unique_name(clause.id),
                                          {"expression": jinja_safe(sql)}))

    def document(self, tests_key: str) -> dict[str, Any]:
        """The properties document (``version: 2``, one model)."""
        contract = self.contract
        col_list: list[dict[str, Any]] = []
        for col, entry in self.columns.items():
            out = {k: entry[k] for k in ("name", "description", "data_type", "quote") if k in entry}
            if col in self.not_null:
                out["constraints"] = [{"type": "not_null"}]
            out["meta"] = {**entry["meta"], "tacit_clauses": self.col_clauses.get(col, {})}
            if self.col_tests.get(col):
                out[tests_key] = self.col_tests[col]
            col_list.append(out)
        for col in self.col_tests:
            if col not in self.columns:  # a test on a column without a column clause
                col_list.append({"name": col, tests_key: self.col_tests[col]})

        props: dict[str, Any] = {"name": self.model}
        if contract.description:
            props["description"] = description_safe(contract.description)
        model_meta: dict[str, Any] = {
            "tacit_contract": jinja_safe(contract.name),
            "tacit_version": jinja_safe(contract.version),
            "tacit_adapter": self.adapter,
        }
        model_meta.update({k: jinja_safe_data(plain_value(v)) for k, v in contract.meta})
        if self.model_clauses:
            model_meta["tacit_clauses"] = self.model_clauses
        if self.unsupported:
            model_meta["tacit_unsupported"] = [
                {"clause": jinja_safe(u.clause_id), "reason": jinja_safe(u.reason)}
                for u in self.unsupported
            ]
        props["config"] = {"contract": {"enforced": self.enforced}, "meta": model_meta}
        props["columns"] = col_list
        if self.model_tests:
            props[tests_key] = self.model_tests
        return {"version": 2, "models": [props]}


Rule = Callable[[Properties, "Clause"], None]


# ---------------------------------------------------------------------------------------------
# one function per kind


def _column(pr: Properties, cl: Clause) -> None:
    from tacit_gen.contract.types import parse_type

    p = cl.params_dict
    adapter = pr.adapter
    t = parse_type(p["type"])
    entry: dict[str, Any] = {"name": p["column"]}
    f = pr.contract.field(p["column"])
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
        meta.update({k: jinja_safe_data(plain_value(v)) for k, v in f.meta})
    entry["meta"] = meta
    pr.columns[p["column"]] = entry
    pr.keep_text(p["column"], cl)


def _no_unknown_columns(pr: Properties, cl: Clause) -> None:
    pr.enforced = True
    pr.model_clauses[cl.id] = jinja_safe(cl.text)


def _not_null(pr: Properties, cl: Clause) -> None:
    col = cl.param("column")
    mode = "test" if pr.adapter in NOT_NULL_AS_TESTS else pr.opts.not_null
    if cl.warn:  # a constraint cannot warn: it fails the build; a warn test reports
        mode = "test"
    if mode in ("constraint", "both"):
        pr.not_null.add(col)
    if mode in ("test", "both"):
        pr.column_test(cl, "not_null", {})
    pr.keep_text(col, cl)


def _unique(pr: Properties, cl: Clause) -> None:
    cols = list(cl.param("columns"))
    since_outside = pr.since_column is not None and pr.since_column not in cols
    if len(cols) == 1 and not since_outside:
        test = pr.test("unique", cl, pr.unique_name(cl.id), {})
        if cols[0] == pr.since_column:  # a key of the time column alone: the increment's rows
            test["unique"]["config"]["where"] = since_where(ident(cols[0], pr.adapter), pr.adapter)
        pr.col_test(cols[0], test)
        return
    # a key without the time column: tacit's own test, which reads var('tacit_since') itself
    # (the increment's keys counted over the whole model; a `where:` would drop the history)
    native = pr.native or since_outside
    kind = "tacit_unique_combination_of_columns" if native else "dbt_utils.unique_combination_of_columns"
    args: dict[str, Any] = {"combination_of_columns": [ident(c, pr.adapter) for c in cols]}
    if since_outside and pr.since_column is not None:
        args["since_column"] = ident(pr.since_column, pr.adapter)
    entry = pr.test(kind, cl, pr.unique_name(cl.id), args)
    # SQL UNIQUE: a row with a NULL in the key is not_null's failure, no duplicate
    # (dbt's `unique` skips NULLs; the combination test groups them)
    where = unique_where(args["combination_of_columns"])
    if pr.since_column is not None and pr.since_column in cols:
        # a key holding the time column: its copies are all in the increment or all before it
        where = since_where(ident(pr.since_column, pr.adapter), pr.adapter, where)
    entry[kind]["config"]["where"] = where
    pr.model_tests.append(entry)


def _accepted_values(pr: Properties, cl: Clause) -> None:
    """accepted_values, and fixed_value as one accepted value."""
    raw = list(cl.param("values")) if cl.kind == "accepted_values" else [cl.param("value")]
    values, quote = values_arg(raw, pr.ftype(cl.param("column")))
    pr.column_test(cl, "accepted_values", {"values": values} if quote else {"values": values, "quote": False})


def _pattern(pr: Properties, cl: Clause) -> None:
    from tacit_gen.sql import pattern_sql

    pr.expression_test(cl, pattern_sql(cl.param("column"), cl.param("pattern"), DIALECT[pr.adapter]))


def _precision(pr: Properties, cl: Clause) -> None:
    from tacit_gen.plan_types import PRECISION_US
    from tacit_gen.sql import check_dialect, generate, precision_ok, shapes

    dialect = DIALECT[pr.adapter]
    pr.expression_test(cl, shapes.clause_text(
        "dbt.precision", cl, check_dialect(dialect), [],
        lambda c, _: generate(precision_ok(c.param("column"), PRECISION_US[c.param("precision")], dialect), dialect)))


def _revision_by(pr: Properties, cl: Clause) -> None:
    from tacit_gen.sql import generate, revision_by_ok

    p = cl.param
    pr.expression_test(cl, generate(revision_by_ok(p("column"), tuple(p("values")), p("revision_column")),
                                    DIALECT[pr.adapter]))


def _references(pr: Properties, cl: Clause) -> None:
    """dbt's built-in relationships test (NULLs pass)."""
    pr.column_test(cl, "relationships", {"to": relation_ref(cl.param("to_relation")),
                                         "field": ident(cl.param("to_column"), pr.adapter)})


def _invariant(pr: Properties, cl: Clause) -> None:
    from tacit_gen.sql import to_sql

    if cl.expr is None:
        pr.refuse(cl, "invariant has no resolved expression")
        return
    try:
        sql = to_sql(cl.expr, DIALECT[pr.adapter], cl.integers, cl.strings, cl.singles)
    except ValueError as e:
        pr.refuse(cl, str(e))
        return
    pr.expression_test(cl, sql)


def _freshness(pr: Properties, cl: Clause) -> None:
    if cl.param("whole_days"):  # a date column: whole days
        pr.column_test(cl, "tacit_freshness_days", {"max_age_days": int(cl.param("max_age_seconds")) // 86400})
    else:
        pr.column_test(cl, "tacit_freshness", {"max_age_seconds": cl.param("max_age_seconds")})


def _cadence(pr: Properties, cl: Clause) -> None:
    p = cl.params_dict
    adapter = pr.adapter
    if p.get("from_catalog") and uses_sessions(cl):
        pr.refuse(cl, "a catalog interval within sessions is not expressed in dbt")
        return
    series = list(p.get("series") or ())
    args: dict[str, Any] = {"series": [ident(c, adapter) for c in series]}
    if p.get("from_catalog"):
        if len(series) != 1:
            pr.refuse(cl, f"a catalog cadence joins on one series column; this series is {len(series)} columns")
            return
        args["catalog"] = relation_ref(p["relation"])
        args["catalog_key"] = ident(p["catalog_key"], adapter)
        args["catalog_column"] = ident(p["catalog_column"], adapter)
    else:
        args["interval_seconds"] = p["interval_seconds"]
    args["tolerance_pct"] = yaml_number(str(p.get("tolerance_pct") or "0"))
    args["gaps_allowed"] = bool(p.get("gaps_allowed"))
    if p.get("sessions") is not None:
        args["sessions"] = p["sessions"]
        args.update(session_args(p, adapter))
    if pr.contract.field("revision") is not None:
        args["revision_column"] = ident("revision", adapter)
    pr.column_test(cl, "tacit_cadence", args)


def _completeness(pr: Properties, cl: Clause) -> None:
    pr.column_test(cl, "tacit_completeness", {"windows_sql": jinja_safe(completeness_sql(cl, pr.opts.sql_dialect)),
                                              **completeness_relations(cl.params_dict)})


def _catalog_join(pr: Properties, cl: Clause) -> dict[str, Any]:
    """The arguments every catalog test shares: the model's key, the catalog and its key."""
    return {"key": ident(cl.param("key"), pr.adapter), "catalog": relation_ref(cl.param("relation")),
            "catalog_key": ident(cl.param("catalog_key"), pr.adapter)}


def _catalog_unit(pr: Properties, cl: Clause) -> None:
    pr.column_test(cl, "tacit_catalog_unit", {**_catalog_join(pr, cl),
                                              "catalog_column": ident(cl.param("catalog_column"), pr.adapter)})


def _catalog_dimension(pr: Properties, cl: Clause) -> None:
    pr.column_test(cl, "tacit_catalog_dimension", {
        **_catalog_join(pr, cl), "catalog_column": ident(cl.param("catalog_column"), pr.adapter),
        "units": list(cl.param("units")), "dimension": cl.param("dimension")})


# the catalog's bounds columns: hard bounds, or the series' plausible ones (a warning)
_BOUNDS_TESTS = {"catalog_bounds": "tacit_catalog_bounds", "plausible": "tacit_plausible"}


def _bounds(pr: Properties, cl: Clause) -> None:
    args = {**_catalog_join(pr, cl), "min_column": ident(cl.param("min_column"), pr.adapter),
            "max_column": ident(cl.param("max_column"), pr.adapter)}
    if cl.param("as_double"):  # a float32 subject, compared as the double it holds
        args["as_double"] = True
    pr.column_test(cl, _BOUNDS_TESTS[cl.kind], args)


def _revision_window(pr: Properties, cl: Clause) -> None:
    p = cl.params_dict
    args: dict[str, Any] = {"allowed": bool(p.get("allowed", True))}
    for key in ("time_column", "ingest_column"):
        if p.get(key) is not None:
            args[key] = ident(p[key], pr.adapter)
    for key in ("window_seconds", "business_days"):
        if p.get(key) is not None:
            args[key] = p[key]
    args.update(session_args(p, pr.adapter))
    pr.column_test(cl, "tacit_revision_window", args)


def _range(pr: Properties, cl: Clause) -> None:
    from tacit_gen.expr.bounds import range_pasted_exactly

    p = cl.params_dict
    lo, hi = p.get("min"), p.get("max")
    lo_inc, hi_inc = bool(p.get("min_inclusive", True)), bool(p.get("max_inclusive", True))
    col = p["column"]
    # a float32 column and a bound float32 does not hold: compared as a double (DuckDB
    # compares a FLOAT with a number in float32), with tacit's test in either style
    widen = not range_pasted_exactly(cl)
    args: dict[str, Any] = {}
    if pr.native or widen:
        if lo is not None:
            args["min_value"] = yaml_number(str(lo))
            args["min_inclusive"] = lo_inc
        if hi is not None:
            args["max_value"] = yaml_number(str(hi))
            args["max_inclusive"] = hi_inc
        if widen:
            args["as_double"] = True
        pr.column_test(cl, "tacit_accepted_range", args)
        return
    if lo is None or hi is None or lo_inc == hi_inc:
        if lo is not None:
            args["min_value"] = yaml_number(str(lo))
        if hi is not None:
            args["max_value"] = yaml_number(str(hi))
        args["inclusive"] = lo_inc if lo is not None else hi_inc
        pr.column_test(cl, "dbt_utils.accepted_range", args)
        return
    # dbt_utils.accepted_range has one `inclusive` flag: one test per side.
    name = pr.unique_name(cl.id)
    pr.col_test(col, pr.test("dbt_utils.accepted_range", cl, name + "_min",
                             {"min_value": yaml_number(str(lo)), "inclusive": lo_inc}))
    pr.col_test(col, pr.test("dbt_utils.accepted_range", cl, name + "_max",
                             {"max_value": yaml_number(str(hi)), "inclusive": hi_inc}))


RENDER: KindTable[Rule] = KindTable("dbt", "render", {
    "column": _column,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _accepted_values,
    "fixed_value": _accepted_values,
    "pattern": _pattern,
    "references": _references,
    "range": _range,
    "invariant": _invariant,
    "precision": _precision,
    "freshness": _freshness,
    "cadence": _cadence,
    "completeness": _completeness,
    "catalog_unit": _catalog_unit,
    "catalog_bounds": _bounds,
    "plausible": _bounds,
    "catalog_dimension": _catalog_dimension,
    "revision_window": _revision_window,
    "revision_by": _revision_by,
})
