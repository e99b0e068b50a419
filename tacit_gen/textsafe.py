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

