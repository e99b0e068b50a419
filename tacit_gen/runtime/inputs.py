"""What a check reads besides the table: one frozen object, built once from `parse()`'s arguments.

`Schema.parse`, `Schema.evaluate`, `evaluate`, `parse_query` and `@contract` take the relations and
the pinned instant as keyword arguments (the public API); each builds one `Inputs` and hands it
down, so a new input is one field here and one argument on each public signature.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.compile import CompileError

if TYPE_CHECKING:
    import ibis.expr.types as ir

__all__ = ["Inputs"]


@dataclass(frozen=True)
class Inputs:
    """The relations and the instant a `parse()` reads besides the table (all optional).

    Attributes:
        catalog: the catalog relation (a Table, or a mapping relation name -> Table) for catalog
            clauses, catalog cadence and per-series calendars.
        now: the pinned "now" for freshness (None: the current time, UTC, when checked).
        sessions: the exchange sessions relation (a Table, or a mapping relation name -> Table)
            for clauses that read sessions (`time.calendar`).
        refs: the relations `references:` clauses read, by name.
        outages: the outages relation a `completeness` clause with allowed gap types reads.
        since: the start of the increment (docs/increments.md): the rows whose time column is
            at or after it are checked, with the rows before it each clause needs to relate
            them to (keys, each series' last point, the window containing `since`); None:
            the whole relation.
    """

    catalog: ir.Table | Mapping[str, ir.Table] | None = None
    now: _dt.datetime | None = None
    sessions: ir.Table | Mapping[str, ir.Table] | None = None
    refs: Mapping[str, ir.Table] | None = None
    outages: ir.Table | None = None
    since: _dt.datetime | None = None

    def with_refs(self, refs: Mapping[str, ir.Table] | None) -> Inputs:
        """The same inputs with `refs` replaced (`@contract` binds them per call)."""
        return replace(self, refs=refs)

    def at(self, now: _dt.datetime) -> Inputs:
        """The same inputs with the instant pinned."""
        return replace(self, now=now)

    def catalog_relation(self, relation: Any) -> ir.Table:
        """The catalog relation a clause names: the one Table given, or the mapping's entry."""
        return _relation(self.catalog, relation, "catalog")

    def sessions_relation(self, relation: Any) -> ir.Table:
        """The sessions relation a clause names, as given to ``parse(sessions=...)``."""
        return _relation(self.sessions, relation, "sessions")

    def outages_relation(self, relation: Any) -> ir.Table:
        """The outages relation (one Table, whatever name the clause gives it)."""
        if self.outages is None:
            raise CompileError(f"needs the outages relation {relation!r}: pass outages=")
        return self.outages


def _relation(given: ir.Table | Mapping[str, ir.Table] | None, relation: Any, arg: str) -> ir.Table:
    import ibis.expr.types as ir

    if given is None:
        raise CompileError(f"needs the {arg} relation {relation!r}: pass {arg}=")
    if isinstance(given, ir.Table):
        return given
    if relation in given:
        return given[relation]
    raise CompileError(f"{arg} relation {relation!r} not given (have {sorted(given)})")
