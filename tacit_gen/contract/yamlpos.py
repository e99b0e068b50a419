"""YAML with positions: a node tree with line/col for every key and value.

Two things plain YAML gets wrong for contracts are handled here:
- seed 001 writes ``decimal(18,8)`` and ``enum[good, suspect, bad]`` unquoted inside flow
  mappings; before parsing, the flow indicators inside such a type value are swapped for private-use
  characters of the same length (so every line/column stays exact) and swapped back in scalars;
- duplicate keys, which PyYAML silently collapses, are reported (all of them).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml
import yaml.composer
import yaml.constructor
import yaml.resolver

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
    """Malformed YAML (or a file that cannot be YAML), with a 1-based position, the offending
    text and the diagnostic code."""

    def __init__(self, message: str, line: int, col: int, word: str, code: str = "TG100") -> None:
        super().__init__(message)
        self.line = line
        self.col = col
        self.word = word
        self.code = code


# Characters no artifact can carry safely: C0 controls but tab and newline, DEL, C1 controls
# (U+0085 included: YAML reads it back as a line break), surrogates (not characters; no UTF-8
# form), the noncharacters U+FFFE/U+FFFF, and the Unicode line and paragraph separators
# (line breaks to YAML, JavaScript and some Python tooling). Refused at load, with a position.
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff\ud800-\udfff]")


def forbidden_character(text: str) -> str | None:
    """Why `text` cannot be carried into an artifact (its first bad character), or None."""
    m = _FORBIDDEN.search(text)
    if m is None:
        return None
    ch = m.group(0)
    code = f"U+{ord(ch):04X}"
    if 0xD800 <= ord(ch) <= 0xDFFF:
        return f"a lone surrogate {code} (not a character: it has no UTF-8 form)"
    if ch in "\ufffe\uffff":
        return f"the noncharacter {code}"
    if ch in "\u2028\u2029\x85":
        return f"the line separator {code} (YAML and Python tools read it as a line break)"
    return f"the control character {code}"


def _join_surrogate_pairs(text: str) -> str:
    """JSON-style escapes of an astral character (`"\\ud83d\\ude00"`, as `json.dumps` writes
    them; YAML 1.2 reads JSON) are one character; PyYAML leaves two surrogates. Lone ones stay."""
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def read_text(path: str | os.PathLike[str]) -> str:
    """A contract file's text: a regular file, at most `LIMITS.max_bytes`, strict UTF-8.

    A FIFO or a device is refused before any read (opened non-blocking, so a FIFO never hangs).

    Raises:
        YamlSyntaxError: with the position of an undecodable byte, or 1:1 for the file itself.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise YamlSyntaxError(f"cannot read the file: {e.strerror}", 1, 1, "") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise YamlSyntaxError("not a regular file (a folder, FIFO or device); contracts are read "
                                  "from regular files only", 1, 1, "")
        limit = LIMITS.max_bytes
        too_big = (f"the file is larger than {limit} bytes; raise the limit with "
                   "--max-contract-bytes (or TACIT_GEN_MAX_CONTRACT_BYTES) if it is meant")
        if st.st_size > limit:
            raise YamlSyntaxError(too_big, 1, 1, "")
        chunks = []
        size = 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            except OSError as e:
                raise YamlSyntaxError(f"cannot read the file: {e.strerror}", 1, 1, "") from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # the file grew while it was read
            raise YamlSyntaxError(too_big, 1, 1, "")
    finally:
        os.close(fd)
    return decode(b"".join(chunks))


def decode(data: bytes) -> str:
    """Contract bytes as text: strict UTF-8.

    Raises:
        YamlSyntaxError: at the line and column of the first byte that does not decode.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[start : e.start].decode("utf-8", "replace")) + 1
        raise YamlSyntaxError(f"not UTF-8: byte 0x{data[e.start]:02x} cannot be decoded "
                              "(contracts are UTF-8 text)", line, col, f"\\x{data[e.start]:02x}") from None


_BOOL_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}


def _scalar_value(tag: str, text: str) -> Any:
    """A scalar's Python value from its resolved tag and its (unprotected) text."""
    if tag == _STR_TAG:
        return text
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


_STR_TAG = "tag:yaml.org,2002:str"


@dataclass
class Limits:
    """What one contract file may cost: bytes read, YAML nodes composed, nodes reached through
    aliases, nesting depth. Enforced while reading and composing, never after."""

    max_bytes: int = 4 * 1024 * 1024
    max_nodes: int = 300_000  # a 20,000-field contract composes about 200,000
    max_alias_nodes: int = 100_000  # alias expansion ("billion laughs") stops here
    max_depth: int = 200


LIMITS = Limits()


class _Limits:
    def __init__(self, text: str | None = None) -> None:
        self.count = 0
        self.budget = LIMITS.max_alias_nodes
        self.path: set[int] = set()
        # what every scalar of `text` (the protected text) needs checked: a text without a
        # forbidden character has none in its scalars but through a double-quoted escape;
        # one without a swapped character has nothing to unprotect
        self.clean = text is not None and _FORBIDDEN.search(text) is None
        self.swapped = text is None or _SWAP_RE.search(text) is not None


def _convert(
    node: yaml.Node, dups: list[tuple[YNode, YNode]], limits: _Limits | None = None
) -> YNode:
    limits = limits or _Limits()
    sm = node.start_mark
    if id(node) in limits.path:
        raise YamlSyntaxError("an alias refers to a node that contains it", sm.line + 1, sm.column + 1, "*")
    limits.count += 1
    if limits.count > limits.budget:
        raise YamlSyntaxError(
            f"aliases expand to more than {LIMITS.max_alias_nodes} YAML nodes", sm.line + 1, sm.column + 1, "*"
        )
    if len(limits.path) > LIMITS.max_depth:
        raise YamlSyntaxError(f"nesting deeper than {LIMITS.max_depth} levels", sm.line + 1, sm.column + 1, "[")
    limits.path.add(id(node))
    try:
        return _convert_node(node, dups, limits)
    finally:
        limits.path.discard(id(node))


def _convert_node(node: yaml.Node, dups: list[tuple[YNode, YNode]], limits: _Limits) -> YNode:
    sm, em = node.start_mark, node.end_mark
    if isinstance(node, yaml.ScalarNode):
        value = node.value
        if not limits.clean or node.style == '"':  # an escape can write any character
            value = node.value = _join_surrogate_pairs(value)
            bad = forbidden_character(value)
            if bad is not None:
                raise YamlSyntaxError(f"this text holds {bad}, which no artifact can carry; remove it",
                                      sm.line + 1, sm.column + 1, bad.split()[-1] if "U+" in bad else "",
                                      "TG116")
        raw = unprotect(value) if limits.swapped or node.style == '"' else value
        return YNode("scalar", sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, sm.index,
                     em.index, _scalar_value(node.tag, raw), node.tag,
                     node.style or None,  # libyaml says "" for plain, PyYAML None
                     raw)
    if isinstance(node, yaml.SequenceNode):
        return YNode("seq", sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, sm.index,
                     em.index, [_convert(c, dups, limits) for c in node.value], node.tag)
    assert isinstance(node, yaml.MappingNode)
    pairs: list[tuple[YNode, YNode]] = []
    seen: dict[Any, YNode] = {}
    for k, v in node.value:
        kn, vn = _convert(k, dups, limits), _convert(v, dups, limits)
        hashable = kn.value if kn.kind == "scalar" and not isinstance(kn.value, list) else id(kn)
        try:
            if hashable in seen:
                dups.append((kn, seen[hashable]))
                continue
            seen[hashable] = kn
        except TypeError:
            pass
        pairs.append((kn, vn))
    return YNode("map", sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, sm.index, em.index,
                 pairs, node.tag)


# PyYAML names tokens by their indicator ("but got '?'" means a new key): say it in words.
_TOKEN_WORDS = {
    "?": "a new key",
    "-": "a list item",
    "<block end>": "the end of an indented block",
    "<block mapping start>": "the start of a mapping",
    "<block sequence start>": "the start of a list",
    "<stream end>": "the end of the file",
    "<scalar>": "a value",
    ",": "','",
    ":": "':'",
    "[": "'['",
    "]": "']'",
    "{": "'{'",
    "}": "'}'",
}
_TOKEN_NAMES = re.compile(
    r"but (?:got|found) '(" + "|".join(re.escape(k) for k in _TOKEN_WORDS) + r")'"
)
_WORD = re.compile(r"[^\s,\[\]{}:]+|[,\[\]{}:]")


def _word_at(text: str, index: int) -> str:
    """The word at `index` (what an error message names as the offending text)."""
    if index >= len(text):
        return "end of file"
    ch = text[index]
    if ch == "\t":
        return "\\t"
    m = _WORD.match(text, index)
    if m:
        return unprotect(m.group(0))
    if ch.isspace():
        return "end of line" if ch == "\n" else repr(ch)[1:-1]
    return unprotect(ch)


class _Budget:
    """Counts nodes and depth as they are composed: a huge or deep document is refused at the
    node that crosses the budget, before the rest is read."""

    nodes = 0
    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):  # type: ignore[attr-defined]
            return super().compose_node(parent, index)  # type: ignore[misc]
        mark = self.peek_event().start_mark  # type: ignore[attr-defined]
        self.nodes += 1
        if self.nodes > LIMITS.max_nodes:
            raise YamlSyntaxError(f"more than {LIMITS.max_nodes} YAML nodes; a contract is not that large",
                                  mark.line + 1, mark.column + 1, "")
        self.depth += 1
        if self.depth > LIMITS.max_depth:
            raise YamlSyntaxError(f"nesting deeper than {LIMITS.max_depth} levels",
                                  mark.line + 1, mark.column + 1, "")
        try:
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self.depth -= 1


class _BudgetLoader(_Budget, yaml.SafeLoader):
    """The pure-Python SafeLoader with the budget: its errors are the ones users see."""


# libyaml's parser, when PyYAML was built with it (yaml.cyaml is imported only then)
_CParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)


if _CParser is not None:

    class _FastBudgetLoader(_Budget, yaml.composer.Composer, yaml.constructor.SafeConstructor,
                            yaml.resolver.Resolver, _CParser):  # type: ignore[misc]
        """libyaml's scanner and parser (C) under the same Python composer and budget: the
        same nodes and marks, a fraction of the time. Used only for text it parses without
        error; any error is re-read by `_BudgetLoader`, so messages never depend on libyaml."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

        def dispose(self) -> None:
            pass


_LIBYAML_DIFFERS = re.compile("[?\t\r\x85\u2028\u2029\ufeff]")

# libyaml's own composer (C), when PyYAML was built with it: the same nodes and marks as the
# Python composer over libyaml's events, without a Python call per node.
_CLoader: Any = getattr(yaml, "CSafeLoader", None)


def _has_empty_scalar(node: Any) -> bool:
    """An empty value (``{type: }``): libyaml places it one column after PyYAML does."""
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:  # an alias repeats a node (or a cycle: `&a [*a]`)
            continue
        seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            if n.start_mark.index == n.end_mark.index:
                return True
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                stack.extend((k, v))
    return False


def _c_budget(root: Any) -> int | None:
    """The nodes a document composed by libyaml's composer holds (each once, as `_Budget`
    counts them), or None when the budget's composer would refuse it or read it otherwise:
    more than `max_nodes` nodes, nesting deeper than `max_depth`, or an empty value (see
    `_has_empty_scalar`). Walked in document order, so a node an alias repeats is first met
    where its anchor composed it, at the depth the budget counted."""
    scalar, seq = yaml.ScalarNode, yaml.SequenceNode
    max_depth = LIMITS.max_depth
    stack: list[tuple[Any, int]] = [(root, 1)]
    seen: set[int] = set()
    while stack:
        n, depth = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if depth > max_depth:
            return None
        cls = n.__class__
        if cls is scalar:
            if n.start_mark.index == n.end_mark.index:
                return None
        elif cls is seq:
            stack.extend((c, depth + 1) for c in reversed(n.value))
        else:
            for k, v in reversed(n.value):
                stack.append((v, depth + 1))
                stack.append((k, depth + 1))
    return len(seen) if len(seen) <= LIMITS.max_nodes else None


def _compose_c(text: str) -> tuple[list[Any], int] | None:
    """The documents composed by libyaml alone (parser and composer in C), or None to read the
    text with the pure-Python loader instead.

    Only for text too short to hold more than `max_nodes` nodes (a node takes at least one
    character: ``{a,b}`` is four nodes), so the budget still holds while composing; libyaml
    refuses nesting deeper than 1000 levels itself, so its recursion is bounded. The depth and
    the empty values are checked after; anything else, an error included, reads the text again
    with the budget (whose errors are the ones users see)."""
    try:
        docs = _compose_with(_CLoader(text))[0]
    except (yaml.YAMLError, RecursionError):
        return None
    nodes = 0
    for d in docs:
        count = _c_budget(d)
        if count is None:
            return None
        nodes += count
    return docs, nodes


def _compose_with(loader: Any) -> tuple[list[Any], int]:
    try:
        docs = []
        while loader.check_node():
            docs.append(loader.get_node())
            if len(docs) > 1:
                break
        return docs, getattr(loader, "nodes", 0)
    finally:
        loader.dispose()


def _compose_all(text: str) -> tuple[list[Any], int]:
    # libyaml only for text the Python reader accepts character by character (libyaml's own
    # character checks differ) and without the characters the two count differently: tabs
    # (libyaml accepts them where PyYAML refuses), `?` (libyaml accepts it inside a plain scalar
    # in a flow collection, PyYAML refuses), a BOM inside the text (libyaml gives it no
    # column), line breaks other than LF, and no final newline (the end marks differ). Its marks count characters (astral ones as one)
    # like PyYAML's, except for an empty value (checked after). Found by comparing both on
    # thousands of mutated contracts.
    if (_CParser is not None and text.endswith("\n") and not _LIBYAML_DIFFERS.search(text)
            and not yaml.reader.Reader.NON_PRINTABLE.search(text)):
        if _CLoader is not None and 2 * len(text) + 2 <= LIMITS.max_nodes:
            fast = _compose_c(text)
            return fast if fast is not None else _compose_with(_BudgetLoader(text))
        try:
            docs, nodes = _compose_with(_FastBudgetLoader(text))
            if not any(_has_empty_scalar(d) for d in docs):
                return docs, nodes
        except (yaml.YAMLError, YamlSyntaxError, RecursionError):
            pass  # read again below: the pure-Python loader's message and position
    return _compose_with(_BudgetLoader(text))


def compose(text: str) -> tuple[YNode | None, list[tuple[YNode, YNode]], str]:
    """Parse YAML text into a positioned tree.

    Returns:
        (root or None for an empty document, duplicate keys as (dup, first) pairs, protected text).

    Raises:
        YamlSyntaxError: for malformed YAML or a multi-document stream.
    """
    protected = protect(text)
    try:
        nodes, composed = _compose_all(protected)
    except RecursionError:
        raise YamlSyntaxError("YAML nested too deeply", 1, 1, _word_at(protected, 0)) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        idx = mark.index if mark else 0
        word = _word_at(protected, idx)
        msg = _TOKEN_NAMES.sub(
            lambda m: f"but found {_TOKEN_WORDS[m.group(1)]}", str(e.problem or e.context or "malformed YAML")
        )
        msg = unprotect(msg)
        if word in ("\\t", "tab"):
            msg += "; indent with spaces, YAML forbids tabs"
        cm = e.context_mark
        if e.context and cm is not None and e.problem_mark is not None and cm.line != e.problem_mark.line:
            msg += f" ({e.context} at line {cm.line + 1})"
        raise YamlSyntaxError(msg, line, col, word) from None
    except yaml.reader.ReaderError as e:  # a raw character YAML forbids: position in characters
        pos = e.position
        line = protected.count("\n", 0, pos) + 1
        col = pos - (protected.rfind("\n", 0, pos) + 1) + 1
        ch = e.character if isinstance(e.character, str) else chr(e.character)
        raise YamlSyntaxError(f"this text holds the character U+{ord(ch):04X}, which YAML forbids and no "
                              "artifact can carry; remove it", line, col, f"U+{ord(ch):04X}", "TG116") from None
    except yaml.YAMLError as e:
        text_ = str(e).splitlines()[0] if str(e) else "unreadable YAML"
        raise YamlSyntaxError(text_, 1, 1, "") from None
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
    limits = _Limits(protected)
    limits.budget = composed + LIMITS.max_alias_nodes
    return _convert(nodes[0], dups, limits), dups, protected


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
