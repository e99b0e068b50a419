"""pint's answers for units outside the shipped table, remembered on disk between runs.

Building pint's registry costs about 0.4 s, more than the rest of `lint`. The shipped table
(`unit_table.py`) answers for the common units; a contract naming another unit (``furlong /
fortnight``, ``widgets_per_crate``) pays for the registry on its first run only: each answer
(`resolve`, `same_unit`, `dimension_of`, `multiply` in `units.py`) is written to
``units-<key>.json`` in the cache folder (`tacit_gen.diskcache`), and a later run with the same
question reads it without importing pint.

The file's key is what pint's answers depend on: the installed pint version, the Python version
and the text of `units.py` (the currencies, count units and invented dimensions it defines). An
answer about a text that holds the name of a unit invented earlier in the run (pint reads ``kfoo``
as kilo-``foo`` once ``foo`` is defined) is keyed by those names too. Only answers are cached,
never a failure other than "not a unit" (that one is an answer: `UnitError`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tacit_gen import diskcache, installed

_state: dict[str, Any] = {}


def _file() -> tuple[str, dict[str, Any]]:
    if not _state:
        source = Path(__file__).with_name("units.py").read_bytes().decode("utf-8", "replace")
        name = f"units-{diskcache.key(installed.version('pint') or '-', sys.version, source)}.json"
        _state.update(name=name, answers=dict((diskcache.load(name) or {}).get("answers") or {}))
    return _state["name"], _state["answers"]


def _entry(kind: str, args: tuple[str, ...], invented: Iterable[str]) -> str:
    relevant = sorted(n for n in invented if any(n in a for a in args))
    return "\x1f".join((kind, *args, "|", *relevant))


def cached(kind: str, args: tuple[str, ...], invented: Iterable[str],
           compute: Callable[[], Any]) -> Any:
    """The answer to `kind(*args)`: from the cache file, else `compute()` (which builds pint's
    registry), remembered. `compute` returns JSON data; an exception it raises is not cached."""
    name, answers = _file()
    entry = _entry(kind, args, invented)
    if entry in answers:
        return answers[entry]
    value = compute()
    answers[entry] = value
    diskcache.store(name, {"pint": installed.version("pint"), "answers": answers})
    return value
