"""Small JSON answers kept on disk between runs, so a command's start does not pay twice for the
same slow computation (issue 16: the target entry-point scan, pint's unit registry).

Files live in ``$TACIT_GEN_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/tacit-gen`` (default
``~/.cache``). Each file's name carries the key of everything its answers depend on, so a stale
answer is never read: a changed input is a different file. A cache that cannot be read or written
(read-only home, a half-written file from a killed run) is a miss, never an error: the caller
computes the answer as if there were no cache. Writes are atomic (a temporary file, then rename),
so two runs at once each see a whole file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

# The top folder's answers (entry points, units, sessions): one per environment and input, so
# a machine that saw many (a fresh virtual environment per CI run) keeps the newest of them.
MAX_TOP = 256


def cache_dir() -> Path:
    """The folder of tacit-gen's cache files (see the module docstring)."""
    explicit = os.environ.get("TACIT_GEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tacit-gen"


def key(*parts: str) -> str:
    """A short stable hash of `parts`, for a cache file's name."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def load(name: str) -> dict[str, Any] | None:
    """The JSON object stored under `name`, or None (absent, unreadable, not an object)."""
    try:
        data = json.loads((cache_dir() / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def store(name: str, data: dict[str, Any], folder: Path | None = None) -> bool:
    """Write `data` under `name` (in `folder`, default `cache_dir()`) atomically; True when written.
    A failure to write is ignored (the cache is optional)."""
    return store_bytes(name, json.dumps(data, sort_keys=True, separators=(",", ":")).encode("ascii"), folder)


def store_bytes(name: str, data: bytes, folder: Path | None = None) -> bool:
    """`store` of a file's bytes already made."""
    from tacit_gen import atomic

    folder = cache_dir() if folder is None else folder
    try:
        atomic.write(folder / name, data)
    except OSError:
        return False
    if folder == cache_dir():  # one answer per key, and keys change with each environment
        prune(folder, MAX_TOP)
    return True


def prune(folder: Path, most: int, keep_since: float | None = None,
          suffixes: tuple[str, ...] = (".json",)) -> None:
    """Keep at most `most` files named with one of `suffixes` in `folder`: past that, remove the
    least recently used (oldest modification time) down to three quarters of it, never one used
    at or after `keep_since` (a run's own entries: a repository of more contracts than `most`
    keeps all of its own, instead of evicting them as it writes them). Errors are ignored."""
    import contextlib

    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(suffixes)]
    except OSError:
        return
    if len(entries) <= most:
        return

    def used(e: os.DirEntry[str]) -> float:
        try:
            return e.stat().st_mtime
        except OSError:
            return 0.0

    old = [e for e in entries if keep_since is None or used(e) < keep_since]
    for e in sorted(old, key=used)[: len(entries) - most * 3 // 4]:
        with contextlib.suppress(OSError):
            os.unlink(e.path)
