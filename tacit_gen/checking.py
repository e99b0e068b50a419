"""`tacit-gen check`: byte drift, semantic drift, orphans, and the version-bump gate."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tacit_gen import registry
from tacit_gen import render as r
from tacit_gen.compare import CheckReport, compare, read_artifact
from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load
from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions

if TYPE_CHECKING:
    from tacit_gen.rendercache import RenderCache


def run_check(paths: list[str], out: Path, targets: tuple[str, ...], options: RenderOptions,
              artifact: str | None = None, bump_gate: bool = True, base: str | None = None,
              env: Mapping[str, str] | None = None, root: Path | None = None, cache: RenderCache | None = None) -> CheckReport:
    """Check committed artifacts against their contracts.

    Args:
        paths: contract files or folders (default ``contracts/``).
        out: the generated-artifacts root.
        targets: targets to check.
        options: the render options the artifacts were made with.
        artifact: check this one (hand-written) artifact against the single contract in `paths`,
            with the single target in `targets` (semantic drift only).
        bump_gate: also compare each contract with its last committed version (git).
        base: the git revision for the gate (None: the default, see
            `tacit_gen.evolution.resolve_base`; CI-aware).
        env: the environment to read ``CI`` / ``GITHUB_BASE_REF`` from (default: os.environ).
        root: the project root (the settings file's folder; default: the working directory),
            given to each target's `check_project`.
        cache: the render cache the fresh renders may come from (`tacit_gen.rendercache`).

    Raises:
        ValueError: for usage errors (contract that does not load, wrong --artifact usage, an
            unknown base revision or a history too shallow to find it).
    """
    report = CheckReport()
    files = r.find_contracts(paths or ["contracts"])
    if artifact is not None:
        if len(files) != 1 or len(targets) != 1:
            raise ValueError("--artifact needs exactly one contract and one --target")
        contract = _load(files[0])
        clauses = plan(contract)
        result = read_artifact(targets[0], Path(artifact))
        report.findings.extend(compare(contract, clauses, result, Path(artifact).as_posix(),
                                       targets[0], check_header=False, options=options))
        report.checked.append(Path(artifact).as_posix())
        return report
    run = r.render_all(files, targets, options, cache)
    if run.failed:  # the first contract that does not load, as `_load` reports it
        raise ValueError("\n".join(x.render() for x in run.failed[0]))
    if run.errors:
        raise ValueError("; ".join(e.render() for e in run.errors))
    # 1. byte drift and missing artifacts
    fresh: set[Path] = set()  # committed == fresh render: nothing for semantic drift to explain
    for a in run.artifacts:
        p = out / a.path
        shown = p.as_posix()
        report.checked.append(shown)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            report.findings.append(Finding(d.MISSING_ARTIFACT, shown, "expected artifact is missing: run `tacit-gen render`"))
            continue
        if text != a.content:
            report.findings.append(Finding(d.STALE, shown, "differs from a fresh render (byte drift)"))
        else:
            fresh.add(p)
    # 2. semantic drift: each contract's primary artifact per target, read back. An artifact equal
    # to its fresh render is not read: a render reads back as its plan (tests/drift and
    # tests/cli/test_check_fast.py prove it), and its reader's imports (sqlglot's parser, protoc,
    # jsonschema) would cost check its fast start (issue 16).
    for contract, clauses in zip(run.contracts, run.plans, strict=True):
        for t in targets:
            if not r.target_enabled(contract, t):
                continue
            rel = registry.get(t).artifact_paths(contract)[0]
            p = out / rel
            if p in fresh or not p.exists():
                continue
            result = read_artifact(t, p)
            report.findings.extend(compare(contract, clauses, result, p.as_posix(), t, options=options))
    # 3. orphans
    for o in r.orphans(out, run.artifacts, targets, run):
        report.findings.append(Finding(d.ORPHAN, o.as_posix(), "generated file whose contract is gone"))
    # 4. what each target checks beyond its artifacts (dbt: the user's dbt project)
    for t in targets:
        found, notes = registry.get(t).check_project(out, root or Path.cwd(), options)
        report.findings.extend(found)
        report.notes.extend(notes)
    # 5. version-bump gate against the last committed contract
    if bump_gate:
        findings, notes = _bump_findings(files, base, env)
        report.findings.extend(findings)
        report.notes.extend(notes)
    return report


def _load(path: Path):  # type: ignore[no-untyped-def]
    try:
        contract = load(path)
        plan(contract)  # what only the plan can check (severity names a clause)
        return contract
    except ContractError as e:
        raise ValueError("\n".join(x.render() for x in e.diagnostics)) from None


def _bump_findings(files: list[Path], base: str | None,
                   env: Mapping[str, str] | None) -> tuple[list[Finding], list[str]]:
    """A contract changed since the base revision without a sufficient version bump is a finding.

    The gate never switches itself off where it matters: an explicit `base`, or CI, with a
    revision that cannot be found (or no git work tree) is a usage error, not a note.
    """
    from tacit_gen import evolution

    out: list[Finding] = []
    notes: list[str] = []
    if not files:
        return out, notes
    environ = os.environ if env is None else env
    strict = base is not None or environ.get("CI", "").strip().lower() in ("true", "1", "yes")
    try:
        chosen = evolution.resolve_base(files[0].resolve().parent, base, environ)
    except evolution.BaseError as e:
        raise ValueError(f"version gate: {e}") from None
    except evolution.HistoryError as e:
        if strict:
            raise ValueError(f"version gate: {e}") from None
        notes.append(f"version gate skipped: {e}")
        return out, notes
    notes.append(f"version gate: base {chosen.rev[:12] or '(none)'} ({chosen.why})")
    for f in files:
        try:
            rep = evolution.check_bump(str(f), base_rev=chosen.rev)
        except evolution.HistoryError as e:
            raise ValueError(f"version gate: {f.as_posix()}: {e}") from None
        except ContractError as e:  # e.g. the committed version predates today's language
            # Never a silent skip: the change is unclassified, so it is a finding (exit 1).
            out.append(Finding(
                d.VERSION_BUMP, f.as_posix(),
                f"version gate cannot compare: the version at {chosen.rev[:12]} does not load ("
                + (e.diagnostics[0].render() if e.diagnostics else str(e))
                + "); review the change by hand, then pass --no-bump-gate for this change"))
            continue
        if rep is None or rep.ok:
            continue
        data = rep.as_json()
        problems = "; ".join(getattr(rep, "problems", []) or [])
        out.append(Finding(
            d.VERSION_BUMP, f.as_posix(),
            f"version {data.get('old_version')} -> {data.get('new_version')}: the changes need at "
            f"least a {data.get('least_bump')} bump" + (f" ({problems})" if problems else "")
            + "; see `tacit-gen diff`"))
    return out, notes
