"""`since` on Spark local: the data of test_verify_since.py, checked from 09:06 and in full, by
the runtime, dbt-spark, Soda (spark-df) and GX, all cases in ONE Spark worker. Select with
``-m spark`` (`nox -s spark` in CI).

The same worker also verifies tests/verify/test_offending_rows.py's data (a duplicated key, a
voltage above its bound, a restatement by a source the contract does not allow): the offending
rows of dbt-spark (its failed tests' stored failures), GX (with the key columns; a failed
custom-SQL expectation's rows are its query's), Soda and the runtime come back from the worker."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.verify import VerifyCase, VerifyReport
from tests.since.test_verify_since import CONTRACT, _rows
from tests.since.test_whole_table import CASES, HERE, _reading, _samples
from tests.spark_batch import SparkCases
from tests.verify.test_offending_rows import CONTRACT as GRID
from tests.verify.test_offending_rows import DATA as GRID_DATA
from tests.verify.test_offending_rows import EXPECTED as GRID_EXPECTED

pytestmark = [pytest.mark.spark, pytest.mark.engine]
ENGINES = ("ibis", "dbt", "soda", "gx")
NOW = datetime(2024, 3, 4, 9, 10, tzinfo=UTC)
SINCE = datetime(2024, 3, 4, 9, 6, tzinfo=UTC)


def spark_cases(root: Path) -> SparkCases:
    """Every case of this module (tests/spark_batch.py), by name."""
    import csv

    data = root / "meter.csv"
    with data.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["series_id", "ts", "v", "quality"])
        w.writerows(_rows())
    contract = load(str(CONTRACT))
    cases = [VerifyCase(contract, data, None, NOW, ENGINES, Path(CONTRACT), since=SINCE),
             VerifyCase(contract, data, None, NOW, ENGINES, Path(CONTRACT))]
    names = ["since", "full"]
    # tests/since/test_whole_table.py's cases: violations wholly before since, and across it
    for across in (False, True):
        folder = root / ("across" if across else "history")
        folder.mkdir()
        (folder / "stations.csv").write_text("station_id\ns1\ns2\n", encoding="utf-8")
        for name, make in (("reading", _reading), ("samples", _samples)):
            rows = make(across)
            path = folder / f"{name}.csv"
            with path.open("w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, list(rows[0]))
                w.writeheader()
                w.writerows(rows)
            source = HERE / f"{name}.yaml"
            since = datetime.fromisoformat(CASES[name][0].replace("Z", "+00:00"))
            cases.append(VerifyCase(load(str(source)), path, None,
                                    datetime(2024, 3, 4, 9, 20, tzinfo=UTC), ENGINES, source,
                                    since=since))
            names.append(f"{name}-{'across' if across else 'history'}")
    grid = root / "grid_voltage.yaml"
    grid.write_text(GRID, encoding="utf-8")
    (root / "grid.csv").write_text(GRID_DATA, encoding="utf-8")
    cases.append(VerifyCase(load(str(grid)), root / "grid.csv", None,
                            datetime(2024, 1, 2, 15, tzinfo=UTC), ENGINES, grid))
    names.append("rows")
    return [(name, case, None) for name, case in zip(names, cases, strict=True)]


@pytest.fixture(scope="module")
def reports(spark_batch: dict[str, Any]) -> dict[str, VerifyReport]:
    """This module's cases, verified on Spark in the run's one batch (tests/spark_batch.py)."""
    return {name: report for name, (report, _) in spark_batch[__name__].items()}


def _status(report: VerifyReport, clause: str) -> dict[str, str]:
    row = next(r for r in report.rows if r.clause.id == clause)
    return {t: v.status for t, v in row.verdicts.items()}


def test_every_engine_checks_the_increment_on_spark(reports: dict[str, VerifyReport]) -> None:
    report = reports["since"]
    table = report.render_text()
    assert report.exit_code == 1, table
    for clause in ("range:v", "cadence:ts", "unique:series_id,ts"):
        assert _status(report, clause) == dict.fromkeys(ENGINES, "fail"), table
    assert _status(report, "accepted_values:quality") == dict.fromkeys(ENGINES, "pass"), table


def test_without_since_spark_checks_everything(reports: dict[str, VerifyReport]) -> None:
    report = reports["full"]
    assert _status(report, "accepted_values:quality") == dict.fromkeys(ENGINES, "fail"), report.render_text()


@pytest.mark.parametrize("contract", sorted(CASES))
def test_the_whole_table_clauses_on_spark(reports: dict[str, VerifyReport], contract: str) -> None:
    """Violations wholly before since are not reported; those across it are, by every engine."""
    history, across = reports[f"{contract}-history"], reports[f"{contract}-across"]
    assert history.exit_code == 0, history.render_text()
    assert across.exit_code == 1, across.render_text()
    for clause in CASES[contract][1]:
        assert _status(across, clause) == dict.fromkeys(ENGINES, "fail"), across.render_text()


def test_offending_rows_with_their_keys_on_spark(reports: dict[str, VerifyReport]) -> None:
    """The offending rows of every engine come back from the Spark worker, each with its key
    (dbt's from the failed tests run again with `--store-failures`, read on the session)."""
    report = reports["rows"]
    assert report.exit_code == 1, report.render_text()
    for cid, (col, value) in GRID_EXPECTED.items():
        row = next(r for r in report.rows if r.clause.id == cid)
        for t in ENGINES:
            v = row.verdicts[t]
            got = [dict(r) for r in v.rows]
            assert v.status == "fail" and got, (cid, t, v)
            assert all(r.get(col) == value for r in got), (cid, t, got)
            assert all({"meter_id", "event_ts"} <= set(r) for r in got), (cid, t, got)
    restated = next(r for r in report.rows if r.clause.id == "revision_by:source_id")
    for t in ENGINES:
        assert dict(restated.verdicts[t].rows[0])["source_id"] == "manual_fix", t
