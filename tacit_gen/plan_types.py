"""The Clause: one checkable statement with a stable id, its parameters and its verbatim text."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tacit_gen.expr.nodes import Node

# Clause kinds, in plan order.
KINDS = (
    "column",
    "no_unknown_columns",
    "not_null",
    "unique",
    "accepted_values",
    "fixed_value",
    "pattern",
    "references",
    "range",
    "invariant",
    "precision",
    "freshness",
    "cadence",
    "completeness",
    "catalog_unit",
    "catalog_bounds",
    "plausible",
    "catalog_dimension",
    "revision_window",
    "revision_by",
)

# `time.precision` -> the microseconds an instant at that precision is a whole number of
# (`precision:<time column>`: a value with finer digits fails). The engines' instants hold
# microseconds (DuckDB, PostgreSQL, Spark), so `us` and `ns` state nothing a check could fail.
PRECISION_US = {"s": 1_000_000, "ms": 1_000}

# How a violated clause counts: an ``error`` fails (exit 1), a ``warn`` is reported apart and
# fails nothing (``severity: {warn: [<clause id>, ...]}`` in the contract).
SEVERITIES = ("error", "warn")
# Structural clauses are never warnings: a missing or mistyped column stops every engine before
# a value is read (dbt's enforced contract, Soda's schema scan, pandera's dtype check).
NEVER_WARN = ("column", "no_unknown_columns")
# Clauses that are warnings by construction: a value inside the hard bounds but outside what its
# series' history makes plausible is worth a look, never a failed build.
ALWAYS_WARN = ("plausible",)


@dataclass(frozen=True)
class Clause:
    """One checkable statement of a contract.

    Attributes:
        id: stable id, e.g. ``range:volume`` or ``invariant:low <= open <= high``.
        kind: one of ``KINDS``.
        columns: the columns it reads, in order.
        params: sorted (key, value) pairs; values are str, int, bool, None or tuples of them.
            Numbers from the contract are kept as decimal text (no float rounding).
        text: the verbatim contract text the clause came from.
        line: 1-based line of that text in the contract file (0 when implied).
        expr: the resolved AST for ``invariant`` and ``range`` clauses.
        severity: ``error`` (a violation fails) or ``warn`` (reported apart, fails nothing).
        integers: the integer-typed columns an ``invariant``'s expression reads; its arithmetic on
            them is exact (each SQL target casts them to ``DECIMAL(38, 0)``: `tacit_gen.sql.condition`).
        strings: the string and enum columns it reads; they order by code point in every engine
            (PostgreSQL's SQL compares them ``COLLATE "C"``, whatever the database's collation).
        types: (column, contract type) of the columns a ``range`` or ``invariant`` reads: a
            target that compares through a double (GX's natives, Soda's thresholds) asks
            `tacit_gen.expr.bounds.compares_in_double` whether that is exact for the column.
    """

    id: str
    kind: str
    columns: tuple[str, ...]
    params: tuple[tuple[str, Any], ...]
    text: str
    line: int = field(default=0, compare=False)
    expr: Node | None = field(default=None, compare=False)
    severity: str = "error"
    integers: frozenset[str] = field(default=frozenset(), compare=False)
    strings: frozenset[str] = field(default=frozenset(), compare=False)
    types: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def column_type(self, column: str) -> str | None:
        """The contract type of a column the clause reads (`types`), or None."""
        return dict(self.types).get(column)

    @property
    def singles(self) -> frozenset[str]:
        """The float32 columns the clause reads: every target widens them to a double before any
        arithmetic or comparison (`tacit_gen.sql.condition`), so a value is compared as what it
        holds. DuckDB compares a FLOAT with a decimal literal, and adds FLOATs, in float32, where
        PostgreSQL and Spark widen first: ``x <= 0.1`` passed a stored 0.1 (0.100000001490116)
        on DuckDB and failed it on PostgreSQL (found 2026-12-04)."""
        return frozenset(c for c, t in self.types if t == "float32")

    @property
    def warn(self) -> bool:
        """Whether a violation is a warning (``severity: warn``), not a failure."""
        return self.severity == "warn"

    def param(self, key: str, default: Any = None) -> Any:
        """The value of a parameter (the first, were a key given twice), else `default`."""
        return self._by_key.get(key, default)

    @cached_property
    def _by_key(self) -> dict[str, Any]:
        # built at the first lookup: a render asks each clause for its parameters a dozen times
        return dict(reversed(self.params))

    @property
    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)


def uses_sessions(clause: Clause) -> bool:
    """Whether a clause reads exchange sessions (`within session`, `1 trading day`, a window in
    trading days with `time.calendar`) rather than plain instants and weekdays."""
    return clause.param("sessions") is not None or clause.param("sessions_relation") is not None


def make_params(**kwargs: Any) -> tuple[tuple[str, Any], ...]:
    """Params as a sorted tuple, lists turned into tuples."""
    return tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items())
    )


# Parameters a `clause()` call may leave out, by kind: the value each takes when left out.
CLAUSE_DEFAULTS: dict[str, dict[str, Any]] = {
    "range": {"min": None, "max": None, "min_inclusive": True, "max_inclusive": True},
    "cadence": {"from_catalog": False, "gaps_allowed": False, "tolerance_pct": "0"},
}


def clause(
    *,
    id: str,
    text: str,
    line: int = 0,
    severity: str = "error",
    reads: tuple[str, ...] | None = None,
    **params: Any,
) -> Clause:
    """A `Clause` in keyword form: ``clause(id='range:volume', column='volume', min='0', text=...,
    line=24)``.

    The kind is the id up to its first ``:``; the keywords other than `text`, `line`, `severity`
    and `reads` are the parameters (those of `CLAUSE_DEFAULTS` left out take their default);
    the columns read are `reads`, else the ``column`` parameter, else the ``columns`` one.
    """
    kind = id.split(":", 1)[0]
    full = {**CLAUSE_DEFAULTS.get(kind, {}), **params}
    if reads is None:
        reads = (full["column"],) if "column" in full else tuple(full.get("columns", ()))
    return Clause(id=id, kind=kind, columns=tuple(reads), params=make_params(**full), text=text,
                  line=line, severity=severity)
