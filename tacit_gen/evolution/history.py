"""Earlier versions of a contract: from its git history (no extra files) or from a folder.

git is run as a subprocess (``git log --follow`` + ``git show <rev>:<path>``) in the repository
that holds the file; nothing is checked out, nothing is written.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tacit_gen.contract import yamlpos
from tacit_gen.contract.errors import ContractError, Diagnostic
from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.evolution.compat import dedupe
from tacit_gen.evolution.diff import diff
from tacit_gen.evolution.report import DiffReport
from tacit_gen.evolution.semver import sort_key


class HistoryError(RuntimeError):
    """git is missing, the file is not in a git work tree, or a folder of versions is unusable."""


class BaseError(HistoryError):
    """The gate's base revision cannot be found: a usage error (exit 2), never a silent skip."""


class HistoryWarning(UserWarning):
    """A committed revision of a contract that does not load and was left out of the history."""


def _git(args: list[str], cwd: Path) -> str:
    return _git_bytes(args, cwd).decode("utf-8", "replace")


def _show(root: Path, spec: str, label: str) -> str:
    """A committed file's text (`git show REV:PATH`).

    Raises:
        HistoryError: the revision or the file does not exist.
        ContractError: the bytes are not UTF-8 (with the position), like a file in the work tree.
    """
    data = _git_bytes(["show", spec], root)
    try:
        return yamlpos.decode(data)
    except yamlpos.YamlSyntaxError as e:
        raise ContractError([Diagnostic(label, e.line, e.col, "error", e.code, str(e), e.word)]) from None


def _load_committed(root: Path, spec: str, label: str) -> Contract:
    """The contract committed at `spec` (``REV:PATH``).

    Raises:
        HistoryError: no such file at that revision.
        ContractError: it does not decode or load (whatever the reason, as a diagnostic).
    """
    text = _show(root, spec, label)
    try:
        return load(label, text=text)
    except (RecursionError, ValueError) as e:
        raise ContractError([Diagnostic(label, 1, 1, "error", "TG100", f"does not load: {e}")]) from None


def _git_bytes(args: list[str], cwd: Path) -> bytes:
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
    return bytes(proc.stdout)


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
        label = f"{name}@{rev[:12]}"
        try:
            contracts.append(_load_committed(root, f"{rev}:{name}", label))
        except HistoryError:
            continue  # the commit deleted the file
        except ContractError as e:  # one old version is never fatal to the whole history
            note = f"{rev[:12]}: {e.diagnostics[0].render() if e.diagnostics else 'does not load'}"
            if skipped is not None:
                skipped.append(note)
            else:
                warnings.warn(f"left out of the history: {note}", HistoryWarning, stacklevel=2)
    return dedupe(contracts)


@dataclass(frozen=True)
class CommittedVersion:
    """One version of a contract as committed: the last commit that holds it, its committer date
    (ISO-8601, from git) and the contract loaded from that commit."""

    commit: str
    date: str
    contract: Contract


def committed_versions(path: str | os.PathLike[str],
                       skipped: list[str] | None = None) -> list[CommittedVersion]:
    """`history_from_git` with the commit and date of each version, oldest first.

    Raises:
        HistoryError: git is missing, or the file is not in a git work tree.
    """
    root = repo_root(path)
    by_label = {c.path: c for c in history_from_git(path, [] if skipped is None else skipped)}
    out = []
    for rev, name in _committed(root, _rel(path, root)):
        contract = by_label.get(f"{name}@{rev[:12]}")
        if contract is not None:
            date = _git(["show", "-s", "--format=%cI", rev], root).strip()
            out.append(CommittedVersion(rev, date, contract))
    return out


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


@dataclass(frozen=True)
class Base:
    """The revision the version gate compares with, and why that one (printed by `check`)."""

    rev: str  # a full commit id, or "" when there is no commit to compare with (every file is new)
    spec: str  # what was asked for or defaulted to: "HEAD", "origin/main", ...
    why: str


def _is_shallow(root: Path) -> bool:
    try:
        return _git(["rev-parse", "--is-shallow-repository"], root).strip() == "true"
    except HistoryError:
        return False


def _fetch_hint(root: Path, spec: str) -> str:
    if _is_shallow(root):
        return ("the checkout is shallow: run `git fetch --unshallow` (GitHub Actions: "
                "actions/checkout with `fetch-depth: 0`)")
    if spec.startswith("origin/") and spec != "origin/HEAD":
        branch = spec.removeprefix("origin/")
        return f"fetch it: `git fetch origin {branch}:refs/remotes/origin/{branch}`"
    if spec == "origin/HEAD":
        return "set it: `git remote set-head origin --auto`, or pass `--base origin/<default branch>`"
    return "fetch it (`git fetch origin <branch>`) or name an existing revision"


def _commit_of(root: Path, spec: str) -> str | None:
    try:
        return _git(["rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"], root).strip() or None
    except HistoryError:
        return None


def resolve_base(start: str | os.PathLike[str], base: str | None = None,
                 env: Mapping[str, str] | None = None) -> Base:
    """The revision the version gate compares the working tree with.

    An explicit `base` is used through its merge base with HEAD (the point the branch forked,
    as a pull request's diff does). With no `base`: in CI (``CI=true``) the merge base with the
    default branch (``origin/$GITHUB_BASE_REF`` when set, else ``origin/HEAD``), and the previous
    commit when HEAD is on that branch; outside CI, ``HEAD`` (the uncommitted change).

    Raises:
        BaseError: the revision is unknown, or the history is too shallow to find the merge
            base; the message is one line that says how to fetch it.
        HistoryError: not a git work tree, or git is missing.
    """
    env = os.environ if env is None else env
    root = repo_root(start)
    head = _commit_of(root, "HEAD")
    in_ci = env.get("CI", "").strip().lower() in ("true", "1", "yes")
    if base is None and not in_ci:
        if head is None:
            return Base("", "HEAD", "no commit yet: every contract is new")
        return Base(head, "HEAD", "HEAD, outside CI; with CI=true the default is the merge base "
                                  "with the default branch")
    if base is None:
        ref = env.get("GITHUB_BASE_REF", "").strip()
        spec = f"origin/{ref}" if ref else "origin/HEAD"
        asked = f"CI=true: the default branch ({spec})"
    else:
        spec, asked = base, f"--base {base}"
    commit = _commit_of(root, spec)
    if commit is None:
        raise BaseError(f"{asked}: unknown revision '{spec}'; {_fetch_hint(root, spec)}")
    if head is None:
        return Base(commit, spec, f"{asked} (no commit on this branch yet)")
    if commit == head and base is None:
        parent = _commit_of(root, "HEAD~1")
        if parent is None:
            return Base("", spec, f"{asked}: HEAD is its first commit, every contract is new")
        return Base(parent, spec, f"{asked}: HEAD is on it, compared with the previous commit")
    try:
        merge_base = _git(["merge-base", commit, head], root).strip()
    except HistoryError:
        merge_base = ""
    if not merge_base:
        if _is_shallow(root):
            raise BaseError(f"{asked}: no merge base with HEAD in a shallow history; "
                            f"{_fetch_hint(root, spec)}")
        raise BaseError(f"{asked}: '{spec}' shares no history with HEAD; pass the branch this "
                        "one was made from")
    return Base(merge_base, spec, f"{asked}, merge base {merge_base[:12]}")


def read_at_revision(spec: str, cwd: str | os.PathLike[str] = ".") -> str:
    """The text of ``REV:path`` (as `git show` reads it: the path from the repository root, or
    ``REV:./path`` from `cwd`).

    Raises:
        BaseError: the revision or the path at that revision is unknown (one line, with a hint).
        HistoryError: not a git work tree, or git is missing.
    """
    rev, _, rel = spec.partition(":")
    root = repo_root(cwd)
    if not rev or not rel:
        raise BaseError(f"'{spec}': write REV:path (e.g. origin/main:contracts/orders.yaml)")
    if _commit_of(root, rev) is None:
        raise BaseError(f"'{spec}': unknown revision '{rev}'; {_fetch_hint(root, rev)}")
    try:
        return _git(["show", spec], Path(cwd))
    except HistoryError:
        raise BaseError(f"'{spec}': no file '{rel}' at {rev}") from None


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
    if base_rev == "":
        return None  # no commit to compare with: every file is new
    if _commit_of(root, base_rev) is None:
        if base_rev == "HEAD":
            return None  # a repository without commits: every file is new
        raise BaseError(f"unknown revision '{base_rev}'; {_fetch_hint(root, base_rev)}")
    try:
        old_text = _show(root, f"{base_rev}:{rel}", f"{rel}@{base_rev}")
    except HistoryError:
        return None  # the file is new in the working tree
    try:
        new_text = yamlpos.read_text(path)
    except yamlpos.YamlSyntaxError as e:
        raise ContractError([Diagnostic(str(path), e.line, e.col, "error", e.code, str(e), e.word)]) from None
    if new_text == old_text:
        return None
    old = load(f"{rel}@{base_rev}", text=old_text)
    new = load(path, text=new_text)
    return diff(old, new)
