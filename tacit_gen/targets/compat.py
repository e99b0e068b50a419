"""How a target's artifact judges two versions of a contract: the wire compatibility a target
declares (`Target.compat`), run by `compat` and `compat --replay` (`tacit_gen.evolution.wire`).

A schema registry (Avro's resolution rules, protobuf's field numbers, a JSON Schema validator)
decides whether records written under one version read under another; the target whose artifact
that registry keeps knows its rules. `evolution` renders nothing itself: it asks each registered
target that declares a `WireCompat` for its schema of every version, then for its findings on
each pair the mode compares, and, under ``--replay``, what stored rows become through its reader.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

Row = dict[str, Any]


@dataclass(frozen=True)
class WireFinding:
    """One reason a registry (or a wire runtime) refuses a pair of versions."""

    registry: str  # the target's name: avro, protobuf, jsonschema
    direction: str  # backward (today reads the earlier version), forward, or replay
    reader_version: str
    writer_version: str
    field: str | None
    message: str
    severity: str = "error"  # "warning": said, does not fail

    def as_json(self) -> dict[str, Any]:
        return {"registry": self.registry, "direction": self.direction,
                "reader_version": self.reader_version, "writer_version": self.writer_version,
                "field": self.field, "message": self.message, "severity": self.severity}

    def render(self) -> str:
        where = f" field '{self.field}'" if self.field else ""
        mark = "warning: " if self.severity == "warning" else ""
        return (f"  {self.registry:<10} {self.direction:<8} {self.reader_version} reading "
                f"{self.writer_version} data{where}: {mark}{self.message}")


@dataclass(frozen=True)
class History:
    """What `evolution` gives a target's compatibility check about the versions it compares.

    Attributes:
        out_dir: the output root (``--out``) holding the state a target keeps there (protobuf's
            field-number lock), or None.
        committed: ``committed(contract, rel)``: the text of ``<out_dir>/<rel>`` as committed with
            that version, when the version was read from git; None otherwise.
        sample: ``sample(contract)``: rows a producer of that version writes (`tacit-gen sample`,
            a fixed seed), as the Python values a warehouse returns.
    """

    out_dir: str | None
    committed: Callable[[Contract, str], str | None]
    sample: Callable[[Contract], list[Row]]


SchemaT = TypeVar("SchemaT")


@dataclass(frozen=True)
class Versioned(Generic[SchemaT]):
    """One version's contract and the target's schema of it."""

    contract: Contract
    schema: SchemaT

    @property
    def version(self) -> str:
        return self.contract.version


@dataclass
class Schemas(Generic[SchemaT]):
    """A target's schema of each version compared, by version, and notes on how they were made."""

    by_version: dict[str, Versioned[SchemaT]]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Replayed:
    """Stored rows of an earlier version through today's reader of one target.

    Attributes:
        decoded: the rows as today's reader returns them (None: this reader decodes nothing the
            runtime reads next); `evolution` gives the first target's decoded rows to the runtime.
        findings: why rows do not read.
    """

    decoded: list[Row] | None
    findings: list[WireFinding]


class WireCompat(Protocol[SchemaT]):
    """A target's wire compatibility: a class subclasses this protocol and the target names one
    object of it in `Target.compat` (``"tacit_gen.targets.avro.compat:COMPAT"``)."""

    def schemas(self, versions: Sequence[Contract], history: History) -> Schemas[SchemaT]:
        """The target's schema of each version (the last is today's)."""
        ...

    def compare(self, reader: Versioned[SchemaT], writer: Versioned[SchemaT], direction: str,
                history: History) -> list[WireFinding]:
        """Why records `writer` wrote do not read under `reader` (empty: they do)."""
        ...

    def replay(self, writer: Versioned[SchemaT], today: Versioned[SchemaT],
               rows: list[Row]) -> Replayed | None:
        """Stored `rows`, typed by `writer`, written with its schema and read with today's; None:
        the target does not replay. Default: None."""
        return None


def aliases(contract: Contract) -> dict[str, str]:
    """Each alias of a field of `contract` -> the field's name (a rename declared)."""
    return {a: f.name for f in contract.fields for a in f.aliases}

