"""Integer arithmetic in invariants is exact, and a float dividend is never rounded: verify's
verdicts on DuckDB and PostgreSQL (in the batch of tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py).

Found by probing verify with new contracts and data (2026-12-03):

- Two int32 quantities of 2e9 each: ``bid + ask <= 3000000000`` raised "Overflow in addition of
  INT32" in every SQL engine on DuckDB (and PostgreSQL), while pandera computed 4e9 and failed the
  row: a disagreement on data that is right, and a dbt test that errors in the user's warehouse.
- An int64 sum past 2^63 errored on DuckDB and PostgreSQL and wrapped on Spark, where dbt-spark
  1.11 turns ANSI mode off in its session (and the other engines shared it): ``big + big >= 0``
  failed there, and ``a + b <= 100`` would have passed for a = b = 2^62.
- A float dividend was cast to a bare DECIMAL, which is DECIMAL(10, 0) in Spark: a price of 0.6
  became 1, so ``price / qty >= 0.65`` passed in dbt, Soda and GX on Spark and failed in pandera
  and the runtime.

The SQL targets now cast integer operands of ``+ - *`` and unary minus to DECIMAL(38, 0) (an
integer dividend too; a float or decimal one keeps its type), the runtime casts them to
``decimal(38, 0)``, and pandera widens an integer that overflows to a decimal. One verify per
engine, every engine for real, hand-computed verdicts per row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.expr import nodes as n
from tacit_gen.sql import to_sql
from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: exact_arith
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  bid: {type: int32, unit: lots}
  ask: {type: int32, unit: lots}
  big: {type: int64, unit: lots}
  qty: {type: int64, unit: lots}
  price: {type: float64, unit: m}
invariants:
  - bid + ask <= 3000000000
  - big + big >= 0
  - big * qty >= 0
  - -big <= 0
  - price / qty >= 0.65
  - qty / 2 >= 0.5
"""

# row 1: 2e9 + 2e9 = 4e9 > 3e9 (int32 overflowed); 2^62 + 2^62 = 2^63 and 2^62 * 2 = 2^63 (int64
#        overflowed); 1.5 / 2 = 0.75 (Spark's DECIMAL(10, 0) made it 2 / 2)
# row 2: small values, every clause holds
# row 3: 0.6 / 1 < 0.65 (Spark made it 1 / 1); 1 / 2 = 0.5 (an integer division would give 0)
DATA = """\
id,bid,ask,big,qty,price
1,2000000000,2000000000,4611686018427387904,2,1.5
2,1,2,2,2,1.7
3,3,4,5,1,0.6
"""

FAILING = {"invariant:bid + ask <= 3000000000": 1, "invariant:price / qty >= 0.65": 1}
SQL_AND_FRAMES = value_targets()
NOW = datetime(2024, 1, 2, tzinfo=UTC)


def test_the_sql_casts_integer_operands_only() -> None:
    """What each dialect is given: integer operands of + - * and an integer dividend as an exact
    decimal (BigQuery's NUMERIC holds 29 integer digits: BIGNUMERIC), a float dividend as is."""
    add = n.Compare((n.BinOp("+", n.Column("bid"), n.Column("ask")), n.Number("3000000000")), ("<=",))
    div = n.Compare((n.BinOp("/", n.Column("price"), n.Column("qty")), n.Number("0.65")), (">=",))
    half = n.Compare((n.BinOp("/", n.Column("qty"), n.Number("2")), n.Number("0.5")), (">=",))
    ints = {"bid", "ask", "qty"}
    assert to_sql(add, "duckdb", ints) == \
        "(CAST(bid AS DECIMAL(38, 0)) + CAST(ask AS DECIMAL(38, 0))) <= 3000000000"
    assert to_sql(add, "bigquery", ints) == "(CAST(bid AS BIGNUMERIC) + CAST(ask AS BIGNUMERIC)) <= 3000000000"
    assert to_sql(add, "duckdb") == "(bid + ask) <= 3000000000"  # no integer columns named
    for dialect in ("postgres", "spark", "databricks", "snowflake", "bigquery"):
        assert to_sql(div, dialect, ints) == "(price / NULLIF(qty, 0)) >= 0.65", dialect
    assert to_sql(div, "duckdb", ints) == "(price / NULLIF(qty, 0)) >= 0.65"
    assert to_sql(half, "postgres", ints) == "(CAST(qty AS DECIMAL(38, 0)) / NULLIF(2, 0)) >= 0.5"
    assert to_sql(half, "duckdb", ints) == "(qty / NULLIF(2, 0)) >= 0.5"  # DuckDB's / is exact


def write_case(folder: Path) -> tuple[Path, Path]:
    """The contract and its data file, written into `folder` (the DuckDB, PostgreSQL and Spark batches verify them)."""
    return helpers.write_case(folder, "exact_arith", CONTRACT, DATA)


def check_report(report: dict[str, Any], shown: str = "", checking: tuple[str, ...] = SQL_AND_FRAMES) -> None:
    """A verify report (its JSON form) gives the hand-computed verdict of every invariant in every
    engine of `checking`: no error, no disagreement."""
    rows = {r["id"]: r for r in report["clauses"]}
    disagree = {cid: r["disagreement"] for cid, r in rows.items() if r["disagreement"]}
    assert disagree == {}, shown
    assert report["exit_code"] == 1, shown
    invariants = [cid for cid in rows if cid.startswith("invariant:")]
    assert len(invariants) == 6, invariants
    for cid in invariants:
        verdicts = rows[cid]["verdicts"]
        want = "fail" if cid in FAILING else "pass"
        got = {t: verdicts[t]["status"] for t in checking}
        assert got == dict.fromkeys(checking, want), (cid, {t: verdicts[t]["detail"] for t in checking})
        if cid in FAILING:
            for t in checking:
                if t != "pandera":  # pandera reports failure cases, not a count per clause
                    assert verdicts[t]["failures"] == FAILING[cid], (cid, t, verdicts[t])
    others = {cid: {t: v["status"] for t, v in r["verdicts"].items() if v["status"] not in ("pass", "n/a")}
              for cid, r in rows.items() if cid not in FAILING}
    assert {cid: bad for cid, bad in others.items() if bad} == {}, shown
