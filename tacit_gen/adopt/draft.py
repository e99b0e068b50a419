"""A contract being imported: built as data, checked by the real loader, written as canonical text.

Every importer fills a `Draft` and lists what it did as `Item`s (mapped, kept as ``x-*``, not
mapped). `finish` keeps only the invariants the loader accepts (the others move to an ``x-*`` key,
not mapped), waives with a stated reason the lint rules an import cannot satisfy (a measurement
whose unit the source never stated: TG202), and returns text that `tacit-gen lint` accepts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

MAPPED, KEPT, NOT_MAPPED, NOTE = "mapped", "kept", "not_mapped", "note"
VERSION = "1.0.0"


@dataclass(frozen=True)
class Item:
    """One thing of the source and what became of it."""

    status: str  # MAPPED, KEPT (as x-*), NOT_MAPPED (kept as x-* too, but no longer checked), NOTE
    where: str  # model / model.column / schema.property
    what: str  # what the source says (a test, a type, a key)
    to: str  # the clause id, the x-* key, or why it has no home

    def as_json(self) -> dict[str, str]:
        return {"status": self.status, "where": self.where, "what": self.what, "to": self.to}


@dataclass
class Invariant:
    """A candidate invariant and where it came from (reported if the loader rejects it)."""

    text: Any  # the invariant's text (or an entry as the contract writes it)
    where: str
    what: str
    keep_key: str  # the x-* key it is kept under when rejected
    keep_value: Any
    warn: bool = False  # its clause goes in severity.warn (a test with severity: warn)


@dataclass
class Draft:
    """A contract under construction (plain data, canonical key order at `to_data`)."""

    name: str
    source: str  # "dbt" or "odcs": names the x-<source>-* keys
    origin: str  # for the header comment: where it was imported from
    version: str = VERSION
    owner: str | None = None
    description: str | None = None
    key: list[str] = field(default_factory=list)
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    invariants: list[Invariant] = field(default_factory=list)
    time: dict[str, Any] = field(default_factory=dict)
    # revision_policy, provenance_required, catalog, evolution, targets (as written)
    sections: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)

    def item(self, status: str, where: str, what: str, to: str) -> None:
        self.items.append(Item(status, where, what, to))

    def keep(self, holder: dict[str, Any], key: str, value: Any) -> None:
        """Append `value` under the x-* `key` of `holder` (a field, or the top-level meta)."""
        existing = holder.get(key)
        if existing is None:
            holder[key] = value if not isinstance(value, list) else list(value)
        elif isinstance(existing, list):
            existing.extend(value if isinstance(value, list) else [value])
        else:
            holder[key] = [existing, value]

    def to_data(self, invariants: list[str]) -> dict[str, Any]:
        data: dict[str, Any] = {"contract": self.name, "version": self.version}
        if self.owner:
            data["owner"] = self.owner
        if self.description:
            data["description"] = self.description
        if self.key:
            data["key"] = list(self.key)
        if self.time:
            data["time"] = dict(self.time)
        data["fields"] = {n: _ordered(spec) for n, spec in self.fields.items()}
        if invariants:
            data["invariants"] = list(invariants)
        from tacit_gen.contract.loader import TOP_KEYS

        for k in TOP_KEYS:  # the other sections, in the language's order
            if k in self.sections and k not in data:
                data[k] = self.sections[k]
        for k in sorted(self.meta):
            data[k] = self.meta[k]
        return data


def _ordered(spec: dict[str, Any]) -> dict[str, Any]:
    """A field's keys in the language's order, x-* keys last (sorted)."""
    from tacit_gen.contract.loader import FIELD_KEYS

    known = [k for k in FIELD_KEYS if k in spec]
    return {k: spec[k] for k in [*known, *sorted(k for k in spec if k not in FIELD_KEYS)]}


def _plain(value: Any) -> Any:
    """JSON-safe plain data (dates and other scalars as text), so the YAML is plain too."""
    return json.loads(json.dumps(value, default=str))


def dump(data: dict[str, Any], header: str) -> str:
    """Canonical contract text (as `tacit-gen fmt` writes it) under a comment header."""
    from tacit_gen.fmt import format_text

    body = yaml.safe_dump(_plain(data), sort_keys=False, allow_unicode=True, width=1_000_000,
                          default_flow_style=False)
    lines = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return format_text(lines + body, "<import>")


def _errors(text: str, path: str) -> list[Any]:
    from tacit_gen.contract.loader import load_report

    _, diags = load_report(path, text)
    return [d for d in diags if d.severity == "error"]


class ImportFailed(Exception):
    """The draft does not load even without its invariants (an importer bug or a name no target
    can use); the message holds the loader's diagnostics."""


def _waive(draft: Draft, errors: list[Any], text: str) -> bool:
    """Waive field-level lint errors (TG2xx) with the loader's own message as the reason."""
    changed = False
    lines = text.splitlines()
    for d in errors:
        if not d.code.startswith("TG2"):
            continue
        # the field whose entry holds the line of the diagnostic
        name = _field_at(lines, d.line, draft.fields)
        if name is None:
            continue
        spec = draft.fields[name]
        waiver = spec.setdefault("lint", {"allow": [], "reason": ""})
        if d.code in waiver["allow"]:
            continue
        waiver["allow"].append(d.code)
        why = f"{d.code}: {d.message}"
        waiver["reason"] = (f"imported from {draft.source} as it was: " + why
                            if not waiver["reason"] else waiver["reason"] + "; " + why)
        draft.item(NOTE, f"{draft.name}.{name}", f"lint {d.code}",
                   f"waived with the reason stated in the contract: {d.message}")
        changed = True
    return changed


def _field_at(lines: list[str], line: int, fields: dict[str, Any]) -> str | None:
    """The field whose block holds `line` (1-based) of the canonical text."""
    for i in range(min(line, len(lines)) - 1, -1, -1):
        text = lines[i]
        stripped = text.strip()
        if text.startswith("  ") and not text.startswith("   ") and stripped.endswith(":"):
            name = stripped[:-1].strip("'\"")
            if name in fields:
                return name
        if not text.startswith(" ") and stripped and not stripped.startswith("#"):
            return None
    return None


def finish(draft: Draft) -> str:
    """The contract's canonical text, loadable and lint-clean (see the module docstring).

    Raises:
        ImportFailed: the draft does not load even without invariants.
    """
    header = (f"Imported by tacit-gen from {draft.origin}.\n"
              "Review it: what had no home in the contract is under x-* keys.")
    path = f"{draft.name}.yaml"
    base = draft.to_data([])
    errs = _errors(dump(base, header), path)
    if any(not e.code.startswith("TG2") for e in errs):
        raise ImportFailed("; ".join(f"{e.line}:{e.col}: {e.message} [{e.code}]" for e in errs))
    _waive_all(draft, [], header, path)  # first: the trials below then load without lint errors
    accepted: list[Any] = []
    warned: list[str] = []
    for inv in draft.invariants:
        trial = draft.to_data([*accepted, inv.text])
        bad = [e for e in _errors(dump(trial, header), path) if not e.code.startswith("TG2")]
        if bad:
            why = "; ".join(e.message for e in bad)
            holder = draft.meta
            draft.keep(holder, inv.keep_key, [inv.keep_value])
            draft.item(NOT_MAPPED, inv.where, inv.what,
                       f"kept as SQL under {inv.keep_key}: not an invariant of the contract ({why})")
            continue
        if inv.text not in accepted:
            accepted.append(inv.text)
        cid = _invariant_id(draft, accepted, inv.text, header)
        draft.item(MAPPED, inv.where, inv.what, cid + (" (severity: warn)" if inv.warn else ""))
        if inv.warn:
            warned.append(cid)
    if warned:
        severity = draft.sections.setdefault("severity", {"warn": []})
        severity["warn"] = [*severity["warn"], *(w for w in warned if w not in severity["warn"])]
    _waive_all(draft, accepted, header, path)
    text = dump(draft.to_data(accepted), header)
    errs = _errors(text, path)
    if errs:
        raise ImportFailed("; ".join(f"{e.line}:{e.col}: {e.message} [{e.code}]" for e in errs))
    return text


def _waive_all(draft: Draft, accepted: list[Any], header: str, path: str) -> None:
    for _ in range(3):  # waivers can only remove errors; each round handles what is left
        text = dump(draft.to_data(accepted), header)
        errs = _errors(text, path)
        if not errs or not _waive(draft, errs, text):
            break


def _invariant_id(draft: Draft, accepted: list[str], text: str, header: str) -> str:
    """The clause id the plan gives the invariant (`range:c` when it bounds one column)."""
    from tacit_gen.contract.loader import load_report
    from tacit_gen.plan import plan

    contract, _ = load_report(f"{draft.name}.yaml", dump(draft.to_data(accepted), header))
    if contract is None:
        return f"invariant:{text}"
    for clause in plan(contract):
        if clause.kind in ("range", "invariant") and clause.text == text:
            return clause.id
    return f"invariant:{text}"


def choose_key(d: Draft, candidates: list[tuple[tuple[str, ...], str, Any]], *,
               present: Callable[[str], bool], never_null: Callable[[str], bool],
               where: Callable[[str | None], str],
               unmapped: Callable[[str | None, Any, str, str], None],
               nullable_hint: str = "") -> tuple[str, ...] | None:
    """Make the first candidate whose columns are all in the contract and never null the key.

    Every candidate is reported: the chosen one (and any repeat of it) as mapped, the others as
    not mapped with why (a column missing, one that may be null, or the contract has one key).

    Args:
        d: the draft; its `key` is set.
        candidates: (columns, what the source says, the source entry) in the source's order.
        present: whether a column is in the contract.
        never_null: whether a column is known never to be null.
        where: the report location of a column (None: the model or schema).
        unmapped: the importer's report of a candidate that did not become the key.
        nullable_hint: appended to the "may be null" reason (how to fix it in the source).

    Returns:
        The chosen key's columns, or None.
    """
    chosen: tuple[str, ...] | None = None
    for cols, what, entry in candidates:
        at = where(cols[0] if len(cols) == 1 else None)
        missing = [c for c in cols if not present(c)]
        nullable = [c for c in cols if not never_null(c)]
        if chosen is None and not missing and not nullable:
            chosen = cols
            d.key = list(cols)
            d.item(MAPPED, at, what, "key: unique:" + ",".join(cols))
        elif chosen == cols:
            d.item(MAPPED, at, what, "key: unique:" + ",".join(cols))
        elif missing:
            unmapped(None, entry, what, f"{', '.join(missing)} not in the contract")
        elif nullable:
            unmapped(None, entry, what, f"{', '.join(nullable)} may be null and a key column is "
                     "never null" + nullable_hint)
        else:
            unmapped(None, entry, what, "the contract has one key: " + ",".join(chosen or ()))
    return chosen
