"""Findings as data: what a reader recovers from an artifact, and what differs from the plan."""

from __future__ import annotations

from dataclasses import dataclass

from tacit_gen.plan_types import Clause

# Stable finding codes.
STALE = "D100"  # byte drift: artifact differs from a fresh render
ORPHAN = "D101"  # generated file whose contract is gone
MISSING_ARTIFACT = "D102"  # expected artifact not on disk
MISSING_CLAUSE = "D200"  # a clause of the plan is not in the artifact
EXTRA_CLAUSE = "D201"  # the artifact has a check the plan does not
PARAM_CHANGED = "D202"  # a parameter differs (bound, type, values, columns...)
SEVERITY_WEAKENED = "D203"  # severity: warn / warn-only / mostly etc. added
UNKNOWN_CHECK = "D204"  # a check type the tool does not know (GX drops those silently)
UNREADABLE = "D205"  # the artifact does not parse
HEADER = "D206"  # header missing or names another contract/version
VERSION_BUMP = "D300"  # contract changed without a sufficient version bump


@dataclass(frozen=True)
class Finding:
    """One drift finding."""

    code: str
    path: str
    message: str
    clause_id: str | None = None
    expected: str | None = None
    found: str | None = None
    contract_path: str | None = None
    contract_line: int | None = None

    def render(self) -> str:
        loc = f" ({self.contract_path}:{self.contract_line})" if self.contract_line else ""
        cid = f"{self.clause_id} " if self.clause_id and not self.message.startswith(self.clause_id) else ""
        return f"{self.path}: {self.code} {cid}{self.message}{loc}"


@dataclass(frozen=True)
class ReadResult:
    """Clauses read back from one artifact (params as recovered), plus reader findings.

    A reader returns, per clause id, the params it could recover from the operative parts of the
    artifact (the test arguments, not a copy kept in meta); `compare` checks every key it returns.
    """

    clauses: tuple[Clause, ...]
    findings: tuple[Finding, ...] = ()
    header_contract: str | None = None
    header_version: str | None = None
    header_hash: str | None = None
