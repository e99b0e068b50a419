"""What is installed (entry points of a group, a distribution's version), remembered on disk.

`importlib.metadata` costs a command's start more than the rest of its argument parsing: it imports
`email`, `zipfile` and `csv`, then reads the metadata of every installed distribution. Its answers
change only when a distribution is installed, removed or rewritten, so they are kept in the cache
(`tacit_gen.diskcache`) in a file named by a fingerprint of the interpreter, `sys.path`, and for
each folder on it: the folder's modification time, the name of every ``*.dist-info`` and
``*.egg-info`` in it (the name holds the version) and the modification time and size of its
``entry_points.txt`` and ``METADATA``/``PKG-INFO``. Installing, upgrading or removing a package
(editable ones included) changes the fingerprint. Computing it is one directory listing per
`sys.path` folder and two `stat` calls per installed distribution (a few milliseconds).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tacit_gen import diskcache

_META = (".dist-info", ".egg-info")
_FILES = ("entry_points.txt", "METADATA", "PKG-INFO")


def _fingerprint() -> str:
    parts = [sys.version, sys.executable]
    for entry in sys.path:
        folder = entry or "."
        parts.append(entry)
        try:
            parts.append(str(os.stat(folder).st_mtime_ns))
            with os.scandir(folder) as it:
                metas = sorted(e.name for e in it if e.name.endswith(_META))
        except OSError:  # a missing folder, or a zip file (its own mtime above is its key)
            continue
        for name in metas:
            parts.append(name)
            for f in _FILES:
                try:
                    st = os.stat(os.path.join(folder, name, f))
                    parts.append(f"{f}:{st.st_mtime_ns}:{st.st_size}")
                except OSError:
                    pass
    return "\n".join(parts)


_state: dict[str, Any] = {}


def _cache() -> tuple[str, dict[str, Any]]:
    """(file name, its answers) for this interpreter as installed now; read once per process."""
    if not _state:
        name = f"installed-{diskcache.key(_fingerprint())}.json"
        data = diskcache.load(name) or {}
        _state.update(name=name, data={"entry_points": dict(data.get("entry_points") or {}),
                                       "versions": dict(data.get("versions") or {})})
    return _state["name"], _state["data"]


def entry_points(group: str) -> list[tuple[str, str]]:
    """(name, value) of every entry point in `group`, sorted by name, the first of a name kept,
    as `importlib.metadata.entry_points(group=group)` gives them."""
    name, data = _cache()
    got = data["entry_points"].get(group)
    if isinstance(got, list):
        return [(str(n), str(v)) for n, v in got]
    from importlib.metadata import entry_points as scan

    found: dict[str, str] = {}
    for ep in sorted(scan(group=group), key=lambda e: e.name):
        found.setdefault(ep.name, ep.value)
    out = sorted(found.items())
    data["entry_points"][group] = [list(p) for p in out]
    diskcache.store(name, data)
    return out


def version(distribution: str) -> str | None:
    """The installed version of `distribution` (`importlib.metadata.version`), or None."""
    name, data = _cache()
    if distribution in data["versions"]:
        got = data["versions"][distribution]
        return None if got is None else str(got)
    from importlib import metadata

    try:
        found: str | None = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        found = None
    data["versions"][distribution] = found
    diskcache.store(name, data)
    return found
