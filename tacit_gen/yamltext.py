"""Block-style YAML written directly, byte for byte the text of a given PyYAML dumper.

PyYAML's emitter (pure Python, and the representer even with libyaml's) was a large part of a
render. `BlockWriter` writes block mappings and sequences itself, one-line printable ASCII keys
and strings (plain or single-quoted, by the emitters' own rule: `_one_line`), and literal blocks;
every other scalar is written once by the reference
dumper (``dump({"k": value})``) and its text reused. Anything it does not write the same way (an
alias, a complex key, a multi-line quoted scalar, an unknown type) makes `write` return None, and
the caller dumps the whole document with the reference dumper.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import yaml
import yaml.resolver

_LITERAL_OK = re.compile(r"[\x20-\x7e\n]*")  # printable ASCII and \n: '|' allowed unless ' \n'
_RESOLVER = yaml.resolver.Resolver()  # the one SafeDumper and CSafeDumper use


def _union(resolvers: list[tuple[str, re.Pattern[str]]]) -> re.Pattern[str] | None:
    """One pattern matching where any of a first character's resolvers matches (None when their
    flags differ): none of the implicit tags is a string's, so a text is a string exactly when
    none matches, and one `match` replaces the resolver's loop over them."""
    flags = {rx.flags for _, rx in resolvers}
    if len(flags) != 1:
        return None
    return re.compile("|".join(f"(?:{rx.pattern})" for _, rx in resolvers), flags.pop())


# per first character: (how many resolvers the union covers, the union)
_UNIONS = {first: (len(rs), _union(rs)) for first, rs in _RESOLVER.yaml_implicit_resolvers.items()}


def resolves_to_str(text: str) -> bool:
    """Whether a non-empty plain scalar reads back as a string. The resolver only tries the
    patterns listed under the text's first character (and those for any character, listed under
    None): a text whose first character has none, in a resolver without path rules, is a string
    without a call (most names and words); one with some is a string when their union does not
    match it."""
    implicit = _RESOLVER.yaml_implicit_resolvers
    if None not in implicit and not _RESOLVER.yaml_path_resolvers:
        if text[0] not in implicit:
            return True
        count, union = _UNIONS.get(text[0], (-1, None))
        if union is not None and len(implicit[text[0]]) == count:  # (none added since)
            return union.match(text) is None
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str"


# One line of printable ASCII, neither starting nor ending with a space: a scalar both emitters
# write plain (block context) or else single-quoted, never double-quoted (no character needs an
# escape) and never folded (unlimited width).
_ONE_LINE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_ALWAYS_FIRST = frozenset("#,[]{}&*!|>'\"%@`")  # an indicator wherever it is followed
_SPACED_FIRST = frozenset("?:-")  # an indicator when followed by a space or the end


def _block_plain(text: str) -> bool:
    """Whether a `_ONE_LINE` text has no indicator a block-context plain scalar may not hold:
    a document marker at its start, an indicator character first, ``: `` or a final ``:``
    anywhere, `` #`` anywhere (flow-only indicators such as ``,`` or ``[`` inside are allowed)."""
    if text.startswith(("---", "...")) or text[0] in _ALWAYS_FIRST:
        return False
    if text[0] in _SPACED_FIRST and (len(text) == 1 or text[1] == " "):
        return False
    return not (": " in text or text.endswith(":") or " #" in text)


def _one_line(text: str) -> str | None:
    """What both emitters write after ``key:`` for a one-line printable ASCII string (plain when
    it may be and reads back as a string, else single-quoted), or None for any other text."""
    if not _ONE_LINE.fullmatch(text):
        return None
    if _block_plain(text) and resolves_to_str(text):
        return f" {text}\n"
    return " '" + text.replace("'", "''") + "'\n"


class _Fallback(Exception):
    """A shape the direct writer does not write: the reference dumper writes the document."""


class BlockWriter:
    """The text `reference` writes (block style, insertion order, unlimited width).

    `indentless`: a sequence under a mapping key starts at the key's column (PyYAML's and
    libyaml's default) rather than two further. `literal`: the str subclass written as a ``|``
    block; `scalars`: the str subclasses (besides `literal`) the reference represents.
    """

    def __init__(self, reference: Callable[[Any], str], *, indentless: bool,
                 literal: type | None = None, scalars: tuple[type, ...] = ()) -> None:
        self.reference = reference
        self.indentless = indentless
        self.literal = literal
        self.types = frozenset((str, bool, int, type(None), *scalars, *((literal,) if literal else ())))
        self.key = functools.lru_cache(maxsize=8192, typed=True)(self._key)
        self.scalar = functools.lru_cache(maxsize=8192, typed=True)(self._scalar)

    def write(self, data: Any) -> str | None:
        out: list[str] = []
        try:
            self._block(data, 0, out, set())
        except _Fallback:
            return None
        return "".join(out)

    def _key(self, value: Any) -> str:
        if type(value) is str and len(value) < 128:  # a simple key in both emitters
            line = _one_line(value)  # a simple key is styled as a value is
            if line is not None:
                return line[1:-1]
        text = self.reference({value: None})
        if not text.endswith(": null\n") or text.count("\n") != 1 or text.startswith("? "):
            raise _Fallback
        return text[: -len(": null\n")]

    def _scalar(self, value: Any) -> str:
        """What the reference writes after ``key:`` (leading space, trailing newline), in a
        mapping at indent 0: a literal block's lines are indented by 2."""
        kind = type(value)
        if kind is str:
            line = _one_line(value)
            if line is not None:
                return line
        if kind is self.literal and value and _LITERAL_OK.fullmatch(value) and " \n" not in value \
                and not value.endswith((" ", "\n\n")) and value[0] not in " \n" and value != "\n":
            body = value[:-1] if value.endswith("\n") else value
            lines = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
            return (" |\n" if value.endswith("\n") else " |-\n") + lines
        if isinstance(value, str) and any(c in value for c in "\x85\u2028\u2029"):
            raise _Fallback  # line breaks the re-indenting below does not see
        text = self.reference({"k": value})
        if not text.startswith("k:") or text.endswith("...\n"):
            raise _Fallback
        rest = text[2:]
        if rest.count("\n") > 1 and not rest.startswith((" |", " >")):
            raise _Fallback  # a multi-line quoted scalar: its continuation lines depend on context
        return rest

    def _reindent(self, text: str, indent: int) -> str:
        """A literal block's text (its lines indented by 2) under a container at `indent`."""
        first, _, lines = text.partition("\n")
        pad = " " * indent
        return first + "\n" + "".join(pad + line + "\n" if line else "\n" for line in lines[:-1].split("\n"))

    def _block(self, data: Any, indent: int, out: list[str], seen: set[int], inline: bool = False) -> None:
        """A non-empty block mapping or sequence at `indent`; `inline`: its first line continues
        a ``- `` already written. Each entry is its head (``key:`` or ``-`` at its indent) and
        its value: a nested collection (under a key on the next line, a sequence at the key's
        column when `indentless`; under ``-`` on the same line), or a scalar as `scalar` writes
        it (a literal block's lines follow the container). A loop each for mappings and
        sequences, without a call per scalar value: it runs for every value of every artifact.
        (The two loops' bodies are alike on purpose: one loop over built (head, value) pairs
        took 14% longer on the bench's dbt and Soda documents.)"""
        if id(data) in seen:
            raise _Fallback  # the reference writes an anchor and an alias
        seen.add(id(data))
        types, scalar, append = self.types, self.scalar, out.append
        pad = " " * indent
        lead = "" if inline else pad
        kind = type(data)  # exact types: the safe dumpers refuse subclasses
        if kind is dict and data:
            key, literal = self.key, self.literal
            in_map, in_list = indent + 2, indent if self.indentless else indent + 2
            for k, v in data.items():
                tk = type(k)
                if tk not in types or tk is literal or k is None:
                    raise _Fallback
                head = lead + key(k) + ":"
                lead = pad
                tv = type(v)
                if tv is dict or tv is list:
                    if v:
                        append(head + "\n")
                        self._block(v, in_map if tv is dict else in_list, out, seen)
                    else:
                        append(head + (" {}\n" if tv is dict else " []\n"))
                elif tv in types:
                    text = scalar(v)
                    if indent and text.count("\n") > 1:
                        text = self._reindent(text, indent)
                    append(head + text)
                else:
                    raise _Fallback
        elif kind is list and data:
            inner = indent + 2  # an item's collection starts on its ``-`` line
            for v in data:
                head = lead + "-"
                lead = pad
                tv = type(v)
                if tv is dict or tv is list:
                    if v:
                        append(head + " ")
                        self._block(v, inner, out, seen, True)
                    else:
                        append(head + (" {}\n" if tv is dict else " []\n"))
                elif tv in types:
                    text = scalar(v)
                    if indent and text.count("\n") > 1:
                        text = self._reindent(text, indent)
                    append(head + text)
                else:
                    raise _Fallback
        else:
            raise _Fallback  # a scalar or an empty collection at the root
