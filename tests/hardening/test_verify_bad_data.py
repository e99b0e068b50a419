"""Class 5 of issue 15: verify on bad data gives the documented verdict (docs/verify.md): the
clause reading an unconvertible or mistyped column is n/a everywhere, its `column:` clause fails,
exit 1, never 3. Real engines, one verify per data file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

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


def _verify(tmp_path: Path, data: Path, *extra: str) -> tuple[int, dict]:
    c = tmp_path / "bad_data.yaml"
    c.write_text(CONTRACT, encoding="utf-8")
    res = cli("verify", str(c), "--data", str(data), "--now", "2024-01-02T00:00:00Z",
              "--format", "json", *extra, timeout=900)
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    return res.returncode, json.loads(res.stdout)


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


def test_unconvertible_csv_values(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("id,amount,ts,flag,label\n"
                    "1,12.5,2024-01-01T00:00:00Z,true,a\n"
                    "x2,abc,not a time,maybe,b\n", encoding="utf-8")
    code, report = _verify(tmp_path, data)
    _assert_documented(code, report, ["id", "amount", "ts", "flag"])


def test_parquet_wrong_types_and_nested(tmp_path: Path) -> None:
    data = tmp_path / "d.parquet"
    table = pa.table({
        "id": pa.array([1.5, 2.5]),                       # float where int64 is expected
        "amount": pa.array([1.5, 2.5], pa.float64()),     # float where decimal is expected
        "ts": pa.array([{"a": 1}, {"a": 2}]),             # a nested struct
        "flag": pa.array([[True], [False]]),              # a nested list
        "label": pa.array(["a", "b"]),
    })
    pq.write_table(table, data)
    code, report = _verify(tmp_path, data)
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
