"""dbt on Spark: dbt-spark with ``method: session`` runs in the worker, on its Spark session.

Every case joins ONE dbt project built by ONE ``dbt build`` (:mod:`tacit_gen.targets.dbt.batch`):
its model ``<case>__<model>`` selects from the case's database and is built as a Parquet table in
the schema ``tacit_dbt``. No table format available here enforces
``not_null`` (Spark's built-in formats accept ``ALTER ... SET NOT NULL`` only on Delta, whose
jars are not on the package index), so the ``spark`` adapter renders not_null clauses as
``not_null`` data tests, and the build is an ordinary dbt build with its tests
(docs/engines/spark.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.spark.session import quoted
from tacit_gen.engines.spark.worker import run_each

if TYPE_CHECKING:
    from tacit_gen.engines.base import EngineRun
    from tacit_gen.engines.spark.worker import SparkCase


def _source_sql(case: SparkCase) -> Any:
    def source_sql(relation: str, view: bool = False) -> str:
        cfg = "{{ config(materialized='view') }}\n" if view else ""
        return f"{cfg}select * from {quoted(case.database, relation)}\n"

    return source_sql


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    """Every case's model and tests in ONE project and ONE dbt build per pinned now (the rounds
    of a model that fails its build select only such models); a crash fails the cases alone."""
    from tacit_gen.targets.dbt.batch import BatchCase, build_cases
    from tacit_gen.targets.dbt.engine import build_verdicts, write_project

    output = {"type": "spark", "method": "session", "host": "localhost", "schema": "tacit_dbt",
              "threads": 1}
    root = Path(cases[0].inp.workdir).parent

    def read(sql: str) -> list[dict[str, Any]]:  # a stored failure's rows, on the session
        return [r.asDict() for r in spark.sql(sql).collect()]

    try:
        return build_cases([BatchCase(c.id, c.inp, _source_sql(c)) for c in cases], root,
                           lambda project: write_project(project, Path("spark"), output,
                                                         {"+file_format": "parquet"}),
                           log=lambda m: print(m, flush=True), read_failures=read)
    except Exception as exc:  # the shared build crashed: each case on its own, crashes named
        print(f"dbt: the shared build failed ({type(exc).__name__}: {exc}); case by case",
              flush=True)

    def one(case: SparkCase) -> EngineRun:
        project = Path(case.inp.workdir) / "dbt"
        write_project(project, Path(case.database),
                      {**output, "schema": f"{case.database}_dbt"}, {"+file_format": "parquet"})
        return build_verdicts(case.inp, project, _source_sql(case), read)

    return run_each(cases, "dbt", one)
