"""What a person sees in a terminal: diagnostics with the source line and a caret, colour only on a
terminal (`NO_COLOR` honoured), tables that fit the terminal's width, and progress on stderr.

Every piece of contract or data text still goes through `textsafe.printable` first; colour codes
are added after escaping, so a contract can never drive the terminal.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from typing import IO

from tacit_gen.diagnostics import Diagnostic
from tacit_gen.textsafe import printable

# ----------------------------------------------------------------------------------- colour


def use_color(stream: IO[str] | None = None) -> bool:
    """Colour only on a terminal, never with `NO_COLOR` set to anything (https://no-color.org)
    nor on a dumb terminal."""
    stream = stream if stream is not None else sys.stdout
    if stream is None or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_SGR = {"error": "1;31", "warning": "1;33", "note": "1;36", "gutter": "1;34", "bold": "1"}


def paint(text: str, style: str, color: bool) -> str:
    """`text` in `style` (a key of the colour table) when `color`, else unchanged."""
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if color and text else text


# ------------------------------------------------------------------------------ diagnostics

_MAX_SOURCE_BYTES = 4 * 1024 * 1024  # the loader refuses larger contracts anyway
_WINDOW = 100  # a source line wider than this is shown as a window around the caret


def _cell_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _shown(text: str) -> tuple[str, list[int]]:
    """A source text as shown (tabs as four spaces, unprintable characters escaped) and, for
    each character of `text`, the display column where it starts (one more entry: the end)."""
    out: list[str] = []
    starts: list[int] = []
    col = 0
    for ch in text:
        starts.append(col)
        piece = "    " if ch == "\t" else printable(ch, None)
        out.append(piece)
        col += sum(_cell_width(c) for c in piece)
    starts.append(col)
    return "".join(out), starts


def read_source(path: str) -> list[str] | None:
    """The lines of a contract file as it is on disk now, or None (gone, too big, not text)."""
    try:
        if os.path.getsize(path) > _MAX_SOURCE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            return f.read().splitlines()
    except (OSError, ValueError):
        return None


def _span(line: str, col: int, word: str) -> tuple[int, int]:
    """The 0-based [start, end) of the offending text on `line`: the diagnostic's word where it
    stands at the column (or a little after, when the column points at its quote), else one
    character, or the word further along the line."""
    start = max(0, min(col - 1, len(line)))
    if word:
        at = line.find(word, start, start + len(word) + 2)
        if at < 0:  # a finding placed at its field names a word further along (its unit)
            at = line.find(word, start)
        if at >= 0:
            return at, at + len(word)
    return start, min(start + 1, len(line)) if start < len(line) else start + 1


def format_diagnostic(d: Diagnostic, lines: Sequence[str] | None = None, color: bool = False) -> str:
    """A diagnostic as a compiler prints it: the usual ``path:line:col: severity: message [code]``
    line, then the source line and a caret under the offending span::

        contracts/x.yaml:7:21: error: unknown type 'strng' [TG105]
          |
        7 |   series_id: {type: strng}
          |                     ^^^^^

    Args:
        d: the diagnostic.
        lines: the file's lines (`read_source`); None or too short: the first line alone.
        color: ANSI colour (`use_color`), added after every text was made printable.
    """
    head = (paint(f"{printable(d.path, None)}:{d.line}:{d.col}:", "bold", color) + " "
            + paint(f"{d.severity}:", d.severity, color)
            + f" {printable(d.message)} [{d.code}]")
    if lines is None or not 1 <= d.line <= len(lines):
        return head
    source = lines[d.line - 1]
    start, end = _span(source, d.col, d.word)
    if len(source) > _WINDOW:  # a window of the line around the span
        lo = max(0, min(start - _WINDOW // 2, len(source) - _WINDOW))
        hi = min(len(source), lo + _WINDOW)
        end = min(end, hi)
        prefix, suffix = ("…" if lo > 0 else ""), ("…" if hi < len(source) else "")
        source = prefix + source[lo:hi] + suffix
        start, end = start - lo + len(prefix), end - lo + len(prefix)
    shown, starts = _shown(source)
    caret_at = starts[min(start, len(source))]
    caret_len = max(1, starts[min(end, len(source))] - caret_at)
    number = str(d.line)
    pad = " " * len(number)
    bar = paint("|", "gutter", color)
    return "\n".join([
        head,
        f"{pad} {bar}",
        f"{paint(number, 'gutter', color)} {bar} {shown}".rstrip(),
        f"{pad} {bar} {' ' * caret_at}{paint('^' * caret_len, d.severity, color)}",
    ])


def format_diagnostics(diags: Iterable[Diagnostic], color: bool = False,
                       sources: dict[str, str] | None = None) -> str:
    """Every diagnostic with its source line (read once per file; `sources` gives the text of a
    path that is not a file, such as ``REV:path`` read from git)."""
    cache: dict[str, list[str] | None] = {}
    out = []
    for d in diags:
        if d.path not in cache:
            given = (sources or {}).get(d.path)
            cache[d.path] = given.splitlines() if given is not None else read_source(d.path)
        out.append(format_diagnostic(d, cache[d.path], color))
    return "\n".join(out)


def echo_diagnostics(diags: Iterable[Diagnostic], err: bool = False,
                     sources: dict[str, str] | None = None) -> None:
    """Print diagnostics to stdout (or stderr), coloured only on a terminal."""
    stream = sys.stderr if err else sys.stdout
    diags = list(diags)
    if diags:
        stream.write(format_diagnostics(diags, use_color(stream), sources) + "\n")
        stream.flush()
