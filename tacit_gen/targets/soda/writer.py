"""One deterministic YAML writer (and its reader) for SodaCL: numbers written as typed, SQL as
literal blocks, keys in insertion order."""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml


class Num(str):
    """A number kept as its exact decimal text; written as a plain YAML number."""


class Block(str):
    """Multi-line text (SQL), written as a YAML literal block."""


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _num_repr(dumper: yaml.SafeDumper, value: Num) -> yaml.Node:
    tag = "tag:yaml.org,2002:int" if re.fullmatch(r"-?\d+", value) else "tag:yaml.org,2002:float"
    return dumper.represent_scalar(tag, str(value))


def _block_repr(dumper: yaml.SafeDumper, value: Block) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


_Dumper.add_representer(Num, _num_repr)
_Dumper.add_representer(Block, _block_repr)


def pyyaml_dump(data: Any) -> str:
    """`data` through PyYAML's emitter: the text `dump` writes (and the reference its tests use)."""
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
        default_flow_style=False,
    )


def dump(data: Any) -> str:
    """`data` as YAML: the text PyYAML's emitter writes with `_Dumper`, byte for byte.

    The common shapes (block mappings and sequences, plain keys, literal SQL blocks) are written
    directly; every scalar whose style is not obvious is written once by PyYAML itself and the
    text reused; anything else (an alias, a complex key, a multi-line quoted scalar) falls back to
    PyYAML for the whole document. PyYAML's pure-Python emitter was most of a render's time.
    """
    direct = write_direct(data)
    return pyyaml_dump(data) if direct is None else direct


def write_direct(data: Any) -> str | None:
    """`data` written without PyYAML's emitter, or None for a shape left to PyYAML."""
    out: list[str] = []
    try:
        _block(data, 0, out, set())
    except _Fallback:
        return None
    return "".join(out)


class _Fallback(Exception):
    """A shape the direct writer does not write: PyYAML writes the whole document."""


# A string PyYAML writes plain in block context, if it resolves to a string (no indicator, no
# leading or trailing space, no line break, printable ASCII).
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_ ./()=<>*+-]*(?<! )")
_LITERAL_OK = re.compile(r"[\x20-\x7e\n]*")  # printable ASCII and \n: '|' allowed unless ' \n'


_RESOLVER = yaml.resolver.Resolver()  # the one SafeDumper uses


def _resolves_to_str(text: str) -> bool:
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str"


@functools.lru_cache(maxsize=8192, typed=True)  # typed: Block("x"), "x"; True, 1 differ
def _key(value: Any) -> str:
    """A mapping key as PyYAML writes it (simple keys only)."""
    if type(value) is str and len(value) < 128 and _PLAIN.fullmatch(value) and _resolves_to_str(value):
        return str(value)
    text = pyyaml_dump({value: None})
    if not text.endswith(": null\n") or text.count("\n") != 1 or text.startswith("? "):
        raise _Fallback
    return text[: -len(": null\n")]


@functools.lru_cache(maxsize=8192, typed=True)
def _scalar(value: Any) -> str:
    """What PyYAML writes after ``key:`` for a scalar value (leading space, trailing newline),
    for a mapping at indent 0: a literal block's lines are indented by 2."""
    kind = type(value)
    if kind is str and _PLAIN.fullmatch(value) and _resolves_to_str(value):
        return f" {value}\n"
    if kind is Block and value and _LITERAL_OK.fullmatch(value) and " \n" not in value \
            and not value.endswith((" ", "\n\n")) and value[0] not in " \n" and value != "\n":
        body = value[:-1] if value.endswith("\n") else value
        lines = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
        return (" |\n" if value.endswith("\n") else " |-\n") + lines
    if isinstance(value, str) and any(c in value for c in "\x85\u2028\u2029"):
        raise _Fallback  # line breaks the re-indenting below does not see
    text = pyyaml_dump({"k": value})
    if not text.startswith("k:") or text.endswith("...\n"):
        raise _Fallback
    rest = text[2:]
    if rest.count("\n") > 1 and not rest.startswith((" |", " >")):
        raise _Fallback  # a multi-line quoted scalar: its continuation lines depend on context
    return rest


def _value(head: str, value: Any, indent: int, out: list[str], seen: set[int]) -> None:
    """`head` (``key:`` or ``-`` at its indent) followed by `value`, whose container is at
    `indent`."""
    if type(value) in (dict, list):  # exact types: PyYAML's SafeDumper refuses subclasses
        if not value:
            out.append(head + (" {}\n" if type(value) is dict else " []\n"))
            return
        out.append(head + "\n")
        _block(value, indent + 2, out, seen)
        return
    kind = type(value)
    if kind not in (str, Num, Block, bool, int) and value is not None:
        raise _Fallback
    text = _scalar(value)
    if indent and text.count("\n") > 1:  # a literal block: its lines follow the container
        first, _, lines = text.partition("\n")
        pad = " " * indent
        text = first + "\n" + "".join(
            pad + line + "\n" if line else "\n" for line in lines[:-1].split("\n"))
    out.append(head + text)


def _block(data: Any, indent: int, out: list[str], seen: set[int], inline: bool = False) -> None:
    """A non-empty block mapping or sequence at `indent`; `inline`: its first line continues a
    ``- `` already written."""
    if id(data) in seen:
        raise _Fallback  # PyYAML writes an anchor and an alias
    seen.add(id(data))
    pad = " " * indent
    if type(data) is dict and data:
        for i, (k, v) in enumerate(data.items()):
            if type(k) not in (str, Num, bool, int):
                raise _Fallback
            _value(("" if inline and i == 0 else pad) + _key(k) + ":", v, indent, out, seen)
    elif type(data) is list and data:
        for i, item in enumerate(data):
            head = ("" if inline and i == 0 else pad) + "-"
            if type(item) in (dict, list) and item:
                out.append(head + " ")
                _block(item, indent + 2, out, seen, inline=True)
            else:
                _value(head, item, indent, out, seen)
    else:
        raise _Fallback  # a scalar or an empty collection at the root


class Loader(yaml.SafeLoader):
    """Safe loader that keeps numbers as their exact text (`Num`), so bounds round-trip."""


def _num_ctor(loader: yaml.SafeLoader, node: yaml.Node) -> Num:
    return Num(loader.construct_scalar(node))  # type: ignore[arg-type]


Loader.add_constructor("tag:yaml.org,2002:int", _num_ctor)
Loader.add_constructor("tag:yaml.org,2002:float", _num_ctor)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=Loader)
