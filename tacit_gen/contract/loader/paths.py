"""Paths as messages and headers show them: relative to the working directory or the project root."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from tacit_gen.contract import yamlpos
from tacit_gen.contract.yamlpos import YNode


def canonical_data(root: YNode) -> Any:
    """The contract as plain data with sorted keys: what the canonical hash covers."""
    return yamlpos.plain(root)


def display_path(path: str | os.PathLike[str], resolved: str | None = None) -> str:
    """A path as shown in messages: relative to the working directory when below it, else as
    given (so an editor can open it). `resolved`: its `realpath`, when the caller has it."""
    resolved = os.path.realpath(path) if resolved is None else resolved
    cwd = _real_cwd(os.getcwd())
    if resolved == cwd:
        return "."
    prefix = cwd if cwd.endswith(os.sep) else cwd + os.sep
    if resolved.startswith(prefix):
        return Path(resolved[len(prefix):]).as_posix()
    return Path(path).as_posix()


@functools.lru_cache(maxsize=16)
def _real_cwd(cwd: str) -> str:
    """The working directory with its links resolved (keyed by its name: one per folder)."""
    return os.path.realpath(cwd)


def project_root(path: str | os.PathLike[str]) -> Path:
    """The folder artifact headers name contracts from: the enclosing git checkout's top level
    (a `.git` folder or file), else the folder holding the nearest `contracts/` folder, else the
    file's own folder. Never the working directory: the same contract gets the same header
    wherever the command runs."""
    return Path(root_of(os.path.realpath(path)))


def root_of(resolved: str) -> str:
    """`project_root` of a path already resolved, as a string."""
    parents = []
    folder = os.path.dirname(resolved)
    while True:
        parents.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            break
        folder = up
    for folder in parents:
        if os.path.basename(folder) == "contracts":
            return os.path.dirname(folder)
    return parents[0]


def portable_path(path: str | os.PathLike[str]) -> str:
    """A path for artifact headers, never machine-specific: relative to `project_root`."""
    resolved = os.path.realpath(path)
    return Path(os.path.relpath(resolved, root_of(resolved))).as_posix()
