"""Text for a terminal: one function that every message about a contract or a data file goes
through, so a contract or a data file can never drive the terminal (escape sequences) or flood it
(a 50 MB line)."""

from __future__ import annotations

import re

# C0 but tab and newline, DEL, C1, surrogates, line/paragraph separators, bidi overrides and
# isolates (they reorder what a reviewer sees), and the noncharacters U+FFFE/U+FFFF.
_UNPRINTABLE = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
                          "\\ufffe\\uffff\\ud800-\\udfff]")


def _escape(m: re.Match[str]) -> str:
    o = ord(m.group(0))
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def printable(text: str, limit: int | None = 2000) -> str:
    """`text` with every unprintable character escaped (``\\x1b``, ``\\u2028``), cut after `limit`
    characters with a note of how many were left out."""
    text = str(text)
    more = 0
    if limit is not None and len(text) > limit:
        more = len(text) - limit
        text = text[:limit]
    out = _UNPRINTABLE.sub(_escape, text)
    return out + (f"... ({more} more characters)" if more else "")


def text_table(headers: list[str], rows: list[list[str]], max_last: int | None = None,
               suffixes: list[str] | None = None) -> list[str]:
    """A plain-text table: a header line, a dashed rule, one line per row, columns two spaces apart.

    Args:
        max_last: cap the last column's width (at least 20); longer cells end in an ellipsis.
        suffixes: per row, text appended after the padded cells (`" <- disagree"`).
    """
    widths = [len(h) for h in headers]
    for r in rows:
        for i, cell in enumerate(r):
            widths[i] = max(widths[i], len(cell))
    if max_last is not None and rows:
        widths[-1] = min(widths[-1], max(20, max_last))

    def line(cells: list[str], suffix: str = "") -> str:
        out = [c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False)]
        last, w = cells[-1], widths[len(cells) - 1]
        out.append(last if len(last) <= w else last[: w - 1] + "…")
        if suffix:
            out[-1] = out[-1].ljust(w)
        return ("  ".join(out) + suffix).rstrip()

    return [line(headers), "  ".join("-" * w for w in widths),
            *(line(r, suffixes[i] if suffixes else "") for i, r in enumerate(rows))]
