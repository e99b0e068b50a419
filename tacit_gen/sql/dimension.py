"""`catalog_dimension` as SQL: the data rows whose series' catalog unit is not a unit of the
dimension. The allowed units are the clause's `units` (the shipped unit table's spellings, sorted),
written as an `IN` list of literals: the render is deterministic and reads back exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacit_gen.sql import build as sql

if TYPE_CHECKING:
    from sqlglot import exp as Exp

    from tacit_gen.plan_types import Clause


def bad_unit(catalog_unit: Exp.Expression, units: tuple[str, ...]) -> Exp.Expression:
    """`unit IS NULL OR unit NOT IN ('Pa', 'bar', ...)` (a NULL unit fails, not passes)."""
    from sqlglot import exp

    listed = exp.In(this=catalog_unit.copy(), expressions=[sql.string(u) for u in units])
    return exp.or_(sql.is_null(catalog_unit), exp.Not(this=listed))


def dimension_rows(clause: Clause, source: Exp.Expression, data: str = "d",
                   catalog: str = "c") -> Exp.Select:
    """`SELECT d.* FROM <source, aliased d> LEFT JOIN catalog c ON c.key = d.key WHERE d.key IS
    NOT NULL AND (c.key IS NULL OR <bad unit>)`: one row per failing data row."""
    from sqlglot import exp

    key = sql.column(clause.param("key"), data)
    ck = sql.column(clause.param("catalog_key"), catalog)
    bad = exp.or_(sql.is_null(ck.copy()),
                  bad_unit(sql.column(clause.param("catalog_column"), catalog),
                           tuple(clause.param("units") or ())))
    return (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier(data)))
            .from_(source)
            .join(exp.alias_(sql.relation(clause.param("relation")), catalog, table=True),
                  on=exp.EQ(this=ck, expression=key.copy()), join_type="LEFT")
            .where(exp.and_(sql.is_not_null(key), exp.Paren(this=bad))))
