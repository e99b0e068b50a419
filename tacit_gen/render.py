"""Render contracts into artifacts: deterministic, atomic, with a stale check that never writes."""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tacit_gen.contract.errors import ContractError, Diagnostic
from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.plan import plan
from tacit_gen.targets import registry
from tacit_gen.targets.base import Artifact, RenderOptions, Unsupported
from tacit_gen.targets.header import GENERATED_MARK

CONTRACT_SUFFIXES = (".yaml", ".yml")


def find_contracts(paths: list[str] | tuple[str, ...]) -> list[Path]:
    """Contract files under the given files or folders, sorted."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            # Everything named *.yaml but a folder: a FIFO or a device is listed, and then
            # refused by the loader with a message, never silently skipped or opened blocking.
            out.extend(sorted(q for q in path.rglob("*") if q.suffix in CONTRACT_SUFFIXES and not q.is_dir()))
        else:
            out.append(path)
    seen: set[Path] = set()
    uniq = []
    for q in out:
        if q not in seen:
            seen.add(q)
            uniq.append(q)
    return uniq


def target_enabled(contract: Contract, target: str) -> bool:
    return contract.target_option(target, "enabled", True) is not False


@dataclass
class RenderRun:
    """Everything one render produced, before anything is written."""

    artifacts: list[Artifact] = field(default_factory=list)
    unsupported: list[Unsupported] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    contracts: list[Contract] = field(default_factory=list)


def render_contract(contract: Contract, targets: tuple[str, ...], options: RenderOptions) -> tuple[list[Artifact], list[Unsupported]]:
    clauses = plan(contract)
    arts: list[Artifact] = []
    unsupported: list[Unsupported] = []
    for name in targets:
        if not target_enabled(contract, name):
            continue
        result = registry.get(name).render(contract, clauses, options)
        arts.extend(result.artifacts)
        unsupported.extend(result.unsupported)
    return arts, unsupported


def render_all(paths: list[Path], targets: tuple[str, ...], options: RenderOptions) -> RenderRun:
    run = RenderRun()
    for p in paths:
        try:
            contract = load(p)
        except ContractError as e:
            run.errors.extend(e.diagnostics)
            continue
        run.contracts.append(contract)
        arts, unsupported = render_contract(contract, targets, options)
        run.artifacts.extend(arts)
        run.unsupported.extend(unsupported)
    # Shared files (a macros file) render identically from every contract: keep one. Two
    # contracts writing different text to one path is a user error, reported, never overwritten.
    by_path: dict[str, Artifact] = {}
    uniq: list[Artifact] = []
    for a in run.artifacts:
        prev = by_path.get(a.path)
        if prev is None:
            by_path[a.path] = a
            uniq.append(a)
        elif prev.content != a.content:
            run.errors.append(Diagnostic(a.path, 1, 1, "error", "TG120",
                                         f"two contracts render different text to '{a.path}'", a.path))
    run.artifacts = uniq
    return run


def write_atomic(path: Path, content: str) -> None:
    """Write through a temp file in the same folder and rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def is_generated(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as fh:
            head = fh.read(4000)
    except (OSError, UnicodeDecodeError):
        return False
    return GENERATED_MARK in head or '"generated_by": "tacit-gen"' in head


def orphans(out: Path, artifacts: list[Artifact], targets: tuple[str, ...]) -> list[Path]:
    """Generated files under `out/<target>/` that no contract renders any more."""
    expected = {(out / a.path).resolve() for a in artifacts}
    found = []
    for t in targets:
        d = out / t
        if not d.is_dir():
            continue
        for q in sorted(d.rglob("*")):
            if q.is_file() and q.resolve() not in expected and is_generated(q):
                found.append(q)
    return found


@dataclass
class StaleReport:
    changed: list[tuple[str, str]] = field(default_factory=list)  # (path, unified diff)
    orphaned: list[str] = field(default_factory=list)


def stale(out: Path, run: RenderRun, targets: tuple[str, ...]) -> StaleReport:
    """What a write would change, as unified diffs; writes nothing."""
    rep = StaleReport()
    for a in run.artifacts:
        p = out / a.path
        try:
            old = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = None
        if old == a.content:
            continue
        shown = (out / a.path).as_posix()
        diff = "".join(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                a.content.splitlines(keepends=True),
                fromfile=shown if old is not None else "/dev/null",
                tofile=shown,
            )
        )
        rep.changed.append((shown, diff))
    rep.orphaned = [q.as_posix() for q in orphans(out, run.artifacts, targets)]
    return rep


def write(out: Path, run: RenderRun) -> list[str]:
    """Write every artifact whose content changed; returns the paths written."""
    written = []
    for a in run.artifacts:
        p = out / a.path
        try:
            if p.read_text(encoding="utf-8") == a.content:
                continue
        except FileNotFoundError:
            pass
        write_atomic(p, a.content)
        written.append(p.as_posix())
    return written
