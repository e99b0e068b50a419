"""A few failing rows per failed clause, fetched only when something failed (the failure path).

Each query is run through `execute` (the builder's, which counts the queries); a sample that
cannot be fetched is empty, never an error: the verdict stands without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.clauses.base import EPOCH

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.plan_types import Clause

__all__ = ["SAMPLE_ROWS", "Execute", "coercion_failures", "duplicates", "rows_where",
           "short_windows"]

SAMPLE_ROWS = 5
Execute = Callable[["ir.Table"], list[dict[str, Any]]]
Rows = tuple[dict[str, Any], ...]


def rows_where(execute: Execute, t: ir.Table, viol: Any, cols: list[str] | None) -> Rows:
    """The first rows of `t` where `viol` holds: `cols`, or every column but the builder's."""
    try:
        q = t.filter(viol)
        q = q.select(*(cols or [c for c in t.columns if not c.startswith("__tacit_")]))
        return tuple(execute(q.limit(SAMPLE_ROWS)))
    except Exception:
        return ()


def short_windows(execute: Execute, wins: Any, viol: Any, c: Clause) -> Rows:
    """The first short windows, in series then time order: the series values, `window_start`
    (the window's or session's start, UTC) and `readings`; either name gets a trailing `_` (as
    often as needed) when a series column has it."""
    import ibis
    import ibis.expr.datatypes as dt

    series = [s for s in (c.param("series") or ()) if isinstance(s, str)]

    def free(name: str) -> str:
        while name in series:
            name += "_"
        return name

    epoch = ibis.literal(EPOCH, type=dt.Timestamp(timezone="UTC"))
    try:
        q = wins.filter(viol).order_by([*series, "__tacit_ws"])
        q = q.select(*series, **{free("window_start"): epoch + q["__tacit_ws"].as_interval("ms"),
                                 free("readings"): q["__tacit_n"].fill_null(0)})
        return tuple(execute(q.limit(SAMPLE_ROWS)))
    except Exception:
        return ()


def duplicates(execute: Execute, converted: ir.Table, groups: ir.Table, cols: list[str]) -> Rows:
    """A few rows whose key is duplicated: the data semi-joined to the duplicate groups (whose
    keys hold no NULL)."""
    key = [c for c in groups.columns if c != "__tacit_n"]
    try:
        q = converted.semi_join(groups, [converted[k] == groups[k] for k in key])
        return tuple(execute(q.select(*cols).limit(SAMPLE_ROWS)))
    except Exception:
        return ()


def coercion_failures(execute: Execute, base: ir.Table, name: str, flag: str,
                      cols: list[str]) -> Rows:
    """A few rows whose `name` does not convert, showing the source value."""
    j = flag.removeprefix("__tacit_bad")
    try:
        q = base.filter(base[flag]).select(  # pyright: ignore[reportArgumentType]
            *[base[f"__tacit_src{j}"].name(c) if c == name else base[c] for c in cols]
        )
        return tuple(execute(q.limit(SAMPLE_ROWS)))
    except Exception:
        return ()
