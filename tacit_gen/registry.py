"""The target registry: the built-in targets, plus any package's `tacit_gen.targets` entry points.

A target is found by name and imported only when used. An outside package adds one with an entry
point naming an object that follows `tacit_gen.targets.base.Target`::

    [project.entry-points."tacit_gen.targets"]
    markdown = "tacit_markdown:TARGET"

This module imports nothing of the generator (targets are imported by name, on demand), so every
layer may ask it which targets exist, the contract loader included.
"""

from __future__ import annotations

import importlib
from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tacit_gen.targets.base import Target

GROUP = "tacit_gen.targets"
PROTOCOL = "tacit_gen.targets.base"  # the module of the Target protocol and `as_target`

# name -> "module:attribute" of the Target object, in the order `--target all` renders them.
BUILTIN: dict[str, str] = {
    "dbt": "tacit_gen.targets.dbt:TARGET",
    "soda": "tacit_gen.targets.soda:TARGET",
    "soda4": "tacit_gen.targets.soda4:TARGET",
    "gx": "tacit_gen.targets.gx:TARGET",
    "pandera": "tacit_gen.targets.pandera:TARGET",
    "ibis": "tacit_gen.targets.ibis:TARGET",
    "avro": "tacit_gen.targets.avro:TARGET",
    "protobuf": "tacit_gen.targets.protobuf:TARGET",
    "jsonschema": "tacit_gen.targets.jsonschema:TARGET",
}


@lru_cache(maxsize=1)
def _entry_points() -> dict[str, str]:
    """Targets other packages declare in the entry-point group (built-in names win); the scan is
    remembered on disk until a distribution changes (`tacit_gen.installed`)."""
    from tacit_gen import installed

    return {name: value for name, value in installed.entry_points(GROUP) if name not in BUILTIN}


def _table() -> dict[str, str]:
    return {**BUILTIN, **_entry_points()}


def names() -> tuple[str, ...]:
    """Every registered target: the built-in ones, then entry points by name."""
    return tuple(_table())


def get(name: str) -> Target:
    """The target registered under `name`.

    Raises:
        KeyError: for an unknown name (the message lists the known ones).
    """
    table = _table() if name not in BUILTIN else BUILTIN
    if name not in table:
        raise KeyError(f"unknown target '{name}' (known: {', '.join(_table())})")
    return _load(table[name])


def without_engine(targets: tuple[str, ...], engine: str) -> list[str]:
    """The targets that cannot be verified on `engine` (``duckdb``, ``postgres``, ``spark``):
    those with no engine at all, and those whose ``verify_engines`` leave it out (soda4 runs on
    DuckDB and PostgreSQL only). `verify` and the benchmarks drop them."""
    return [t for t in targets if get(t).engine is None
            or engine not in getattr(get(t), "verify_engines", (engine,))]


@cache
def _load(spec: str) -> Target:
    module, _, attr = spec.partition(":")
    obj = importlib.import_module(module)
    for part in (attr or "TARGET").split("."):
        obj = getattr(obj, part)
    # An outside target that does not subclass the protocol gets its defaults; the protocol is
    # imported by name, as the targets are (this module sits below every layer).
    return importlib.import_module(PROTOCOL).as_target(obj)  # type: ignore[no-any-return]


def parse_targets(spec: str | None) -> tuple[str, ...]:
    """`dbt,soda` -> ('dbt', 'soda'); None or 'all' -> every target."""
    if not spec or spec == "all":
        return names()
    known = names()
    out = []
    for part in spec.split(","):
        part = part.strip()
        if part not in known:
            import difflib  # only for the error (tacit_gen.diagnostics is this layer's sibling)

            close = difflib.get_close_matches(part, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise KeyError(f"unknown target '{part}'{hint} (known: {', '.join(known)})")
        if part not in out:
            out.append(part)
    return tuple(out)
