"""A float32 column is compared and computed as the value it holds, in every engine: verify's
verdicts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py), the artifacts, and the reference arithmetic.

Found by probing verify with new contracts and data (2026-12-04): DuckDB compares a FLOAT
with a number in float32 (the number rounded to the nearest float32) and adds FLOATs, and a
FLOAT and a decimal, in float32, where PostgreSQL and Spark widen to double first. A stored 0.1
(0.100000001490116 in float32) passed ``x <= 0.1`` in dbt, Soda and the runtime on DuckDB, and
failed it in GX and pandera and in every engine on PostgreSQL: verify exited 3 on DuckDB.
``x + y <= 0.2`` passed two stored 0.1s on DuckDB (their float32 sum is the float32 nearest 0.2)
and failed them in pandera; ``big + n >= 16777217`` failed 16777216 + 1 on DuckDB (float32 has no
16777217) and made pandera error.

Every target now widens a float32 column to a double before any comparison or arithmetic: the SQL
targets' invariants (``CAST(x AS DOUBLE)``), a range with a bound float32 does not hold (dbt's
``tacit_accepted_range`` with ``as_double``, Soda v3's failed-rows query, Soda 4's expression),
the runtime (``cast('float64')``) and pandera (read as float64). A range whose bounds float32
holds (``big between 0.5 and 16777216``) keeps each tool's own check.
"""

from __future__ import annotations

import json
import struct
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.expr.bounds import float32_value, pasted_exactly, prints_in_double
from tacit_gen.plan import plan
from tests.conftest import value_targets
from tests.hardening import helpers
from tests.hardening.helpers import cli

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: float32_exact
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  x: {type: float32, unit: m}
  y: {type: float32, unit: m}
  big: {type: float32, unit: m}
  n: {type: int32}
invariants:
  - x <= 0.1
  - y > -0.1
  - x + y <= 0.2
  - big + n >= 16777217
  - big between 0.5 and 16777216
"""

# (id, x, y, big, n) as the CSV writes them; each column is stored as float32
ROWS = (
    (1, "0.1", "0.1", "1", ""),  # x is 0.100000001490116 > 0.1; x + y is 0.200000002980232 > 0.2
    (2, "-0.5", "-0.1", "2", ""),  # y is -0.100000001490116, not > -0.1
    (3, "0", "0", "16777216", "1"),  # big + n is 16777217: passes (16777216 in float32)
    (4, "0.0625", "0.0625", "16777216", "0"),  # big + n is 16777216 < 16777217
    (5, "0.05", "0.05", "0.25", ""),  # big below 0.5; x + y is 0.100000001490116 <= 0.2
)
DATA = "id,x,y,big,n\n" + "".join(",".join(map(str, r)) + "\n" for r in ROWS)
SQL_AND_FRAMES = value_targets()
NOW = datetime(2026, 1, 1, tzinfo=UTC)
FAILING = {"range:x": 1, "range:y": 1, "invariant:x + y <= 0.2": 1,
           "invariant:big + n >= 16777217": 1, "range:big": 1}


def _single(text: str) -> Decimal:
    """The exact value float32 stores for a decimal text."""
    return Decimal(struct.unpack("<f", struct.pack("<f", float(text)))[0])


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "float32_exact", CONTRACT, DATA)


def check_report(report: dict[str, Any], shown: str = "",
                 checking: tuple[str, ...] = SQL_AND_FRAMES) -> None:
    """Every engine of `checking` fails each clause on its one hand-counted row, nothing else."""
    helpers.check_failing(report, FAILING, checking, shown)


def test_the_reference_counts_the_stored_values() -> None:
    """The hand counts, from the float32 values the rows store, compared exactly."""
    def failing(ok: Any) -> list[int]:
        return [r[0] for r in ROWS if not ok(*(_single(v) if v else None for v in r[1:4]),
                                            int(r[4]) if r[4] else None)]

    assert failing(lambda x, y, big, n: x <= Decimal("0.1")) == [1]
    assert failing(lambda x, y, big, n: y > Decimal("-0.1")) == [2]
    assert failing(lambda x, y, big, n: x + y <= Decimal("0.2")) == [1]
    assert failing(lambda x, y, big, n: n is None or big + n >= 16777217) == [4]
    assert failing(lambda x, y, big, n: Decimal("0.5") <= big <= 16777216) == [5]
    # and float32 arithmetic would have said otherwise (what DuckDB computed)
    assert _single(str(_single("16777216") + 1)) == 16777216
    assert _single(str(_single("0.1") + _single("0.1"))) == _single("0.2")


def test_which_bounds_float32_holds() -> None:
    assert [float32_value(b) for b in ("0", "0.5", "-0.25", "16777216", "0.1", "16777217", "1e39")] \
        == [True, True, True, True, False, False, False]
    assert pasted_exactly("0.1", "float64") and pasted_exactly("0.1", "decimal(9,2)")
    assert not pasted_exactly("0.1", "float32") and pasted_exactly("0.5", "float32")
    assert not prints_in_double("0.1", "float32") and prints_in_double("0.5", "float32")


def test_the_artifacts_widen_float32(tmp_path: Path) -> None:
    """The float32 columns of the invariants are doubles in each SQL target's query; a range with
    a bound float32 does not hold leaves each tool's own check, one whose bounds it holds keeps it."""
    contract, _ = write_case(tmp_path)
    out = tmp_path / "gen"
    res = cli("render", str(contract), "--out", str(out))
    assert res.returncode == 0, res.stderr
    dbt = (out / "dbt" / "float32_exact.yml").read_text()
    assert "expression: (CAST(x AS DOUBLE) + CAST(y AS DOUBLE)) <= 0.2" in dbt, dbt
    assert "CAST(big AS DOUBLE) + CAST(n AS DECIMAL(38, 0))" in dbt, dbt
    assert dbt.count("as_double: true") == 2, dbt  # range:x and range:y; not range:big
    soda = (out / "soda" / "float32_exact.yml").read_text()
    assert "valid max: 0.1" not in soda and "CAST(x AS DOUBLE) <= 0.1" in soda, soda
    assert "valid min: 0.5" in soda and "valid max: 16777216" in soda, soda
    soda4 = (out / "soda4" / "float32_exact.yml").read_text()
    assert "valid_max: 0.1" not in soda4 and "CAST(x AS DOUBLE) <= 0.1" in soda4, soda4
    gx = json.loads((out / "gx" / "float32_exact.json").read_text())
    queries = [e["kwargs"].get("unexpected_rows_query", "") for e in gx["expectations"]]
    assert any("CAST(x AS DOUBLE) + CAST(y AS DOUBLE)" in q for q in queries), queries
    assert cli("check", str(contract), "--out", str(out)).returncode == 0


def test_the_plan_names_the_float32_columns() -> None:
    contract = load("float32_exact.yaml", CONTRACT)
    singles = {c.id: c.singles for c in plan(contract) if c.kind in ("range", "invariant")}
    assert singles == {"range:x": {"x"}, "range:y": {"y"}, "range:big": {"big"},
                       "invariant:x + y <= 0.2": {"x", "y"}, "invariant:big + n >= 16777217": {"big"}}
