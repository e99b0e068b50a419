"""unique: a hash aggregate over the key columns alone (``GROUP BY key HAVING count(*) > 1``),
summed and cross-joined into the one query: a narrow scan, never a window over the wide table
(which sorts and materialises every column; 2-3x the whole query's cost)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacit_gen.runtime.clauses.base import Check, GroupsCheck

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.clauses.base import Context

__all__ = ["unique"]


def unique(cx: Context, c: Clause) -> Check:
    """The duplicate key groups; SQL UNIQUE: a row with a NULL in the key is no duplicate
    (not_null's job)."""
    import ibis

    key = list(c.param("columns") or c.columns)
    converted = cx.converted
    keyed = converted.filter([converted[k].notnull() for k in key])
    groups = keyed.group_by(key).aggregate(__tacit_n=ibis._.count())
    return GroupsCheck(groups.filter(groups["__tacit_n"] > 1))  # pyright: ignore[reportOperatorIssue]
