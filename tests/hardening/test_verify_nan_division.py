"""NaN in float columns and division by zero: every engine gives the contract's SQL verdict.

The contract's semantics are SQL's (docs/contract-language.md, "Floats: NaN"): NaN is a value,
not NULL; it equals NaN and is above every number (DuckDB, PostgreSQL and Spark order it so), and
``x / 0`` is NULL, so an invariant dividing by zero is UNKNOWN and passes. pandas and pyarrow
compare NaN as IEEE does (every comparison false), GX on pandas reads NaN as missing, and DuckDB
from 1.1 on (the Soda 4 engine's) gives inf or NaN for ``x / 0``: each of these once made verify
report a disagreement (exit 3). One verify, every engine for real on DuckDB, hand-computed
verdicts per row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import record_targets, value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: nan_div
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  x: {type: float64, unit: m}
  y: {type: float64, unit: m}
  a: {type: 'decimal(18,6)', unit: USD}
  b: {type: 'decimal(18,6)', unit: USD}
invariants:
  - x >= 0
  - x <= y
  - x = y only when id > 1
  - a / b < 10
"""

# row 1: NaN >= 0 holds (NaN is above every number), NaN <= 1.0 does not; 1 / 0 is NULL
# row 2: NaN <= NaN and NaN = NaN hold (so `id > 1` is needed, and holds); 0 / 0 is NULL
# row 3: 1.0 <= NaN holds; 5 / 1 < 10
# row 4: 50 / 1 is not below 10
# row 5: NULLs: every clause UNKNOWN, passes
DATA = """\
id,x,y,a,b
1,nan,1.0,1,0
2,nan,nan,0,0
3,1.0,nan,5,1
4,2.0,3.0,50,1
5,,2.0,,1
"""

FAILING = {"invariant:x <= y": 1, "invariant:a / b < 10": 1}
SQL_AND_FRAMES = value_targets()
NOW = datetime(2024, 1, 2, tzinfo=UTC)


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "nan_div", CONTRACT, DATA)


def check_report(report: dict[str, Any], shown: str = "", checking: tuple[str, ...] = SQL_AND_FRAMES) -> None:
    """A verify report (its JSON form) gives the hand-computed verdict of every row in every
    engine of `checking` (the SQL and dataframe targets; Spark has no Soda 4 engine)."""
    rows = {r["id"]: r for r in report["clauses"]}
    disagree = {cid: r["disagreement"] for cid, r in rows.items() if r["disagreement"]}
    assert disagree == {}
    assert report["exit_code"] == 1, shown
    for cid, row in rows.items():
        verdicts = row["verdicts"]
        if cid in FAILING:
            for t in checking:
                assert verdicts[t]["status"] == "fail", (cid, t, verdicts[t])
                if t != "pandera":  # pandera reports failure cases, not a count per clause
                    assert verdicts[t]["failures"] == FAILING[cid], (cid, t, verdicts[t])
        else:  # NaN round-trips the wire schemas too (column:x, column:y)
            bad = {t: v for t, v in verdicts.items() if v["status"] not in ("pass", "n/a")}
            assert bad == {}, cid
    passing = {t for t, v in rows["range:x"]["verdicts"].items() if v["status"] == "pass"}
    assert passing >= set(checking)
    for wire in record_targets():
        assert rows["column:x"]["verdicts"][wire]["status"] == "pass"
