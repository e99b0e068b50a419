"""What `references: <relation>.<column>` means (the reference every engine is compared with).

A foreign key: every non-NULL value of the column is a value of `<relation>.<column>`. A NULL
passes (SQL's foreign keys, dbt's `relationships` test and Soda's reference check all skip it);
the referenced relation's own NULLs match nothing. The relation is data beside the checked data:
`sample` writes it as `<relation>.csv` (or `.parquet`) next to the data file, and `verify` loads
that file as the relation (docs/contract-language.md, "references").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


def references_ok(value: Any, allowed: frozenset[Any] | set[Any]) -> bool | None:
    """True when `value` is one of the referenced values; None (passes) for a NULL."""
    if value is None:
        return None
    return value in allowed


def referenced(clauses: Iterable[Clause]) -> dict[str, tuple[str, ...]]:
    """relation -> the referenced columns, in first-seen order (one file per relation)."""
    out: dict[str, list[str]] = {}
    for c in clauses:
        if c.kind == "references":
            cols = out.setdefault(str(c.param("to_relation")), [])
            if str(c.param("to_column")) not in cols:
                cols.append(str(c.param("to_column")))
    return {k: tuple(v) for k, v in out.items()}


def relation_columns(clauses: Sequence[Clause], rows: Sequence[Mapping[str, Any]]
                     ) -> dict[str, dict[str, list[Any]]]:
    """The referenced relations clean data needs: relation -> column -> values (the distinct
    non-NULL values of each referencing column, in first-seen order; a shorter column is padded
    by repeating its first value, so every column holds exactly its set of values)."""
    seen: dict[str, dict[str, dict[Any, None]]] = {}  # ordered sets
    for c in clauses:
        if c.kind != "references":
            continue
        values = seen.setdefault(str(c.param("to_relation")), {}).setdefault(str(c.param("to_column")), {})
        for r in rows:
            v = r.get(str(c.param("column")))
            if v is not None:
                values.setdefault(v, None)
    out = {rel: {col: list(vals) for col, vals in cols.items()} for rel, cols in seen.items()}
    for cols in out.values():
        n = max(len(v) for v in cols.values())
        for v in cols.values():
            v.extend([v[0] if v else None] * (n - len(v)))
    return out
