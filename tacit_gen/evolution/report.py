"""What `diff` returns: one `Change` per difference and the `DiffReport` that judges the bump."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tacit_gen.evolution.rules import (
    BREAKING,
    BUMP_RANK,
    CLASSES,
    COMPATIBLE,
    NOTICE,
    RULES,
    max_bump,
    worst_class,
)
from tacit_gen.evolution.semver import least_version


@dataclass(frozen=True)
class Change:
    """One classified difference between two versions of a contract.

    Attributes:
        code: stable change code, a key of `rules.RULES` (``field.unit_changed``).
        cls: compatible, compatible-with-notice or breaking.
        bump: the least version bump this change needs (patch, minor, major).
        path: where in the contract, dotted (``fields.pressure.unit``, ``invariants[2]``).
        message: what changed, in words, naming old and new values.
        action: what the seed's table requires (changelog entry, notice period, new field name,
            new dataset), with concrete names filled in.
        old_line / new_line: 1-based line in the old / new file; None when the thing does not
            exist in that version, 0 when it exists without a position of its own.
    """

    code: str
    cls: str
    bump: str
    path: str
    message: str
    action: str
    old_line: int | None
    new_line: int | None

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "class": self.cls,
            "bump": self.bump,
            "path": self.path,
            "message": self.message,
            "action": self.action,
            "old_line": self.old_line,
            "new_line": self.new_line,
        }


def make_change(code: str, path: str, message: str, old_line: int | None, new_line: int | None,
                *, notice: str = "a notice period", action: str | None = None) -> Change:
    """A change classified by its code's rule; `action` overrides the rule's generic text."""
    rule = RULES[code]
    text = action if action is not None else rule.action
    return Change(code, rule.cls, rule.bump, path, message, text.replace("{notice}", notice),
                  old_line, new_line)


@dataclass(frozen=True)
class DiffReport:
    """Every change between two versions, the least bump they need and the bump declared."""

    contract: str
    old_version: str
    new_version: str
    old_path: str
    new_path: str
    changes: tuple[Change, ...]
    declared_bump: str  # major, minor, patch, prerelease, none, backwards

    @property
    def cls(self) -> str:
        """The most severe class of all changes ("none" when nothing changed)."""
        return worst_class([c.cls for c in self.changes])

    @property
    def least_bump(self) -> str:
        """The least version bump the changes need: major, minor, patch or none."""
        return max_bump([c.bump for c in self.changes])

    @property
    def suggested_version(self) -> str:
        return least_version(self.old_version, self.least_bump)

    @property
    def sufficient(self) -> bool:
        """Whether the declared bump covers the least bump."""
        d = self.declared_bump
        if d == "backwards":
            return False
        if d == "prerelease":
            return True
        return BUMP_RANK[d] >= BUMP_RANK[self.least_bump]

    @property
    def problems(self) -> tuple[str, ...]:
        """Why the report is not ok, in words (empty when ok)."""
        out = []
        if self.declared_bump == "backwards":
            out.append(f"the version went backwards: {self.old_version} -> {self.new_version}")
        elif self.declared_bump == "none" and self.changes:
            out.append(f"the version stayed {self.new_version} but the contract changed; "
                       f"declare at least {self.suggested_version}")
        elif not self.sufficient:
            out.append(f"the declared bump ({self.declared_bump}) is smaller than the least bump "
                       f"({self.least_bump}); declare at least {self.suggested_version}")
        return tuple(out)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "old_path": self.old_path,
            "new_path": self.new_path,
            "old_version": self.old_version,
            "new_version": self.new_version,
            "class": self.cls,
            "least_bump": self.least_bump,
            "declared_bump": self.declared_bump,
            "sufficient": self.sufficient,
            "suggested_version": self.suggested_version,
            "ok": self.ok,
            "problems": list(self.problems),
            "changes": [c.as_json() for c in self.changes],
        }

    def render_text(self) -> str:
        """A human report: one block per change, then the verdict."""
        lines = [f"{self.contract}: {self.old_version} -> {self.new_version} "
                 f"({self.old_path} -> {self.new_path})"]
        if not self.changes:
            lines.append("  no changes")
        for c in self.changes:
            where = f"line {_ln(c.old_line)} -> {_ln(c.new_line)}"
            lines.append(f"  {c.cls:<22} {c.bump:<5} {c.path}  [{c.code}]  {where}")
            lines.append(f"      {c.message}")
            lines.append(f"      action: {c.action}")
        verdict = "ok" if self.ok else "NOT OK: " + "; ".join(self.problems)
        lines.append(f"class: {self.cls}; least bump: {self.least_bump}; "
                     f"declared: {self.declared_bump}: {verdict}")
        return "\n".join(lines)


def _ln(line: int | None) -> str:
    return "-" if line is None else str(line)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<|])")
_QUOTED = re.compile(r"'([^'`\n]+)'")


def md_escape(text: str) -> str:
    """Escape Markdown's inline syntax so contract text lands as literal text."""
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def md_text(text: str) -> str:
    """A message as Markdown: 'quoted' names become code spans, the rest is escaped."""
    out, pos = [], 0
    for m in _QUOTED.finditer(text):
        out.append(md_escape(text[pos:m.start()]))
        out.append(f"`{m.group(1)}`")
        pos = m.end()
    out.append(md_escape(text[pos:]))
    return "".join(out)


_HEADINGS = {BREAKING: "Breaking", NOTICE: "Compatible with notice", COMPATIBLE: "Compatible"}


def changelog(report: DiffReport) -> str:
    """A Markdown changelog entry for the new version, grouped by class, most severe first."""
    title = (f"## {md_escape(report.contract)} {md_escape(report.new_version)} "
             f"({report.least_bump if report.changes else 'no changes'})")
    out = [title, ""]
    out.append(f"From {md_escape(report.old_version)}. Least bump: {report.least_bump}; "
               f"declared: {report.declared_bump}.")
    for problem in report.problems:
        out.append("")
        out.append(f"**Version check failed:** {md_escape(problem)}.")
    for cls in reversed(CLASSES):
        group = [c for c in report.changes if c.cls == cls]
        if not group:
            continue
        out += ["", f"### {_HEADINGS[cls]}", ""]
        for c in group:
            out.append(f"- {md_text(c.message)} (`{c.path}`). Action: {md_text(c.action)}.")
    if not report.changes:
        out += ["", "No changes."]
    return "\n".join(out) + "\n"
