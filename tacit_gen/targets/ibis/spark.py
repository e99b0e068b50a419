"""The ibis runtime on Spark: the generated Schema's ``parse()`` through ibis's pyspark backend.

The table and the catalog come from the case's Spark database; Spark's instants are read as UTC
instants by the runtime itself (:mod:`tacit_gen.runtime.backends`), as a user's pipeline would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.engines.spark.worker import run_each

if TYPE_CHECKING:
    from tacit_gen.engines.base import EngineRun
    from tacit_gen.engines.spark.worker import SparkCase


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    import ibis

    from tacit_gen.targets.ibis.engine import parse_verdicts

    con = ibis.pyspark.connect(spark)

    def one(case: SparkCase) -> EngineRun:
        present = {r for r in case.relations}

        def table(name: str) -> Any:
            return con.table(name, database=case.database) if name in present else None

        return parse_verdicts(case.inp, table)

    return run_each(cases, "ibis", one)
