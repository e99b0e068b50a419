"""Tokenizer for invariant expressions."""

from __future__ import annotations

import re
from dataclasses import dataclass

KEYWORDS = frozenset(
    {"and", "or", "not", "is", "null", "in", "between", "only", "when", "true", "false"}
)

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>'(?:[^']|'')*'|"(?:[^"]|"")*")
  | (?P<op><=|>=|!=|<>|==|[=<>+\-*/(),])
    """,
    re.X,
)


@dataclass(frozen=True)
class Token:
    """One lexeme: kind is number, ident, keyword, string, op or eof."""

    kind: str
    text: str
    offset: int

    @property
    def value(self) -> str:
        if self.kind == "string":
            q = self.text[0]
            return self.text[1:-1].replace(q + q, q)
        return self.text


class LexError(ValueError):
    """A character that starts no token."""

    def __init__(self, message: str, offset: int, word: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.word = word


def tokenize(text: str) -> list[Token]:
    """Split expression text into tokens, ending with an eof token."""
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            ch = text[pos]
            if ch in "'\"":
                raise LexError(f"unterminated string starting at {text[pos:]!r}", pos, text[pos:])
            word = re.match(r"\S+", text[pos:])
            raise LexError(
                f"unexpected character {ch!r}", pos, word.group(0) if word else ch
            )
        kind = m.lastgroup or ""
        if kind != "ws":
            tok = m.group(0)
            if kind == "ident" and tok.lower() in KEYWORDS:
                out.append(Token("keyword", tok.lower(), pos))
            elif kind == "op":
                out.append(Token("op", {"<>": "!=", "==": "="}.get(tok, tok), pos))
            else:
                out.append(Token(kind, tok, pos))
        pos = m.end()
    out.append(Token("eof", "", len(text)))
    return out
