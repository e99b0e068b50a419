"""Parity on `fct_sensor_readings`: every engine passes clean data, and on data that breaks one clause
every engine flags exactly that clause (verdicts from each engine's own result objects)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.parity.harness import clause_ids, failed_by_engine, run_case, verdict_table

NAME = "fct_sensor_readings"

pytestmark = pytest.mark.engine


def test_clean_data_passes_in_every_engine(tmp_path: Path) -> None:
    report, violated = run_case(NAME, None, tmp_path)
    assert violated == ()
    assert report.exit_code == 0, verdict_table(report)
    assert all(v.status == "pass" for r in report.rows for v in r.verdicts.values()), verdict_table(report)


@pytest.mark.parametrize("clause", clause_ids(NAME))
def test_one_violation_is_flagged_by_every_engine(clause: str, tmp_path: Path) -> None:
    report, violated = run_case(NAME, clause, tmp_path)
    assert violated == (clause,), f"sample could not isolate {clause}: {violated}"
    table = verdict_table(report)
    assert report.exit_code == 1, table
    for engine, failed in failed_by_engine(report).items():
        assert failed == {clause}, f"{engine} flagged {sorted(failed)}\n{table}"
