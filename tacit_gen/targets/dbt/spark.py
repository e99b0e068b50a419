"""dbt on Spark: dbt-spark with ``method: session`` runs in the worker, on its Spark session.

Each case is a dbt project whose model selects from the case's database and is built as a Parquet
table in a schema of its own (``<database>_dbt``). No table format available here enforces
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


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    from tacit_gen.targets.dbt.engine import build_verdicts, write_project

    def one(case: SparkCase) -> EngineRun:
        project = Path(case.inp.workdir) / "dbt"
        output = {"type": "spark", "method": "session", "host": "localhost",
                  "schema": f"{case.database}_dbt", "threads": 1}
        write_project(project, Path(case.database), output, {"+file_format": "parquet"})

        def source_sql(relation: str, view: bool = False) -> str:
            cfg = "{{ config(materialized='view') }}\n" if view else ""
            return f"{cfg}select * from {quoted(case.database, relation)}\n"

        return build_verdicts(case.inp, project, source_sql)

    return run_each(cases, "dbt", one)
