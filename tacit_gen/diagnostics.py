"""Diagnostics as a shared layer: one `Diagnostic` type and one collector, `Diagnostics`.

The loader, the expression checker (`contract/semantics.py`) and the lint rules (`lint.py`) all
add to the same collector; none of them imports another to do so. A position is anything with a
1-based ``line`` and ``col`` (a `contract.model.Pos`, a YAML node), or None (the file's start).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

SEVERITIES = ("error", "warning", "note")


def close_matches(word: str, possibilities: Iterable[str], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """`difflib.get_close_matches` for a did-you-mean; difflib is imported only when one is
    wanted, not by every command's start (issue 16)."""
    import difflib

    return difflib.get_close_matches(word, list(possibilities), n=n, cutoff=cutoff)


class Position(Protocol):
    """Anything that says where it is: a 1-based line and column."""

    @property
    def line(self) -> int: ...

    @property
    def col(self) -> int: ...


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a contract file: ``path:line:col: severity: message [code]``."""

    path: str
    line: int
    col: int
    severity: str  # error, warning, note
    code: str
    message: str
    word: str = ""

    def render(self) -> str:
        """One line for a terminal: path and message with unprintable characters escaped."""
        from tacit_gen.textsafe import printable

        return (f"{printable(self.path, None)}:{self.line}:{self.col}: {self.severity}: "
                f"{printable(self.message)} [{self.code}]")

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "word": self.word,
        }


@dataclass
class Diagnostics:
    """Collects the diagnostics of one file, in the order they are found.

    Attributes:
        path: the file as shown in messages.
        diags: what was collected.
    """

    path: str
    diags: list[Diagnostic] = field(default_factory=list)

    def add(self, at: Position | None, severity: str, code: str, message: str, word: str = "",
            col_offset: int = 0) -> None:
        """Add one diagnostic at `at` (None: line 1, column 1)."""
        line, col = (at.line, at.col) if at is not None else (1, 1)
        self.diags.append(Diagnostic(self.path, line, col + col_offset, severity, code, message, word))

    def error(self, at: Position | None, code: str, message: str, word: str = "",
              col_offset: int = 0) -> None:
        self.add(at, "error", code, message, word, col_offset)

    def warn(self, at: Position | None, code: str, message: str, word: str = "") -> None:
        self.add(at, "warning", code, message, word)

    def note(self, at: Position | None, code: str, message: str, word: str = "") -> None:
        self.add(at, "note", code, message, word)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diags)

    def sorted(self) -> list[Diagnostic]:
        """By position, errors first at one place; exact duplicates dropped."""
        order = {s: i for i, s in enumerate(SEVERITIES)}
        out: list[Diagnostic] = []
        seen: set[Diagnostic] = set()
        for d in sorted(self.diags, key=lambda d: (d.line, d.col, order.get(d.severity, 3), d.code,
                                                   d.message)):
            if d not in seen:
                seen.add(d)
                out.append(d)
        return out
