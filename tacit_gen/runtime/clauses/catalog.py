"""Catalog clauses: each joins the catalog once (aggregated per key) onto the wide table, then
compares the row with its series' entry (catalog_unit, catalog_bounds, plausible,
catalog_dimension). A key with no catalog entry is a violation."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.compile import CompileError, widened

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.expr import nodes as n
    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import CatalogColumns, Context
    from tacit_gen.runtime.inputs import Inputs

__all__ = ["JOINS_CATALOG", "dimension", "inline_catalog", "join_catalog", "unit_or_bounds"]

# the kinds whose check reads the catalog join (joined before any clause is compiled)
JOINS_CATALOG = frozenset({"catalog_bounds", "catalog_dimension", "catalog_unit", "plausible"})


def join_catalog(inputs: Inputs, wide: ir.Table, c: Clause, i: int) -> tuple[ir.Table, dict[str, str]]:
    """`wide` with the clause's catalog entry per key (columns numbered `i`), and their names."""
    cat = inputs.catalog_relation(c.param("relation"))
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


def unit_or_bounds(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """catalog_unit, catalog_bounds, plausible: the value is the series' unit, or within its
    bounds."""
    col_name = c.param("column")
    cols = cat[c.id]
    present = t[cols["n"]].notnull()
    value = widened(t[col_name], cx.types.get(col_name))  # a float32 as a double
    if c.kind == "catalog_unit":
        match = value == t[cols["unit"]]
    else:
        match = (t[cols["min"]] <= value) & (value <= t[cols["max"]])
    # a null value passes (not_null's job); a key with no catalog entry is a violation
    return value.isnull() | (present & match)


def dimension(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """catalog_dimension: the series' catalog unit is one of the dimension's spellings; a NULL
    key passes (not_null's job); no catalog entry or a NULL unit is a violation."""
    cols = cat[c.id]
    unit = t[cols["unit"]]
    listed = unit.notnull() & unit.isin(list(c.param("units") or ()))
    return t[c.param("key")].isnull() | (t[cols["n"]].notnull() & listed)


def inline_catalog(
    cx: Context, wide: ir.Table, cat: CatalogColumns
) -> Callable[[str, n.Node, n.Node], Any]:
    """Catalog forms inside an invariant reuse the join of the matching catalog clause."""
    from tacit_gen.expr import nodes as n

    def lookup(form: str, subject: n.Node, key: n.Node) -> Any:
        kind = "catalog_unit" if form == "unit" else "catalog_bounds"
        name = subject.name if isinstance(subject, n.Column | n.Name) else None
        for cid, cols in cat.items():
            if cid == f"{kind}:{name}":
                # a float32 as a double, as everywhere (`name` is the matched clause's column)
                value = widened(wide[name], cx.types.get(str(name)))  # pyright: ignore[reportArgumentType, reportCallIssue]
                present = wide[cols["n"]].notnull()
                if kind == "catalog_unit":
                    return value.isnull() | (present & (value == wide[cols["unit"]]))
                return value.isnull() | (
                    present & (wide[cols["min"]] <= value) & (value <= wide[cols["max"]])
                )
        raise CompileError(f"no catalog clause {kind}:{name} to take the catalog from")

    return lookup
