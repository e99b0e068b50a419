"""What a person sees in a terminal: diagnostics with the source line and a caret, colour only on a
terminal (`NO_COLOR` honoured), tables that fit the terminal's width, and progress on stderr.

Every piece of contract or data text still goes through `textsafe.printable` first; colour codes
are added after escaping, so a contract can never drive the terminal.
"""

from __future__ import annotations

import contextlib
import os
import stat
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
        st = os.stat(path)
        # a regular file only: a device (/dev/zero) or a FIFO reads forever or blocks
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_SOURCE_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read(_MAX_SOURCE_BYTES + 1)
        if len(data) > _MAX_SOURCE_BYTES:
            return None
        return data.decode("utf-8", errors="replace").splitlines()
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
    if lines is None or not 1 <= d.line <= len(lines) + 1:
        return head
    # the line after the last: the end of the file (a YAML mapping left open), shown empty
    source = lines[d.line - 1] if d.line <= len(lines) else ""
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
    context = []  # at the end of the file, the last line too: what was left open
    if d.line == len(lines) + 1 and lines:
        last, _ = _shown(lines[-1][:_WINDOW])
        context = [f"{paint(str(d.line - 1).rjust(len(number)), 'gutter', color)} {bar} {last}".rstrip()]
    return "\n".join([
        head,
        f"{pad} {bar}",
        *context,
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


# ----------------------------------------------------------------------------------- tables


def terminal_width(stream: IO[str] | None = None) -> int | None:
    """The width tables fit: ``COLUMNS`` when set, else the terminal's, else None (a pipe or a
    file: no limit, every row on one line, nothing cut)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    stream = stream if stream is not None else sys.stdout
    try:
        if stream is not None and stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def _chunks(text: str) -> list[str]:
    """`text` in pieces a line may break after: a space, a comma or a colon ends a piece."""
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in " ,:":
            out.append(cur)
            cur = ""
    return [*out, cur] if cur else out


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, broken after a space or a comma where it
    can, inside a word only when a word alone is wider. Nothing is dropped."""
    if len(text) <= width:
        return [text]
    lines: list[str] = []
    cur = ""
    for piece in _chunks(text):
        if len(cur) + len(piece.rstrip()) <= width:
            cur += piece
            continue
        if cur.strip():
            lines.append(cur.rstrip())
        cur = piece.lstrip() if lines else piece
        while len(cur.rstrip()) > width:
            lines.append(cur[:width])
            cur = cur[width:]
    if cur.strip():
        lines.append(cur.rstrip())
    return lines or [""]


def fit_table(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None,
              wrap_cols: Sequence[tuple[int, int]] = (),
              suffixes: Sequence[str] | None = None) -> list[str]:
    """A plain-text table: a header line, a dashed rule, rows, columns two spaces apart.

    Within `width` (None: no limit) the `wrap_cols` shrink and their cells wrap onto more lines,
    never cut; the other columns keep their width. Cells must already be printable text.

    Args:
        wrap_cols: ``(column, floor)`` in the order they give way: each shrinks to its floor
            before the next one shrinks; then, if the table is still too wide, the widest of them
            shrinks, down to its header's width.
        suffixes: per row, text after the row's first line (`" <- disagree"`).
    """
    n = len(headers)
    widths = [max([len(headers[i]), *(len(r[i]) for r in rows)]) for i in range(n)]
    extra = max((len(s) for s in suffixes or ()), default=0)
    if width is not None:
        over = sum(widths) + 2 * (n - 1) + extra - width
        for i, floor in wrap_cols:
            give = max(0, min(over, widths[i] - max(floor, len(headers[i]))))
            widths[i] -= give
            over -= give
        while over > 0:
            shrinkable = [i for i, _ in wrap_cols if widths[i] > max(len(headers[i]), 6)]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda i: (widths[i], -i))
            widths[widest] -= 1
            over -= 1

    def lines_of(cells: Sequence[str], suffix: str = "") -> list[str]:
        parts = [wrap(c, widths[i]) for i, c in enumerate(cells)]
        out = []
        for k in range(max(len(p) for p in parts)):
            padded = [(p[k] if k < len(p) else "").ljust(widths[i]) for i, p in enumerate(parts)]
            out.append(("  ".join(padded) + (suffix if k == 0 else "")).rstrip())
        return out

    table = [*lines_of(headers), "  ".join("-" * w for w in widths)]
    for j, r in enumerate(rows):
        table.extend(lines_of(r, suffixes[j] if suffixes else ""))
    return table


# --------------------------------------------------------------------------------- progress


class Progress:
    """Per-step progress on stderr, only when it is a terminal: which step runs, for how long,
    then done or failed. Elsewhere (a pipe, a CI log, a library call) it prints nothing.

    One line per step: a running line rewritten in place (``\\r``), then its final line.
    """

    def __init__(self, stream: IO[str] | None = None, enabled: bool | None = None,
                 label: str = "") -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = _is_tty(self.stream) and os.environ.get("TERM") != "dumb"
        self.enabled = enabled
        self.label = label
        self.color = enabled and use_color(self.stream)
        self._name = ""
        self._t0 = 0.0
        self._last = 0.0
        self._steps: dict[str, float] = {}  # name -> start, for steps running side by side

    def _write(self, text: str) -> None:
        if self.enabled and self.stream is not None:
            self.stream.write(text)
            self.stream.flush()

    def start(self, name: str) -> None:
        """A step begins."""
        import time

        self._name, self._t0, self._last = name, time.monotonic(), 0.0
        self._write(f"\r\x1b[K{self.label}{name}: running")

    def tick(self) -> None:
        """Refresh the running step's elapsed time (at most twice a second); with steps running
        side by side (`begin`), one line names each with its own elapsed time."""
        import time

        now = time.monotonic()
        if not self.enabled or now - self._last < 0.5:
            return
        if self._steps:
            self._last = now
            self._write("\r\x1b[K" + self.label + ", ".join(
                f"{name}: running {now - t0:.0f} s" for name, t0 in self._steps.items()))
        elif self._name:
            self._last = now
            self._write(f"\r\x1b[K{self.label}{self._name}: running {now - self._t0:.0f} s")

    def finish(self, ok: bool, detail: str = "") -> None:
        """The running step ends: done, or failed (with why, shortened to one line)."""
        import time

        self._final(self._name, time.monotonic() - self._t0, ok, detail)
        self._name = ""

    def begin(self, name: str) -> None:
        """One of several steps running side by side begins (engines in parallel processes)."""
        import time

        self._steps[name] = time.monotonic()
        self._write(f"\r\x1b[K{self.label}{name}: running")
        self._last = 0.0

    def end(self, name: str, ok: bool, detail: str = "") -> None:
        """A step started with `begin` ends: its final line, then the others' running line."""
        import time

        t0 = self._steps.pop(name, time.monotonic())
        self._final(name, time.monotonic() - t0, ok, detail)
        self._last = 0.0
        self.tick()

    def _final(self, name: str, elapsed: float, ok: bool, detail: str) -> None:
        word = paint("done", "note", self.color) if ok else paint("failed", "error", self.color)
        why = f" ({printable(' '.join(detail.split()), 120)})" if detail else ""
        self._write(f"\r\x1b[K{self.label}{name}: {word} in {elapsed:.1f} s{why}\n")


def _is_tty(stream: IO[str] | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


_PROGRESS = Progress(enabled=False)
VERBOSE = False  # `--verbose`: engines' own logging goes to the terminal, unfiltered


def progress() -> Progress:
    """The progress the running command reports to (silent unless the CLI turned it on)."""
    return _PROGRESS


def set_progress(p: Progress) -> None:
    global _PROGRESS
    _PROGRESS = p


class ticking:
    """A step reported while a blocking call runs: a thread refreshes its elapsed time. Only for
    code that starts no process by fork (a fork with a second thread running is unsafe)."""

    def __init__(self, name: str, p: Progress | None = None) -> None:
        self.name = name
        self.p = p or progress()
        self.failed = ""
        self._stop: object = None

    def __enter__(self) -> ticking:
        import threading

        self.p.start(self.name)
        if self.p.enabled:
            stop = threading.Event()

            def beat() -> None:
                while not stop.wait(0.5):
                    self.p.tick()

            self._thread = threading.Thread(target=beat, daemon=True, name="tacit-progress")
            self._thread.start()
            self._stop = stop
        return self

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        import threading

        if isinstance(self._stop, threading.Event):
            self._stop.set()
            self._thread.join()
        self.p.finish(kind is None and not self.failed, self.failed or (str(value) if value else ""))


# ------------------------------------------------------------------------ engine log silence


class engine_output:
    """While an engine runs, everything it writes to file descriptors 1 and 2 (print, logging
    handlers, dbt's and py4j's output, native libraries) goes to `log` instead of the terminal,
    unless `VERBOSE`. Restored afterwards."""

    def __init__(self, log: str | os.PathLike[str]) -> None:
        self.log = log
        self._saved: list[int] = []

    def __enter__(self) -> engine_output:
        if VERBOSE:
            return self
        for s in (sys.stdout, sys.stderr):
            if s is not None:
                s.flush()
        fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            for target in (1, 2):
                self._saved.append(os.dup(target))
                os.dup2(fd, target)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._saved:
            return
        for s in (sys.stdout, sys.stderr):
            if s is not None:
                with contextlib.suppress(OSError, ValueError):
                    s.flush()
        for target, saved in zip((1, 2), self._saved, strict=True):
            os.dup2(saved, target)
            os.close(saved)
        self._saved = []
