"""The SQL of the Soda checks: the fail queries of the time-series and catalog clauses, the
unknown-columns metric, invariant conditions (sqlglot trees printed per dialect), and the
normal form `check` compares them in."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen import sql
from tacit_gen.plan_types import Clause
from tacit_gen.targets.soda.names import (
    CLAUSE_MARK,
    dataset_name,
)

if TYPE_CHECKING:
    import sqlglot.expressions as Exp

    from tacit_gen.contract.model import Contract


def decimal_text(text: str) -> str:
    """Exact decimal text, without exponent or trailing zeros."""
    d = Decimal(text)
    s = format(d.normalize(), "f")
    return s


def sql_number(text: str) -> Any:
    """A contract number as a sqlglot literal."""
    return sql.number(text)


def cadence_sql(clause: Clause, dataset: str, has_revision: bool, dialect: str = "duckdb") -> str:
    """Rows whose step from the previous point of the same series is off the cadence (from a
    compiled template when one fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text(
        "soda.cadence", clause, f"{sql.check_dialect(dialect)}\nrevision={has_revision}",
        [shapes.Slot("name", dataset)], lambda c, v: _cadence_sql(c, v[0], has_revision, dialect))


def _cadence_sql(clause: Clause, dataset: str, has_revision: bool, dialect: str) -> str:
    from sqlglot import exp

    col = sql.column(clause.param("column"))
    series = [sql.column(s) for s in clause.param("series") or ()]
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    # rows with a NULL time or series value are not points (not_null's business)
    present = exp.and_(*[sql.is_not_null(x.copy()) for x in [col, *series]], copy=False)
    ds = sql.relation(dataset)
    if has_revision:
        rev = sql.column("revision")
        latest = exp.Window(this=exp.Max(this=rev.copy()),
                            partition_by=[x.copy() for x in [*series, col]])
        inner = (exp.select(exp.Star(), exp.alias_(latest, "_tacit_latest", copy=False), copy=False)
                 .from_(ds, copy=False).where(present, copy=False).subquery("d", copy=False))
        keep = exp.or_(exp.EQ(this=rev.copy(), expression=sql.column("_tacit_latest")),
                       exp.Paren(this=exp.and_(sql.is_null(sql.column("_tacit_latest")),
                                               sql.is_null(rev.copy()), copy=False)), copy=False)
        points = exp.select(exp.Star(), copy=False).from_(inner, copy=False).where(keep, copy=False)
    else:
        points = exp.select(exp.Star(), copy=False).from_(ds, copy=False).where(present, copy=False)
    lag = sql.lag_over(col.copy(), [x.copy() for x in series], col.copy(), dialect)
    step = exp.Sub(this=sql.epoch_us(col.copy(), dialect), expression=sql.epoch_us(lag, dialect))
    steps = exp.select(exp.Star(), exp.alias_(step, "_tacit_step_us", copy=False), copy=False).from_(sql.table_name("points"), copy=False)
    if clause.param("from_catalog"):
        ccol = sql.column(clause.param("catalog_column"), "c")
        s_step = sql.column("_tacit_step_us", "s")
        lo = exp.Mul(this=ccol.copy(), expression=sql_number(decimal_text(str(10000 * (100 - tol)))))
        hi = exp.Mul(this=ccol.copy(), expression=sql_number(decimal_text(str(10000 * (100 + tol)))))
        cond: Any = exp.LT(this=s_step.copy(), expression=lo)
        if not clause.param("gaps_allowed"):
            cond = exp.Paren(this=exp.or_(cond, exp.GT(this=s_step.copy(), expression=hi), copy=False))
        on = exp.EQ(this=sql.column(clause.param("catalog_key"), "c"),
                    expression=sql.column(clause.param("series")[0], "s"))
        # A series with no catalog entry (or no interval) is a violation, never a silent pass.
        final = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("s")), copy=False)
                 .from_(exp.alias_(sql.table_name("steps"), "s", table=True, copy=False), copy=False)
                 .join(sql.left_join(exp.alias_(sql.relation(clause.param("relation")), "c", table=True, copy=False)),
                       on=on, copy=False)
                 .where(exp.or_(sql.is_null(ccol.copy()),
                                exp.Paren(this=exp.and_(sql.is_not_null(s_step.copy()), cond, copy=False)), copy=False), copy=False))
    else:
        interval_us = Decimal(int(clause.param("interval_seconds"))) * 1000000
        step_c = sql.column("_tacit_step_us")
        lo_n = sql_number(decimal_text(str(interval_us * (100 - tol) / 100)))
        hi_n = sql_number(decimal_text(str(interval_us * (100 + tol) / 100)))
        cond = exp.LT(this=step_c.copy(), expression=lo_n)
        if not clause.param("gaps_allowed"):
            cond = exp.Paren(this=exp.or_(cond, exp.GT(this=step_c.copy(), expression=hi_n), copy=False))
        final = (exp.select(exp.Star(), copy=False).from_(sql.table_name("steps"), copy=False)
                 .where(exp.and_(sql.is_not_null(step_c.copy()), cond, copy=False), copy=False))
    final = final.with_("points", as_=points, copy=False).with_("steps", as_=steps, copy=False)
    return sql.pretty(final, dialect) + "\n"


def _catalog_rows(clause: Clause, dataset: str, bad: Any, dialect: str) -> str:
    from sqlglot import exp

    on = exp.EQ(this=sql.column(clause.param("catalog_key"), "c"),
                expression=sql.column(clause.param("key"), "d"))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("d")), copy=False)
         .from_(exp.alias_(sql.relation(dataset), "d", table=True, copy=False), copy=False)
         .join(sql.left_join(exp.alias_(sql.relation(clause.param("relation")), "c", table=True, copy=False)), on=on,
               copy=False)
         .where(exp.and_(sql.is_not_null(sql.column(clause.param("column"), "d")),
                         exp.Paren(this=exp.or_(
                             sql.is_null(sql.column(clause.param("catalog_key"), "c")), bad, copy=False)), copy=False), copy=False))
    return sql.pretty(q, dialect) + "\n"


def catalog_unit_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    """Rows whose unit is not the catalog's for their series (from a compiled template when one
    fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text("soda.catalog_unit", clause, sql.check_dialect(dialect),
                              [shapes.Slot("name", dataset)],
                              lambda c, v: _catalog_unit_sql(c, v[0], dialect))


def _catalog_unit_sql(clause: Clause, dataset: str, dialect: str) -> str:
    from sqlglot import exp

    same = exp.EQ(this=sql.column(clause.param("column"), "d"),
                  expression=sql.column(clause.param("catalog_column"), "c"))
    return _catalog_rows(clause, dataset, exp.Not(this=exp.Paren(this=same)), dialect)


def catalog_bounds_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    """Rows outside the catalog's bounds for their series (from a compiled template when one
    fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    return shapes.clause_text("soda.catalog_bounds", clause, sql.check_dialect(dialect),
                              [shapes.Slot("name", dataset)],
                              lambda c, v: _catalog_bounds_sql(c, v[0], dialect))


def _catalog_bounds_sql(clause: Clause, dataset: str, dialect: str) -> str:
    from sqlglot import exp

    v: exp.Expression = sql.column(clause.param("column"), "d")
    if clause.param("as_double"):  # a float32 subject, compared as the double it holds
        v = sql.widened(v)
    inside = exp.and_(exp.LTE(this=sql.column(clause.param("min_column"), "c"), expression=v),
                      exp.LTE(this=v.copy(), expression=sql.column(clause.param("max_column"), "c")), copy=False)
    return _catalog_rows(clause, dataset, exp.Not(this=exp.Paren(this=inside)), dialect)


def revision_window_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str | None:
    """Rows restated against the policy; None when the policy has nothing row-level to check."""
    from sqlglot import exp

    rev = sql.column(clause.param("column") or "revision")
    base = exp.select(exp.Star(), copy=False).from_(sql.relation(dataset), copy=False)
    if not clause.param("allowed"):
        return sql.pretty(base.where(exp.NEQ(this=rev, expression=exp.Literal.number(0)), copy=False),
                          dialect) + "\n"
    ingest = clause.param("ingest_column")
    tcol = clause.param("time_column")
    bdays = clause.param("business_days")
    window = clause.param("window_seconds")
    if not ingest or not tcol or (bdays is None and window is None):
        return None
    i, t = sql.column(ingest), sql.column(tcol)
    if clause.param("sessions_relation") is not None:  # trading days: sessions of the calendar
        from tacit_gen.sql.sessions import calendar_code, trading_days_late, with_catalog

        d = exp.alias_(sql.relation(dataset), "d", table=True, copy=False)
        rows = with_catalog(clause, exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("d")), copy=False)
                            .from_(d, copy=False), "d")
        late_t = trading_days_late(clause, sql.column(tcol, "d"), sql.column(ingest, "d"), dialect,
                                 calendar_code(clause, "d"))
        q = rows.where(exp.and_(exp.GT(this=sql.column(rev.name, "d"), expression=exp.Literal.number(0)),
                                late_t, copy=False), copy=False)
        return sql.pretty(q, dialect) + "\n"
    if bdays is not None:
        late: Any = exp.GT(
            this=exp.Sub(this=sql.weekdays_through(sql.utc_date(i, dialect), dialect),
                         expression=sql.weekdays_through(sql.utc_date(t, dialect), dialect)),
            expression=exp.Literal.number(int(bdays)))
    else:
        late = exp.GT(this=exp.Sub(this=sql.epoch_us(i, dialect), expression=sql.epoch_us(t, dialect)),
                      expression=exp.Literal.number(int(window) * 1000000))
    q = base.where(exp.and_(exp.GT(this=rev, expression=exp.Literal.number(0)), late, copy=False), copy=False)
    return sql.pretty(q, dialect) + "\n"


# Spark has no information_schema: the columns of the relation are the keys of one row turned
# into JSON (nulls kept; a LEFT JOIN from a one-row relation gives a row of nulls when it is empty).
_SPARK_COLUMN_NAMES = (
    "SELECT EXPLODE(MAP_KEYS(FROM_JSON(TO_JSON(STRUCT(t.*), MAP('ignoreNullFields', 'false')), "
    "'MAP<STRING, STRING>'))) AS column_name "
    "FROM (SELECT 1 AS one) AS o LEFT JOIN (SELECT * FROM __ds__ LIMIT 1) AS t ON TRUE"
)


# How a catalog stores the name Soda writes. Soda 3 writes a dataset unquoted after the data
# source's schema (`FROM public.Name`), so the warehouse folds it as an unquoted identifier:
# PostgreSQL to lower case, Snowflake to upper case; DuckDB and Databricks match names without
# regard to case (stored as created); BigQuery compares them exactly. A double-quoted dataset
# (`"Name"`) is the name exactly. Columns: Soda quotes them on PostgreSQL (exact); where the
# dialect ignores case (or upper-cases, Snowflake) the catalog's names are compared lower-cased.
_FOLD = {"postgres": str.lower, "snowflake": str.upper}
_CASELESS = frozenset({"duckdb", "databricks", "snowflake"})
_DATASET = re.compile(r'^(?:(?P<schema>"[^"]+"|[^."]+)\.)?(?P<table>"[^"]+"|[^."]+)$')


def catalog_name(name: str, dialect: str) -> tuple[str, bool]:
    """(the name as the catalog stores it, whether to compare it lower-cased) for a name Soda
    writes unquoted (a double-quoted one is exact)."""
    if len(name) > 1 and name.startswith('"') and name.endswith('"'):
        return name[1:-1], dialect == "duckdb"  # DuckDB ignores case even in quoted names
    if dialect in ("duckdb", "databricks"):
        return name.lower(), True
    return _FOLD.get(dialect, str)(name), False


def _catalog_filter(dataset: str, dialect: str) -> list[Exp.Expression]:
    """The conditions on information_schema.columns that select the dataset's relation: its own
    schema when the dataset is qualified, else the session's."""
    m = _DATASET.match(dataset)
    schema, table = (m.group("schema"), m.group("table")) if m else (None, dataset)
    return _filter(catalog_name(table, dialect), catalog_name(schema, dialect) if schema else None)


def _filter(table: tuple[str, bool], schema: tuple[str, bool] | None) -> list[Exp.Expression]:
    from sqlglot import exp

    def eq(col: str, name: tuple[str, bool]) -> Exp.Expression:
        left: Exp.Expression = exp.column(col)
        return exp.EQ(this=exp.Lower(this=left) if name[1] else left, expression=sql.string(name[0]))

    where = eq("table_schema", schema) if schema else exp.EQ(this=exp.column("table_schema"),
                                                             expression=exp.CurrentSchema())
    return [where, eq("table_name", table)]


def unknown_columns_sql(dataset: str, columns: tuple[str, ...], dialect: str = "duckdb") -> str:
    """The query counting the relation's columns that are not in the contract (from a compiled
    template when one fits: `tacit_gen.sql.shapes`)."""
    from tacit_gen.sql import shapes

    sql.check_dialect(dialect)
    caseless = dialect in _CASELESS
    listed_cols = tuple(c.lower() for c in columns) if caseless else columns
    if dialect == "spark":
        stored: tuple[tuple[str, bool], tuple[str, bool] | None] = ((dataset, False), None)
    else:
        m = _DATASET.match(dataset)
        schema, table = (m.group("schema"), m.group("table")) if m else (None, dataset)
        stored = (catalog_name(table, dialect), catalog_name(schema, dialect) if schema else None)
    (table_name, table_caseless), schema_at = stored
    if not columns:
        return _unknown_columns_sql(dataset, stored, listed_cols, dialect)
    listed = shapes.LIST_SEP.join(listed_cols)  # one slot: a column added keeps the template
    slots = [shapes.Slot("name" if dialect == "spark" else "string", table_name),
             shapes.Slot("strings", listed)]
    if schema_at is not None:
        slots.append(shapes.Slot("string", schema_at[0]))
    structure = f"{dialect}:{table_caseless}:{schema_at[1] if schema_at else '-'}"

    def build(v: list[str]) -> str:
        at = ((v[0], table_caseless), (v[2], schema_at[1]) if schema_at else None)
        cols = listed_cols if v[1] == listed else tuple(v[1].split(shapes.LIST_SEP))
        return _unknown_columns_sql(v[0], at, cols, dialect)

    return shapes.text("soda.unknown_columns", structure, slots, build)


def _unknown_columns_sql(dataset: str, at: tuple[tuple[str, bool], tuple[str, bool] | None],
                         columns: tuple[str, ...], dialect: str) -> str:
    """`columns` as the catalog is compared with them (lower case where `dialect` ignores case),
    `at` the relation's name and schema as the catalog stores them (see catalog_name)."""
    from sqlglot import exp

    name: exp.Expression = exp.column("column_name")
    if dialect in _CASELESS:
        name = exp.Lower(this=name)
    unknown = exp.Not(this=exp.In(this=name, expressions=[sql.string(c) for c in columns]))
    if dialect == "spark":
        names = sql.parse(_SPARK_COLUMN_NAMES, "spark").transform(
            lambda n: sql.relation(dataset) if isinstance(n, exp.Table) and n.name == "__ds__" else n)
        q = (exp.select(exp.Count(this=exp.Star()), copy=False)
             .from_(exp.Subquery(this=names, alias=exp.TableAlias(this=exp.to_identifier("c"))), copy=False)
             .where(unknown, copy=False))
        return sql.pretty(q, dialect) + "\n"
    q = (exp.select(exp.Count(this=exp.Star()), copy=False)
         .from_(sql.table_name("information_schema.columns"), copy=False)
         .where(exp.and_(*_filter(*at), unknown, copy=False), copy=False))
    return sql.pretty(q, dialect) + "\n"


# Dialects whose schema check cannot see a decimal's precision and scale: PostgreSQL reports
# `numeric` bare, and Soda 3.5.6 counts `double precision` as the same type as `numeric`
# (DataSource.SCHEMA_CHECK_TYPES_MAPPING). There each decimal column gets a metric check too.
DECIMAL_METRIC = "decimal_type_mismatch_"
DECIMAL_HIDDEN = frozenset({"postgres"})


def decimal_type_sql(dataset: str, column: str, precision: int, scale: int,
                     dialect: str = "duckdb") -> str:
    """1 when the column exists and is not exactly numeric(precision, scale), else 0."""
    from sqlglot import exp

    exact = exp.and_(
        exp.EQ(this=exp.column("data_type"), expression=sql.string("numeric")),
        exp.EQ(this=exp.column("numeric_precision"), expression=exp.Literal.number(precision)),
        exp.EQ(this=exp.column("numeric_scale"), expression=exp.Literal.number(scale)), copy=False)
    q = (exp.select(exp.Count(this=exp.Star()), copy=False)
         .from_(sql.table_name("information_schema.columns"), copy=False)
         .where(exp.and_(
             *_catalog_filter(dataset, dialect),
             exp.EQ(this=exp.column("column_name"), expression=sql.string(column)),
             exp.Not(this=exp.Coalesce(this=exp.Paren(this=exact),
                                       expressions=[exp.Boolean(this=False)])), copy=False), copy=False))
    return sql.pretty(q, dialect) + "\n"


def fail_query_sql(contract: Contract, clause: Clause, dialect: str = "duckdb") -> str | None:
    """The failed-rows SQL of a cadence / completeness / catalog / revision clause, or of a range
    Soda's own checks would decide inexactly (None: not expressible); generated once per contract
    for Soda and Soda 4 (`sql.shared_texts`)."""
    return sql.shared(("soda.fail_query", id(contract), clause, dialect),
                      lambda: _fail_query_sql(contract, clause, dialect))


def _fail_query_sql(contract: Contract, clause: Clause, dialect: str) -> str | None:
    ds = dataset_name(contract)
    if clause.kind == "cadence":
        if clause.param("from_catalog") and len(clause.param("series") or ()) != 1:
            return None
        if clause.param("sessions") is not None:
            from tacit_gen.sql.sessions import session_cadence

            if clause.param("from_catalog"):
                return None  # a catalog interval within sessions: not expressed
            from tacit_gen.sql import shapes

            has_revision = contract.field("revision") is not None
            return shapes.clause_text(
                "soda.session_cadence", clause, f"{dialect}\nrevision={has_revision}",
                [shapes.Slot("name", ds)],
                lambda c, v: sql.pretty(session_cadence(c, sql.relation(v[0]), has_revision,
                                                        dialect), dialect) + "\n")
        if not clause.param("from_catalog") and not clause.param("interval_seconds"):
            return None
        return cadence_sql(clause, ds, contract.field("revision") is not None, dialect)
    if clause.kind == "catalog_dimension":
        from sqlglot import exp

        from tacit_gen.sql.dimension import dimension_rows

        rows = dimension_rows(clause, exp.alias_(sql.relation(ds), "d", table=True))
        return sql.pretty(rows, dialect) + "\n"
    if clause.kind == "completeness":
        from tacit_gen.sql.completeness import short_windows, templated

        return templated("soda.completeness", clause, dialect, ds, lambda c, relation: sql.pretty(
            short_windows(c, sql.relation(relation or ds), dialect), dialect) + "\n")
    if clause.kind == "catalog_unit":
        return catalog_unit_sql(clause, ds, dialect)
    if clause.kind in ("catalog_bounds", "plausible"):  # plausible: the same test, soft columns
        return catalog_bounds_sql(clause, ds, dialect)
    if clause.kind == "revision_window":
        return revision_window_sql(clause, ds, dialect)
    if clause.kind == "freshness" and clause.param("whole_days"):
        return freshness_days_sql(clause, ds, dialect)
    if clause.kind == "references":
        return references_sql(clause, ds, dialect)
    if clause.kind == "precision":
        from tacit_gen.plan_types import PRECISION_US
        from tacit_gen.sql import shapes

        return shapes.clause_text(
            "soda.precision", clause, sql.check_dialect(dialect), [shapes.Slot("name", ds)],
            lambda c, v: _violating(sql.precision_ok(c.param("column"), PRECISION_US[c.param("precision")],
                                                     dialect), v[0], dialect))
    if clause.kind == "revision_by":
        return _violating(sql.revision_by_ok(clause.param("column"), tuple(clause.param("values")),
                                             clause.param("revision_column")), ds, dialect)
    if clause.kind == "range":  # for a bound Soda's float reading would move (`render.range_exact`)
        from tacit_gen.expr.bounds import range_condition

        p = clause.param
        return _violating(sql.condition(range_condition(str(p("column")), p("min"), p("max"),
                                                        bool(p("min_inclusive", True)),
                                                        bool(p("max_inclusive", True))), dialect,
                                        singles=clause.singles),
                          ds, dialect)
    return None


def _violating(ok: Any, dataset: str, dialect: str) -> str:
    """The rows of `dataset` where the condition `ok` is FALSE (a NULL passes)."""
    from sqlglot import exp

    q = (exp.select(exp.Star(), copy=False).from_(sql.relation(dataset), copy=False)
         .where(exp.Not(this=exp.paren(ok, copy=False)), copy=False))
    return sql.pretty(q, dialect) + "\n"


def references_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    """A foreign key's failing rows, an anti-join: rows whose non-NULL value no row of the
    referenced relation holds (``NOT EXISTS``, so the relation's own NULLs never hide one)."""
    from sqlglot import exp

    value = sql.column(clause.param("column"), "d")
    hit = (exp.select(exp.Literal.number(1))
           .from_(exp.alias_(sql.relation(clause.param("to_relation")), "r", table=True))
           .where(exp.EQ(this=sql.column(clause.param("to_column"), "r"), expression=value.copy())))
    q = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("d")))
         .from_(exp.alias_(sql.relation(dataset), "d", table=True))
         .where(exp.and_(sql.is_not_null(value), exp.Not(this=exp.Exists(this=hit)))))
    return sql.pretty(q, dialect) + "\n"


NOW_REFERENCE = "${" + "NOW}"  # Soda resolves `${NOW}` (scan variable NOW) in a fail query


def freshness_days_sql(clause: Clause, dataset: str, dialect: str = "duckdb") -> str:
    """A date column's freshness as failed rows: one row when the newest date is more than
    max_age/86400 whole days before the UTC date of ``${NOW}`` (or the table is empty). Soda's
    own `freshness()` counts hours from midnight, not whole days."""
    from sqlglot import exp

    latest = sql.column("latest", "fresh")
    inner = (exp.select(exp.alias_(exp.Max(this=sql.column(str(clause.param("column")))), "latest", copy=False), copy=False)
             .from_(sql.relation(dataset), copy=False).subquery("fresh", copy=False))
    days = int(clause.param("max_age_seconds")) // 86400
    edge = exp.Sub(this=sql.utc_date(sql.instant(NOW_REFERENCE, dialect), dialect),
                   expression=exp.Interval(this=sql.string(str(days)), unit=exp.Var(this="DAY")))
    q = exp.select(exp.Star(), copy=False).from_(inner, copy=False).where(
        exp.or_(sql.is_null(latest), exp.LT(this=latest.copy(), expression=edge), copy=False), copy=False)
    return sql.pretty(q, dialect) + "\n"


def invariant_sql(clause: Clause, dialect: str = "duckdb") -> str | None:
    if clause.expr is None:
        return None
    try:
        return sql.to_sql(clause.expr, dialect, clause.integers, clause.strings, clause.singles)
    except ValueError:
        return None


def wrapped(text: str) -> bool:
    """True when the whole text is one parenthesised group (quotes respected)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return depth == 0


def strip_parens(text: str) -> str:
    """`((a AND b))` -> `a AND b`."""
    text = text.strip()
    while wrapped(text):
        text = text[1:-1].strip()
    return text


def normalize_sql(text: str) -> str:
    """SQL with its `-- tacit_clause` line dropped, whitespace collapsed, outer parens removed."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith(CLAUSE_MARK.strip())]
    return strip_parens(" ".join(" ".join(lines).split()))
