"""unique: a hash aggregate over the key columns alone (``GROUP BY key HAVING count(*) > 1``),
summed and cross-joined into the one query: a narrow scan, never a window over the wide table
(which sorts and materialises every column; 2-3x the whole query's cost). Under ``since``,
the increment's keys semi-joined to the whole relation (docs/increments.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.clauses.base import Check, GroupsCheck

if TYPE_CHECKING:
    import datetime as _dt

    import ibis.expr.types as ir

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
    since = cx.since
    if since is not None and cx.time not in key:
        return GroupsCheck(_repeated(cx, keyed, key, since))
    # (a key holding the time column repeats only among rows of the same time: under `since`,
    # among the increment's own rows)
    groups = keyed.group_by(key).aggregate(__tacit_n=ibis._.count())
    return GroupsCheck(groups.filter(groups["__tacit_n"] > 1))  # pyright: ignore[reportOperatorIssue]


def _repeated(cx: Context, keyed: ir.Table, key: list[str], since: _dt.datetime) -> ir.Table:
    """Under ``since``: the keys of the increment that occur more than once in the whole
    relation, with ``__tacit_n`` the increment's rows holding them. A semi-join: the relation
    filtered to the increment's keys (an index on the key reads only those rows), never a
    scan of every earlier key."""
    import ibis

    full = cx.full
    new_keys = keyed.select(*key).distinct()
    mine = full.semi_join(new_keys, [full[k] == new_keys[k] for k in key])
    ones: Any = ibis.ifelse(cx.at_or_after(mine, since), 1, 0)
    groups = mine.group_by(key).aggregate(__tacit_all=ibis._.count(), __tacit_n=ones.sum())
    repeated = groups.filter(groups["__tacit_all"] > 1)  # pyright: ignore[reportOperatorIssue]
    return repeated.select(*key, "__tacit_n")
