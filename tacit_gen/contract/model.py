"""The typed, immutable model of one contract file. Nothing downstream reads raw YAML."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tacit_gen.contract.types import DataType


@dataclass(frozen=True)
class Pos:
    """A 1-based line and column in a contract file."""

    line: int
    col: int


NO_POS = Pos(0, 0)

YamlPath = tuple[str, ...]


@dataclass(frozen=True)
class Positions:
    """Where each YAML path of a contract file is written: ``("fields", "price", "unit")`` -> the
    position of its key (and of its value). List items are numbered (``("invariants", "0")``).

    Built once by the loader, so lint, diff and errors never parse the source again.
    """

    entries: tuple[tuple[YamlPath, Pos, Pos], ...] = ()  # (path, key position, value position)

    @cached_property
    def _index(self) -> dict[YamlPath, tuple[Pos, Pos]]:
        return {path: (k, v) for path, k, v in self.entries}

    def key(self, *path: str) -> Pos | None:
        """The position of the key ending `path` (of the item, for a list item)."""
        found = self._index.get(path)
        return found[0] if found else None

    def value(self, *path: str) -> Pos | None:
        """The position of the value at `path`."""
        found = self._index.get(path)
        return found[1] if found else None

    def line(self, *path: str) -> int | None:
        """The line of the key ending `path`, None when the file does not write it."""
        found = self.key(*path)
        return found.line if found else None


@dataclass(frozen=True)
class Duration:
    """A duration such as ``60s``, ``15m``, ``2 days`` or ``5 trading days``."""

    text: str
    seconds: int  # exact seconds; for business days, days * 86400
    business_days: int | None = None
    trading: bool = False  # written `trading days` (sessions of time.calendar when there is one)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Field:
    """One column of the contract."""

    name: str
    type: DataType
    nullable: bool
    unit: str | None = None  # declared unit text; None for dimensionless / non-numeric
    unit_from_catalog: bool = False  # `unit: per series from catalog`
    dimension: str | None = None  # declared dimension text, e.g. "pressure", or "per series"
    has_value: bool = False
    value: Any = None  # fixed value (python bool/int/str or Decimal)
    note: str | None = None
    description: str | None = None
    constraint: str | None = None  # an invariant with the subject left out
    aliases: tuple[str, ...] = ()
    pattern: str | None = None  # `pattern:` as written (string fields; tacit_gen.sql.pattern)
    plausible: str | None = None  # `plausible: catalog`: soft bounds per series, a warning only
    references: tuple[str, str] | None = None  # `references: rel.col`: (relation, column), a foreign key
    lint_allow: tuple[str, ...] = ()  # lint rules waived on this field (`lint: {allow: [...]}`)
    lint_reason: str | None = None  # why (required with a waiver)
    implied: bool = False  # implied by provenance_required
    meta: tuple[tuple[str, Any], ...] = ()  # x-* keys
    pos: Pos = field(default=NO_POS, compare=False)
    text: str = field(default="", compare=False)  # verbatim source of the field entry
    type_pos: Pos = field(default=NO_POS, compare=False)  # first character of the type text


@dataclass(frozen=True)
class Cadence:
    """Expected spacing of points per series."""

    interval: Duration | None  # None when per series from catalog
    from_catalog: bool = False
    tolerance_pct: str = "0"  # decimal text
    gaps_allowed: bool = False
    note: str | None = None
    text: str = ""
    # `within session` / `no bars outside session` ("within") or `1 trading day` ("trading_day"):
    # the sessions of time.calendar govern the steps; None: plain steps. The words stay in `note`
    # (without a calendar they are only a note).
    sessions: str | None = None

    def unchecked_note(self, with_calendar: bool) -> str | None:
        """The note, less the session words a calendar makes operative."""
        if not with_calendar or self.note is None:
            return self.note
        words = re.compile(r"^(within\s+sessions?|no\s+bars\s+outside\s+sessions?)$", re.I)
        rest = [p for p in self.note.split("; ") if not words.match(p.strip())]
        return "; ".join(rest) or None


@dataclass(frozen=True)
class Completeness:
    """Expected readings per series per window (`time.completeness`): `1440 per 1d per series;
    at least 95%; gaps allowed for maintenance, market_halt` (tacit_gen.contract.completeness)."""

    expected: int  # readings expected per series per window
    window: Duration | None  # a UTC-aligned window dividing a day; None for `per session`
    min_pct: str = "100"  # decimal text: the share of `expected` a window must hold
    allowed_gaps: tuple[str, ...] = ()  # outage types that excuse missing readings
    text: str = ""


@dataclass(frozen=True)
class TimeSpec:
    """The `time:` section."""

    column: str
    precision: str | None = None  # s, ms, us, ns
    timezone: str = "UTC instant"
    timezone_note: str | None = None
    cadence: Cadence | None = None
    freshness: Duration | None = None
    ingest_column: str | None = None
    calendar: str | None = None  # an exchange_calendars code (`time.calendar: XNYS`)
    calendar_from_catalog: bool = False  # `calendar: per series from catalog`
    completeness: Completeness | None = None
    pos: Pos = field(default=NO_POS, compare=False)
    lines: tuple[tuple[str, int], ...] = field(default=(), compare=False)  # key -> line
    texts: tuple[tuple[str, str], ...] = field(default=(), compare=False)  # key -> verbatim


@dataclass(frozen=True)
class RevisionPolicy:
    """The `revision_policy:` section."""

    allowed: bool
    window: Duration | None = None
    reasons: tuple[str, ...] = ()
    notification: str | None = None
    by: tuple[str, ...] = ()  # who may restate: values of `by_column` allowed on rows with revision > 0
    by_column: str | None = None  # the column naming the restater (`revised_by`, else `source_id`)
    note: str | None = None
    pos: Pos = field(default=NO_POS, compare=False)
    text: str = field(default="", compare=False)


@dataclass(frozen=True)
class Catalog:
    """The `catalog:` section: a relation holding per-series metadata, and its column names."""

    relation: str
    key: str
    unit: str = "unit"
    hard_min: str = "hard_min"
    hard_max: str = "hard_max"
    cadence: str = "cadence_seconds"
    declared: bool = True  # False when defaults were assumed
    pos: Pos = field(default=NO_POS, compare=False)
    calendar: str = "calendar"  # the column naming each series' exchange calendar
    plausible_min: str = "plausible_min"  # soft bounds per series (`tacit-gen profile` writes them)
    plausible_max: str = "plausible_max"


@dataclass(frozen=True)
class Calendar:
    """The `calendar:` section: the sessions relation (`tacit-gen calendar` writes it) and its
    column names."""

    relation: str = "trading_sessions"
    calendar: str = "calendar"  # the calendar's code (XNYS)
    session: str = "session"  # the session date
    open: str = "open"  # the open, a UTC instant
    close: str = "close"  # the close, a UTC instant
    declared: bool = True  # False when defaults were assumed
    pos: Pos = field(default=NO_POS, compare=False)


@dataclass(frozen=True)
class Invariant:
    """One entry of `invariants:` (or a field's `constraint:`), verbatim, with its position."""

    text: str
    pos: Pos = field(compare=False)  # position of the first character of `text`
    source: str = "invariants"  # or "fields.<name>.constraint"
    prefix: int = field(default=0, compare=False)  # chars of `text` not in the file (the subject)


@dataclass(frozen=True)
class Evolution:
    """The `evolution:` section."""

    compatibility: str = "BACKWARD"
    notice_period: Duration | None = None
    reserved: tuple[str, ...] = ()


@dataclass(frozen=True)
class Contract:
    """One validated contract."""

    name: str
    version: str
    owner: str | None
    description: str | None
    key: tuple[str, ...]
    time: TimeSpec | None
    fields: tuple[Field, ...]
    invariants: tuple[Invariant, ...]
    revision_policy: RevisionPolicy | None
    provenance_required: tuple[str, ...]
    catalog: Catalog | None
    evolution: Evolution
    targets: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    meta: tuple[tuple[str, Any], ...]
    calendar: Calendar | None = None  # the `calendar:` section (the sessions relation)
    # `severity: {warn: [<clause id>, ...]}`: (clause id, level), in file order
    severity: tuple[tuple[str, str], ...] = ()
    path: str = field(default="", compare=False)
    source: str = field(default="", compare=False)
    canonical_hash: str = field(default="", compare=False)
    key_pos: Pos = field(default=NO_POS, compare=False)
    key_text: str = field(default="", compare=False)
    provenance_pos: Pos = field(default=NO_POS, compare=False)
    provenance_text: str = field(default="", compare=False)
    version_pos: Pos = field(default=NO_POS, compare=False)
    positions: Positions = field(default_factory=Positions, compare=False)
    severity_pos: tuple[tuple[str, Pos], ...] = field(default=(), compare=False)  # id -> where
    source_system: str | None = None  # identity `source:` (the system the series come from)

    def severity_of(self, clause_id: str) -> str:
        """``warn`` when the contract lists the clause under `severity.warn`, else ``error``."""
        return next((level for cid, level in self.severity if cid == clause_id), "error")

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def series_key(self) -> tuple[str, ...]:
        """The key minus the time column and `revision`."""
        tcol = self.time.column if self.time else None
        return tuple(k for k in self.key if k != tcol and k != "revision")

    def target_option(self, target: str, key: str, default: Any = None) -> Any:
        for t, opts in self.targets:
            if t == target:
                for k, v in opts:
                    if k == key:
                        return v
        return default
