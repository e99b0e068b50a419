"""references: a foreign key (semantics/references.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.compile import CompileError

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import CatalogColumns, Context

__all__ = ["references"]


def references(cx: Context, t: ir.Table, c: Clause, cat: CatalogColumns) -> Any:
    """A NULL passes, any other value must be a non-NULL value of the referenced column (`IN
    (SELECT ...)`, the NULLs filtered out so that an unmatched value is FALSE, never UNKNOWN). A
    reference to the schema's own contract reads the (converted) table being parsed unless
    `refs` names it."""
    refs = cx.inputs.refs
    rel, to_col = str(c.param("to_relation")), str(c.param("to_column"))
    if refs is not None and rel in refs:
        ref = refs[rel]
    elif rel == cx.contract:
        ref = cx.full  # a self reference: the table being parsed (all of it) is the relation
    else:
        have = f" (have {sorted(refs)})" if refs else ""
        raise CompileError(f"{c.id} reads relation {rel!r}: pass refs={{{rel!r}: <table>}}{have}")
    if to_col not in ref.columns:
        raise CompileError(f"{c.id}: relation {rel!r} has no column {to_col!r}")
    value = t[c.param("column")]
    allowed = ref.filter(ref[to_col].notnull())[to_col]
    return value.isnull() | value.isin(allowed)
