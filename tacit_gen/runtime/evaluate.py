"""`cast()` (structure, no query) and `parse()` (conversion + every clause in ONE aggregate query).

The parse query is built as one ibis expression:

    base  = table with converted columns (+ coercion-failure flags: TRY_CAST null vs source null)
    wide  = base + catalog columns (left joins)
    main  = wide.aggregate(c0=SUM(violation_0), c1=..., coercion flags, freshness flags)
    dups  = per unique clause: SUM(n) over (GROUP BY key HAVING COUNT(*) > 1) of the rows with no NULL
            in the key (SQL UNIQUE), a narrow hash aggregate
    query = main CROSS JOIN dups CROSS JOIN cadence aggregates (each over latest-revision points
            with LAG)

A violation is ``NOT condition``, counted as ``CASE WHEN NOT condition THEN 1 ELSE 0 END``: a row
violates only when the condition is FALSE (SQL CHECK semantics; NULL takes the ELSE branch).
Sums are coalesced to 0 (SUM over no rows is NULL).
Failing rows are fetched (a few per failed clause) only when something failed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from tacit_gen.plan_types import Clause, uses_sessions
from tacit_gen.runtime.backends import backend_name, spark_instants
from tacit_gen.runtime.compile import (
    CompileError,
    ExprCompiler,
    parse_invariant,
    range_condition,
    value_literal,
    widened,
)
from tacit_gen.runtime.errors import (
    CheckExecutionError,
    ClauseFailure,
    CoercionError,
    ConstraintError,
    ContractWarning,
    StructuralError,
    ValidationError,
    ValidationPhase,
)
from tacit_gen.runtime.types import conversion_refusal, structural_mismatch, to_ibis
from tacit_gen.semantics.calendar import WEEKDAY_EPOCH, weekday_number

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.contract.types import DataType
    from tacit_gen.expr import nodes as n
    from tacit_gen.runtime.dataframe import DataFrame
    from tacit_gen.runtime.schema import ColumnSpec, Schema

# `warn`: a violated `severity: warn` clause; `parse()` reports it as a `ContractWarning`
Status = Literal["pass", "fail", "warn", "error"]
Category = Literal["structural", "coercion", "constraint", "execution", "ok"]
SAMPLE_ROWS = 5
_OFFSET_RE = r"(Z|z|[+-][0-9][0-9](:?[0-9][0-9])?)$"
_US_PER_DAY = 86_400_000_000
_MONDAY = _dt.datetime.combine(WEEKDAY_EPOCH, _dt.time(), tzinfo=_dt.UTC)  # a Monday
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


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
def parse_table(
    schema: type[Schema],
    table: ir.Table,
    *,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: _dt.datetime | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    refs: Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
) -> DataFrame[Any]:
    """`Schema.parse`: convert, evaluate every clause in one aggregate query, raise on failure."""
    from tacit_gen.runtime.dataframe import DataFrame

    _require_table(schema, table, ValidationPhase.PARSE)
    report = evaluate(schema, table, catalog=catalog, now=now, sessions=sessions, refs=refs,
                      outages=outages)
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


def _catalog_for(
    catalog: ir.Table | Mapping[str, ir.Table] | None, relation: str | None
) -> ir.Table:
    import ibis.expr.types as ir

    if catalog is None:
        raise CompileError(f"needs the catalog relation {relation!r}: pass catalog=")
    if isinstance(catalog, ir.Table):
        return catalog
    if relation in catalog:
        return catalog[relation]  # type: ignore[index]
    raise CompileError(f"catalog relation {relation!r} not given (have {sorted(catalog)})")


def _tolerance(text: Any) -> Fraction:
    return Fraction(str(text or "0"))


def _count_true(flag: Any) -> Any:
    """How many rows hold TRUE: ``SUM(CASE WHEN flag THEN 1 ELSE 0 END)``, 0 over no rows.

    Not ``SUM(CAST(flag AS BIGINT))``: PostgreSQL refuses to cast a boolean to bigint.
    """
    import ibis

    ones: Any = ibis.ifelse(flag, 1, 0)
    return ibis.coalesce(ones.sum(), 0)


def _us_between(start: Any, stop: Any) -> Any:
    """Microseconds from instant `start` to instant `stop`, whatever the session time zone.

    ibis compiles ``delta`` on PostgreSQL through ``CAST(.. AS TIMESTAMP)``, which reads the
    instant in the session time zone (a DST change then moves a step by an hour); the epoch of a
    ``timestamptz`` is absolute, so PostgreSQL subtracts epochs (exact: numeric seconds).
    """
    if backend_name(stop) == "postgres" or backend_name(start) == "postgres":
        return (stop.epoch_seconds() - start.epoch_seconds()) * 1_000_000
    return stop.delta(start, unit="microsecond")


def _epoch_ms(col: Any) -> Any:
    """Whole milliseconds since the epoch of an instant, floored (tacit_gen.semantics.completeness)."""
    import ibis
    import ibis.expr.datatypes as dt

    epoch = ibis.literal(_EPOCH, type=dt.Timestamp(timezone="UTC"))
    return (_us_between(epoch, col) // 1000).cast("int64")


def _by_series(t: Any, series: list[str], **aggs: Any) -> Any:
    """`aggs` per series (`series` columns), or over the whole table when there is none."""
    return t.group_by(series).aggregate(**aggs) if series else t.aggregate(**aggs)


class _Builder:
    """Builds the one aggregate query and evaluates it."""

    def __init__(
        self,
        schema: type[Schema],
        table: ir.Table,
        catalog: ir.Table | Mapping[str, ir.Table] | None,
        now: _dt.datetime,
        sessions: ir.Table | Mapping[str, ir.Table] | None = None,
        refs: Mapping[str, ir.Table] | None = None,
        outages: ir.Table | None = None,
    ) -> None:
        self.schema = schema
        self.table = table
        self.catalog = catalog
        self.sessions = sessions
        self.refs = refs
        self.outages = outages
        self.now = now
        self.types: dict[str, DataType] = {s.name: s.type for s in schema.columns()}
        self.results: dict[str, ClauseResult] = {}
        self.queries = 0
        self.query: ir.Table | None = None
        self.converted: ir.Table = table
        self._state: tuple[Any, ...] = ()

    # -- helpers --------------------------------------------------------------
    def _set(self, clause: Clause, status: Status, category: Category, **kw: Any) -> None:
        if status == "fail" and category == "constraint" and clause.warn:
            status = "warn"  # reported, never raised (structure and coercion never warn)
        self.results[clause.id] = ClauseResult(clause, status, category, **kw)

    def _execute(self, expr: ir.Table) -> list[dict[str, Any]]:
        self.queries += 1
        return expr.to_pyarrow().to_pylist()  # type: ignore[no-any-return]

    # -- the run ----------------------------------------------------------------
    def build(self) -> None:
        """Build the one aggregate query (``self.query``) and everything needed to judge it."""
        import ibis
        import ibis.expr.datatypes as dt

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
        flags: dict[str, str] = {}  # column -> flag column
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
        data_cols = [c for c in table.columns]
        converted = base.select(*data_cols) if mutations else table
        self.converted = converted  # a self reference reads it (`_references`)

        # 2. which clauses can run at all
        runnable: list[Clause] = []
        for c in clauses:
            if c.id in self.results or c.kind in ("column", "no_unknown_columns"):
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

        # 3. the wide table (catalog joins) and the duplicate-key aggregates. A unique clause
        #    is a hash aggregate over its key columns alone (``GROUP BY key HAVING count(*) > 1``),
        #    summed and cross-joined into the one query: a narrow scan, never a window over the
        #    wide table (which sorts and materialises every column; 2-3x the whole query's cost).
        wide = base
        dups: dict[str, ir.Table] = {}  # clause id -> duplicate key groups (column __tacit_n)
        cat_cols: dict[str, dict[str, str]] = {}
        for i, c in enumerate(runnable):
            try:
                if c.kind == "unique":
                    key = list(c.param("columns") or c.columns)
                    # SQL UNIQUE: a row with a NULL in the key is no duplicate (not_null's job)
                    keyed = converted.filter([converted[k].notnull() for k in key])
                    groups = keyed.group_by(key).aggregate(__tacit_n=ibis._.count())
                    dups[c.id] = groups.filter(groups["__tacit_n"] > 1)  # pyright: ignore[reportOperatorIssue]
                elif c.kind in ("catalog_bounds", "catalog_dimension", "catalog_unit", "plausible"):
                    wide, cols = self._join_catalog(wide, c, i)
                    cat_cols[c.id] = cols
            except Exception as e:
                self._set(c, "error", "execution", message=f"cannot build the check: {e}",
                          error=repr(e))
        runnable = [c for c in runnable if c.id not in self.results]

        # 4. one condition per clause on the wide table
        violations: dict[str, Any] = {}  # clause id -> boolean column (row-level)
        scalars: dict[str, Any] = {}  # clause id -> integer scalar (table-level fail count)
        cadence: dict[str, tuple[Any, Any]] = {}  # clause id -> (points table, violation)
        for c in runnable:
            try:
                if c.kind == "freshness":
                    col = wide[c.param("column")]
                    if col.type().is_date():  # whole days before the UTC date of now
                        days = int(c.param("max_age_seconds")) // 86_400
                        oldest = self.now.astimezone(_dt.UTC).date() - _dt.timedelta(days=days)
                        ok = (col.max() >= ibis.literal(oldest, type=dt.date)).fill_null(False)
                        scalars[c.id] = ibis.ifelse(ok, 0, 1)
                        continue
                    edge = self.now - _dt.timedelta(seconds=int(c.param("max_age_seconds")))
                    lit = ibis.literal(edge, type=dt.Timestamp(timezone="UTC"))
                    ok = (col.max() >= lit).fill_null(False)
                    scalars[c.id] = ibis.ifelse(ok, 0, 1)
                elif c.kind == "cadence":
                    cadence[c.id] = self._cadence(converted, c)
                elif c.kind == "completeness":
                    cadence[c.id] = self._completeness(converted, c)
                elif c.kind == "revision_window" and uses_sessions(c):
                    cadence[c.id] = self._session_window(converted, c)
                elif c.kind == "unique":
                    continue  # counted from dups[c.id]
                else:
                    cond = self._condition(wide, c, cat_cols)
                    # no fill_null: CASE WHEN NULL is the ELSE branch (0) in _count_true, and a
                    # filter drops NULL rows; a COALESCE per clause costs every row a call
                    violations[c.id] = ~cond
            except Exception as e:
                self._set(c, "error", "execution", message=f"cannot build the check: {e}",
                          error=repr(e))

        aggs: dict[str, Any] = {}
        keys: dict[str, str] = {}
        for k, (cid, v) in enumerate(violations.items()):
            aggs[f"v{k}"] = _count_true(v)
            keys[f"v{k}"] = cid
        for k, (cid, s) in enumerate(scalars.items()):
            aggs[f"s{k}"] = s
            keys[f"s{k}"] = cid
        for k, (name, flag) in enumerate(flags.items()):
            aggs[f"k{k}"] = _count_true(wide[flag])
            keys[f"k{k}"] = f"column:{name}"
        parts: list[tuple[ir.Table, dict[str, str]]] = []
        if aggs:
            parts.append((wide.aggregate(**aggs), {k: keys[k] for k in aggs}))
        for k, (cid, groups) in enumerate(dups.items()):
            if cid not in self.results:
                parts.append(
                    (groups.aggregate(**{f"u{k}": ibis.coalesce(groups["__tacit_n"].sum(), 0)}),  # pyright: ignore
                     {f"u{k}": cid})
                )
        for k, (cid, (pts, viol)) in enumerate(cadence.items()):
            parts.append(
                (pts.aggregate(**{f"c{k}": _count_true(viol)}),
                 {f"c{k}": cid})
            )

        query = None
        if parts:
            query = parts[0][0]
            for p, _ in parts[1:]:
                query = query.cross_join(p)
        self.query = query
        self._state = (clauses, by_id, flags, keys, parts, cadence, violations, base, data_cols,
                       converted, wide, dups)

    def run(self) -> Report:
        self.build()
        (clauses, by_id, flags, keys, parts, cadence, violations, base, data_cols,
         converted, wide, dups) = self._state
        query = self.query
        counts: dict[str, int] = {}
        if query is not None:
            try:
                row = self._execute(query)[0]
                for _, names in parts:
                    for col in names:
                        counts[col] = int(row[col])
            except Exception as e:
                self._isolate(parts, counts, e)
        all_keys = {**keys, **{col: cid for _, names in parts for col, cid in names.items()}}

        # 5. verdicts
        by_col = {f"column:{n}": f for n, f in flags.items()}
        for col, cid in all_keys.items():
            c = by_id.get(cid)
            if c is None or cid in self.results:
                continue
            if col not in counts:
                continue  # set by _isolate
            cnt = counts[col]
            if cid in by_col:
                spec = self.types[cid.split(":", 1)[1]]
                if cnt:
                    self._set(c, "fail", "coercion", count=cnt,
                              message=f"{cnt} value(s) do not convert to {spec}",
                              rows=self._sample_coercion(base, cid.split(":", 1)[1], by_col[cid],
                                                         data_cols))
                continue
            if cnt == 0:
                continue
            if c.kind == "freshness":
                age = (f"{int(c.param('max_age_seconds')) // 86_400} day(s) before the UTC date of"
                       if c.param("whole_days") else f"{c.param('max_age_seconds')}s before")
                self._set(c, "fail", "constraint", count=None,
                          message=f"newest {c.param('column')} is older than "
                          f"{age} {self.now.isoformat()} (or no rows)")
            elif cid in cadence:
                pts, viol = cadence[cid]
                what = ("point(s) off the expected cadence" if c.kind == "cadence"
                        else "series window(s) short of readings" if c.kind == "completeness"
                        else f"row(s) violate {c.text!r}")
                rows = (self._sample_windows(pts, viol, c) if c.kind == "completeness"
                        else self._sample(pts, viol, None))
                self._set(c, "fail", "constraint", count=cnt, message=f"{cnt} {what}", rows=rows)
            elif c.kind == "unique":
                self._set(c, "fail", "constraint", count=cnt,
                          message=f"{cnt} row(s) violate {c.text!r}",
                          rows=self._sample_duplicates(converted, dups[cid], data_cols))
            else:
                # sample from the narrowest table: re-running the wide table's window counts
                # and joins for a clause that reads none of them would double the cost
                src, viol = wide, violations[cid]
                if c.kind not in ("catalog_bounds", "catalog_dimension", "catalog_unit", "plausible"):
                    try:
                        src = converted
                        viol = (~self._condition(converted, c, {})).fill_null(False)
                    except Exception:
                        src, viol = wide, violations[cid]
                self._set(c, "fail", "constraint", count=cnt,
                          message=f"{cnt} row(s) violate {c.text!r}",
                          rows=self._sample(src, viol, data_cols))
        results = []
        for c in clauses:
            results.append(self.results.get(c.id) or ClauseResult(c, "pass", "ok", count=0))
        notes = tuple(f"unsupported {cid}: {why}" for cid, why in self.schema.__unsupported__)
        return Report(self.schema, tuple(results), self.queries, query, converted, notes)

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

    def _sample(self, t: ir.Table, viol: Any, cols: list[str] | None) -> tuple[dict[str, Any], ...]:
        try:
            q = t.filter(viol)
            q = q.select(*(cols or [c for c in t.columns if not c.startswith("__tacit_")]))
            return tuple(self._execute(q.limit(SAMPLE_ROWS)))
        except Exception:
            return ()

    def _sample_windows(self, wins: Any, viol: Any, c: Clause) -> tuple[dict[str, Any], ...]:
        """The first short windows (failure path only), in series then time order: the series
        values, `window_start` (the window's or session's start, UTC) and `readings`; either
        name gets a trailing `_` (as often as needed) when a series column has it."""
        import ibis
        import ibis.expr.datatypes as dt

        series = [s for s in (c.param("series") or ()) if isinstance(s, str)]

        def free(name: str) -> str:
            while name in series:
                name += "_"
            return name

        epoch = ibis.literal(_EPOCH, type=dt.Timestamp(timezone="UTC"))
        try:
            q = wins.filter(viol).order_by([*series, "__tacit_ws"])
            q = q.select(*series, **{free("window_start"): epoch + q["__tacit_ws"].as_interval("ms"),
                                     free("readings"): q["__tacit_n"].fill_null(0)})
            return tuple(self._execute(q.limit(SAMPLE_ROWS)))
        except Exception:
            return ()

    def _sample_duplicates(
        self, converted: ir.Table, groups: ir.Table, cols: list[str]
    ) -> tuple[dict[str, Any], ...]:
        """A few rows whose key is duplicated (failure path only): the data semi-joined to the
        duplicate groups (whose keys hold no NULL)."""
        key = [c for c in groups.columns if c != "__tacit_n"]
        try:
            q = converted.semi_join(groups, [converted[k] == groups[k] for k in key])
            return tuple(self._execute(q.select(*cols).limit(SAMPLE_ROWS)))
        except Exception:
            return ()

    def _sample_coercion(
        self, base: ir.Table, name: str, flag: str, cols: list[str]
    ) -> tuple[dict[str, Any], ...]:
        j = flag.removeprefix("__tacit_bad")
        try:
            q = base.filter(base[flag]).select(  # pyright: ignore[reportArgumentType]
                *[base[f"__tacit_src{j}"].name(c) if c == name else base[c] for c in cols]
            )
            return tuple(self._execute(q.limit(SAMPLE_ROWS)))
        except Exception:
            return ()

    # -- clause kinds ------------------------------------------------------------
    def _condition(
        self,
        wide: ir.Table,
        c: Clause,
        cat_cols: Mapping[str, Mapping[str, str]],
    ) -> Any:
        import ibis

        kind = c.kind
        col_name = c.param("column")
        ctype = self.types.get(col_name) if isinstance(col_name, str) else None
        if kind == "not_null":
            return wide[col_name].notnull()
        if kind == "accepted_values":
            values = [value_literal(v, ctype) for v in c.param("values") or ()]
            return wide[col_name].isin(values)
        if kind == "fixed_value":
            return wide[col_name] == value_literal(c.param("value"), ctype)
        if kind == "range":
            return range_condition(wide[col_name], ctype, c.params_dict)
        if kind == "invariant":
            node = c.expr if c.expr is not None else parse_invariant(str(c.param("expr") or c.text))
            return ExprCompiler(wide, self.types, self._inline_catalog(wide, cat_cols)).condition(
                node
            )
        if kind in ("catalog_unit", "catalog_bounds", "plausible"):
            cols = cat_cols[c.id]
            present = wide[cols["n"]].notnull()
            value = widened(wide[col_name], self.types.get(col_name))  # a float32 as a double
            if kind == "catalog_unit":
                match = value == wide[cols["unit"]]
            else:
                match = (wide[cols["min"]] <= value) & (value <= wide[cols["max"]])
            # a null value passes (not_null's job); a key with no catalog entry is a violation
            return value.isnull() | (present & match)
        if kind == "catalog_dimension":
            # the series' catalog unit is one of the dimension's spellings; a NULL key passes
            # (not_null's job); no catalog entry or a NULL unit is a violation
            cols = cat_cols[c.id]
            unit = wide[cols["unit"]]
            listed = unit.notnull() & unit.isin(list(c.param("units") or ()))
            return wide[c.param("key")].isnull() | (wide[cols["n"]].notnull() & listed)
        if kind == "revision_window":
            return self._revision(wide, c)
        if kind == "pattern":
            return wide[col_name].re_search(_full_match(c.param("pattern"), wide))  # pyright: ignore[reportAttributeAccessIssue]
        if kind == "references":
            return self._references(wide, c)
        if kind == "revision_by":
            who = wide[col_name]
            restated = wide[c.param("revision_column")] > 0  # pyright: ignore[reportOperatorIssue]
            return ~restated | (who.notnull() & who.isin(list(c.param("values") or ())))
        raise CompileError(f"unknown clause kind {kind!r}")
        _ = ibis  # pragma: no cover

    def _references(self, wide: ir.Table, c: Clause) -> Any:
        """A foreign key (semantics/references.py): a NULL passes, any other value must be a
        non-NULL value of the referenced column (`IN (SELECT ...)`, the NULLs filtered out so
        that an unmatched value is FALSE, never UNKNOWN). A reference to the schema's own
        contract reads the (converted) table being parsed unless `refs` names it."""
        rel, to_col = str(c.param("to_relation")), str(c.param("to_column"))
        if self.refs is not None and rel in self.refs:
            ref = self.refs[rel]
        elif rel == self.schema.__contract__:
            ref = self.converted  # a self reference: the table being parsed is the relation
        else:
            have = f" (have {sorted(self.refs)})" if self.refs else ""
            raise CompileError(f"{c.id} reads relation {rel!r}: pass refs={{{rel!r}: <table>}}{have}")
        if to_col not in ref.columns:
            raise CompileError(f"{c.id}: relation {rel!r} has no column {to_col!r}")
        value = wide[c.param("column")]
        allowed = ref.filter(ref[to_col].notnull())[to_col]
        return value.isnull() | value.isin(allowed)

    def _inline_catalog(
        self, wide: ir.Table, cat_cols: Mapping[str, Mapping[str, str]]
    ) -> Callable[[str, n.Node, n.Node], Any]:
        """Catalog forms inside an invariant reuse the join of the matching catalog clause."""
        from tacit_gen.expr import nodes as n

        def lookup(form: str, subject: n.Node, key: n.Node) -> Any:
            kind = "catalog_unit" if form == "unit" else "catalog_bounds"
            name = subject.name if isinstance(subject, n.Column | n.Name) else None
            for cid, cols in cat_cols.items():
                if cid == f"{kind}:{name}":
                    # a float32 as a double, as everywhere (`name` is the matched clause's column)
                    value = widened(wide[name], self.types.get(str(name)))  # pyright: ignore[reportArgumentType, reportCallIssue]
                    present = wide[cols["n"]].notnull()
                    if kind == "catalog_unit":
                        return value.isnull() | (present & (value == wide[cols["unit"]]))
                    return value.isnull() | (
                        present & (wide[cols["min"]] <= value) & (value <= wide[cols["max"]])
                    )
            raise CompileError(f"no catalog clause {kind}:{name} to take the catalog from")

        return lookup

    def _join_catalog(self, wide: ir.Table, c: Clause, i: int) -> tuple[ir.Table, dict[str, str]]:
        cat = _catalog_for(self.catalog, c.param("relation"))
        ck = cat[c.param("catalog_key")]
        k, nn = f"__tacit_ck{i}", f"__tacit_cn{i}"
        if c.kind in ("catalog_dimension", "catalog_unit"):
            u = f"__tacit_cu{i}"
            agg = cat.group_by(ck.name(k)).aggregate(
                **{u: cat[c.param("catalog_column")].min(), nn: cat.count()}
            )
            names = {"unit": u, "n": nn}
        else:
            lo, hi = f"__tacit_clo{i}", f"__tacit_chi{i}"
            # duplicate catalog rows: keep the tightest bounds
            agg = cat.group_by(ck.name(k)).aggregate(
                **{lo: cat[c.param("min_column")].max(), hi: cat[c.param("max_column")].min(),
                   nn: cat.count()}
            )
            names = {"min": lo, "max": hi, "n": nn}
        keep = list(wide.columns)
        joined = wide.left_join(agg, wide[c.param("key")] == agg[k])
        joined = joined.select(*keep, *names.values())
        return joined, names

    def _cadence(self, data: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
        import ibis

        tcol = str(c.param("column"))
        series = [s for s in (c.param("series") or ()) if isinstance(s, str)]
        # Rows with a NULL time or series value are not points (not_null's business). Every row at
        # the latest revision of a point counts, ties included: an exact duplicate is a step of 0.
        pts = data.filter([data[x].notnull() for x in (tcol, *series)])
        if "revision" in data.columns and "revision" not in series and tcol != "revision":
            latest = pts["revision"].max().over(ibis.window(group_by=[*series, tcol]))
            pts = pts.mutate(__tacit_latest=latest)
            pts = pts.filter(
                (pts["revision"] == pts["__tacit_latest"])
                | (pts["revision"].isnull() & pts["__tacit_latest"].isnull())
            ).drop("__tacit_latest")
        if uses_sessions(c):
            if c.param("from_catalog"):
                raise CompileError("a catalog cadence is not checked within sessions")
            return self._session_cadence(pts, c, tcol, series)
        if c.param("from_catalog"):
            cat = _catalog_for(self.catalog, c.param("relation"))
            agg = cat.group_by(cat[c.param("catalog_key")].name("__tacit_cadk")).aggregate(
                __tacit_cads=cat[c.param("catalog_column")].min()
            )
            keep = list(pts.columns)
            pts = pts.left_join(agg, pts[series[0]] == agg["__tacit_cadk"]).select(  # pyright: ignore[reportArgumentType]
                *keep, "__tacit_cads"
            )
            interval_us: Any = pts["__tacit_cads"].cast("int64") * 1_000_000
        else:
            seconds = c.param("interval_seconds")
            if seconds is None:
                raise CompileError("cadence without an interval")
            interval_us = int(seconds) * 1_000_000
        window = ibis.window(group_by=series or None, order_by=[pts[tcol]])
        pts = pts.mutate(__tacit_prev=pts[tcol].lag().over(window))
        step = _us_between(pts["__tacit_prev"], pts[tcol])
        tol = _tolerance(c.param("tolerance_pct"))
        p, q = tol.numerator, tol.denominator
        # integer arithmetic: step < interval * (1 - tol/100)  <=>  step*100q < interval*(100q-p)
        scaled = step * ibis.literal(100 * q, type="int64")

        def bound(factor: int) -> Any:  # products in BIGINT (a literal alone may be INTEGER)
            if isinstance(interval_us, int):
                return ibis.literal(interval_us * factor, type="int64").cast("int64")
            return interval_us * ibis.literal(factor, type="int64").cast("int64")

        short = scaled < bound(100 * q - p)
        viol = short
        if not c.param("gaps_allowed"):
            viol = short | (scaled > bound(100 * q + p))
        viol = viol.fill_null(False)
        if c.param("from_catalog"):
            # a series unknown to the catalog (or with no interval) fails, never a silent pass
            viol = viol | pts["__tacit_cads"].isnull()
        return pts, viol

    def _completeness(self, data: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
        """tacit_gen.semantics.completeness: one row per series window (a UTC-aligned window, or
        for `N per session` a session of the series' calendar) between the series' first and
        last readings, TRUE when it holds too few (less what allowed outages cover)."""
        import ibis

        tcol = str(c.param("column"))
        series = [s for s in (c.param("series") or ()) if isinstance(s, str)]
        pts: Any = data.filter([data[x].notnull() for x in (tcol, *series)])
        pts = pts.select(*series, __tacit_ms=_epoch_ms(pts[tcol])).distinct()
        if c.param("window_seconds") is None:
            wins = self._session_windows(pts, c, series)
        else:
            w = int(c.param("window_seconds")) * 1000
            bounds: Any = _by_series(pts, series,
                                     __tacit_k0=(pts["__tacit_ms"].min() + (w - 1)) // w,
                                     __tacit_k1=pts["__tacit_ms"].max() // w - 1)
            bounds = bounds.filter(bounds["__tacit_k0"] <= bounds["__tacit_k1"])
            windows = bounds.select(*series, __tacit_k=ibis.range(
                bounds["__tacit_k0"], bounds["__tacit_k1"] + 1).unnest().cast("int64"))
            counts = pts.mutate(__tacit_k=(pts["__tacit_ms"] // w).cast("int64")).group_by(
                [*series, "__tacit_k"]).aggregate(__tacit_n=ibis._.count())
            keys = [*series, "__tacit_k"]
            wins = windows.left_join(counts, keys).select(*[windows[k] for k in keys],
                                                          __tacit_n=counts["__tacit_n"])
            wins = wins.select(*series, __tacit_ws=wins["__tacit_k"] * w,
                               __tacit_we=(wins["__tacit_k"] + 1) * w,
                               __tacit_full=ibis.literal(w, type="int64"),
                               __tacit_n=wins["__tacit_n"])
        return self._short_windows(wins, c, series)

    def _session_windows(self, pts: Any, c: Clause, series: list[str]) -> Any:
        """`N per session`: the sessions ``[open, close)`` of each series' calendar between its
        first and last readings (series..., __tacit_ws, __tacit_we in ms, __tacit_full: the
        calendar's longest session in the relation, __tacit_n: the readings in the session)."""
        import ibis

        bounds: Any = _by_series(pts, series, __tacit_f=pts["__tacit_ms"].min(),
                                 __tacit_l=pts["__tacit_ms"].max())
        bounds, code = self._calendar_code(bounds, c)
        bounds = bounds.select(*series, "__tacit_f", "__tacit_l", __tacit_bc=code)
        ses: Any = self._sessions_relation(c)
        s = ses.select(__tacit_cal=ses[c.param("sessions_calendar")],
                       __tacit_ws=_epoch_ms(ses[c.param("sessions_open")]),
                       __tacit_we=_epoch_ms(ses[c.param("sessions_close")]))
        s = s.filter(s["__tacit_ws"].notnull() & s["__tacit_we"].notnull())
        full = s.group_by("__tacit_cal").aggregate(
            __tacit_full=(s["__tacit_we"] - s["__tacit_ws"]).max())
        s = s.inner_join(full, "__tacit_cal")
        j: Any = bounds.inner_join(s, [bounds["__tacit_bc"] == s["__tacit_cal"],
                                       s["__tacit_ws"] >= bounds["__tacit_f"],
                                       s["__tacit_we"] <= bounds["__tacit_l"]])
        wins = j.select(*series, "__tacit_ws", "__tacit_we", "__tacit_full")
        p = pts.select(*[pts[x].name(f"__tacit_p_{x}") for x in series], "__tacit_ms")
        inside = [wins[x] == p[f"__tacit_p_{x}"] for x in series]
        inside += [p["__tacit_ms"] >= wins["__tacit_ws"], p["__tacit_ms"] < wins["__tacit_we"]]
        hit: Any = wins.inner_join(p, inside)
        keys = [*series, "__tacit_ws"]
        counts = hit.group_by(keys).aggregate(__tacit_n=ibis._.count())
        return wins.left_join(counts, keys).select(
            *[wins[k] for k in keys], "__tacit_we", "__tacit_full", __tacit_n=counts["__tacit_n"])

    def _short_windows(self, wins: Any, c: Clause, series: list[str]) -> tuple[ir.Table, Any]:
        """The verdict on each window (series..., __tacit_ws, __tacit_we, __tacit_full,
        __tacit_n): readings * 100 * PCT_SCALE * full < min_pct units * expected * (length -
        covered), `covered` the window's overlap with the series' allowed outages."""
        import ibis

        from tacit_gen.semantics.completeness import PCT_SCALE, pct_units

        keys = [*series, "__tacit_ws"]
        length: Any = wins["__tacit_we"] - wins["__tacit_ws"]
        covered: Any = ibis.literal(0, type="int64")
        gaps = tuple(c.param("allowed_gaps") or ())
        if gaps:
            if self.outages is None:
                raise CompileError(f"needs the outages relation {c.param('outages_relation')!r}: "
                                   "pass outages=")
            o: Any = self.outages
            o = o.filter(o[c.param("outages_type")].isin(list(gaps)))
            o = o.select(*[o[s].name(f"__tacit_o_{s}") for s in series],
                         __tacit_o0=_epoch_ms(o[c.param("outages_start")]),
                         __tacit_o1=_epoch_ms(o[c.param("outages_end")]))
            cond = [wins[s] == o[f"__tacit_o_{s}"] for s in series]
            cond += [o["__tacit_o0"] < wins["__tacit_we"], o["__tacit_o1"] > wins["__tacit_ws"]]
            j: Any = wins.inner_join(o, cond)
            overlap: Any = ibis.least(j["__tacit_o1"], j["__tacit_we"])
            overlap = overlap - ibis.greatest(j["__tacit_o0"], j["__tacit_ws"])
            cov = j.group_by(keys).aggregate(__tacit_cov=overlap.sum())
            wins = wins.left_join(cov, keys).select(
                *[wins[k] for k in keys], "__tacit_we", "__tacit_full", "__tacit_n",
                __tacit_cov=cov["__tacit_cov"])
            length = wins["__tacit_we"] - wins["__tacit_ws"]
            covered = ibis.least(wins["__tacit_cov"].fill_null(0), length)
        n = wins["__tacit_n"].fill_null(0).cast("decimal(38, 0)")
        full = wins["__tacit_full"].cast("decimal(38, 0)")
        need = ibis.literal(pct_units(str(c.param("min_pct"))) * int(c.param("expected")),
                            type="decimal(38, 0)")
        viol = n * (100 * PCT_SCALE) * full < need * (length - covered).cast("decimal(38, 0)")
        return wins, viol.fill_null(False)

    def _sessions_relation(self, c: Clause) -> Any:
        """The sessions relation the clause names, as given to parse(sessions=...)."""
        import ibis.expr.types as ir

        rel = str(c.param("sessions_relation"))
        if self.sessions is None:
            raise CompileError(f"needs the sessions relation {rel!r}: pass sessions=")
        if isinstance(self.sessions, ir.Table):
            return self.sessions
        if rel in self.sessions:
            return self.sessions[rel]
        raise CompileError(f"sessions relation {rel!r} not given (have {sorted(self.sessions)})")

    def _sessions_table(self, c: Clause) -> Any:
        """The sessions relation as (__tacit_cal, __tacit_day, __tacit_open, __tacit_close,
        __tacit_sn): numbered 1, 2, ... per calendar in date order."""
        import ibis

        ses = self._sessions_relation(c)
        s = ses.select(__tacit_cal=ses[c.param("sessions_calendar")],
                       __tacit_day=ses[c.param("sessions_session")],
                       __tacit_open=ses[c.param("sessions_open")],
                       __tacit_close=ses[c.param("sessions_close")])
        w = ibis.window(group_by=[s["__tacit_cal"]], order_by=[s["__tacit_day"]])
        return s.mutate(__tacit_sn=ibis.row_number().over(w) + 1)

    def _calendar_code(self, t: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
        """`t` with its rows' calendar code: the contract's literal, or the catalog's column."""
        import ibis

        if c.param("calendar") is not None:
            return t, ibis.literal(str(c.param("calendar")))
        cat = _catalog_for(self.catalog, c.param("calendar_catalog"))
        agg = cat.group_by(cat[c.param("calendar_catalog_key")].name("__tacit_calk")).aggregate(
            __tacit_code=cat[c.param("calendar_catalog_column")].min())
        keep = list(t.columns)
        t = t.left_join(agg, t[c.param("calendar_series")] == agg["__tacit_calk"]).select(  # pyright: ignore[reportArgumentType]
            *keep, "__tacit_code")
        return t, t["__tacit_code"]

    def _session_cadence(self, pts: ir.Table, c: Clause, tcol: str,
                         series: list[str]) -> tuple[ir.Table, Any]:
        """tacit_gen.semantics.sessions: each point's session number, NULL outside every
        session; a point fails outside sessions, off the interval within one, or (unless gaps
        are allowed) after a skipped session or a second bar of one trading day."""
        import ibis
        import ibis.expr.datatypes as dt

        epoch = ibis.literal(_EPOCH, type=dt.Timestamp(timezone="UTC"))
        if c.param("sessions_relation") is None:  # `1 trading day`, Monday to Friday
            t = pts[tcol]
            monday = ibis.literal(_MONDAY, type=dt.Timestamp(timezone="UTC"))
            days = _us_between(monday, t) // _US_PER_DAY
            ok = ((days % 7) < 5) & ((_us_between(epoch, t) % _US_PER_DAY) == 0)
            sn = ibis.ifelse(ok, weekday_number(days, least=ibis.least), ibis.null())
            placed = pts.mutate(__tacit_sn=sn.cast("int64"))
        else:
            keep = list(pts.columns)
            pts, code = self._calendar_code(pts, c)
            s = self._sessions_table(c)
            t = pts[tcol]
            if c.param("sessions") == "within":
                seconds = int(c.param("interval_seconds"))
                inside = ((_us_between(s["__tacit_open"], t) >= 0)
                          & (_us_between(t, s["__tacit_close"]) >= seconds * 1_000_000))
            else:
                tus = _us_between(epoch, t)
                day_no = s["__tacit_day"].delta(ibis.date(1970, 1, 1), unit="day")
                inside = ((tus // _US_PER_DAY) == day_no) & (
                    ((tus % _US_PER_DAY) == 0) | (_us_between(s["__tacit_open"], t) == 0))
            joined = pts.left_join(s, (s["__tacit_cal"] == code) & inside)
            placed = joined.select(*keep, "__tacit_sn")
        w = ibis.window(group_by=series or None, order_by=[placed[tcol]])
        placed = placed.mutate(__tacit_prev=placed[tcol].lag().over(w),
                               __tacit_prev_sn=placed["__tacit_sn"].lag().over(w))
        cur: Any = placed["__tacit_sn"]
        prev: Any = placed["__tacit_prev_sn"]
        same = cur == prev
        if c.param("sessions") == "within":
            step = _us_between(placed["__tacit_prev"], placed[tcol])
            tol = _tolerance(c.param("tolerance_pct"))
            p, q = tol.numerator, tol.denominator
            interval_us = int(c.param("interval_seconds")) * 1_000_000
            scaled = step * ibis.literal(100 * q, type="int64")
            off = scaled < ibis.literal(interval_us * (100 * q - p), type="int64")
            if not c.param("gaps_allowed"):
                off = off | (scaled > ibis.literal(interval_us * (100 * q + p), type="int64"))
            bad_step = same & off
        else:
            bad_step = same
        if not c.param("gaps_allowed"):
            bad_step = bad_step | (cur > prev + 1)
        viol = cur.isnull() | (prev.notnull() & bad_step.fill_null(False))
        return placed, viol

    def _session_window(self, data: ir.Table, c: Clause) -> tuple[ir.Table, Any]:
        """Restated rows (revision > 0) whose ingest came more than N sessions after the event:
        the sessions after the event's UTC date up to and including the ingest's UTC date."""
        import ibis
        import ibis.expr.datatypes as dt

        epoch = ibis.literal(_EPOCH, type=dt.Timestamp(timezone="UTC"))
        rev: Any = data[c.param("column") or "revision"]
        rows = data.filter(rev > 0)
        keep = list(rows.columns)
        rows, code = self._calendar_code(rows, c)
        rows = rows.mutate(
            __tacit_td=_us_between(epoch, rows[c.param("time_column")]) // _US_PER_DAY,
            __tacit_id=_us_between(epoch, rows[c.param("ingest_column")]) // _US_PER_DAY,
            __tacit_cc=code)
        s = self._sessions_table(c)
        s = s.mutate(__tacit_dn=s["__tacit_day"].delta(ibis.date(1970, 1, 1), unit="day"))
        pairs = rows.select(__tacit_c2=rows["__tacit_cc"], __tacit_t2=rows["__tacit_td"],
                            __tacit_i2=rows["__tacit_id"]).distinct()
        hit = pairs.left_join(s, (s["__tacit_cal"] == pairs["__tacit_c2"])
                              & (s["__tacit_dn"] > pairs["__tacit_t2"])
                              & (s["__tacit_dn"] <= pairs["__tacit_i2"]))
        counted = hit.group_by(["__tacit_c2", "__tacit_t2", "__tacit_i2"]).aggregate(
            __tacit_n=hit["__tacit_sn"].count())
        on: Any = ((rows["__tacit_cc"] == counted["__tacit_c2"])
                   & (rows["__tacit_td"] == counted["__tacit_t2"])
                   & (rows["__tacit_id"] == counted["__tacit_i2"]))
        joined = rows.left_join(counted, on)
        joined = joined.select(*keep, "__tacit_n")
        n_sessions: Any = joined["__tacit_n"]
        viol = (n_sessions > int(c.param("business_days"))).fill_null(False)
        return joined, viol

    def _revision(self, wide: ir.Table, c: Clause) -> Any:
        import ibis
        import ibis.expr.datatypes as dt

        rev = wide[c.param("column") or "revision"]
        if not c.param("allowed", True):
            return rev == 0
        ingest_name = c.param("ingest_column")
        if not ingest_name:
            return ibis.literal(True)
        t, ingest = wide[c.param("time_column")], wide[ingest_name]
        days = c.param("business_days")
        if days is not None:
            monday = ibis.literal(_MONDAY, type=dt.Timestamp(timezone="UTC"))

            def weekdays_through(ts: Any) -> Any:  # tacit_gen.semantics.calendar, as ibis
                return weekday_number(_us_between(monday, ts) // _US_PER_DAY, least=ibis.least)

            within = (weekdays_through(ingest) - weekdays_through(t)) <= int(days)
        else:
            seconds = c.param("window_seconds")
            if seconds is None:
                return ibis.literal(True)
            within = ingest <= t + ibis.interval(seconds=int(seconds))
        return ~(rev > 0) | within  # pyright: ignore[reportOperatorIssue]


def parse_query(
    schema: type[Schema],
    table: ir.Table,
    *,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: _dt.datetime | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    refs: Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
) -> ir.Table | None:
    """The one aggregate query `parse()` runs (for inspection, e.g. ``ibis.to_sql(q, dialect)``)."""
    _require_table(schema, table, ValidationPhase.PARSE)
    b = _Builder(schema, table, catalog, now or _dt.datetime.now(_dt.UTC), sessions, refs, outages)
    b.build()
    return b.query


def evaluate(
    schema: type[Schema],
    table: ir.Table,
    *,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: _dt.datetime | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    refs: Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
) -> Report:
    """Every clause's verdict on `table` (converted as in `parse()`), without raising."""
    _require_table(schema, table, ValidationPhase.PARSE)
    if now is None:
        now = _dt.datetime.now(_dt.UTC)
    elif now.tzinfo is None:
        raise ValueError("now= must be timezone-aware (a UTC instant), not a naive datetime")
    return _Builder(schema, spark_instants(table), catalog, now, sessions, refs,
                    spark_instants(outages) if outages is not None else None).run()


def _full_match(body: str, table: ir.Table) -> str:
    """A pattern body as a whole-value regex in the flavor of the table's backend (Java's `$`
    also matches before a final newline: Spark gets `\\z`; RE2 and PostgreSQL read `$`)."""
    from tacit_gen.sql.pattern import full_match

    return full_match(body, "java" if backend_name(table) == "pyspark" else "re2")
