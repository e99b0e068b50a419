"""pandera on Spark data: the generated schema validates the relation read through Arrow.

``DataFrame.toArrow()`` keeps decimals (``decimal128(p, s)``) and instants
(``timestamp[us, tz=UTC]`` in a UTC session); the frame is then Arrow-backed pandas
(``types_mapper=pd.ArrowDtype``), the same convention as on DuckDB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.engines.spark.worker import run_each

if TYPE_CHECKING:
    from tacit_gen.engines.base import EngineRun
    from tacit_gen.engines.spark.worker import SparkCase


def _frame(spark: Any, database: str, relation: str) -> Any:
    import pandas as pd

    from tacit_gen.engines.spark.session import quoted

    return spark.table(quoted(database, relation)).toArrow().to_pandas(types_mapper=pd.ArrowDtype)


def run_cases(spark: Any, cases: list[SparkCase]) -> dict[str, EngineRun]:
    from tacit_gen.targets.pandera.engine import validate_frames

    def one(case: SparkCase) -> EngineRun:
        def frame(name: str) -> Any:
            return _frame(spark, case.database, name) if name in case.relations else None

        return validate_frames(case.inp, frame)

    return run_each(cases, "pandera", one)
