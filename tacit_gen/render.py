"""Render contracts into artifacts: deterministic, atomic, with a stale check that never writes."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tacit_gen import atomic, registry, sql
from tacit_gen.atomic import WriteError
from tacit_gen.contract.errors import ContractError, Diagnostic
from tacit_gen.contract.loader import load_rooted, project_root
from tacit_gen.contract.model import Contract
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.targets.base import Artifact, RenderOptions, RenderResult, Unsupported
from tacit_gen.targets.header import GENERATED_MARK

if TYPE_CHECKING:
    from tacit_gen.rendercache import RenderCache

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
    plans: list[tuple[Clause, ...]] = field(default_factory=list)  # each contract's clauses
    failed: list[list[Diagnostic]] = field(default_factory=list)  # per contract that did not load
    roots: list[Path] = field(default_factory=list)  # project roots of the contracts read


def render_contract(contract: Contract, targets: tuple[str, ...], options: RenderOptions,
                    clauses: tuple[Clause, ...] | None = None,
                    cache: RenderCache | None = None) -> tuple[list[Artifact], list[Unsupported]]:
    """Every target's artifacts of one contract (`clauses`: its plan, when already built).

    With a `cache`, the built-in targets' results come from it when its key matches (no target
    renders, so sqlglot is not imported), and are stored in it after a miss."""
    if clauses is None:
        clauses = plan(contract)
    enabled = tuple(name for name in targets if target_enabled(contract, name))
    cacheable = tuple(name for name in enabled if name in registry.BUILTIN) if cache is not None else ()
    key = cache.key(contract, cacheable, options) if cache is not None and cacheable else None
    hit = cache.get(key) if cache is not None and key is not None else None
    results: dict[str, RenderResult] = {}
    templates = cache.sql_templates() if cache is not None and hit is None else contextlib.nullcontext()
    with sql.shared_texts(), templates:  # a SQL text two targets ask for is generated once
        for name in enabled:
            got = hit.get(name) if hit is not None else None
            results[name] = got if got is not None else registry.get(name).render(contract, clauses, options)
    if cache is not None and key is not None and (hit is None or set(hit) != set(cacheable)):
        cache.put(key, contract, cacheable, options, {n: results[n] for n in cacheable})
    arts: list[Artifact] = []
    unsupported: list[Unsupported] = []
    for name in enabled:
        arts.extend(results[name].artifacts)
        unsupported.extend(results[name].unsupported)
    return arts, unsupported


def render_all(paths: list[Path], targets: tuple[str, ...], options: RenderOptions,
               cache: RenderCache | None = None) -> RenderRun:
    """Render every contract of `paths` (see `render_contract` for `cache`); nothing is written.
    A contract that does not load is recorded in `errors` and `failed`, the others render."""
    from tacit_gen.targets.templates import check_overrides

    check_overrides(options, targets)  # raises TemplateFolderError (a ValueError)
    run = RenderRun()
    # the cache's entries are written when every contract has rendered (one check that
    # tacit-gen did not change meanwhile, instead of one per contract)
    with _fewer_collections(), cache.deferred() if cache is not None else contextlib.nullcontext():
        _render_each(run, paths, targets, options, cache)
    _dedupe(run)
    return run


def warnings(run: RenderRun, targets: tuple[str, ...], root: Path, options: RenderOptions) -> list[str]:
    """What each target warns about the project its artifacts go into (`Target.render_warnings`;
    dbt: dbt_utils tests without the package); `root` is the project root."""
    return [w for t in targets for w in registry.get(t).render_warnings(run.artifacts, root, options)]


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector run less often while contracts render (as mypy does for its
    build): a render allocates many short-lived objects, and each collection of the older
    generations walks every artifact already made (about a tenth of a 500-contract render). The
    collector still runs; the thresholds are restored after."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 20_000), max(before[1], 50), max(before[2], 50))
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _render_each(run: RenderRun, paths: list[Path], targets: tuple[str, ...], options: RenderOptions,
                 cache: RenderCache | None) -> None:
    for p in paths:
        try:
            contract, root = load_rooted(p)  # its project root found while loading
            clauses = plan(contract)  # what only the plan can check (severity names a clause)
        except ContractError as e:
            run.errors.extend(e.diagnostics)
            run.failed.append(list(e.diagnostics))
            continue
        run.contracts.append(contract)
        run.plans.append(clauses)
        if root not in run.roots:
            run.roots.append(root)
        arts, unsupported = render_contract(contract, targets, options, clauses, cache)
        run.artifacts.extend(arts)
        # which contract: a repository's render names many, and a target's reason is the same
        run.unsupported.extend(dataclasses.replace(u, contract=contract.path or str(p))
                               for u in unsupported)


def _dedupe(run: RenderRun) -> None:
    # Shared files (a macros file) render identically from every contract: keep one. Two
    # contracts writing different text to one path is a user error, reported, never overwritten.
    by_path: dict[str, Artifact] = {}
    uniq: list[Artifact] = []
    for a in run.artifacts:
        # keyed without case: on a case-insensitive file system `Orders.yml` is `orders.yml`
        prev = by_path.get(a.path.casefold())
        if prev is None:
            by_path[a.path.casefold()] = a
            uniq.append(a)
        elif prev.path != a.path:
            run.errors.append(Diagnostic(a.path, 1, 1, "error", "TG120",
                                         f"'{a.path}' and '{prev.path}' differ only in case: one file on "
                                         "case-insensitive file systems; rename a contract", a.path))
        elif prev.content != a.content:
            run.errors.append(Diagnostic(a.path, 1, 1, "error", "TG120",
                                         f"two contracts render different text to '{a.path}'", a.path))
    run.artifacts = uniq


def write_atomic(path: Path, content: str) -> None:
    """Write through a temp file in the same folder and rename: readers never see half a file.
    A symlink stays a link: the file it points to is replaced."""
    atomic.write(path, content.encode("utf-8"))


def write_set(files: list[tuple[Path, str]]) -> None:
    """Write every file or none (`atomic.write_set` of the UTF-8 texts).

    Raises:
        WriteError: naming the path and the OS error; the previous files are as they were.
    """
    atomic.write_set([(p, c.encode("utf-8")) for p, c in files])


def _head(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.read(4000)
    except OSError:
        return ""


def is_generated(path: Path) -> bool:
    head = _head(path)
    return GENERATED_MARK in head or '"generated_by": "tacit-gen"' in head


_SOURCE = re.compile(GENERATED_MARK + r" from (?P<a>.+?)\. Do not edit|\"source\": (?P<b>\"(?:[^\"\\]|\\.)*\")")


def artifact_source(path: Path) -> str | None:
    """The contract path an artifact's header names (relative to the project root), or None."""
    m = _SOURCE.search(_head(path))
    if m is None:
        return None
    if m.group("a") is not None:
        return m.group("a")
    try:
        value = json.loads(m.group("b"))
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def orphans(out: Path, artifacts: list[Artifact], targets: tuple[str, ...],
            run: RenderRun | None = None) -> list[Path]:
    """Generated files under `out/<target>/` that no contract renders any more.

    A file whose header names a contract that still exists but was not part of this run (`render
    --check contracts/one.yaml`) belongs to that contract: it is not an orphan."""
    expected = {(out / a.path).resolve() for a in artifacts}
    rendered = {c.path for c in run.contracts} if run is not None else set()
    roots = run.roots if run is not None and run.roots else [project_root(out / "x")]
    found = []
    for t in targets:
        d = out / t
        if not d.is_dir():
            continue
        for q in sorted(d.rglob("*")):
            if not q.is_file() or q.resolve() in expected or not is_generated(q):
                continue
            source = artifact_source(q)
            if source is not None and source not in rendered and any((r / source).is_file() for r in roots):
                continue
            found.append(q)
    return found


@dataclass
class StaleReport:
    changed: list[tuple[str, str]] = field(default_factory=list)  # (path, unified diff)
    orphaned: list[str] = field(default_factory=list)


def stale(out: Path, run: RenderRun, targets: tuple[str, ...]) -> StaleReport:
    """What a write would change, as unified diffs; writes nothing."""
    import difflib

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
    rep.orphaned = [q.as_posix() for q in orphans(out, run.artifacts, targets, run)]
    return rep


def write(out: Path, run: RenderRun) -> list[str]:
    """Write every artifact whose content changed, as one set (`write_set`); returns the paths.

    Raises:
        WriteError: nothing was changed.
    """
    changed: list[tuple[Path, str]] = []
    for a in run.artifacts:
        p = out / a.path
        try:
            if p.read_bytes() == a.content.encode("utf-8"):
                continue
        except FileNotFoundError:
            pass
        except OSError as e:
            if not isinstance(e, IsADirectoryError | NotADirectoryError):
                raise WriteError(p, e) from None
        changed.append((p, a.content))
    write_set([(Path(os.path.realpath(p)), c) for p, c in changed])  # a symlink stays a link
    return [p.as_posix() for p, _ in changed]
