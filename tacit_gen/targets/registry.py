"""The target registry: one line per target; modules are imported only when used."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tacit_gen.targets.base import Target

TARGETS: dict[str, str] = {
    "dbt": "tacit_gen.targets.dbt",
    "soda": "tacit_gen.targets.soda",
    "gx": "tacit_gen.targets.gx",
    "pandera": "tacit_gen.targets.pandera",
    "ibis": "tacit_gen.targets.ibis",
}
ENGINES: dict[str, str] = {
    "dbt": "tacit_gen.targets.dbt.engine",
    "soda": "tacit_gen.targets.soda.engine",
    "gx": "tacit_gen.targets.gx.engine",
    "pandera": "tacit_gen.targets.pandera.engine",
    "ibis": "tacit_gen.targets.ibis.engine",
}


def names() -> tuple[str, ...]:
    return tuple(TARGETS)


def get(name: str) -> Target:
    """The target object registered under `name`."""
    if name not in TARGETS:
        raise KeyError(f"unknown target '{name}' (known: {', '.join(TARGETS)})")
    module = importlib.import_module(TARGETS[name])
    return module.TARGET  # type: ignore[no-any-return]


def parse_targets(spec: str | None) -> tuple[str, ...]:
    """`dbt,soda` -> ('dbt', 'soda'); None or 'all' -> every target."""
    if not spec or spec == "all":
        return names()
    out = []
    for part in spec.split(","):
        part = part.strip()
        if part not in TARGETS:
            raise KeyError(f"unknown target '{part}' (known: {', '.join(TARGETS)})")
        if part not in out:
            out.append(part)
    return tuple(out)
