"""What a contract's catalog page says, gathered from the model, the plan, the targets and git.

Everything here is plain data (strings, tuples); `pages` turns it into HTML. Which targets
enforce a clause comes from `explain.support_matrix`, the table `explain --targets` prints, so
the catalog and `explain` never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tacit_gen.contract.loader import portable_path
from tacit_gen.contract.model import Contract, Field
from tacit_gen.plan import plan, unenforced
from tacit_gen.targets.base import RenderOptions


@dataclass(frozen=True)
class FieldDoc:
    """One row of the fields table."""

    name: str
    type: str
    nullable: bool
    unit: str
    dimension: str  # as declared
    dimensionality: str  # pint's, from the unit ("" when none)
    value: str
    description: str
    note: str
    constraint: str
    aliases: tuple[str, ...]
    implied: bool
    meta: tuple[tuple[str, str], ...]

    @property
    def extras(self) -> tuple[tuple[str, str], ...]:
        """What the description column adds after the description: (label, text)."""
        rows = [("fixed value", self.value), ("constraint", self.constraint), ("note", self.note),
                ("formerly", ", ".join(self.aliases)), *self.meta]
        return tuple((k, v) for k, v in rows if v)


@dataclass(frozen=True)
class ClauseDoc:
    """One clause: id, verbatim text, and which targets enforce it (or why not)."""

    anchor: str
    id: str
    kind: str
    columns: tuple[str, ...]
    line: int
    text: str
    severity: str
    enforced_by: tuple[str, ...]
    not_by: tuple[tuple[str, str], ...]  # (target, why)


@dataclass(frozen=True)
class ChangeDoc:
    cls: str
    bump: str
    path: str
    code: str
    message: str
    action: str


@dataclass(frozen=True)
class VersionDoc:
    """One version of the contract in its history, with `diff`'s classification of the change
    from the version before it."""

    version: str
    commit: str  # "" for the working tree
    date: str  # from git ("" for the working tree)
    cls: str  # "" for the first version
    least_bump: str
    declared_bump: str
    changes: tuple[ChangeDoc, ...]
    problems: tuple[str, ...]


@dataclass(frozen=True)
class ContractDoc:
    """Everything one contract page shows."""

    name: str
    version: str
    owner: str
    description: str
    path: str
    canonical_hash: str
    sections: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (title, (label, value)...)
    fields: tuple[FieldDoc, ...]
    clauses: tuple[ClauseDoc, ...]
    targets: tuple[str, ...]
    unchecked: tuple[tuple[int, str, str], ...]  # (line, text, why)
    waivers: tuple[tuple[str, str, str], ...]  # (field, rules, reason)
    history: tuple[VersionDoc, ...]  # newest first
    history_note: str
    meta: tuple[tuple[str, str], ...]

    @property
    def page(self) -> str:
        return f"contracts/{self.name}.html"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in value.items())
    return str(value)


def _dimensionality(f: Field) -> str:
    if f.unit_from_catalog:
        return "per series (catalog)"
    if not f.unit:
        return ""
    from tacit_gen.contract import units

    try:
        return str(units.resolve(f.unit).dimensionality)
    except Exception:  # a unit pint does not know: lint reports it; the page shows the text
        return ""


def _field(f: Field) -> FieldDoc:
    return FieldDoc(
        name=f.name, type=str(f.type), nullable=f.nullable,
        unit="per series from catalog" if f.unit_from_catalog else (f.unit or ""),
        dimension=f.dimension or "", dimensionality=_dimensionality(f),
        value=_text(f.value) if f.has_value else "", description=f.description or "",
        note=f.note or "", constraint=f.constraint or "", aliases=f.aliases, implied=f.implied,
        meta=tuple((k, _text(v)) for k, v in f.meta))


def _sections(c: Contract) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    out.append(("Identity", tuple((k, v) for k, v in (
        ("source", c.source_system or ""),
        ("key", ", ".join(c.key)), ("series key", ", ".join(c.series_key)),
        ("provenance required", ", ".join(c.provenance_required))) if v)))
    t = c.time
    if t is not None:
        rows = [("column", t.column), ("precision", t.precision or ""),
                ("timezone", t.timezone + (f"; {t.timezone_note}" if t.timezone_note else "")),
                ("cadence", t.cadence.text if t.cadence else ""),
                ("freshness", str(t.freshness) if t.freshness else ""),
                ("ingest column", t.ingest_column or ""),
                ("calendar", "per series from catalog" if t.calendar_from_catalog else t.calendar or "")]
        out.append(("Time", tuple((k, v) for k, v in rows if v)))
    if c.catalog is not None:
        k = c.catalog
        out.append(("Catalog", (("relation", k.relation), ("key", k.key), ("unit", k.unit),
                                ("hard_min", k.hard_min), ("hard_max", k.hard_max),
                                ("cadence", k.cadence), ("calendar", k.calendar))))
    cal = c.calendar
    if cal is not None:
        out.append(("Calendar (sessions)", (
            ("relation", cal.relation), ("calendar", cal.calendar), ("session", cal.session),
            ("open", cal.open), ("close", cal.close))))
    rp = c.revision_policy
    if rp is not None:
        rows = [("allowed", _text(rp.allowed)), ("window", str(rp.window) if rp.window else ""),
                ("reasons", ", ".join(rp.reasons)), ("notification", rp.notification or ""),
                ("by", ", ".join(rp.by)), ("note", rp.note or "")]
        out.append(("Revision policy", tuple((k, v) for k, v in rows if v)))
    e = c.evolution
    rows = [("compatibility", e.compatibility),
            ("notice period", str(e.notice_period) if e.notice_period else ""),
            ("reserved", ", ".join(e.reserved))]
    out.append(("Evolution", tuple((k, v) for k, v in rows if v)))
    return tuple((title, rows_) for title, rows_ in out if rows_)


def _history(c: Contract, path: Path) -> tuple[tuple[VersionDoc, ...], str]:
    from tacit_gen.evolution.diff import diff
    from tacit_gen.evolution.history import HistoryError, committed_versions

    skipped: list[str] = []
    try:
        committed = committed_versions(path, skipped)
    except HistoryError as e:
        return (), f"no history: {e}"
    entries: list[tuple[str, str, Contract]] = [(v.commit, v.date, v.contract) for v in committed]
    if not entries or entries[-1][2].canonical_hash != c.canonical_hash:
        entries.append(("", "", c))  # the working tree differs from the last commit
    docs: list[VersionDoc] = []
    prev: Contract | None = None
    for commit, date, cur in entries:
        if prev is None:
            docs.append(VersionDoc(cur.version, commit, date, "", "", "", (), ()))
        else:
            report = diff(prev, cur)
            docs.append(VersionDoc(
                cur.version, commit, date, report.cls, report.least_bump, report.declared_bump,
                tuple(ChangeDoc(ch.cls, ch.bump, ch.path, ch.code, ch.message, ch.action)
                      for ch in report.changes),
                report.problems))
        prev = cur
    note = "; ".join(f"left out (does not load): {s}" for s in skipped)
    return tuple(reversed(docs)), note


def contract_doc(contract: Contract, path: Path, options: RenderOptions | None = None) -> ContractDoc:
    """The catalog page data of one contract (`path`: its file, for the git history)."""
    from tacit_gen.explain import support_matrix
    from tacit_gen.render import target_enabled

    clauses = plan(contract)
    matrix = support_matrix(contract, clauses, options)
    targets = tuple(str(t) for t in matrix["targets"])
    rows = {r["id"]: r for r in matrix["clauses"]}
    docs = []
    for i, cl in enumerate(clauses, 1):
        row = rows[cl.id]
        by, not_by = [], []
        for t in targets:
            if not target_enabled(contract, t):
                not_by.append((t, f"disabled by the contract (targets.{t}.enabled: false)"))
            elif row[t] == "yes":
                by.append(t)
            else:
                not_by.append((t, str(row[t]).removeprefix("unsupported: ")))
        docs.append(ClauseDoc(f"clause-{i}", cl.id, cl.kind, cl.columns, cl.line, cl.text,
                              cl.severity,
                              tuple(by), tuple(not_by)))
    history, note = _history(contract, path)
    return ContractDoc(
        name=contract.name, version=contract.version, owner=contract.owner or "",
        description=contract.description or "", path=portable_path(path),
        canonical_hash=contract.canonical_hash, sections=_sections(contract),
        fields=tuple(_field(f) for f in contract.fields), clauses=tuple(docs), targets=targets,
        unchecked=tuple((line, text, why) for line, text, why in unenforced(contract)),
        waivers=tuple((f.name, ", ".join(f.lint_allow), f.lint_reason or "")
                      for f in contract.fields if f.lint_allow),
        history=history, history_note=note,
        meta=tuple((k, _text(v)) for k, v in contract.meta))
