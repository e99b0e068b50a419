"""Class 5 of issue 15: verify on bad data gives the documented verdict (docs/verify.md): the
clause reading an unconvertible or mistyped column is n/a everywhere, its `column:` clause fails,
exit 1, never 3. Real engines: both bad data files are verified in one batch on DuckDB
(`verify_cases`: each engine once for both, one dbt build); a relative `--keep` is the CLI's own,
so it runs `tacit-gen verify`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.verify import VerifyCase, verify_cases
from tests.conftest import engine_targets
from tests.hardening.helpers import cli

CONTRACT = """\
contract: bad_data
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  amount: {type: 'decimal(12,2)', unit: USD}
  ts: {type: timestamp_us_utc}
  flag: {type: bool}
  label: {type: string}
invariants:
  - amount >= 0
  - amount < 1000 only when flag
"""


NOW = datetime(2024, 1, 2, tzinfo=UTC)


def _csv(folder: Path) -> Path:
    data = folder / "d.csv"
    data.write_text("id,amount,ts,flag,label\n"
                    "1,12.5,2024-01-01T00:00:00Z,true,a\n"
                    "x2,abc,not a time,maybe,b\n", encoding="utf-8")
    return data


def _parquet(folder: Path) -> Path:
    data = folder / "d.parquet"
    table = pa.table({
        "id": pa.array([1.5, 2.5]),                       # float where int64 is expected
        "amount": pa.array([1.5, 2.5], pa.float64()),     # float where decimal is expected
        "ts": pa.array([{"a": 1}, {"a": 2}]),             # a nested struct
        "flag": pa.array([[True], [False]]),              # a nested list
        "label": pa.array(["a", "b"]),
    })
    pq.write_table(table, data)
    return data


DATA = {"csv": _csv, "parquet": _parquet}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, Any]]]:
    """Each data file verified by every engine on DuckDB (what `tacit-gen verify` runs by
    default), in ONE batch: name -> (exit code, the report's JSON form)."""
    tmp = tmp_path_factory.mktemp("bad-data")
    c = tmp / "bad_data.yaml"
    c.write_text(CONTRACT, encoding="utf-8")
    cases = []
    for name, write in DATA.items():
        (tmp / name).mkdir()
        cases.append(VerifyCase(load(str(c)), write(tmp / name), None, NOW, engine_targets("duckdb"), c))
    got = verify_cases(cases, engine="duckdb", workdir=tmp / "work")
    for report in got:
        assert set(report.targets) == set(engine_targets("duckdb")), report.render_text()
    return {name: (report.exit_code, report.as_json()) for name, report in zip(DATA, got, strict=True)}


def _statuses(report: dict, clause: str) -> set[str]:
    row = next(r for r in report["clauses"] if r["id"] == clause)
    return {v["status"] for v in row["verdicts"].values()}


def _assert_documented(code: int, report: dict, broken: list[str]) -> None:
    disagree = [(r["id"], r["disagreement"]) for r in report["clauses"] if r["disagreement"]]
    assert code == 1 and not disagree, disagree
    for col in broken:
        assert _statuses(report, f"column:{col}") == {"fail"}, col
    for r in report["clauses"]:
        if r["kind"] not in ("column", "no_unknown_columns") and any(
                f"{c}" in r["id"] or c in r["text"] for c in broken):
            assert _statuses(report, r["id"]) == {"n/a"}, r


def test_unconvertible_csv_values(reports: dict[str, tuple[int, dict[str, Any]]]) -> None:
    code, report = reports["csv"]
    _assert_documented(code, report, ["id", "amount", "ts", "flag"])


def test_parquet_wrong_types_and_nested(reports: dict[str, tuple[int, dict[str, Any]]]) -> None:
    code, report = reports["parquet"]
    _assert_documented(code, report, ["id", "amount", "ts", "flag"])


def test_keep_relative(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("id,amount,ts,flag,label\n1,12.5,2024-01-01T00:00:00Z,true,a\n", encoding="utf-8")
    c = tmp_path / "bad_data.yaml"
    c.write_text(CONTRACT, encoding="utf-8")
    res = cli("verify", "bad_data.yaml", "--data", "d.csv", "--now", "2024-01-02T00:00:00Z",
              "--keep", "work", "--target", "dbt,ibis", cwd=tmp_path, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert (tmp_path / "work" / "dbt").is_dir()
