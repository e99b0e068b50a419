"""`Schema` and `Column`: a contract as a Python class whose annotated attributes are its columns.

A generated module (``tacit-gen render --target ibis``) writes one `Schema` subclass per contract,
with every column as ``name: Annotated[<python type>, Column(type=..., nullable=..., unit=...)]``
and every clause of the plan as plain data in ``__clauses__``. Hand-written schemas work too:
bare annotations (``sepal_length: float``) get a default contract type, and the column,
``no_unknown_columns``, ``not_null`` and enum ``accepted_values`` clauses are derived.

Nothing here imports ibis at module level; `cast()` and `parse()` import it when called.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen.contract.types import DataType, TypeSyntaxError, parse_type
from tacit_gen.plan_types import KINDS, Clause, clause, make_params
from tacit_gen.runtime.inputs import Inputs
from tacit_gen.runtime.types import FROM_PY

if TYPE_CHECKING:
    from typing import Self

    import ibis.expr.types as ir

    from tacit_gen.runtime.dataframe import DataFrame
    from tacit_gen.runtime.evaluate import Report
    from tacit_gen.runtime.publish import Published

__all__ = ["Column", "ColumnSpec", "Schema", "SchemaDefinitionError", "clause"]


class SchemaDefinitionError(TypeError):
    """A Schema class that contradicts itself (annotation vs clause data) or is malformed."""


@dataclass(frozen=True)
class Column:
    """The contract facts of one column, attached with ``Annotated[T, Column(...)]``.

    Attributes:
        type: contract type text: ``string``, ``bool``, ``int32``, ``int64``, ``float32``,
            ``float64``, ``decimal(p,s)``, ``date``, ``timestamp_{s,ms,us,ns}_utc``, ``enum[a, b]``.
        nullable: False adds a ``not_null:<c>`` clause.
        unit, dimension: the declared unit and dimension (documentation; part of ``column:<c>``).
        name: the data column's name when it is not a usable attribute name (``class``).
        description, note: documentation from the contract.
        constraints: ids of the clauses that read this column (documentation).
        text, line: the contract text declaring the column and its line (0: none): the
            ``column:<c>`` and ``not_null:<c>`` clauses carry them into failure messages.
    """

    type: str
    nullable: bool = True
    unit: str | None = None
    dimension: str | None = None
    name: str | None = None
    description: str | None = None
    note: str | None = None
    constraints: tuple[str, ...] = ()
    text: str | None = None
    line: int = 0


@dataclass(frozen=True)
class ColumnSpec:
    """A resolved column: data name, attribute name, parsed type and its `Column`."""

    name: str
    attribute: str
    type: DataType
    column: Column


def _kind_rank(c: Clause) -> int:
    return KINDS.index(c.kind) if c.kind in KINDS else len(KINDS)


def _is_classvar(annotation: Any) -> bool:
    return annotation is ClassVar or typing.get_origin(annotation) is ClassVar


def _column_from_annotation(attr: str, annotation: Any) -> Column:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, Column):
                return meta
        annotation = typing.get_args(annotation)[0]
    nullable = False
    base = annotation
    args = typing.get_args(annotation)
    if args and type(None) in args:  # Optional[T] / T | None
        nullable = True
        rest = [a for a in args if a is not type(None)]
        base = rest[0] if len(rest) == 1 else annotation
    if typing.get_origin(base) is typing.Literal:
        values = typing.get_args(base)
        return Column(type="enum[" + ", ".join(str(v) for v in values) + "]", nullable=nullable)
    if isinstance(base, type) and base in FROM_PY:
        return Column(type=FROM_PY[base], nullable=nullable)
    raise SchemaDefinitionError(
        f"column {attr!r}: cannot infer a contract type from {annotation!r}; "
        "use Annotated[T, Column(type=...)]"
    )


class Schema:
    """Base class of every schema. Subclass it; annotated attributes are the columns.

    Class attributes (all optional):
        __clauses__: the clause plan as data (`Clause` literals); generated modules write it.
        __strict__: False to allow columns the schema does not declare.
        __contract__, __version__: the source contract's name and version.
        __unsupported__: (clause id, reason) pairs the runtime cannot check (listed, not dropped).
        __time__: the contract's time column (`time.column`), which ``since=`` selects on; when
            None, the column the time clauses (freshness, cadence, completeness, revision
            window) read.
    """

    __clauses__: ClassVar[tuple[Clause, ...]] = ()
    __strict__: ClassVar[bool] = True
    __contract__: ClassVar[str | None] = None
    __version__: ClassVar[str | None] = None
    __unsupported__: ClassVar[tuple[tuple[str, str], ...]] = ()
    __time__: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # postponed annotations naming something defined later: resolve on first use
        with contextlib.suppress(NameError):
            cls._resolve()

    # -- structure ---------------------------------------------------------------
    @classmethod
    def _resolve(cls) -> tuple[tuple[ColumnSpec, ...], tuple[Clause, ...]]:
        cached = cls.__dict__.get("_tacit_resolved")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        specs: list[ColumnSpec] = []
        seen: set[str] = set()
        for klass in reversed(cls.__mro__):
            if klass is object or not issubclass(klass, Schema):
                continue
            annotations = inspect.get_annotations(klass, eval_str=True)
            for attr, annotation in annotations.items():
                if attr.startswith("_") or _is_classvar(annotation):
                    continue
                col = _column_from_annotation(attr, annotation)
                name = col.name or attr
                try:
                    dtype = parse_type(col.type)
                except TypeSyntaxError as e:
                    raise SchemaDefinitionError(f"{cls.__name__}.{attr}: {e}") from None
                if name in seen:
                    specs = [s for s in specs if s.name != name]
                seen.add(name)
                specs.append(ColumnSpec(name, attr, dtype, col))
        clauses = _merge(cls, tuple(specs))
        resolved = (tuple(specs), clauses)
        type.__setattr__(cls, "_tacit_resolved", resolved)
        return resolved

    @classmethod
    def columns(cls) -> tuple[ColumnSpec, ...]:
        """The columns, in declaration order."""
        return cls._resolve()[0]

    @classmethod
    def column_names(cls) -> tuple[str, ...]:
        return tuple(s.name for s in cls.columns())

    @classmethod
    def clauses(cls) -> tuple[Clause, ...]:
        """Every clause the schema checks: derived from the columns, plus ``__clauses__``."""
        return cls._resolve()[1]

    @classmethod
    def time_column(cls) -> str | None:
        """The time column ``since=`` selects on: ``__time__``, or the column the time clauses
        read (None: the schema has no time column)."""
        if cls.__time__ is not None:
            return cls.__time__
        for c in cls.clauses():
            if c.kind in ("freshness", "cadence", "completeness"):
                return str(c.param("column"))
            if c.kind == "revision_window" and c.param("time_column"):
                return str(c.param("time_column"))
        return None

    # -- checking ----------------------------------------------------------------
    @classmethod
    def cast(cls, table: ir.Table) -> DataFrame[Self]:
        """Check structure only (names, types incl. time zone and decimal precision, no unknown
        columns) and return the table typed as ``DataFrame[Self]``. Issues no query.

        Raises:
            StructuralError: listing every structural failure.
        """
        from tacit_gen.runtime.evaluate import cast_table

        return cast_table(cls, table)

    @classmethod
    def parse(
        cls,
        table: ir.Table,
        catalog: ir.Table | Mapping[str, ir.Table] | None = None,
        now: datetime | None = None,
        sessions: ir.Table | Mapping[str, ir.Table] | None = None,
        refs: Mapping[str, ir.Table] | None = None,
        outages: ir.Table | None = None,
        since: datetime | None = None,
    ) -> DataFrame[Self]:
        """Convert columns whose type differs but converts, then evaluate every constraint
        clause in one aggregate query.

        Args:
            table: the data.
            catalog: the catalog relation (a Table, or a mapping relation name -> Table) for
                catalog clauses and catalog cadence.
            now: the pinned "now" for freshness (default: the current time, UTC).
            sessions: the exchange sessions relation (a Table, or a mapping relation name ->
                Table; `tacit-gen calendar` writes it) for clauses that read sessions
                (`time.calendar`).
            refs: the relations `references:` clauses read, by name (``{"customers": t}``):
                each non-NULL value must be in the referenced column (an anti-join). A
                referenced relation not given is a CheckExecutionError naming it, except the
                schema's own contract (a self reference), which reads `table` itself.
            outages: the outages relation (the series key columns, `start`, `end`, `type`) a
                `completeness` clause with allowed gap types reads.
            since: check the increment only (docs/increments.md): the rows whose time column
                is at or after this time-zone-aware instant, against the rows before it that
                each clause relates them to (a key may not repeat one already in the table;
                cadence and completeness continue from each series' last point before it).

        Returns:
            The converted table as ``DataFrame[Self]``.

        Raises:
            StructuralError, CoercionError, ConstraintError, CheckExecutionError: each carries
                every failure found (the class names the most fundamental one).
            UsageError: `since` without a time zone, later than `now`, or on a schema without
                a time column.
        """
        from tacit_gen.runtime.evaluate import parse_table

        return parse_table(cls, table, Inputs(catalog=catalog, now=now, sessions=sessions,
                                              refs=refs, outages=outages, since=since))

    @classmethod
    def evaluate(
        cls,
        table: ir.Table,
        catalog: ir.Table | Mapping[str, ir.Table] | None = None,
        now: datetime | None = None,
        sessions: ir.Table | Mapping[str, ir.Table] | None = None,
        refs: Mapping[str, ir.Table] | None = None,
        outages: ir.Table | None = None,
        since: datetime | None = None,
    ) -> Report:
        """Like `parse()`, but return the per-clause report instead of raising."""
        from tacit_gen.runtime.evaluate import report_of

        return report_of(cls, table, Inputs(catalog=catalog, now=now, sessions=sessions,
                                            refs=refs, outages=outages, since=since))

    @classmethod
    def publish(
        cls,
        batch: Any,
        into: ir.Table,
        *,
        catalog: ir.Table | Mapping[str, ir.Table] | None = None,
        now: datetime | None = None,
        sessions: ir.Table | Mapping[str, ir.Table] | None = None,
        refs: Mapping[str, ir.Table] | None = None,
        outages: ir.Table | None = None,
    ) -> Published:
        """Write-audit-publish: append `batch` to the published table `into` only when it
        passes, in one transaction (docs/how-to/publish.md).

        The batch is checked as ``parse(since=...)`` checks an increment, against what `into`
        already holds, with `since` the batch's earliest time: its keys may not repeat a
        published key, cadence continues from each series' last published point, the revision
        window and the row clauses apply to the rows at or after that time. Readers on other
        connections see `into` before or after the whole batch, never a part of it.

        Args:
            batch: the new rows: an ibis Table (of `into`'s backend, another backend or in
                memory), a pandas DataFrame or a pyarrow Table.
            into: the published table, a table of a DuckDB or PostgreSQL backend.
            catalog, now, sessions, refs, outages: as for `parse()`.

        Returns:
            `Published`: the rows appended, the boundary and the report. An empty batch
            appends nothing and checks nothing (``rows == 0``, ``report is None``).

        Raises:
            StructuralError: `into` or `batch` does not have the contract's structure
                (nothing is written).
            CoercionError, ConstraintError, CheckExecutionError: the batch failed; `into` is
                unchanged.
            UsageError: `into` is not a DuckDB or PostgreSQL table.
        """
        from tacit_gen.runtime.publish import publish_batch

        return publish_batch(cls, batch, into, Inputs(catalog=catalog, now=now,
                                                      sessions=sessions, refs=refs,
                                                      outages=outages))


def _derived(cls: type[Schema], specs: tuple[ColumnSpec, ...]) -> list[Clause]:
    out: list[Clause] = []
    for s in specs:
        out.append(
            Clause(
                id=f"column:{s.name}",
                kind="column",
                columns=(s.name,),
                params=make_params(
                    column=s.name, type=str(s.type), unit=s.column.unit,
                    dimension=s.column.dimension,
                ),
                text=s.column.text or f"{s.name}: {s.type}",
                line=s.column.line,
            )
        )
    if cls.__strict__:
        names = tuple(s.name for s in specs)
        out.append(
            Clause(
                id="no_unknown_columns",
                kind="no_unknown_columns",
                columns=names,
                params=make_params(columns=names),
                text="columns: " + ", ".join(names),
            )
        )
    for s in specs:
        if not s.column.nullable:
            out.append(
                Clause(f"not_null:{s.name}", "not_null", (s.name,), make_params(column=s.name),
                       s.column.text or f"{s.name}: nullable: false", s.column.line)
            )
    for s in specs:
        if s.type.kind == "enum":
            out.append(
                Clause(f"accepted_values:{s.name}", "accepted_values", (s.name,),
                       make_params(column=s.name, values=s.type.values), f"{s.name}: {s.type}")
            )
    return out


def _merge(cls: type[Schema], specs: tuple[ColumnSpec, ...]) -> tuple[Clause, ...]:
    """Derived clauses, overridden (text, line) by explicit ``__clauses__`` of the same id.

    An explicit `column:` or `no_unknown_columns` clause must agree with the annotations: the
    annotations are what `cast()` checks, so a contradiction is a definition error. A
    ``no_unknown_columns`` one without parameters (``clause(id='no_unknown_columns', text=...,
    line=...)``) gives the text and line only.
    """
    merged: dict[str, Clause] = {c.id: c for c in _derived(cls, specs)}
    explicit = tuple(cls.__dict__.get("__clauses__", ())) or tuple(
        c for k in cls.__mro__[1:] for c in k.__dict__.get("__clauses__", ())
    )
    for c in explicit:
        if not isinstance(c, Clause):
            raise SchemaDefinitionError(f"{cls.__name__}.__clauses__ holds {c!r}, not a Clause")
        have = merged.get(c.id)
        if have is not None and c.kind in ("column", "no_unknown_columns"):
            if c.kind == "column":
                a = {k: have.param(k) for k in ("column", "type", "unit", "dimension")}
                b = {k: c.param(k) for k in ("column", "type", "unit", "dimension")}
                if a != b:
                    raise SchemaDefinitionError(
                        f"{cls.__name__}: clause {c.id!r} says {b} but the annotation says {a}"
                    )
            elif c.params and set(c.param("columns") or ()) != set(have.param("columns") or ()):
                raise SchemaDefinitionError(
                    f"{cls.__name__}: clause 'no_unknown_columns' lists {c.param('columns')} but "
                    f"the annotations declare {have.param('columns')}"
                )
        if have is not None and c.kind == "no_unknown_columns" and not c.params:
            c = replace(have, text=c.text, line=c.line)  # `clause()`: the annotations' columns
        if c.kind != "no_unknown_columns" or cls.__strict__:
            merged[c.id] = c
    return tuple(sorted(merged.values(), key=_kind_rank))

