"""What the sample package produces: the data model, its constants and time helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from tacit_gen.semantics.catalog import CatalogData

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

DEFAULT_NOW = datetime(2024, 1, 2, 15, 0, tzinfo=UTC)  # a Tuesday, on every usual grid

DEFAULT_ROWS = 24

DEFAULT_SPACING = 60  # seconds between points of a series when the contract states no cadence

US = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 1}

INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
# Per-series catalog presets: unit, hard_min, hard_max, cadence seconds.
PRESETS = (
    ("bar", Decimal(0), Decimal(350), 60),
    ("degC", Decimal(-40), Decimal(150), 300),
    ("kPa", Decimal(0), Decimal(35000), 30),
)
# Exchange calendars of the series of a per-series calendar (`calendar: per series from catalog`),
# in turn: New York and London, so that sample data crosses two calendars' holidays and hours.
CALENDAR_CODES = ("XNYS", "XLON")
# A plausible wrong unit for the catalog_unit / fixed_value violations (the kPa incident).
OTHER_UNIT = {"bar": "kPa", "kPa": "bar", "degC": "degF", "degF": "degC", "Pa": "kPa"}

EXTRA_COLUMN = "unexpected_column"


class SampleError(ValueError):
    """The data asked for cannot be built (unknown clause, too few rows, no isolating change)."""


@dataclass(frozen=True)
class SampleData:
    """Synthetic data for one contract.

    Attributes:
        contract: the contract name (the table name ``verify`` loads it as).
        columns: column -> values, in contract column order (an extra column last). Values are
            ``str``, ``bool``, ``int``, ``float``, ``Decimal``, ``date``, ``datetime`` (UTC-aware,
            naive only in a ``column:`` violation) or ``None``.
        types: column -> the type the file carries: the contract type text, or for a ``column:``
            violation the wrong type (``timestamp_ms`` naive, ``float64``), ``string`` for an extra
            column.
        now: the pinned "now" for freshness (the data's newest time is within freshness of it).
        catalog: the catalog rows when the plan has catalog or catalog-cadence clauses.
        violate: the clause id asked to break, or None.
        violated: the clause ids the reference evaluator finds violated (empty for clean data;
            exactly ``(violate,)`` when the violation could be isolated).
        description: what was changed, for humans.
        refs: the relations `references:` clauses read: relation -> column -> values (built
            from the clean data; `write` puts each beside the data as ``<relation>.<ext>``).
    """

    contract: str
    columns: dict[str, list[Any]]
    types: dict[str, str]
    now: datetime
    catalog: CatalogData | None = None
    violate: str | None = None
    violated: tuple[str, ...] = ()
    description: str = ""
    refs: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    ref_types: dict[str, dict[str, str]] = field(default_factory=dict)  # each the referencing column's

    @property
    def row_count(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def rows(self) -> list[dict[str, Any]]:
        names = list(self.columns)
        return [dict(zip(names, vals, strict=True)) for vals in zip(*self.columns.values(),
                                                                     strict=True)]


def from_rows(names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    return {c: [r.get(c) for r in rows] for c in names}


@dataclass(frozen=True)
class ClauseCheck:
    """The reference evaluator's verdict on one clause."""

    clause_id: str
    status: str  # pass, fail, n/a
    failures: int = 0
    detail: str = ""


def as_utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def epoch_us(t: datetime) -> int:
    """Microseconds since the epoch; a naive timestamp counts as UTC wall time (as in DuckDB with
    TimeZone=UTC), so a naive time column still has a newest value and steps."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (t - EPOCH) // timedelta(microseconds=1)


def truncate(t: datetime, unit: str) -> datetime:
    us = epoch_us(t)
    return EPOCH + timedelta(microseconds=us - us % US[unit])
