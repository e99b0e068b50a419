"""What every clause family shares: the compile context, the four shapes of a check, instants.

A clause compiles (`Compile`) to one of four checks, each counted in the one aggregate query:

- `RowCheck`: a condition every row holds, counted on the wide table (data + catalog joins);
- `TableCheck`: one table-level verdict (0 or 1), e.g. freshness;
- `PointsCheck`: a violation over a derived table (time series points, windows, restated rows);
- `GroupsCheck`: the duplicate key groups of a unique clause (a narrow hash aggregate).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tacit_gen.runtime.backends import backend_name
from tacit_gen.semantics.calendar import WEEKDAY_EPOCH

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.contract.types import DataType
    from tacit_gen.plan_types import Clause
    from tacit_gen.runtime.inputs import Inputs

__all__ = [
    "EPOCH", "MONDAY", "US_PER_DAY", "CatalogColumns", "Check", "Compile", "Condition",
    "Context", "GroupsCheck", "PointsCheck", "RowCheck", "TableCheck", "by_series", "epoch_ms",
    "instant_literal", "row", "tolerance", "us_between",
]

US_PER_DAY = 86_400_000_000
MONDAY = _dt.datetime.combine(WEEKDAY_EPOCH, _dt.time(), tzinfo=_dt.UTC)  # a Monday
EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)

# clause id -> role ("n", "unit", "min", "max") -> the wide table's column the catalog join added
CatalogColumns = Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class Context:
    """What a clause is compiled against.

    Attributes:
        contract: the schema's contract name (a reference to it reads `converted`).
        types: column -> contract type.
        inputs: the relations given to `parse()`, `now` pinned.
        converted: the data with its columns converted.
        wide: `converted` plus the catalog columns every catalog clause joined.
        catalog_columns: per catalog clause, the columns its join added to `wide`.
    """

    contract: str | None
    types: Mapping[str, DataType]
    inputs: Inputs
    converted: ir.Table
    wide: ir.Table
    catalog_columns: CatalogColumns = field(default_factory=dict)
    relation: ir.Table | None = None
    time: str | None = None

    @property
    def now(self) -> _dt.datetime:
        assert self.inputs.now is not None  # pinned by the builder
        return self.inputs.now

    @property
    def since(self) -> _dt.datetime | None:
        """The start of the increment (None: the whole relation is checked)."""
        return self.inputs.since

    @property
    def full(self) -> ir.Table:
        """The whole relation, converted: `converted` is only the increment under ``since``."""
        return self.relation if self.relation is not None else self.converted

    def before(self, t: ir.Table, instant: _dt.datetime) -> Any:
        """The rows of `t` whose time column is before `instant` (a date column: whose UTC
        midnight is)."""
        col: Any = t[str(self.time)]
        return col < instant_literal(col, instant)

    def from_(self, t: ir.Table, instant: _dt.datetime) -> Any:
        """The rows of `t` whose time column is at or after `instant` (NULL: not)."""
        col: Any = t[str(self.time)]
        return col >= instant_literal(col, instant)

    def at_or_after(self, t: ir.Table, instant: _dt.datetime) -> Any:
        """The rows of `t` whose time column is at or after `instant`, or NULL (an instant
        the increment holds: not_null reports it)."""
        return self.from_(t, instant) | t[str(self.time)].isnull()

    def increment(self, t: ir.Table, instant: _dt.datetime) -> ir.Table:
        """The rows of `t` at or after `instant` or with a NULL time, as two filters in a
        UNION ALL: each alone is a range an engine prunes (DuckDB's zone maps, an index),
        ``T >= x OR T IS NULL`` is a scan of every row (DuckDB 1.0: 30x slower at 1%)."""
        col: Any = t[str(self.time)]
        return t.filter(self.from_(t, instant)).union(t.filter(col.isnull()))


@dataclass(frozen=True)
class RowCheck:
    """Rows violate where `violation` (``NOT condition``, on the wide table) is TRUE; NULL is no
    violation (SQL CHECK). `narrow` recompiles it on the converted table, for sampling the
    failing rows without the catalog joins (None: sample the wide table)."""

    violation: Any
    narrow: Callable[[], Any] | None = None


@dataclass(frozen=True)
class TableCheck:
    """A table-level verdict: `failed` is an integer scalar (1: failed) over the wide table, or
    over `over` when given (aggregated on its own, e.g. the whole relation under ``since``)."""

    failed: Any
    message: str
    over: Any = None


@dataclass(frozen=True)
class PointsCheck:
    """Rows of a derived table (`points`) violate where `violation` is TRUE; `what` names them in
    the message; `windows`: the rows are completeness windows (sampled as window starts)."""

    points: Any
    violation: Any
    what: str
    windows: bool = False


@dataclass(frozen=True)
class GroupsCheck:
    """Duplicate key groups (key columns and their row count ``__tacit_n``)."""

    groups: Any


Check = RowCheck | TableCheck | PointsCheck | GroupsCheck
Compile = Callable[[Context, "Clause"], Check]
# a row condition on a table (wide, or converted when sampling), with the catalog joins it may read
Condition = Callable[[Context, "ir.Table", "Clause", CatalogColumns], Any]


def row(condition: Condition, *, narrow: bool = True) -> Compile:
    """A row clause's compile function: its condition on the wide table, negated."""

    def compile_row(cx: Context, c: Clause) -> Check:
        # no fill_null: CASE WHEN NULL is the ELSE branch (0) in the count, and a filter drops
        # NULL rows; a COALESCE per clause costs every row a call
        violation = ~condition(cx, cx.wide, c, cx.catalog_columns)
        if not narrow:
            return RowCheck(violation)
        return RowCheck(violation,
                        lambda: (~condition(cx, cx.converted, c, {})).fill_null(False))

    compile_row.__doc__ = condition.__doc__
    return compile_row


# -- instants -----------------------------------------------------------------------------------
def tolerance(text: Any) -> Fraction:
    return Fraction(str(text or "0"))


def us_between(start: Any, stop: Any) -> Any:
    """Microseconds from instant `start` to instant `stop`, whatever the session time zone.

    ibis compiles ``delta`` on PostgreSQL through ``CAST(.. AS TIMESTAMP)``, which reads the
    instant in the session time zone (a DST change then moves a step by an hour); the epoch of a
    ``timestamptz`` is absolute, so PostgreSQL subtracts epochs (exact: numeric seconds).
    """
    if backend_name(stop) == "postgres" or backend_name(start) == "postgres":
        return (stop.epoch_seconds() - start.epoch_seconds()) * 1_000_000
    return stop.delta(start, unit="microsecond")


def instant_literal(col: Any, instant: _dt.datetime) -> Any:
    """`instant` as a literal comparable with `col`: a UTC timestamp, or for a date column the
    first date whose UTC midnight is at or after it (a date is read as its UTC midnight)."""
    import ibis
    import ibis.expr.datatypes as dt

    utc = instant.astimezone(_dt.UTC)
    if col.type().is_date():
        day = utc.date()
        if utc != _dt.datetime.combine(day, _dt.time(), tzinfo=_dt.UTC):
            day += _dt.timedelta(days=1)
        return ibis.literal(day, type=dt.date)
    return ibis.literal(utc, type=dt.Timestamp(timezone="UTC"))


def epoch_ms(col: Any) -> Any:
    """Whole milliseconds since the epoch of an instant, floored (tacit_gen.semantics.completeness)."""
    import ibis
    import ibis.expr.datatypes as dt

    epoch = ibis.literal(EPOCH, type=dt.Timestamp(timezone="UTC"))
    return (us_between(epoch, col) // 1000).cast("int64")


def by_series(t: Any, series: list[str], **aggs: Any) -> Any:
    """`aggs` per series (`series` columns), or over the whole table when there is none."""
    return t.group_by(series).aggregate(**aggs) if series else t.aggregate(**aggs)
