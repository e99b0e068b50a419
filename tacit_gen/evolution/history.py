"""Earlier versions of a contract: from its git history (no extra files) or from a folder.

git is run as a subprocess (``git log --follow`` + ``git show <rev>:<path>``) in the repository
that holds the file; nothing is checked out, nothing is written.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.evolution.compat import dedupe
from tacit_gen.evolution.diff import diff
from tacit_gen.evolution.report import DiffReport
from tacit_gen.evolution.semver import sort_key


class HistoryError(RuntimeError):
    """git is missing, the file is not in a git work tree, or a folder of versions is unusable."""


class HistoryWarning(UserWarning):
    """A committed revision of a contract that does not load and was left out of the history."""


def _git(args: list[str], cwd: Path) -> str:
    env = {**os.environ, "GIT_PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotepath=off", "-c", "log.showSignature=false", *args],
            cwd=cwd, capture_output=True, env=env, check=False,
        )
    except FileNotFoundError as e:
        raise HistoryError("git is not installed") from e
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip()
        raise HistoryError(f"git {' '.join(args[:2])} failed: {msg}")
    return proc.stdout.decode("utf-8")


def repo_root(path: str | os.PathLike[str]) -> Path:
    """The top of the git work tree holding `path`.

    Raises:
        HistoryError: not in a git work tree, or git is missing.
    """
    p = Path(path).resolve()
    start = p if p.is_dir() else p.parent
    if not start.exists():
        raise HistoryError(f"{start} does not exist")
    return Path(_git(["rev-parse", "--show-toplevel"], start).strip()).resolve()


def _rel(path: str | os.PathLike[str], root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError as e:
        raise HistoryError(f"{path} is not inside the git work tree {root}") from e


def _committed(root: Path, rel: str) -> list[tuple[str, str]]:
    """(commit, path at that commit) for every commit that touched the file, oldest first."""
    out = _git(["log", "--follow", "--format=%x00%H", "--name-only", "--", rel], root)
    entries = []
    for chunk in out.split("\x00"):
        lines = [ln for ln in chunk.splitlines() if ln.strip()]
        if len(lines) >= 2:
            entries.append((lines[0].strip(), lines[-1].strip()))
    entries.reverse()
    return entries


def history_from_git(path: str | os.PathLike[str], skipped: list[str] | None = None) -> list[Contract]:
    """Every committed version of the contract at `path`, oldest first, following renames.

    The working-tree file is not included (the caller appends it: `compat([*history, current])`
    keeps the last contract of each version). A version committed several times keeps its last
    commit. A commit whose file does not load is left out and reported in `skipped` (as
    ``"<commit>: <first error>"``), or as a `HistoryWarning` when `skipped` is None.

    Raises:
        HistoryError: git is missing, or the file is not in a git work tree.
    """
    root = repo_root(path)
    rel = _rel(path, root)
    contracts: list[Contract] = []
    for rev, name in _committed(root, rel):
        try:
            text = _git(["show", f"{rev}:{name}"], root)
        except HistoryError:
            continue  # the commit deleted the file
        try:
            contracts.append(load(f"{name}@{rev[:12]}", text=text))
        except ContractError as e:
            note = f"{rev[:12]}: {e.diagnostics[0].render() if e.diagnostics else 'does not load'}"
            if skipped is not None:
                skipped.append(note)
            else:
                warnings.warn(f"left out of the history: {note}", HistoryWarning, stacklevel=2)
    return dedupe(contracts)


def history_from_dir(folder: str | os.PathLike[str]) -> list[Contract]:
    """Every contract file (``*.yaml``, ``*.yml``) in a folder, oldest first by semver.

    Raises:
        ValueError: a file that does not load, two files with the same version, or no files.
    """
    root = Path(folder)
    files = sorted(p for p in root.iterdir() if p.is_file() and p.suffix in (".yaml", ".yml"))
    if not files:
        raise ValueError(f"no contract files (*.yaml) in {root.as_posix()}")
    contracts: list[Contract] = []
    for f in files:
        try:
            contracts.append(load(f))
        except ContractError as e:
            raise ValueError(str(e)) from None
    by_version: dict[str, Contract] = {}
    for c in contracts:
        if c.version in by_version:
            raise ValueError(f"{by_version[c.version].path} and {c.path} both declare version {c.version}")
        by_version[c.version] = c
    return sorted(contracts, key=lambda c: sort_key(c.version))


def check_bump(path: str | os.PathLike[str], base_rev: str = "HEAD") -> DiffReport | None:
    """The CI version gate: diff the committed contract at `base_rev` with the working-tree file.

    Returns None when the file is new (not in `base_rev`) or byte-identical to it; otherwise the
    `DiffReport`, whose `ok` is False when the declared version bump is too small, went backwards,
    or stayed the same with changes.

    Raises:
        HistoryError: git is missing, or the file is not in a git work tree.
        ContractError: the working-tree file, or the committed one, does not load.
    """
    root = repo_root(path)
    rel = _rel(path, root)
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{base_rev}^{{commit}}"], root)
    except HistoryError:
        if base_rev == "HEAD":
            return None  # a repository without commits: every file is new
        raise HistoryError(f"unknown revision '{base_rev}'") from None
    try:
        old_text = _git(["show", f"{base_rev}:{rel}"], root)
    except HistoryError:
        return None  # the file is new in the working tree
    new_text = Path(path).read_text(encoding="utf-8")
    if new_text == old_text:
        return None
    old = load(f"{rel}@{base_rev}", text=old_text)
    new = load(path, text=new_text)
    return diff(old, new)
