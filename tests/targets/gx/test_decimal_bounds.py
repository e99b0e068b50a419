"""A decimal column at a fractional bound: GX's verdict is the contract's.

On pandas a DECIMAL column is a column of `Decimal` objects, and GX compares them with the suite's
bounds as JSON gives them, floats: `Decimal('0.1') >= 0.1` is False in Python (the float is
0.1000000000000000055...), so `p >= 0.1` failed a row holding exactly 0.1, and `p <= 0.3` one
holding 0.3 (verify: a disagreement with every other engine). The engine runs the expectations
of a DECIMAL column on the DuckDB SQL datasource. A real GX run on DuckDB.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.gx import TARGET
from tests.conftest import write_artifacts

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: ticks
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  p: {type: 'decimal(12,4)', unit: USD}
  f: {type: float64, unit: m}
invariants:
  - p >= 0.1
  - p <= 0.3
  - f >= 0.1
  - f <= 0.3
"""


def _run(tmp: Path, rows: list[tuple[int, str, float]]) -> tuple[dict[str, str], list[str]]:
    from tacit_gen.targets.gx.engine import run

    tmp.mkdir()
    path = tmp / "ticks.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    contract = load(path)
    clauses = plan(contract)
    art = write_artifacts(TARGET, contract, clauses, tmp / "generated")
    db = tmp / "data.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE data (id BIGINT, p DECIMAL(12,4), f DOUBLE)")
    con.executemany("INSERT INTO data VALUES (?, CAST(? AS DECIMAL(12,4)), ?)", rows)
    con.close()
    work = tmp / "work"
    work.mkdir()
    result = run(VerifyInput(contract, clauses, art, db, "data", datetime(2024, 1, 2, tzinfo=UTC), work))
    return {v.clause_id: v.status for v in result.verdicts}, list(result.notes)


def test_a_decimal_at_its_bound_passes(tmp_path: Path) -> None:
    got, notes = _run(tmp_path / "edge", [(1, "0.1", 0.1), (2, "0.3", 0.3), (3, "0.2", 0.2)])
    assert got["range:p"] == "pass" and got["range:f"] == "pass", got
    assert any("compares Decimal values with float bounds" in n for n in notes), notes


def test_a_decimal_past_its_bound_fails(tmp_path: Path) -> None:
    got, _ = _run(tmp_path / "past", [(1, "0.0999", 0.2), (2, "0.3001", 0.2)])
    assert got["range:p"] == "fail" and got["range:f"] == "pass", got
