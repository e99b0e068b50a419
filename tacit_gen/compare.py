"""Semantic drift: read artifacts back into clauses and compare them with the plan (each target's
`project`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tacit_gen.contract.model import Contract
from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import Clause
from tacit_gen.targets.base import RenderOptions


def _norm(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_norm(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_norm(v) for v in value)
    if isinstance(value, str):
        return " ".join(value.split())
    return value


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def compare(
    contract: Contract,
    clauses: tuple[Clause, ...],
    read: ReadResult,
    artifact: str,
    target: str,
    check_header: bool = True,
    options: RenderOptions | None = None,
) -> list[Finding]:
    """Findings for one artifact read back, against the plan of its contract.

    Each plan clause is compared with `Target.project` of the artifact's target (the clause as a
    faithful artifact carries it, rendered with `options`), key by key.
    """
    cpath = contract.path
    lines = {c.id: c.line for c in clauses}
    # Reader findings know the artifact; the plan knows where the clause stands in the contract.
    out: list[Finding] = [
        replace(f, contract_path=f.contract_path or cpath,
                contract_line=f.contract_line or lines.get(f.clause_id or "") or None)
        for f in read.findings
    ]
    if check_header:
        if read.header_contract is None:
            out.append(Finding(d.HEADER, artifact, "the generated-file header is missing", contract_path=cpath))
        elif (read.header_contract, read.header_version) != (contract.name, contract.version):
            out.append(Finding(
                d.HEADER, artifact,
                f"header names {read.header_contract} {read.header_version}, the contract is "
                f"{contract.name} {contract.version}",
                expected=f"{contract.name} {contract.version}",
                found=f"{read.header_contract} {read.header_version}",
                contract_path=cpath, contract_line=contract.version_pos.line or None))
    got: dict[str, Clause] = {}
    for c in read.clauses:
        got.setdefault(c.id, c)
    planned = {c.id: c for c in clauses}
    equivalent_to = _match_equivalent_invariants(contract, clauses, got)
    for plan_id, read_id in equivalent_to.items():
        got[plan_id] = got.pop(read_id)
    from tacit_gen import registry

    tgt = registry.get(target)
    opts = options or RenderOptions()
    for cid, c in planned.items():
        r = got.get(cid)
        projected = tgt.project(contract, c, opts)
        if projected is None:  # the target cannot express it: it says so at render time
            continue
        if r is None:
            out.append(Finding(d.MISSING_CLAUSE, artifact, f"{cid} is not in the artifact, contract says: {c.text}",
                               clause_id=cid, expected=c.text, contract_path=cpath,
                               contract_line=c.line or None))
            continue
        if cid in equivalent_to:
            continue  # worded differently, rejects exactly the same rows: not drift
        if r.severity != projected.severity:  # a hand edit of a test's severity
            out.append(Finding(
                d.SEVERITY_WEAKENED if r.warn else d.PARAM_CHANGED, artifact,
                f"{cid} severity is {r.severity}, contract says {projected.severity}",
                clause_id=cid, expected=f"severity: {projected.severity}",
                found=f"severity: {r.severity}", contract_path=cpath, contract_line=c.line or None))
        want = dict(projected.params)
        for key, found in sorted(r.params, key=lambda kv: kv[0]):
            if key not in want:
                continue
            exp = want[key]
            if _norm(exp) != _norm(found):
                out.append(Finding(
                    d.PARAM_CHANGED, artifact,
                    f"{cid} {key} is {_show(found)}, contract says {_show(exp)}",
                    clause_id=cid, expected=_show(exp), found=_show(found),
                    contract_path=cpath, contract_line=c.line or None))
    for cid, r in got.items():
        if cid not in planned:
            out.append(Finding(d.EXTRA_CLAUSE, artifact, f"{cid} is in the artifact but not in the contract",
                               clause_id=cid, found=r.text or cid, contract_path=cpath))
    return out


@dataclass
class CheckReport:
    """Every finding of a `check` run; exit code 0 clean, 1 drift."""

    findings: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said, but not drift (e.g. gate skipped)

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": not self.findings,
            "checked": self.checked,
            "notes": self.notes,
            "findings": [
                {
                    "code": f.code,
                    "path": f.path,
                    "clause": f.clause_id,
                    "message": f.message,
                    "expected": f.expected,
                    "found": f.found,
                    "contract": f.contract_path,
                    "contract_line": f.contract_line,
                }
                for f in self.findings
            ],
        }


def _match_equivalent_invariants(contract: Contract, clauses: tuple[Clause, ...],
                                 got: dict[str, Clause]) -> dict[str, str]:
    """Plan invariants missing from the artifact, paired with an artifact invariant that says the
    same thing in other words (a hand-written test): plan id -> artifact id."""
    planned_ids = {c.id for c in clauses}
    extras = [r for rid, r in got.items() if rid not in planned_ids and rid.startswith("invariant:")]
    missing = [c for c in clauses if c.kind == "invariant" and c.id not in got and c.expr is not None]
    if not extras or not missing:
        return {}
    from tacit_gen.contract.semantics import resolve
    from tacit_gen.drift.equivalence import equivalent

    out: dict[str, str] = {}
    for r in extras:
        ast, problems = resolve(contract, r.id.split(":", 1)[1])
        if ast is None or problems:
            continue
        for c in missing:
            if c.id not in out and c.expr is not None and equivalent(contract, c.expr, ast):
                out[c.id] = r.id
                break
    return out


class MissingDependency(ValueError):
    """A reader needs a package that is not installed: a usage error (exit 2), never drift."""


def read_artifact(target: str, path: Path) -> ReadResult:
    """Read one artifact with its target's reader; unreadable files are a finding, not a crash."""
    from tacit_gen import registry

    shown = path.as_posix()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return ReadResult((), (Finding(d.UNREADABLE, shown, f"cannot read: {e}"),))
    try:
        return registry.get(target).read(path, text)
    except ModuleNotFoundError as e:
        # the machine, not the file, is what is wrong: never report it as drift
        raise MissingDependency(
            f"cannot check {shown}: the {target} reader needs the package '{e.name}', which is "
            "not installed (pip install 'tacit-gen[all]')"
        ) from None
    except Exception as e:  # a reader must not crash check; the file is what is wrong
        return ReadResult((), (Finding(d.UNREADABLE, shown, f"cannot read as a {target} artifact: {e}"),))
