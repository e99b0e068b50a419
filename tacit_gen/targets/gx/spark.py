"""Great Expectations on Spark: the whole suite, native and custom-SQL expectations alike, runs on
a Spark dataframe datasource (``add_spark``) over the case's relation, in the worker's session.

Custom SQL reads ``{batch}`` (GX registers the dataframe as a view) and the catalog relation by
name, resolved in the case's database (made current for the run). A pinned ``now`` is written as
``timestamp_micros(n)``: an instant whatever the session's time zone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.engines.spark.session import quoted
from tacit_gen.engines.spark.worker import run_each
from tacit_gen.targets.gx.engine import QUERY_KEY, ROWS_KEY

if TYPE_CHECKING:
    from datetime import datetime

    from tacit_gen.engines.base import EngineRun
    from tacit_gen.engines.spark.worker import SparkCase


class SparkBatches:
    """The suite's batch: the case's relation (or a query over it) as a Spark dataframe."""

    dialect = "spark"

    def __init__(self, spark: Any, case: SparkCase) -> None:
        self.spark = spark
        self.case = case

    def now_sql(self, now: datetime) -> str:
        micros = int(now.timestamp()) * 1_000_000 + now.microsecond
        return f"timestamp_micros({micros})"

    def run(self, ctx: Any, native: list[dict[str, Any]], custom: list[dict[str, Any]],
            notes: list[str], query: str | None = None) -> list[Any]:
        """The suite on the dataframe, a failed expectation's rows with the contract's key
        columns (GX's ``unexpected_index_column_names``) and a failed custom-SQL expectation's
        first rows (its query run again, on the failure path only)."""
        from tacit_gen.targets.gx.engine import custom_rows, run_suite

        self.spark.catalog.setCurrentDatabase(self.case.database)
        table = quoted(self.case.database, self.case.inp.table)
        df = self.spark.sql(query) if query is not None else self.spark.table(table)
        key = tuple(k for k in self.case.inp.contract.key if k in set(df.columns))
        results = run_suite(ctx, native + custom, ("spark", df), key)

        def rows(sql: str) -> list[dict[str, Any]]:
            return [r.asDict() for r in self.spark.sql(sql).collect()]

        for meta, ok, _count, _detail, errored in results:
            sql = meta.pop(QUERY_KEY, None)
            if not ok and not errored and isinstance(sql, str):
                meta[ROWS_KEY] = custom_rows(sql, rows, f"({query})" if query else table)
        return results


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    from tacit_gen.targets.gx.engine import suite_verdicts

    return run_each(cases, "gx", lambda case: suite_verdicts(case.inp, SparkBatches(spark, case)))
