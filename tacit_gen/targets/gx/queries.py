"""The SQL of the custom-SQL expectations, as sqlglot trees printed per dialect, with GX's
`{batch}` placeholder; and reading a query back."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen import sql
from tacit_gen.expr import nodes as n
from tacit_gen.sql import ident
from tacit_gen.targets.gx.invariants import expectation
from tacit_gen.targets.gx.numbers import decimal_value, sql_number

if TYPE_CHECKING:
    from collections.abc import Collection

    from tacit_gen.plan_types import Clause

CUSTOM_SQL = "unexpected_rows_expectation"


BATCH = "__tacit_batch__"  # stands for GX's `{batch}` while the query is a sqlglot tree


def _batch(alias: str = "b") -> Any:
    from sqlglot import exp

    return exp.alias_(sql.table_name(BATCH), alias, table=True, copy=False)


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


_TYPEOF_DECIMAL = {"spark": "decimal({p},{s})"}  # typeof()'s spelling; DuckDB's: DECIMAL(p,s)


def decimal_type_query(column: str, precision: int, scale: int, dialect: str = "duckdb") -> str:
    """Rows whose column is not exactly DECIMAL(precision,scale) (typeof() of DuckDB and Spark;
    the other dialects' type lists carry precision and scale)."""
    spelled = _TYPEOF_DECIMAL.get(dialect, "DECIMAL({p},{s})").format(p=precision, s=scale)
    return f"SELECT * FROM {{batch}} WHERE typeof({ident(column, dialect)}) <> '{spelled}'"


_DECIMAL_QUERY = re.compile(r"^SELECT \* FROM \{batch\} WHERE typeof\((?P<col>.+)\) <> '(?i:DECIMAL)\((?P<p>\d+),(?P<s>\d+)\)'$")


def decimal_from_query(query: str) -> str | None:
    """The `decimal(p,s)` a decimal_type_query checks, or None."""
    m = _DECIMAL_QUERY.match(query)
    return f"decimal({m.group('p')},{m.group('s')})" if m else None


# SQLAlchemy reflects DuckDB's TIMESTAMPTZ and its naive TIMESTAMP(_S/_MS/_NS) alike (both are
# instances of sqlalchemy.TIMESTAMP), so no type list tells them apart on the SQL datasource. The
# type of a scalar subquery is the column's even when the table is empty: one row when it is not
# timezone-aware.
TZ_TYPE_DUCKDB = "TIMESTAMP WITH TIME ZONE"


def timestamp_tz_query(column: str, dialect: str = "duckdb") -> str:
    """One row when `column` is not a timezone-aware timestamp (DuckDB's typeof())."""
    return (f"SELECT * FROM (SELECT typeof((SELECT {ident(column, dialect)} FROM {{batch}} LIMIT 1)) "
            f"AS tacit_type) AS t WHERE tacit_type <> '{TZ_TYPE_DUCKDB}'")


_TZ_QUERY = re.compile(r"^SELECT \* FROM \(SELECT typeof\(\(SELECT (?P<col>.+) FROM \{batch\} LIMIT 1\)\) "
                       r"AS tacit_type\) AS t WHERE tacit_type <> 'TIMESTAMP WITH TIME ZONE'$")


def is_timestamp_tz_query(query: str) -> bool:
    """Whether `query` is a timestamp_tz_query."""
    return _TZ_QUERY.match(query) is not None


def unexpected_rows(query: str, description: str) -> dict[str, Any]:
    """The custom-SQL expectation: the rows `query` returns are the violations."""
    return expectation(CUSTOM_SQL, {"description": description, "unexpected_rows_query": query})


def invariant_query(expr: n.Node, dialect: str = "duckdb", integers: Collection[str] = (),
                    strings: Collection[str] = (), singles: Collection[str] = ()) -> str:
    from sqlglot import exp

    cond = sql.condition(expr, dialect, integers, strings, singles)
    q = exp.select(exp.Star(), copy=False).from_(_batch(), copy=False).where(exp.Not(this=exp.Paren(this=cond)), copy=False)
    return _text(q, dialect)


def range_query(clause: Clause, dialect: str = "duckdb") -> str:
    """A range's failing rows with its bounds as the contract writes them (for a bound GX's
    float reading would move: `tacit_gen.targets.gx.compile.natives_exact`); a NULL passes."""
    from tacit_gen.expr.bounds import range_condition

    p = clause.param
    return invariant_query(range_condition(str(p("column")), p("min"), p("max"),
                                           bool(p("min_inclusive", True)), bool(p("max_inclusive", True))),
                           dialect, singles=clause.singles)


def freshness_query(column: str, max_age_seconds: int, dialect: str = "duckdb",
                    whole_days: bool = False) -> str:
    """The newest value older than the freshness (or no row); `whole_days` (a date column): the
    newest date more than max_age/86400 days before the UTC date of now (from a compiled
    template when one fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    return shapes.text("gx.freshness", f"{sql.check_dialect(dialect)}\n{max_age_seconds}\n{whole_days}",
                       [shapes.Slot("name", column)],
                       lambda v: _freshness_query(v[0], max_age_seconds, dialect, whole_days))


def _freshness_query(column: str, max_age_seconds: int, dialect: str, whole_days: bool) -> str:
    from sqlglot import exp

    latest = sql.column("latest", "fresh")
    inner = (exp.select(exp.alias_(exp.Max(this=sql.column(column)), "latest", copy=False), copy=False)
             .from_(_batch(), copy=False).subquery("fresh", copy=False))
    if whole_days:
        edge = exp.Sub(this=sql.utc_date(exp.CurrentTimestamp(), dialect),
                       expression=exp.Interval(this=sql.string(str(max_age_seconds // 86400)),
                                               unit=exp.Var(this="DAY")))
    else:
        edge = exp.Sub(this=exp.CurrentTimestamp(),
                       expression=exp.Interval(this=sql.string(str(max_age_seconds)),
                                               unit=exp.Var(this="SECOND")))
    q = exp.select(exp.Star(), copy=False).from_(inner, copy=False).where(
        exp.or_(sql.is_null(latest), exp.LT(this=latest.copy(), expression=edge), copy=False), copy=False)
    return _text(q, dialect)


def cadence_query(clause: Clause, has_revision: bool, dialect: str = "duckdb") -> str:
    if clause.param("sessions") is not None:
        from tacit_gen.sql.sessions import session_cadence

        if clause.param("from_catalog"):
            raise ValueError("a catalog cadence is not expressed within sessions")
        from tacit_gen.sql import shapes

        return shapes.clause_text(
            "gx.session_cadence", clause, f"{sql.check_dialect(dialect)}\nrevision={has_revision}", [],
            lambda c, _: _text(session_cadence(c, _batch(), has_revision, dialect), dialect))
    from tacit_gen.sql import shapes

    return shapes.clause_text(
        "gx.cadence", clause, f"{sql.check_dialect(dialect)}\nrevision={has_revision}", [],
        lambda c, _: _plain_cadence_query(c, has_revision, dialect))


def _plain_cadence_query(clause: Clause, has_revision: bool, dialect: str) -> str:
    """`cadence_query` of a cadence that reads no sessions."""
    from sqlglot import exp

    col = sql.column(clause.param("column"))
    series = [sql.column(s) for s in clause.param("series") or ()]
    tol = decimal_value(str(clause.param("tolerance_pct") or "0"))
    # steps in microseconds, the finest instant the engines hold: in milliseconds a step of
    # 1 s + 1 us passed a 1 s cadence that every other engine failed
    lo_f = Decimal(1000000) * (Decimal(100) - tol) / Decimal(100)
    hi_f = Decimal(1000000) * (Decimal(100) + tol) / Decimal(100)
    sel = [x.copy() for x in [*series, col]]
    # rows with a NULL time or series value are not points (not_null's business)
    present = exp.and_(*[sql.is_not_null(x.copy()) for x in [col, *series]], copy=False)
    if has_revision:
        # rank(), not row_number(): every row at the latest revision counts, so an exact
        # duplicate of a point is a step of 0 (docs/architecture.md, cadence)
        rank = exp.Window(this=exp.Anonymous(this="rank"),
                          partition_by=[x.copy() for x in sel],
                          order=exp.Order(expressions=[exp.Ordered(this=sql.column("revision"),
                                                                   desc=True)]))
        pts = (exp.select(*[x.copy() for x in sel], exp.alias_(rank, "tacit_rn", copy=False), copy=False)
               .from_(_batch(), copy=False).where(present, copy=False).subquery("pts", copy=False))
        latest = exp.select(*[x.copy() for x in sel], copy=False).from_(pts, copy=False).where(
            exp.EQ(this=sql.column("tacit_rn"), expression=exp.Literal.number(1)), copy=False)
    else:
        latest = exp.select(*[x.copy() for x in sel], copy=False).from_(_batch(), copy=False).where(present, copy=False)
    lag = sql.lag_over(col.copy(), [x.copy() for x in series], col.copy(), dialect)
    step = exp.Sub(this=sql.epoch_us(col.copy(), dialect), expression=sql.epoch_us(lag, dialect))
    steps = (exp.select(*[x.copy() for x in sel], exp.alias_(step, "tacit_step_us", copy=False), copy=False)
             .from_(latest.subquery("latest", copy=False), copy=False).subquery("steps", copy=False))
    step_c = sql.column("tacit_step_us", "steps")
    gaps = not clause.param("gaps_allowed")
    if clause.param("from_catalog"):
        if len(series) != 1:
            raise ValueError("a catalog cadence needs exactly one series column")
        icol = sql.column(clause.param("catalog_column"), "cat")
        cond: Any = exp.LT(this=step_c.copy(),
                           expression=exp.Mul(this=icol.copy(), expression=sql.number(sql_number(lo_f))))
        if gaps:
            cond = exp.or_(cond, exp.GT(this=step_c.copy(), expression=exp.Mul(
                this=icol.copy(), expression=sql.number(sql_number(hi_f)))), copy=False)
        # a series with no catalog entry (or no interval) is a violation, never a silent pass
        on = exp.EQ(this=sql.column(clause.param("series")[0], "steps"),
                    expression=sql.column(clause.param("catalog_key"), "cat"))
        q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("steps")), copy=False)
             .from_(steps, copy=False)
             .join(sql.left_join(exp.alias_(sql.relation(clause.param("relation")), "cat", table=True, copy=False)), on=on,
                   copy=False)
             .where(exp.or_(sql.is_null(icol.copy()), exp.Paren(this=cond), copy=False), copy=False))
        return _text(q, dialect)
    interval = int(clause.param("interval_seconds"))
    cond = exp.LT(this=step_c.copy(), expression=sql.number(sql_number(lo_f * interval)))
    if gaps:
        cond = exp.or_(cond, exp.GT(this=step_c.copy(),
                                    expression=sql.number(sql_number(hi_f * interval))), copy=False)
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("steps")), copy=False)
         .from_(steps, copy=False).where(cond, copy=False))
    return _text(q, dialect)


def _catalog_query(clause: Clause, bad: Any, dialect: str) -> str:
    from sqlglot import exp

    on = exp.EQ(this=sql.column(clause.param("key"), "b"),
                expression=sql.column(clause.param("catalog_key"), "cat"))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("b")), copy=False)
         .from_(_batch(), copy=False)
         .join(sql.left_join(exp.alias_(sql.relation(clause.param("relation")), "cat", table=True, copy=False)), on=on,
               copy=False)
         .where(exp.and_(sql.is_not_null(sql.column(clause.param("column"), "b")),
                         exp.Paren(this=exp.or_(
                             sql.is_null(sql.column(clause.param("catalog_key"), "cat")), bad, copy=False)), copy=False), copy=False))
    return _text(q, dialect)


def catalog_unit_query(clause: Clause, dialect: str = "duckdb") -> str:
    """Rows whose unit is not the catalog's (from a compiled template when one fits)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text("gx.catalog_unit", clause, sql.check_dialect(dialect), [],
                              lambda c, _: _catalog_unit_query(c, dialect))


def _catalog_unit_query(clause: Clause, dialect: str) -> str:
    from sqlglot import exp

    bad = exp.NullSafeNEQ(this=sql.column(clause.param("column"), "b"),
                          expression=sql.column(clause.param("catalog_column"), "cat"))
    return _catalog_query(clause, bad, dialect)


def catalog_dimension_query(clause: Clause, dialect: str = "duckdb") -> str:
    from tacit_gen.sql.dimension import dimension_rows

    return _text(dimension_rows(clause, _batch(), "b", "cat"), dialect)


def catalog_bounds_query(clause: Clause, dialect: str = "duckdb") -> str:
    """Rows outside the catalog's bounds (from a compiled template when one fits)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text("gx.catalog_bounds", clause, sql.check_dialect(dialect), [],
                              lambda c, _: _catalog_bounds_query(c, dialect))


def _catalog_bounds_query(clause: Clause, dialect: str) -> str:
    from sqlglot import exp

    v: exp.Expression = sql.column(clause.param("column"), "b")
    if clause.param("as_double"):  # a float32 subject, compared as the double it holds
        v = sql.widened(v)
    bad = exp.or_(exp.LT(this=v, expression=sql.column(clause.param("min_column"), "cat")),
                  exp.GT(this=v.copy(), expression=sql.column(clause.param("max_column"), "cat")), copy=False)
    return _catalog_query(clause, bad, dialect)


def revision_window_query(clause: Clause, dialect: str = "duckdb") -> str:
    from sqlglot import exp

    rev = sql.column(clause.param("column") or "revision")
    t, ing = sql.column(clause.param("time_column")), sql.column(clause.param("ingest_column"))
    base = [exp.GT(this=rev, expression=exp.Literal.number(0)), sql.is_not_null(t.copy()),
            sql.is_not_null(ing.copy())]
    bdays = clause.param("business_days")
    if clause.param("sessions_relation") is not None:  # trading days: sessions of the calendar
        from tacit_gen.sql.sessions import calendar_code, trading_days_late, with_catalog

        # the batch keeps its alias only in a join (`_text`): qualify only then
        alias = "b" if clause.param("calendar") is None else None
        b = [sql.column(c.name, alias) for c in (rev, t, ing)]
        late_t = trading_days_late(clause, b[1], b[2], dialect, calendar_code(clause, "b"))
        star = exp.Column(this=exp.Star(), table=exp.to_identifier("b")) if alias else exp.Star()
        q = with_catalog(clause, exp.select(star, copy=False).from_(_batch(), copy=False), "b")
        q = q.where(exp.and_(exp.GT(this=b[0], expression=exp.Literal.number(0)),
                             sql.is_not_null(b[1].copy()), sql.is_not_null(b[2].copy()), late_t, copy=False), copy=False)
        return _text(q, dialect)
    if bdays is not None:
        # Mon-Fri days after the event's UTC date up to the ingest's UTC date
        late: Any = exp.GT(
            this=exp.Sub(this=sql.weekdays_through(sql.utc_date(ing.copy(), dialect), dialect),
                         expression=sql.weekdays_through(sql.utc_date(t.copy(), dialect), dialect)),
            expression=exp.Literal.number(int(bdays)))
    else:
        window_us = int(clause.param("window_seconds")) * 1000000
        late = exp.GT(this=exp.Sub(this=sql.epoch_us(ing.copy(), dialect),
                                   expression=sql.epoch_us(t.copy(), dialect)),
                      expression=exp.Literal.number(window_us))
    q = exp.select(exp.Star(), copy=False).from_(_batch(), copy=False).where(exp.and_(*base, late, copy=False), copy=False)
    return _text(q, dialect)


def precision_query(clause: Clause, dialect: str = "duckdb") -> str:
    """Rows whose instant has digits finer than the contract's precision (from a compiled
    template when one fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text("gx.precision", clause, sql.check_dialect(dialect), [],
                              lambda c, _: _precision_query(c, dialect))


def _precision_query(clause: Clause, dialect: str) -> str:
    from sqlglot import exp

    from tacit_gen.plan_types import PRECISION_US

    ok = sql.precision_ok(clause.param("column"), PRECISION_US[clause.param("precision")], dialect)
    q = exp.select(exp.Star(), copy=False).from_(_batch(), copy=False).where(exp.Not(this=exp.Paren(this=ok)), copy=False)
    return _text(q, dialect)


def revision_by_query(clause: Clause, dialect: str = "duckdb") -> str:
    """Restated rows (revision > 0) whose restater is NULL or not in the contract's list."""
    from sqlglot import exp

    ok = sql.revision_by_ok(clause.param("column"), tuple(clause.param("values")),
                            clause.param("revision_column"))
    q = exp.select(exp.Star(), copy=False).from_(_batch(), copy=False).where(exp.Not(this=exp.Paren(this=ok)), copy=False)
    return _text(q, dialect)


def references_query(clause: Clause, dialect: str = "duckdb") -> str:
    """A foreign key's failing rows: non-NULL values absent from the referenced column (``NOT IN``
    over its non-NULL values, so a NULL there never turns a miss into UNKNOWN; uncorrelated, so
    the batch needs no alias)."""
    from sqlglot import exp

    to_col = sql.column(clause.param("to_column"))
    allowed = (exp.select(to_col.copy()).from_(sql.relation(clause.param("to_relation")))
               .where(sql.is_not_null(to_col.copy())))
    value = sql.column(clause.param("column"))
    miss = exp.Not(this=exp.In(this=value.copy(), query=exp.Subquery(this=allowed)))
    q = exp.select(exp.Star()).from_(_batch()).where(exp.and_(sql.is_not_null(value), miss))
    return _text(q, dialect)
def completeness_query(clause: Clause, dialect: str = "duckdb") -> str:
    """The series windows short of readings (`tacit_gen.sql.completeness`), one row each."""
    from tacit_gen.sql.completeness import short_windows, templated

    return templated("gx.completeness", clause, dialect, None,
                     lambda c, _: _text(short_windows(c, _batch(), dialect), dialect))
