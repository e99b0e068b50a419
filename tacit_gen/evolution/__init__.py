"""Contract evolution: classify changes, enforce the version bump, compatibility modes over history.

Public API (the CLI calls these):

- `diff(old, new) -> DiffReport`: every change between two versions, classified per seed 001's
  evolution table, with the least version bump and whether the declared bump suffices.
- `changelog(report) -> str`: a Markdown changelog entry.
- `compat(history, mode) -> CompatReport`: BACKWARD / FORWARD / FULL (+ ``_TRANSITIVE``).
- `history_from_git(path)`, `history_from_dir(folder)`: earlier versions, oldest first.
- `check_bump(path, base_rev="HEAD") -> DiffReport | None`: the CI version gate.
- `resolve_base(start, base=None) -> Base`: the revision the gate compares with (CI-aware).

See docs/evolution.md for the rules as the tool applies them.
"""

from __future__ import annotations

from tacit_gen.evolution.compat import MODES, CompatReport, Incompatibility, can_read, compat
from tacit_gen.evolution.diff import diff, suggest_field_name
from tacit_gen.evolution.history import (
    Base,
    BaseError,
    HistoryError,
    HistoryWarning,
    check_bump,
    history_from_dir,
    history_from_git,
    read_at_revision,
    resolve_base,
)
from tacit_gen.evolution.replay import ReplayReport, replay
from tacit_gen.evolution.report import Change, DiffReport, changelog
from tacit_gen.evolution.rules import BREAKING, COMPATIBLE, NOTICE, RULES

__all__ = [
    "BREAKING",
    "COMPATIBLE",
    "MODES",
    "NOTICE",
    "RULES",
    "Base",
    "BaseError",
    "Change",
    "CompatReport",
    "DiffReport",
    "HistoryError",
    "HistoryWarning",
    "Incompatibility",
    "ReplayReport",
    "can_read",
    "changelog",
    "check_bump",
    "compat",
    "diff",
    "history_from_dir",
    "history_from_git",
    "read_at_revision",
    "replay",
    "resolve_base",
    "suggest_field_name",
]
