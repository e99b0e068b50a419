"""What `verify` runs: each engine executes its target's artifact for real and returns verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

Status = Literal["pass", "fail", "n/a", "error"]


@dataclass(frozen=True)
class Verdict:
    """One engine's verdict on one clause, taken from the engine's own result object."""

    clause_id: str
    status: Status
    failures: int | None = None  # failing rows where the engine reports them
    detail: str = ""


@dataclass(frozen=True)
class EngineRun:
    """Verdicts of one engine on one dataset."""

    target: str
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = ()
    failure: str | None = None  # the engine could not run at all (import error, crash): no verdict


@dataclass(frozen=True)
class VerifyInput:
    """Everything an engine needs.

    Attributes:
        contract, clauses: the contract and its plan.
        artifact_dir: the root holding ``<target>/`` folders of generated artifacts.
        database: a DuckDB file holding the data table, typed per the contract, and the catalog
            relation (named as in the contract) when given. Open it, use it, close it.
        table: the data relation's name in that database.
        now: the pinned "now" (timezone-aware UTC) for freshness.
        workdir: a scratch folder for this engine (dbt project, Soda config...).
        Columns of the contract that the data lacks are simply absent from the table, and extra
        columns are present: each engine sees them and gives its own verdict.
    """

    contract: Contract
    clauses: tuple[Clause, ...]
    artifact_dir: Path
    database: Path
    table: str
    now: datetime
    workdir: Path
