"""One deterministic YAML writer (and its reader) for SodaCL: numbers written as typed, SQL as
literal blocks, keys in insertion order."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tacit_gen.yamltext import BlockWriter


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
    """`data` as YAML: the text PyYAML's emitter writes with `_Dumper`, byte for byte, written
    directly where `tacit_gen.yamltext` can (PyYAML's pure-Python emitter was a third of a
    render)."""
    direct = write_direct(data)
    return pyyaml_dump(data) if direct is None else direct


_WRITER = BlockWriter(pyyaml_dump, indentless=False, literal=Block, scalars=(Num,))


def write_direct(data: Any) -> str | None:
    """`data` written without PyYAML's emitter, or None for a shape left to PyYAML."""
    return _WRITER.write(data)


class Loader(yaml.SafeLoader):
    """Safe loader that keeps numbers as their exact text (`Num`), so bounds round-trip."""


def _num_ctor(loader: yaml.SafeLoader, node: yaml.Node) -> Num:
    return Num(loader.construct_scalar(node))  # type: ignore[arg-type]


class FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """`Loader` on libyaml's parser where installed: the engines read their own checks back with
    it (the pure-Python parser was a tenth of a batch's Soda CPU); `check` keeps `Loader`, whose
    error messages it reports."""


for _loader in (Loader, FastLoader):
    _loader.add_constructor("tag:yaml.org,2002:int", _num_ctor)
    _loader.add_constructor("tag:yaml.org,2002:float", _num_ctor)


def load_yaml(text: str, fast: bool = False) -> Any:
    """YAML text with its numbers as `Num`; `fast`: libyaml's parser (`FastLoader`)."""
    return yaml.load(text, Loader=FastLoader if fast else Loader)
