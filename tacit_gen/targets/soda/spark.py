"""Soda v3 on Spark: soda-core-spark-df scans the case's relations through the worker's session.

The scan's data source is the live session (``Scan.add_spark_session``); table names resolve in
the session's current database, set to the case's database for the duration of its scans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.engines.spark.session import quoted
from tacit_gen.engines.spark.worker import run_each

if TYPE_CHECKING:
    from tacit_gen.engines.base import EngineRun
    from tacit_gen.engines.spark.worker import SparkCase


class SparkSource:
    """Soda's data source: the Spark session, in the case's database."""

    def __init__(self, spark: Any, database: str) -> None:
        self.spark = spark
        self.database = database

    def attach(self, scan: Any) -> None:
        from tacit_gen.targets.soda.engine import DATA_SOURCE

        self.spark.catalog.setCurrentDatabase(self.database)
        scan.add_spark_session(self.spark, data_source_name=DATA_SOURCE)

    def columns(self, relation: str) -> set[str]:
        return set(self.spark.table(quoted(self.database, relation)).columns)

    def alias(self, name: str, relation: str) -> None:
        self.spark.sql(f"CREATE OR REPLACE VIEW {quoted(self.database, name)} AS "
                       f"SELECT * FROM {quoted(self.database, relation)}")


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    from tacit_gen.targets.soda.engine import scan_verdicts

    return run_each(cases, "soda", lambda case: scan_verdicts(case.inp, SparkSource(spark, case.database)))
