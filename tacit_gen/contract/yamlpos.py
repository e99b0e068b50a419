"""YAML with positions: a node tree with line/col for every key and value.

Two things plain YAML gets wrong for contracts are handled here:
- seed 001 writes ``decimal(18,8)`` and ``enum[good, suspect, bad]`` unquoted inside flow
  mappings; before parsing, the flow indicators inside such a type value are swapped for private-use
  characters of the same length (so every line/column stays exact) and swapped back in scalars;
- duplicate keys, which PyYAML silently collapses, are reported (all of them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml

_SWAP = {",": "\ue000", "[": "\ue001", "]": "\ue002", "{": "\ue003", "}": "\ue004", "#": "\ue005"}
_UNSWAP = {v: k for k, v in _SWAP.items()}
_SWAP_RE = re.compile("[" + "".join(_UNSWAP) + "]")
# A `type:` value written in the seed's notation, unquoted.
_TYPE_VALUE = re.compile(
    r"(?P<pre>(?:^|[{,\s])type\s*:[ \t]+)(?P<val>decimal\s*\([^)\n]*\)|enum\s*\[[^\]\n]*\])"
)


def protect(text: str) -> str:
    """Swap flow indicators inside unquoted seed-notation type values (same length)."""

    def repl(m: re.Match[str]) -> str:
        val = m.group("val")
        return m.group("pre") + "".join(_SWAP.get(c, c) for c in val)

    return _TYPE_VALUE.sub(repl, text)


def unprotect(text: str) -> str:
    return _SWAP_RE.sub(lambda m: _UNSWAP[m.group(0)], text)


@dataclass
class YNode:
    """A YAML node: kind is map, seq or scalar; positions are 1-based."""

    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int  # character offsets into the (protected) text
    end: int
    value: Any = None  # scalar python value; list[YNode] for seq; list[(YNode, YNode)] for map
    tag: str = ""
    style: str | None = None  # scalar style: None (plain), "'", '"', "|", ">"
    raw: str = ""  # scalar text as written (after unprotect)

    def get(self, key: str) -> YNode | None:
        for k, v in self.value if self.kind == "map" else ():
            if k.value == key:
                return v
        return None

    def key_nodes(self) -> list[YNode]:
        """The key nodes of a mapping, in order (empty for other kinds)."""
        return [k for k, _ in self.value] if self.kind == "map" else []

    keys = key_nodes


class YamlSyntaxError(Exception):
    """Malformed YAML, with a 1-based position and the offending text."""

    def __init__(self, message: str, line: int, col: int, word: str) -> None:
        super().__init__(message)
        self.line = line
        self.col = col
        self.word = word


_BOOL_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}


def _scalar_value(node: yaml.ScalarNode) -> Any:
    text = unprotect(node.value)
    tag = node.tag
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        return text in _BOOL_TRUE
    if tag.endswith(":int"):
        try:
            return int(text.replace("_", ""), 0)
        except ValueError:
            return text
    if tag.endswith(":float"):
        try:
            return Decimal(text.replace("_", ""))
        except InvalidOperation:
            return text
    return text


def _convert(node: yaml.Node, dups: list[tuple[YNode, YNode]]) -> YNode:
    sm, em = node.start_mark, node.end_mark
    base = dict(
        line=sm.line + 1,
        col=sm.column + 1,
        end_line=em.line + 1,
        end_col=em.column + 1,
        start=sm.index,
        end=em.index,
        tag=node.tag,
    )
    if isinstance(node, yaml.ScalarNode):
        return YNode(
            "scalar",
            value=_scalar_value(node),
            style=node.style,
            raw=unprotect(node.value),
            **base,  # type: ignore[arg-type]
        )
    if isinstance(node, yaml.SequenceNode):
        return YNode("seq", value=[_convert(c, dups) for c in node.value], **base)  # type: ignore[arg-type]
    assert isinstance(node, yaml.MappingNode)
    pairs: list[tuple[YNode, YNode]] = []
    seen: dict[Any, YNode] = {}
    for k, v in node.value:
        kn, vn = _convert(k, dups), _convert(v, dups)
        hashable = kn.value if kn.kind == "scalar" and not isinstance(kn.value, list) else id(kn)
        try:
            if hashable in seen:
                dups.append((kn, seen[hashable]))
                continue
            seen[hashable] = kn
        except TypeError:
            pass
        pairs.append((kn, vn))
    return YNode("map", value=pairs, **base)  # type: ignore[arg-type]


def _word_at(text: str, index: int) -> str:
    m = re.compile(r"[^\s,\[\]{}]+").match(text, index)
    if m:
        return unprotect(m.group(0))
    return unprotect(text[index : index + 1]).strip() or "end of file"


def compose(text: str) -> tuple[YNode | None, list[tuple[YNode, YNode]], str]:
    """Parse YAML text into a positioned tree.

    Returns:
        (root or None for an empty document, duplicate keys as (dup, first) pairs, protected text).

    Raises:
        YamlSyntaxError: for malformed YAML or a multi-document stream.
    """
    protected = protect(text)
    try:
        nodes = list(yaml.compose_all(protected, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        idx = mark.index if mark else 0
        msg = unprotect(str(e.problem or e.context or "malformed YAML"))
        raise YamlSyntaxError(msg, line, col, _word_at(protected, idx)) from None
    except yaml.YAMLError as e:  # pragma: no cover - reader errors (bad characters)
        mark = getattr(e, "position", None)
        raise YamlSyntaxError(str(e).splitlines()[0], 1, 1, str(mark or "")) from None
    if len(nodes) > 1:
        second = nodes[1]
        m = second.start_mark if second is not None else None
        raise YamlSyntaxError(
            "a contract file holds one YAML document, found more",
            (m.line + 1) if m else 1,
            (m.column + 1) if m else 1,
            "---",
        )
    if not nodes or nodes[0] is None:
        return None, [], protected
    dups: list[tuple[YNode, YNode]] = []
    return _convert(nodes[0], dups), dups, protected


def plain(node: YNode) -> Any:
    """The node as plain python data (maps -> dict, seqs -> list)."""
    if node.kind == "scalar":
        return node.value
    if node.kind == "seq":
        return [plain(c) for c in node.value]
    return {str(k.value): plain(v) for k, v in node.value}


def source_text(protected: str, node: YNode, start: YNode | None = None) -> str:
    """The verbatim source of a node (from `start`, e.g. its key), on one line."""
    begin = start.start if start is not None else node.start
    raw = unprotect(protected[begin : node.end])
    lines = [ln.strip() for ln in raw.splitlines()]
    return " ".join(ln for ln in lines if ln)
