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


def relation_columns(clauses: Sequence[Clause], rows: Sequence[Mapping[str, Any]],
                     own: str | None = None) -> dict[str, dict[str, list[Any]]]:
    """The referenced relations clean data needs: relation -> column -> values (the distinct
    non-NULL values of each referencing column, in first-seen order; a shorter column is padded
    by repeating its first value, so every column holds exactly its set of values). A reference
    to `own` (the data's own relation: `employees.manager_id` -> `employees.employee_id`) needs
    no other relation and is left out."""
    seen: dict[str, dict[str, dict[Any, None]]] = {}  # ordered sets
    for c in clauses:
        if c.kind != "references" or str(c.param("to_relation")) == own:
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


def point_at_own_rows(clauses: Sequence[Clause], rows: list[dict[str, Any]], own: str) -> None:
    """Make each self reference of clean data hold (in place): row i's non-NULL referencing value
    becomes the referenced column's value of row (i - 1) // 2 (a tree: row 0 is the root, whose
    value is NULL, or its own when the column cannot be NULL)."""
    not_null = {str(c.param("column")) for c in clauses if c.kind == "not_null"}
    for c in clauses:
        if c.kind != "references" or str(c.param("to_relation")) != own:
            continue
        col, to_col = str(c.param("column")), str(c.param("to_column"))
        targets = [r.get(to_col) for r in rows]
        first = next((v for v in targets if v is not None), None)
        for i, r in enumerate(rows):
            if r.get(col) is None:
                continue
            parent = targets[(i - 1) // 2] if i > 0 else (None if col not in not_null else targets[0])
            r[col] = parent if parent is not None or col not in not_null else first
