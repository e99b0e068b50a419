"""Great Expectations 1.x target: one expectation-suite JSON per contract.

`gx/<contract>.json` is a GX 1.x suite (``{"name", "expectations", "meta"}``) that
``gx.ExpectationSuite(**json.load(f))`` accepts. Every expectation's ``meta`` carries the clause id
(``tacit_clause``); the verbatim contract text is said once per clause, in the suite's
``meta.tacit_clauses``. One clause may become several expectations (a chain
``low <= open <= high`` is two pair expectations), all tagged with the same id.

Native expectations are preferred: they run on pandas and SQL alike. A clause no native expectation
expresses becomes an ``unexpected_rows_expectation`` (custom SQL, DuckDB dialect, SQL datasources
only); those are listed in the suite's ``meta.tacit_custom_sql``. The freshness query compares with
``current_timestamp``; `tacit-gen verify` pins it (see docs/engines/gx.md).

Layout: `compile.py` (a clause to its expectations, type lists), `invariants.py` (the invariant
compiler), `queries.py` (custom SQL), `suite.py` (the suite document), this module (the target).
None imports great_expectations: rendering and reading must stay fast.
"""


from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    dialect_key,
    float_fixed,
    sql_projection,
)
from tacit_gen.targets.gx.compile import NAME, expectations_for, type_list
from tacit_gen.targets.gx.suite import dump, suite_document

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause



class GxTarget(Target):
    """Renderer and reader for GX 1.x expectation suites."""

    name = NAME
    options = NoOptions
    contract_keys = (
        ContractKey("suite", "Great Expectations suite name"),
        dialect_key(),
    )
    artifact_name_option = "suite"
    reader = "tacit_gen.targets.gx.read:read"
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.gx.engine", ("great_expectations", "sqlalchemy"), "gx",
                         cost=50, warm=True),
        "postgres": Engine("tacit_gen.targets.gx.engine", ("great_expectations", "sqlalchemy",
                                                          "psycopg2"), "postgres", cost=50, warm=True),
        "spark": Engine("tacit_gen.targets.gx.spark", ("great_expectations", "pyspark"), cost=50,
                        session=True),
    }
    templates = False
    increments = True  # a batch per clause: the increment and its boundary rows (increment.py)

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, plus invariant SQL in the dialect `options` give this target."""
        return float_fixed(sql_projection(clause, options.dialect_for(NAME, contract)))

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"gx/{contract.name}.json",)

    def render(self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        doc, unsupported = suite_document(contract, clauses, options.dialect_for(NAME, contract))
        art = Artifact(self.artifact_paths(contract)[0], dump(doc))
        return RenderResult((art,), tuple(unsupported))

__all__ = ["GxTarget", "expectations_for", "type_list"]
