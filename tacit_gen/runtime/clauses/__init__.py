"""Clause kind -> compile function: how the runtime checks each kind of `tacit_gen.plan_types.KINDS`.

Every kind is in exactly one of `CHECKS` (compiled into the one aggregate query), `STRUCTURAL`
(checked from the table's schema before any query: `cast()` alone checks these) or
`UNSUPPORTED` (kind -> why: reported as an execution error, never a pass);
tests/runtime/test_clause_table.py holds the table to that.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from tacit_gen.runtime.clauses import catalog, references, revision, rows, timeseries, uniqueness
from tacit_gen.runtime.clauses.base import Check, Compile, Context, row
from tacit_gen.runtime.compile import CompileError

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

__all__ = ["CHECKS", "JOINS_CATALOG", "STRUCTURAL", "UNSUPPORTED", "compile_clause"]

JOINS_CATALOG = catalog.JOINS_CATALOG

STRUCTURAL: frozenset[str] = frozenset({"column", "no_unknown_columns"})

CHECKS: Mapping[str, Compile] = MappingProxyType({
    "not_null": row(rows.not_null),
    "unique": uniqueness.unique,
    "accepted_values": row(rows.accepted_values),
    "fixed_value": row(rows.fixed_value),
    "pattern": row(rows.pattern),
    "references": row(references.references),
    "range": row(rows.range_),
    "invariant": row(rows.invariant),
    "precision": row(rows.precision),
    "freshness": timeseries.freshness,
    "cadence": timeseries.cadence,
    "completeness": timeseries.completeness,
    # sampled from the wide table: their condition reads the catalog join
    "catalog_unit": row(catalog.unit_or_bounds, narrow=False),
    "catalog_bounds": row(catalog.unit_or_bounds, narrow=False),
    "plausible": row(catalog.unit_or_bounds, narrow=False),
    "catalog_dimension": row(catalog.dimension, narrow=False),
    "revision_window": revision.revision_window,
    "revision_by": row(revision.revision_by),
})

UNSUPPORTED: Mapping[str, str] = MappingProxyType({})


def compile_clause(cx: Context, c: Clause) -> Check:
    """The check of one clause (CompileError: a kind the runtime does not check)."""
    compile_ = CHECKS.get(c.kind)
    if compile_ is None:
        why = UNSUPPORTED.get(c.kind)
        if why is not None:
            raise CompileError(f"the runtime does not check {c.kind!r} clauses: {why}")
        raise CompileError(f"unknown clause kind {c.kind!r}")
    return compile_(cx, c)
