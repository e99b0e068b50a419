"""What every target shares: artifacts, options, unsupported-clause reports, the file header."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from tacit_gen.contract.model import Contract
    from tacit_gen.drift.base import ReadResult
    from tacit_gen.plan_types import Clause


@dataclass(frozen=True)
class Artifact:
    """One generated file: its path relative to the output root (``dbt/ohlcv_1m.yml``) and text."""

    path: str
    content: str


@dataclass(frozen=True)
class Unsupported:
    """A clause a target cannot express; reported by `render` and listed in the artifact."""

    target: str
    clause_id: str
    reason: str


@dataclass(frozen=True)
class RenderResult:
    """What a target produced for one contract."""

    artifacts: tuple[Artifact, ...]
    unsupported: tuple[Unsupported, ...] = ()


@dataclass(frozen=True)
class RenderOptions:
    """Options shared by every target, plus per-target frozen option fields."""

    templates_dir: str | None = None  # user override folder (one subfolder per target)
    dbt_adapter: str = "duckdb"  # duckdb, postgres, snowflake, bigquery, databricks
    dbt_tests: str = "dbt_utils"  # or "native": self-contained generic tests in a macros file
    dialect: str | None = None  # SQL dialect of Soda and GX (None: the dbt adapter's)
    dbt_macros: str = "dbt_macros"  # the macros folder, relative to the output root
    dbt_not_null: str = "constraint"  # or "test" (a not_null test with failure counts), "both"
    dbt_version: str | None = None  # the dbt-core the YAML is for; None: the newest form
    extra: tuple[tuple[str, str], ...] = field(default=())

    def dialect_for(self, target: str, contract: Contract | None = None) -> str:
        """The SQL dialect `target` writes for `contract`.

        dbt: its adapter's dialect. Soda and GX: ``targets.<t>.dialect`` in the contract, else
        this ``dialect`` (``--dialect``), else the dbt adapter's dialect (``duckdb`` by default).
        """
        from tacit_gen.sql.dialects import ADAPTER_DIALECT, check_dialect

        adapter = ADAPTER_DIALECT.get(self.dbt_adapter, "duckdb")
        if target == "dbt":
            return adapter
        if contract is not None:
            own = contract.target_option(target, "dialect")
            if own:
                return check_dialect(str(own))
        return check_dialect(self.dialect) if self.dialect else adapter


class Target(Protocol):
    """A renderer (clauses -> files) plus a reader (files -> clauses)."""

    name: str

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult: ...

    def read(self, path: Path, text: str) -> ReadResult: ...

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        """Relative paths (under the output root) this target writes for a contract."""
        ...
