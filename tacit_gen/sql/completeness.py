"""The SQL of `completeness:` (readings per series per window), one tree for every SQL target.

`short_windows` returns one row per series and window that holds too few readings: the series
columns, ``window_start_ms`` and ``window_end_ms`` (the window's start and end, milliseconds
since 1970-01-01 UTC: an increment keeps the windows that end after its start) and ``readings``. The meaning is `tacit_gen.semantics.completeness`'.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from tacit_gen.semantics.completeness import PCT_SCALE, pct_units
from tacit_gen.sql.build import column, epoch_ms, generate, ident, parse

if TYPE_CHECKING:
    from sqlglot import expressions as Exp

    from tacit_gen.plan_types import Clause



def _ms(x: Exp.Expression, dialect: str) -> Exp.Expression:
    """Whole milliseconds since the epoch (PostgreSQL's EXTRACT carries a fraction)."""
    from sqlglot import exp

    return exp.Cast(this=exp.Floor(this=epoch_ms(x, dialect)), to=exp.DataType.build("BIGINT"))


def short_windows(clause: Clause, data: Exp.Expression, dialect: str,
                  outages: Exp.Expression | None = None, sessions: Exp.Expression | None = None,
                  catalog: Exp.Expression | None = None) -> Exp.Expression:
    """The (series, window) pairs short of readings, as a SELECT over `data` (a table or a
    placeholder) and, when gap types are allowed, the `outages` relation (default: the clause's
    ``outages_relation``); for `N per session`, the `sessions` relation and, for a per-series
    calendar, the `catalog` (defaults: the clause's relations)."""
    if clause.param("window_seconds") is None:
        return _short_sessions(clause, data, dialect, outages, sessions, catalog)


    p = clause.param
    # The text names holes, not the clause's names and numbers: one parse serves every clause of
    # the same shape (series count, gap types), in every contract of a run (the parse was a
    # quarter of a 501-contract render); `_fill` puts the names and numbers in.
    names = [str(s) for s in (p("series") or ())]
    series: list[str] = [f"__s{i}__" for i in range(len(names))]
    width = int(p("window_seconds")) * 1000
    expected, pct = int(p("expected")), pct_units(str(p("min_pct")))
    gap_types: tuple[str, ...] = tuple(str(g) for g in (p("allowed_gaps") or ()))
    gaps = tuple(f"__g{i}__" for i in range(len(gap_types)))
    t = "__t__"
    w = "__w__"

    def cols(alias: str) -> str:
        return "".join(f"{alias}.{s}, " for s in series)

    def on(a: str, b: str) -> str:
        return " AND ".join([f"{a}.{s} = {b}.{s}" for s in series] + [f"{a}.tacit_k = {b}.tacit_k"])

    plain = "".join(f"{s}, " for s in series)
    notnull = " AND ".join([f"{x} IS NOT NULL" for x in [t, *series]])
    group = ", ".join(series)

    def floor_div(x: str, sum_: bool = False) -> str:
        """``floor(x / w)``, also before 1970: every SQL integer division truncates toward zero
        (DuckDB's ``-7 // 2`` is -3), which put a reading of 1969-12-31 23:10 in the window of
        1970-01-01 00:00 (found 2026-12-03). ``x`` less its non-negative remainder divides
        exactly, whatever the dialect's division does."""
        operand = f"({x})" if sum_ else x
        # the remainder in parentheses of its own: sqlglot 29 reads DuckDB's `a - b % c` as
        # `(a - b) % c` (DuckDB itself does not), and BigQuery's MOD() then printed that tree
        return f"({x} - (({operand} % {w} + {w}) % {w})) // {w}"

    by_series = f" GROUP BY {group}" if series else ""
    cover_cte, cover_join, covered = "", "", "0"
    if gaps:
        types = ", ".join(gaps)
        o_on = " AND ".join([f"w.{s} = o.{s}" for s in series] + [
            f"o.tacit_o0 < (w.tacit_k + 1) * {w}", f"o.tacit_o1 > w.tacit_k * {w}"])
        cover_cte = (
            f", tacit_cover AS (SELECT {cols('w')}w.tacit_k, "
            f"SUM(LEAST(o.tacit_o1, (w.tacit_k + 1) * {w}) - GREATEST(o.tacit_o0, w.tacit_k * {w})) "
            f"AS tacit_cov FROM tacit_windows AS w JOIN (SELECT {plain}__o0__ AS tacit_o0, "
            f"__o1__ AS tacit_o1 FROM __outages__ WHERE __otype__ IN ({types})) AS o ON {o_on} "
            f"GROUP BY {cols('w')}w.tacit_k)")
        cover_join = f" LEFT JOIN tacit_cover AS v ON {on('w', 'v')}"
        covered = "COALESCE(v.tacit_cov, 0)"
    text = (
        f"WITH tacit_pts AS (SELECT DISTINCT {plain}__ms__ AS tacit_ms FROM __data__ WHERE {notnull}), "
        f"tacit_bounds AS (SELECT {plain}{floor_div('MIN(tacit_ms) + __w1__', sum_=True)} AS tacit_k0, "
        f"{floor_div('MAX(tacit_ms)')} - 1 AS tacit_k1 FROM tacit_pts{by_series}), "
        f"tacit_windows AS (SELECT {plain}UNNEST(GENERATE_SERIES(tacit_k0, tacit_k1)) AS tacit_k "
        f"FROM tacit_bounds WHERE tacit_k0 <= tacit_k1), "
        f"tacit_counts AS (SELECT {plain}{floor_div('tacit_ms')} AS tacit_k, COUNT(*) AS tacit_n "
        f"FROM tacit_pts GROUP BY {plain}{floor_div('tacit_ms')}){cover_cte} "
        f"SELECT {cols('w')}w.tacit_k * {w} AS window_start_ms, (w.tacit_k + 1) * {w} AS window_end_ms, "
        f"COALESCE(c.tacit_n, 0) AS readings "
        f"FROM tacit_windows AS w LEFT JOIN tacit_counts AS c ON {on('w', 'c')}{cover_join} "
        f"WHERE CAST(COALESCE(c.tacit_n, 0) AS DECIMAL(38, 0)) * __pw__ "
        f"< CAST(__pe__ AS DECIMAL(38, 0)) * ({w} - LEAST({covered}, {w}))"
    )
    from sqlglot import exp

    holes: dict[str, Exp.Expression] = {
        "__ms__": _ms(column(str(p("column"))), dialect),
        "__data__": data,
        "__t__": _name(str(p("column"))),
        "__w__": exp.Literal.number(width),
        "__w1__": exp.Literal.number(width - 1),
        "__pw__": exp.Literal.number(100 * PCT_SCALE * width),
        "__pe__": exp.Literal.number(pct * expected),
        **{hole: _name(name) for hole, name in zip(series, names, strict=True)},
        **{hole: exp.Literal.string(g) for hole, g in zip(gaps, gap_types, strict=True)},
        **(_outage_holes(clause, outages, dialect) if gaps else {}),
    }
    return _fill(_parsed(text), holes, dialect)


def _name(name: str) -> Exp.Identifier:
    """A column name as the parse of its DuckDB text gives it (quoted when that text is)."""
    from sqlglot import exp

    return exp.Identifier(this=name, quoted=ident(name, "duckdb") != name)


@lru_cache(maxsize=64)
def _parsed(text: str) -> Exp.Expression:
    """The tree of a completeness query's text, parsed once per text in a process: the fixed
    windows' text names only holes, so one parse serves every clause of its shape; `_fill`
    transforms a copy, never this tree."""
    return parse(text, "duckdb")


def _outage_holes(clause: Clause, outages: Exp.Expression | None, dialect: str) -> dict[str, Exp.Expression]:
    """The holes of the outages relation (default: the clause's ``outages_relation``)."""
    from tacit_gen.sql.build import relation

    p = clause.param
    return {
        "__outages__": outages if outages is not None else relation(str(p("outages_relation"))),
        "__o0__": _ms(column(str(p("outages_start"))), dialect),
        "__o1__": _ms(column(str(p("outages_end"))), dialect),
        "__otype__": column(str(p("outages_type"))),
    }


def _fill(tree: Exp.Expression, holes: dict[str, Exp.Expression], dialect: str) -> Exp.Expression:
    """`tree` with each hole (an unqualified column or a table of that name) replaced; a table
    hole keeps its alias (`__catalog__ AS tacit_cc`)."""
    from sqlglot import exp

    def put(node: Exp.Expression) -> Exp.Expression:
        if isinstance(node, exp.Column) and isinstance(holes.get(node.name), exp.Identifier):
            node.set("this", holes[node.name].copy())  # a name, qualified or not (`w.__s0__`)
            return node
        if (dialect == "postgres" and isinstance(node, exp.Explode)
                and isinstance(node.this, exp.GenerateSeries)):
            # PostgreSQL's GENERATE_SERIES is already a set-returning function: wrapped in
            # UNNEST (sqlglot's spelling of DuckDB's list form) it is `unnest(numeric)`, refused
            return node.this
        if isinstance(node, exp.Column) and not node.table and node.name in holes:
            return holes[node.name].copy()
        if isinstance(node, exp.Table) and node.name in holes:
            new = holes[node.name].copy()
            if node.args.get("alias") is not None and isinstance(new, exp.Table):
                new.set("alias", node.args["alias"].copy())
            return new
        return node

    return tree.transform(put)


def _short_sessions(clause: Clause, data: Exp.Expression, dialect: str,
                    outages: Exp.Expression | None, sessions: Exp.Expression | None,
                    catalog: Exp.Expression | None) -> Exp.Expression:
    """`N per session`: the windows are the sessions of each series' calendar, ``[open, close)``,
    the expected count prorated by a session's length against the calendar's longest
    (`tacit_gen.semantics.completeness`)."""
    from sqlglot import exp

    from tacit_gen.sql.build import relation

    p = clause.param
    series: list[str] = [ident(str(s), "duckdb") for s in (p("series") or ())]
    expected, pct = int(p("expected")), pct_units(str(p("min_pct")))
    gaps: tuple[str, ...] = tuple(str(g) for g in (p("allowed_gaps") or ()))
    t = ident(str(p("column")), "duckdb")
    per_series = p("calendar") is None

    def cols(alias: str) -> str:
        return "".join(f"{alias}.{s}, " for s in series)

    def on(a: str, b: str) -> str:
        return " AND ".join([f"{a}.{s} = {b}.{s}" for s in series] + [f"{a}.tacit_k = {b}.tacit_k"])

    def same(a: str, b: str) -> list[str]:
        return [f"{a}.{s} = {b}.{s}" for s in series]

    plain = "".join(f"{s}, " for s in series)
    notnull = " AND ".join([f"{x} IS NOT NULL" for x in [t, *series]])
    by_series = f" GROUP BY {', '.join(series)}" if series else ""
    catalog_join = " LEFT JOIN __catalog__ AS tacit_cc ON __calser__ = __cckey__" if per_series else ""
    cover_cte, cover_join, covered = "", "", "0"
    if gaps:
        types = ", ".join(f"'{g}'" for g in gaps)  # identifiers only: the loader checks them
        o_on = " AND ".join([*same("w", "o"), "o.tacit_o0 < w.tacit_e", "o.tacit_o1 > w.tacit_k"])
        cover_cte = (
            f", tacit_cover AS (SELECT {cols('w')}w.tacit_k, "
            f"SUM(LEAST(o.tacit_o1, w.tacit_e) - GREATEST(o.tacit_o0, w.tacit_k)) "
            f"AS tacit_cov FROM tacit_windows AS w JOIN (SELECT {plain}__o0__ AS tacit_o0, "
            f"__o1__ AS tacit_o1 FROM __outages__ WHERE __otype__ IN ({types})) AS o ON {o_on} "
            f"GROUP BY {cols('w')}w.tacit_k)")
        cover_join = f" LEFT JOIN tacit_cover AS v ON {on('w', 'v')}"
        covered = "COALESCE(v.tacit_cov, 0)"
    in_session = " AND ".join([*same("w", "p"), "p.tacit_ms >= w.tacit_k", "p.tacit_ms < w.tacit_e"])
    text = (
        f"WITH tacit_pts AS (SELECT DISTINCT {plain}__ms__ AS tacit_ms FROM __data__ WHERE {notnull}), "
        f"tacit_bounds AS (SELECT {plain}MIN(tacit_ms) AS tacit_f, MAX(tacit_ms) AS tacit_l "
        f"FROM tacit_pts{by_series}), "
        f"tacit_ses AS (SELECT __scal__ AS tacit_cal, __sopen__ AS tacit_o, __sclose__ AS tacit_c "
        f"FROM __sessions__), "
        f"tacit_full AS (SELECT tacit_cal, MAX(tacit_c - tacit_o) AS tacit_len FROM tacit_ses "
        f"GROUP BY tacit_cal), "
        f"tacit_windows AS (SELECT {cols('b')}s.tacit_o AS tacit_k, s.tacit_c AS tacit_e, "
        f"f.tacit_len AS tacit_len FROM tacit_bounds AS b{catalog_join} "
        f"JOIN tacit_ses AS s ON s.tacit_cal = __code__ AND s.tacit_o >= b.tacit_f "
        f"AND s.tacit_c <= b.tacit_l JOIN tacit_full AS f ON f.tacit_cal = s.tacit_cal), "
        f"tacit_counts AS (SELECT {cols('w')}w.tacit_k, COUNT(*) AS tacit_n FROM tacit_windows AS w "
        f"JOIN tacit_pts AS p ON {in_session} GROUP BY {cols('w')}w.tacit_k){cover_cte} "
        f"SELECT {cols('w')}w.tacit_k AS window_start_ms, w.tacit_e AS window_end_ms, "
        f"COALESCE(c.tacit_n, 0) AS readings "
        f"FROM tacit_windows AS w LEFT JOIN tacit_counts AS c ON {on('w', 'c')}{cover_join} "
        f"WHERE CAST(COALESCE(c.tacit_n, 0) AS DECIMAL(38, 0)) * {100 * PCT_SCALE} * w.tacit_len "
        f"< CAST({pct * expected} AS DECIMAL(38, 0)) * ((w.tacit_e - w.tacit_k) "
        f"- LEAST({covered}, w.tacit_e - w.tacit_k))"
    )
    tree = _parsed(text)
    code: Exp.Expression
    if per_series:
        code = column(str(p("calendar_catalog_column")), "tacit_cc")
    else:
        code = exp.Literal.string(str(p("calendar")))
    holes: dict[str, Exp.Expression] = {
        "__ms__": _ms(column(str(p("column"))), dialect),
        "__data__": data,
        "__sessions__": sessions if sessions is not None else relation(str(p("sessions_relation"))),
        "__scal__": column(str(p("sessions_calendar"))),
        "__sopen__": _ms(column(str(p("sessions_open"))), dialect),
        "__sclose__": _ms(column(str(p("sessions_close"))), dialect),
        "__code__": code,
    }
    if per_series:
        holes["__catalog__"] = catalog if catalog is not None else relation(str(p("calendar_catalog")))
        holes["__calser__"] = column(str(p("calendar_series")), "b")
        holes["__cckey__"] = column(str(p("calendar_catalog_key")), "tacit_cc")
    if gaps:
        holes.update(_outage_holes(clause, outages, dialect))
    return _fill(tree, holes, dialect)


def templated(shape: str, clause: Clause, dialect: str, relation: str | None,
              build: Callable[[Clause, str | None], str]) -> str:
    """`build(clause, relation)`, the text of a completeness query, from a compiled SQL template
    when one fits (`tacit_gen.sql.shapes`; `relation`, the data's relation name, is a slot when
    given). Fixed windows only: their names go into the tree as identifiers (`_fill`'s holes),
    while the per-session query pastes them into SQL text that sqlglot parses, where a name that
    is also a keyword may read otherwise than a marker; that query is always printed."""
    from tacit_gen.sql import shapes
    from tacit_gen.sql.dialects import check_dialect

    check_dialect(dialect)
    if clause.param("window_seconds") is None:
        return build(clause, relation)
    slots = [shapes.Slot("name", relation)] if relation is not None else []
    return shapes.clause_text(shape, clause, dialect, slots,
                              lambda c, v: build(c, v[0] if v else None))


def short_windows_sql(clause: Clause, data: Exp.Expression, dialect: str,
                      outages: Exp.Expression | None = None, sessions: Exp.Expression | None = None,
                      catalog: Exp.Expression | None = None) -> str:
    """`short_windows` as text in `dialect`."""
    return generate(short_windows(clause, data, dialect, outages, sessions, catalog), dialect)


__all__ = ["pct_units", "short_windows", "short_windows_sql"]
