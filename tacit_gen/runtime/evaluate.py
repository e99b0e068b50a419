"""`cast()` (structure, no query) and `parse()` (conversion + every clause in ONE aggregate query).

The parse query is built as one ibis expression:

    base  = table with converted columns (+ coercion-failure flags: TRY_CAST null vs source null)
    wide  = base + catalog columns (left joins)
    main  = wide.aggregate(c0=SUM(violation_0), c1=..., coercion flags, freshness flags)
    dups  = per unique clause: SUM(n) over (GROUP BY key HAVING COUNT(*) > 1) of the rows with no NULL
            in the key (SQL UNIQUE), a narrow hash aggregate
    query = main CROSS JOIN dups CROSS JOIN cadence aggregates (each over latest-revision points
            with LAG)

Each clause kind compiles through the table in `tacit_gen.runtime.clauses` to one check; this
module converts the columns, joins the catalog, sums every check into the one query and turns
the counts into verdicts.

A violation is ``NOT condition``, counted as ``CASE WHEN NOT condition THEN 1 ELSE 0 END``: a row
violates only when the condition is FALSE (SQL CHECK semantics; NULL takes the ELSE branch).
Sums are coalesced to 0 (SUM over no rows is NULL).
Failing rows are fetched (a few per failed clause) only when something failed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from tacit_gen.plan_types import Clause
from tacit_gen.runtime import sampling
from tacit_gen.runtime.backends import spark_instants
from tacit_gen.runtime.clauses import JOINS_CATALOG, compile_clause
from tacit_gen.runtime.clauses.base import (
    Check,
    Context,
    GroupsCheck,
    PointsCheck,
    RowCheck,
    TableCheck,
)
from tacit_gen.runtime.clauses.catalog import join_catalog
from tacit_gen.runtime.errors import (
    CheckExecutionError,
    ClauseFailure,
    CoercionError,
    ConstraintError,
    ContractWarning,
    StructuralError,
    UsageError,
    ValidationError,
    ValidationPhase,
)
from tacit_gen.runtime.inputs import Inputs
from tacit_gen.runtime.types import conversion_refusal, structural_mismatch, to_ibis

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.contract.types import DataType
    from tacit_gen.runtime.dataframe import DataFrame
    from tacit_gen.runtime.schema import ColumnSpec, Schema

# `warn`: a violated `severity: warn` clause; `parse()` reports it as a `ContractWarning`
Status = Literal["pass", "fail", "warn", "error"]
Category = Literal["structural", "coercion", "constraint", "execution", "ok"]
_OFFSET_RE = r"(Z|z|[+-][0-9][0-9](:?[0-9][0-9])?)$"


@dataclass(frozen=True)
class ClauseResult:
    """The verdict on one clause."""

    clause: Clause
    status: Status
    category: Category = "ok"
    count: int | None = None
    message: str = ""
    rows: tuple[dict[str, Any], ...] = ()
    error: str | None = None

    def failure(self) -> ClauseFailure:
        return ClauseFailure(
            clause_id=self.clause.id,
            kind=self.clause.kind,
            text=self.clause.text,
            message=self.message,
            count=self.count,
            rows=self.rows,
            error=self.error,
        )


@dataclass(frozen=True)
class Report:
    """Every clause's verdict, plus how many queries were sent to the engine."""

    schema: type
    results: tuple[ClauseResult, ...]
    queries: int = 0
    query: Any = field(default=None, compare=False, repr=False)  # the one aggregate ibis query
    table: Any = field(default=None, compare=False, repr=False)  # the converted ibis Table
    notes: tuple[str, ...] = ()

    @property
    def sql(self) -> str | None:
        """The SQL of the one query, compiled on demand (never on `parse()`'s hot path)."""
        if self.query is None:
            return None
        import ibis

        try:
            return str(ibis.to_sql(self.query))
        except Exception:
            return None

    @property
    def ok(self) -> bool:
        """No clause failed or errored (warnings allowed)."""
        return all(r.status in ("pass", "warn") for r in self.results)

    @property
    def warnings(self) -> tuple[ClauseResult, ...]:
        """The violated `severity: warn` clauses."""
        return tuple(r for r in self.results if r.status == "warn")

    def warning(self) -> ContractWarning | None:
        """The warning `parse()` issues for this report (None when no warn clause is violated)."""
        found = self.warnings
        if not found:
            return None
        return ContractWarning(tuple(r.failure() for r in found), schema=self.schema)

    def result(self, clause_id: str) -> ClauseResult:
        for r in self.results:
            if r.clause.id == clause_id:
                return r
        raise KeyError(clause_id)

    def error(self, phase: ValidationPhase) -> ValidationError | None:
        """The exception `parse()` raises for this report (None when every clause passed)."""
        bad = [r for r in self.results if r.status not in ("pass", "warn")]
        if not bad:
            return None
        failures = [r.failure() for r in bad]
        cats = {r.category for r in bad}
        cls: type[ValidationError]
        if "structural" in cats:
            cls = StructuralError
        elif "execution" in cats:
            cls = CheckExecutionError
        elif "coercion" in cats:
            cls = CoercionError
        else:
            cls = ConstraintError
        return cls(failures, phase=phase, schema=self.schema,
                   warnings=tuple(r.failure() for r in self.warnings))


# -- cast ---------------------------------------------------------------------------------------
def _require_table(schema: type[Schema], table: Any, phase: ValidationPhase) -> None:
    import ibis.expr.types as ir

    if not isinstance(table, ir.Table):
        clause = Clause("no_unknown_columns", "no_unknown_columns", (), (), "an ibis Table")
        for c in schema.clauses():
            if c.kind == "no_unknown_columns":
                clause = c
        raise StructuralError(
            [
                ClauseFailure(
                    clause.id, clause.kind, clause.text,
                    f"expected an ibis Table, got {type(table).__module__}.{type(table).__qualname__}",
                )
            ],
            phase=phase,
            schema=schema,
        )


def _structure(
    schema: type[Schema], table: ir.Table, convert: bool
) -> tuple[dict[str, str], dict[str, ColumnSpec], set[str]]:
    """(clause id -> structural failure message, columns to convert, unusable columns)."""
    actual = table.schema()
    failures: dict[str, str] = {}
    conversions: dict[str, ColumnSpec] = {}
    unusable: set[str] = set()
    names = set()
    for spec in schema.columns():
        names.add(spec.name)
        if spec.name not in actual:
            failures[f"column:{spec.name}"] = "column is missing"
            unusable.add(spec.name)
            continue
        why = structural_mismatch(spec.type, actual[spec.name])
        if why is None:
            continue
        if convert:
            refusal = conversion_refusal(spec.type, actual[spec.name])
            if refusal is None:
                conversions[spec.name] = spec
                continue
            why = refusal
        failures[f"column:{spec.name}"] = why
        unusable.add(spec.name)
    unknown = [c for c in actual if c not in names]
    if unknown and schema.__strict__:
        failures["no_unknown_columns"] = "unknown column(s): " + ", ".join(unknown)
    return failures, conversions, unusable


def structure_of(
    schema: type[Schema], table: ir.Table
) -> tuple[dict[str, str], dict[str, ColumnSpec], set[str]]:
    """`parse()`'s view of `table`'s structure: (clause id -> structural failure message,
    columns it converts, unusable columns)."""
    return _structure(schema, table, convert=True)


def cast_table(schema: type[Schema], table: ir.Table) -> DataFrame[Any]:
    """`Schema.cast`: structural checks only, from the table's schema; no query."""
    from tacit_gen.runtime.dataframe import DataFrame

    _require_table(schema, table, ValidationPhase.CAST)
    table = spark_instants(table)
    failures, _, _ = _structure(schema, table, convert=False)
    if failures:
        by_id = {c.id: c for c in schema.clauses()}
        out = []
        for cid, msg in failures.items():
            c = by_id.get(cid) or Clause(cid, cid.split(":")[0], (), (), cid)
            out.append(ClauseFailure(c.id, c.kind, c.text, msg))
        order = {c.id: i for i, c in enumerate(schema.clauses())}
        out.sort(key=lambda f: order.get(f.clause_id, len(order)))
        raise StructuralError(out, phase=ValidationPhase.CAST, schema=schema)
    return DataFrame._wrap(table, schema)


# -- parse --------------------------------------------------------------------------------------
def parse_table(schema: type[Schema], table: ir.Table, inputs: Inputs) -> DataFrame[Any]:
    """`Schema.parse`: convert, evaluate every clause in one aggregate query, raise on failure."""
    from tacit_gen.runtime.dataframe import DataFrame

    _require_table(schema, table, ValidationPhase.PARSE)
    report = report_of(schema, table, inputs)
    err = report.error(ValidationPhase.PARSE)
    if err is not None:
        raise err
    warned = report.warning()
    if warned is not None:  # `severity: warn` clauses: a Python warning, the data goes on
        import warnings

        warnings.warn(warned, stacklevel=3)
    return DataFrame._wrap(report.table, schema)


def _needed_columns(clause: Clause) -> set[str]:
    cols = set(clause.columns)
    for key in ("column", "key", "time_column", "ingest_column"):
        v = clause.param(key)
        if isinstance(v, str):
            cols.add(v)
    for key in ("columns", "series"):
        v = clause.param(key)
        if isinstance(v, tuple) and clause.kind != "no_unknown_columns":
            cols.update(x for x in v if isinstance(x, str))
    return cols


def _count_true(flag: Any) -> Any:
    """How many rows hold TRUE: ``SUM(CASE WHEN flag THEN 1 ELSE 0 END)``, 0 over no rows.

    Not ``SUM(CAST(flag AS BIGINT))``: PostgreSQL refuses to cast a boolean to bigint.
    """
    import ibis

    ones: Any = ibis.ifelse(flag, 1, 0)
    return ibis.coalesce(ones.sum(), 0)


class _Builder:
    """Builds the one aggregate query and evaluates it."""

    def __init__(self, schema: type[Schema], table: ir.Table, inputs: Inputs) -> None:
        self.schema = schema
        self.table = table
        self.inputs = inputs  # `now` pinned
        self.types: dict[str, DataType] = {s.name: s.type for s in schema.columns()}
        self.results: dict[str, ClauseResult] = {}
        self.queries = 0
        self.query: ir.Table | None = None
        self.checks: dict[str, Check] = {}  # clause id -> its check, in clause order
        self.flags: dict[str, str] = {}  # converted column -> its coercion-failure flag column
        self.keys: dict[str, str] = {}  # aggregate column of the main aggregate -> clause id
        self.parts: list[tuple[ir.Table, dict[str, str]]] = []  # cross-joined into the query
        self.base: ir.Table = table
        self.converted: ir.Table = table
        self.wide: ir.Table = table
        self.data_cols: list[str] = []

    def _set(self, clause: Clause, status: Status, category: Category, **kw: Any) -> None:
        if status == "fail" and category == "constraint" and clause.warn:
            status = "warn"  # reported, never raised (structure and coercion never warn)
        self.results[clause.id] = ClauseResult(clause, status, category, **kw)

    def _execute(self, expr: ir.Table) -> list[dict[str, Any]]:
        self.queries += 1
        return expr.to_pyarrow().to_pylist()  # type: ignore[no-any-return]

    def _cannot_build(self, c: Clause, e: Exception) -> None:
        self._set(c, "error", "execution", message=f"cannot build the check: {e}", error=repr(e))

    # -- the run ----------------------------------------------------------------
    def build(self) -> None:
        """Build the one aggregate query (``self.query``) and everything needed to judge it."""
        import ibis

        schema, table = self.schema, self.table
        clauses = schema.clauses()
        structural, conversions, unusable = _structure(schema, table, convert=True)
        by_id = {c.id: c for c in clauses}
        for cid, msg in structural.items():
            c = by_id.get(cid) or Clause(cid, cid.split(":")[0], (), (), cid)
            self._set(c, "fail", "structural", message=msg)

        # 1. conversions + coercion flags, computed from the source columns in one projection
        actual = table.schema()
        mutations: dict[str, Any] = {}
        flags = self.flags
        for j, (name, spec) in enumerate(conversions.items()):
            src = table[name]
            target = to_ibis(spec.type)
            conv = src.try_cast(target)
            bad = src.notnull() & conv.isnull()
            if spec.type.kind == "timestamp" and actual[name].is_string():
                # a text instant must state its offset: no silent local-time guess
                has_offset = src.re_search(_OFFSET_RE)  # pyright: ignore[reportAttributeAccessIssue]
                conv = ibis.ifelse(has_offset, conv, ibis.null(target))
                bad = src.notnull() & conv.isnull()
            elif actual[name].is_numeric() and target.is_numeric():
                # lossless only: 1.5 -> int 2 or 0.123456789 -> decimal(18,8) is a coercion failure
                bad = bad | (conv.notnull() & (conv.cast(actual[name]) != src))  # pyright: ignore[reportArgumentType, reportCallIssue]
            mutations[name] = conv
            mutations[f"__tacit_bad{j}"] = bad
            mutations[f"__tacit_src{j}"] = src
            flags[name] = f"__tacit_bad{j}"
        base = table.mutate(**mutations) if mutations else table
        self.data_cols = data_cols = [c for c in table.columns]
        relation = base.select(*data_cols) if mutations else table
        since, tcol = self.inputs.since, schema.time_column()
        if since is not None and tcol is not None and tcol not in unusable:
            # the increment: the rows at or after `since`; the clauses that relate them to
            # earlier rows read `relation` (docs/increments.md)
            probe = Context(schema.__contract__, self.types, self.inputs, base, base, time=tcol)
            base = probe.increment(base, since)
        converted = base.select(*data_cols) if mutations or base is not table else table
        self.base, self.converted = base, converted

        # 2. which clauses can run at all
        runnable: list[Clause] = []
        for c in clauses:
            if c.id in self.results or c.kind in ("column", "no_unknown_columns"):
                continue
            if since is not None and (tcol is None or tcol in unusable):
                self._set(c, "error", "execution",
                          message=f"not evaluated: since= selects on the time column {tcol}, "
                          "which is missing or of a wrong type", error="not evaluated")
                continue
            missing = sorted((_needed_columns(c) & unusable) | {
                x for x in _needed_columns(c) if x not in table.columns and x not in self.types
            })
            if missing:
                self._set(c, "error", "execution",
                          message="not evaluated: column(s) missing or of a wrong type: "
                          + ", ".join(missing),
                          error="not evaluated")
                continue
            runnable.append(c)

        # 3. the wide table: each catalog clause's join, before any clause is compiled
        wide = base
        cat_cols: dict[str, dict[str, str]] = {}
        for i, c in enumerate(runnable):
            if c.kind in JOINS_CATALOG:
                try:
                    wide, cat_cols[c.id] = join_catalog(self.inputs, wide, c, i)
                except Exception as e:
                    self._cannot_build(c, e)
        self.wide = wide

        # 4. one check per clause (the table in tacit_gen.runtime.clauses)
        cx = Context(schema.__contract__, self.types, self.inputs, converted, wide, cat_cols,
                     relation=relation, time=tcol)
        for c in runnable:
            if c.id in self.results:
                continue
            try:
                self.checks[c.id] = compile_clause(cx, c)
            except Exception as e:
                self._cannot_build(c, e)

        # 5. the one query: the main aggregate over the wide table (row and table checks,
        #    coercion flags), cross-joined with one aggregate per unique clause and per points check
        aggs: dict[str, Any] = {}
        keys = self.keys
        rows = [(cid, ch.violation) for cid, ch in self.checks.items() if isinstance(ch, RowCheck)]
        for k, (cid, v) in enumerate(rows):
            aggs[f"v{k}"] = _count_true(v)
            keys[f"v{k}"] = cid
        tables = [(cid, ch) for cid, ch in self.checks.items() if isinstance(ch, TableCheck)]
        apart: list[tuple[ir.Table, dict[str, str]]] = []  # table checks over another table
        for k, (cid, tc) in enumerate(tables):
            if tc.over is not None:
                apart.append((tc.over.aggregate(**{f"s{k}": tc.failed}), {f"s{k}": cid}))
                continue
            aggs[f"s{k}"] = tc.failed
            keys[f"s{k}"] = cid
        for k, (name, flag) in enumerate(flags.items()):
            aggs[f"k{k}"] = _count_true(wide[flag])
            keys[f"k{k}"] = f"column:{name}"
        parts = self.parts
        if aggs:
            parts.append((wide.aggregate(**aggs), {k: keys[k] for k in aggs}))
        parts.extend(apart)
        dups = [(cid, ch.groups) for cid, ch in self.checks.items() if isinstance(ch, GroupsCheck)]
        for k, (cid, groups) in enumerate(dups):
            parts.append(
                (groups.aggregate(**{f"u{k}": ibis.coalesce(groups["__tacit_n"].sum(), 0)}),
                 {f"u{k}": cid})
            )
        points = [(cid, ch) for cid, ch in self.checks.items() if isinstance(ch, PointsCheck)]
        for k, (cid, ch) in enumerate(points):
            parts.append((ch.points.aggregate(**{f"c{k}": _count_true(ch.violation)}), {f"c{k}": cid}))

        query = None
        if parts:
            query = parts[0][0]
            for p, _ in parts[1:]:
                query = query.cross_join(p)
        self.query = query

    def run(self) -> Report:
        self.build()
        query = self.query
        counts: dict[str, int] = {}
        if query is not None:
            try:
                row = self._execute(query)[0]
                for _, names in self.parts:
                    for col in names:
                        counts[col] = int(row[col])
            except Exception as e:
                self._isolate(self.parts, counts, e)
        all_keys = {**self.keys,
                    **{col: cid for _, names in self.parts for col, cid in names.items()}}

        # 6. verdicts
        by_id = {c.id: c for c in self.schema.clauses()}
        by_col = {f"column:{n}": f for n, f in self.flags.items()}
        for col, cid in all_keys.items():
            c = by_id.get(cid)
            if c is None or cid in self.results:
                continue
            if col not in counts:
                continue  # set by _isolate
            cnt = counts[col]
            if cid in by_col:
                if cnt:
                    name = cid.split(":", 1)[1]
                    self._set(c, "fail", "coercion", count=cnt,
                              message=f"{cnt} value(s) do not convert to {self.types[name]}",
                              rows=sampling.coercion_failures(self._execute, self.base, name,
                                                              by_col[cid], self.data_cols))
                continue
            if cnt:
                self._fail(c, cnt, self.checks[cid])
        results = []
        for c in self.schema.clauses():
            results.append(self.results.get(c.id) or ClauseResult(c, "pass", "ok", count=0))
        notes = tuple(f"unsupported {cid}: {why}" for cid, why in self.schema.__unsupported__)
        return Report(self.schema, tuple(results), self.queries, query, self.converted, notes)

    def _fail(self, c: Clause, cnt: int, check: Check) -> None:
        """The failed verdict of a clause whose check counted `cnt`, with a few failing rows."""
        execute = self._execute
        if isinstance(check, TableCheck):
            self._set(c, "fail", "constraint", count=None, message=check.message)
        elif isinstance(check, PointsCheck):
            rows = (sampling.short_windows(execute, check.points, check.violation, c)
                    if check.windows
                    else sampling.rows_where(execute, check.points, check.violation, None))
            self._set(c, "fail", "constraint", count=cnt, message=f"{cnt} {check.what}",
                      rows=rows)
        elif isinstance(check, GroupsCheck):
            self._set(c, "fail", "constraint", count=cnt,
                      message=f"{cnt} row(s) violate {c.text!r}",
                      rows=sampling.duplicates(execute, self.converted, check.groups,
                                               self.data_cols))
        else:
            # sample from the narrowest table: re-running the wide table's window counts
            # and joins for a clause that reads none of them would double the cost
            src, viol = self.wide, check.violation
            if check.narrow is not None:
                try:
                    src, viol = self.converted, check.narrow()
                except Exception:
                    src, viol = self.wide, check.violation
            self._set(c, "fail", "constraint", count=cnt,
                      message=f"{cnt} row(s) violate {c.text!r}",
                      rows=sampling.rows_where(execute, src, viol, self.data_cols))

    def _isolate(
        self, parts: list[tuple[ir.Table, dict[str, str]]], counts: dict[str, int], cause: Exception
    ) -> None:
        """The whole query failed: run each check alone to find the culprits (failure path)."""
        by_id = {c.id: c for c in self.schema.clauses()}
        for p, names in parts:
            for col, cid in names.items():
                try:
                    row = self._execute(p.select(col))[0]
                    counts[col] = int(row[col])
                except Exception as e:
                    c = by_id[cid]
                    self._set(c, "error", "execution",
                              message=f"the engine failed evaluating this check: {e}",
                              error=f"{type(e).__name__}: {e} (query error: {cause})")


def _pinned(schema: type[Schema], inputs: Inputs) -> Inputs:
    """`inputs` with `now` pinned (the current time when not given) and `since` checked.

    Raises:
        ValueError: a naive `now`.
        UsageError: a naive `since`, one later than `now`, or `since` on a schema without a
            time column.
    """
    now = inputs.now
    if now is None:
        now = _dt.datetime.now(_dt.UTC)
    elif now.tzinfo is None:
        raise ValueError("now= must be timezone-aware (a UTC instant), not a naive datetime")
    since = inputs.since
    if since is not None:
        name = schema.__contract__ or schema.__name__
        if not isinstance(since, _dt.datetime):
            raise UsageError(f"since= must be a datetime, got {type(since).__name__}")
        if since.tzinfo is None or since.utcoffset() is None:
            raise UsageError(f"since={since.isoformat()} has no time zone: an increment starts "
                             "at an instant (e.g. datetime(..., tzinfo=UTC))")
        if since > now:
            raise UsageError(f"since={since.isoformat()} is later than now={now.isoformat()}: "
                             "the increment would start in the future")
        if schema.time_column() is None:
            raise UsageError(f"since= needs a time column, and {name} has none (time.column in "
                             "the contract, or __time__ on the schema)")
    return replace(inputs, now=now)


def report_of(schema: type[Schema], table: ir.Table, inputs: Inputs) -> Report:
    """Every clause's verdict on `table` (converted as in `parse()`), without raising."""
    _require_table(schema, table, ValidationPhase.PARSE)
    inputs = _pinned(schema, inputs)
    outages = spark_instants(inputs.outages) if inputs.outages is not None else None
    inputs = replace(inputs, outages=outages)
    return _Builder(schema, spark_instants(table), inputs).run()


def query_of(schema: type[Schema], table: ir.Table, inputs: Inputs) -> ir.Table | None:
    """The one aggregate query `parse()` runs on `table` with `inputs`."""
    _require_table(schema, table, ValidationPhase.PARSE)
    b = _Builder(schema, table, _pinned(schema, inputs))
    b.build()
    return b.query


def parse_query(
    schema: type[Schema],
    table: ir.Table,
    *,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: _dt.datetime | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    refs: Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
    since: _dt.datetime | None = None,
) -> ir.Table | None:
    """The one aggregate query `parse()` runs (for inspection, e.g. ``ibis.to_sql(q, dialect)``)."""
    return query_of(schema, table, Inputs(catalog=catalog, now=now, sessions=sessions, refs=refs,
                                          outages=outages, since=since))


def evaluate(
    schema: type[Schema],
    table: ir.Table,
    *,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: _dt.datetime | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    refs: Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
    since: _dt.datetime | None = None,
) -> Report:
    """Every clause's verdict on `table` (converted as in `parse()`), without raising; with
    `since`, on the increment (docs/increments.md)."""
    return report_of(schema, table, Inputs(catalog=catalog, now=now, sessions=sessions, refs=refs,
                                           outages=outages, since=since))
