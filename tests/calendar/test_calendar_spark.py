"""Exchange sessions on Spark (issue 13): the XNYS 2024 minute bars of
`tests/calendar/test_calendar_engines.py` (DST change, the 2024-11-29 early close, overnight
steps, a restatement 5 sessions late) pass in every target on Spark local, and the same
restatement 6 sessions late (across Thanksgiving) fails `revision_window` alone: the trading-day
window's correlated count of sessions runs in Spark SQL (dbt-spark, Soda spark-df, GX on Spark)
as in pandera and the ibis runtime on pyspark. Both cases run in ONE Spark worker. Select with
``-m spark`` (`nox -s spark` in CI)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.verify import VerifyCase, VerifyReport
from tests.calendar.data import MINUTE, iso, minute_bars, utc, write
from tests.conftest import value_targets
from tests.parity.harness import failed_by_engine
from tests.spark_batch import SparkCases

pytestmark = [pytest.mark.spark, pytest.mark.engine]
ENGINES = value_targets("spark")
NOW = utc(2024, 12, 10)


def _rows(ingested_day: int) -> list[dict[str, str]]:
    rows = (minute_bars([date(2024, 3, 8), date(2024, 3, 11)], "A")
            + minute_bars([date(2024, 11, 27), date(2024, 11, 29)], "B"))
    # a restatement of Wed 2024-11-27 15:00, ingested in December (Thanksgiving 11-28 is no session)
    rows.append({**next(r for r in rows if r["bar_start"] == "2024-11-27T15:00:00.000Z"),
                 "ingested_at": iso(utc(2024, 12, ingested_day, 22)), "revision": "1"})
    return rows


CASES = {"clean, restated 5 sessions late": (5, set()),
         "restated 6 sessions late": (6, {"revision_window"})}


def spark_cases(root: Path) -> SparkCases:
    """Both cases of this module (tests/spark_batch.py), by name."""
    src = root / "bars_1m.yaml"
    src.write_text(MINUTE, encoding="utf-8")
    contract = load(str(src))
    return [(name, VerifyCase(contract, write(root / f"case{i}.csv", _rows(day)), None, NOW, ENGINES,
                              src), None)
            for i, (name, (day, _)) in enumerate(CASES.items())]


@pytest.fixture(scope="module")
def reports(spark_batch: dict[str, Any]) -> dict[str, VerifyReport]:
    """This module's cases, verified on Spark in the run's one batch (tests/spark_batch.py)."""
    return {name: report for name, (report, _) in spark_batch[__name__].items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sessions_on_spark(case: str, reports: dict[str, VerifyReport]) -> None:
    report = reports[case]
    expected = CASES[case][1]
    table = report.render_text()
    assert report.exit_code == (1 if expected else 0), table
    assert set(report.targets) == set(ENGINES), table
    for engine, failed in failed_by_engine(report).items():
        assert failed == expected, f"{engine}: {sorted(failed)}\n{table}"
