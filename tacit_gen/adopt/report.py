"""What an import did: the contracts it wrote and, per source element, mapped / kept as x-* /
not mapped; the exit code follows (0 all mapped, 1 something not mapped)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tacit_gen.adopt.draft import KEPT, MAPPED, NOT_MAPPED, NOTE, Draft, ImportFailed, Item, finish


@dataclass
class Written:
    """One contract of an import: where it goes, its text, what became of its source."""

    name: str
    path: str
    items: list[Item]
    untyped: list[str] = field(default_factory=list)
    text: str | None = None  # None: not written (why is in `items`)
    status: str = "written"  # written, unchanged, exists, not written


@dataclass
class ImportReport:
    """Every contract of one import run."""

    source: str
    contracts: list[Written] = field(default_factory=list)

    @property
    def items(self) -> list[Item]:
        return [i for c in self.contracts for i in c.items]

    @property
    def exit_code(self) -> int:
        return 1 if any(i.status == NOT_MAPPED for i in self.items) or any(
            c.status in ("not written", "exists") for c in self.contracts) else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ok": self.exit_code == 0,
            "contracts": [
                {"name": c.name, "path": c.path, "status": c.status, "untyped": c.untyped,
                 "items": [i.as_json() for i in c.items]}
                for c in self.contracts
            ],
            "summary": self.counts(),
        }

    def counts(self) -> dict[str, int]:
        return {s: sum(i.status == s for i in self.items) for s in (MAPPED, KEPT, NOT_MAPPED)}

    def text(self) -> str:
        lines: list[str] = []
        titles = {MAPPED: "mapped", KEPT: "kept as x-*", NOT_MAPPED: "not mapped", NOTE: "note"}
        for c in self.contracts:
            lines.append(f"{c.path}: {c.status}")
            for status in (NOT_MAPPED, KEPT, NOTE, MAPPED):
                for i in c.items:
                    if i.status == status:
                        lines.append(f"  {titles[status]:<12} {i.where}: {i.what} -> {i.to}")
            if c.untyped:
                lines.append(f"  untyped columns (no type anywhere; not guessed): "
                             f"{', '.join(c.untyped)}")
        n = self.counts()
        lines.append(f"{len(self.contracts)} contract(s): {n[MAPPED]} mapped, {n[KEPT]} kept as "
                     f"x-*, {n[NOT_MAPPED]} not mapped")
        return "\n".join(lines)


def complete(draft: Draft, untyped: list[str], out: Path) -> Written:
    """The draft's canonical text (or why there is none), destined for `out/<name>.yaml`."""
    path = out / f"{draft.name}.yaml"
    if not draft.fields:
        draft.item(NOT_MAPPED, draft.name, "model",
                   "nothing written: no column with a type (a contract needs one)")
        return Written(draft.name, path.as_posix(), draft.items, untyped, None, "not written")
    try:
        text = finish(draft)
    except ImportFailed as e:
        draft.item(NOT_MAPPED, draft.name, "contract", f"nothing written: it does not load: {e}")
        return Written(draft.name, path.as_posix(), draft.items, untyped, None, "not written")
    return Written(draft.name, path.as_posix(), draft.items, untyped, text)


def write(report: ImportReport, force: bool) -> None:
    """Write each contract atomically; an existing different file is left alone unless `force`."""
    from tacit_gen.render import write_atomic

    seen: set[str] = set()
    for c in report.contracts:
        if c.text is None:
            continue
        p = Path(c.path)
        if c.path in seen:
            c.status, c.text = "not written", None
            c.items.append(Item(NOT_MAPPED, c.name, "contract",
                                "another model of this import has the same name"))
            continue
        seen.add(c.path)
        if p.exists():
            current = p.read_text(encoding="utf-8", errors="replace")
            if current == c.text:
                c.status = "unchanged"
                continue
            if not force:
                c.status = "exists"
                c.items.append(Item(NOTE, c.name, "contract",
                                    f"{c.path} exists and differs: not overwritten (--force)"))
                continue
        write_atomic(p, c.text)
