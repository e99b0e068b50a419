"""A float32 column checked against a catalog's DECIMAL bounds is compared as the double it holds,
in every engine: verify's verdicts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py).

Found by probing verify with a Parquet catalog whose bounds are DECIMAL (2026-12-04): DuckDB
compares a FLOAT with a DECIMAL in float32, so a stored 0.1 (0.100000001490116) was within a
hard maximum of 0.1 in dbt, Soda, GX and the runtime, and outside it in pandera: verify exited 3.
A float32 subject's catalog clauses (`catalog_bounds`, `plausible`) now carry ``as_double`` and
every target widens the subject (dbt's `tacit_catalog_bounds`/`tacit_plausible` with
``as_double: true``, ``CAST(.. AS DOUBLE)`` in Soda's and GX's queries, the runtime's cast).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: float32_catalog
version: 1.0.0
key: [series_id, ts]
time:
  column: ts
  precision: ms
  timezone: UTC instant
fields:
  series_id: {type: string}
  ts: {type: timestamp_ms_utc}
  value: {type: float32, unit: m, plausible: catalog}
invariants:
  - value within catalog hard_bounds for series_id
"""
# 0.1 is stored as 0.100000001490116 (above the bound 0.1), 0.05 as 0.0500000007450581 (above 0.05)
DATA = ("series_id,ts,value\n"
        "a,2026-01-01T00:00:00Z,0.1\n"
        "a,2026-01-01T00:01:00Z,0.05\n"
        "a,2026-01-01T00:02:00Z,0.2\n"
        "a,2026-01-01T00:03:00Z,0.0625\n")
CHECKING = value_targets()
SQL_AND_FRAMES = CHECKING
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def write_case(folder: Path) -> tuple[Path, Path, Path]:
    """The contract, its data and a Parquet catalog with DECIMAL(9,4) bounds (the Spark batch
    uses them too)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    contract, data = helpers.write_case(folder, "float32_catalog", CONTRACT, DATA)

    def dec(text: str) -> Any:
        return pa.array([Decimal(text)], pa.decimal128(9, 4))

    catalog = folder / "catalog.parquet"
    pq.write_table(pa.table({"series_id": ["a"], "unit": ["m"], "hard_min": dec("0.05"),
                             "hard_max": dec("0.1"), "plausible_min": dec("0.05"),
                             "plausible_max": dec("0.1"), "cadence_seconds": [60]}), catalog)
    return contract, data, catalog


def check_report(report: dict[str, Any], shown: str = "", checking: tuple[str, ...] = CHECKING) -> None:
    """The rows 0.1 and 0.2 fail the hard bounds and warn the plausible ones, in every engine."""
    rows = {r["id"]: r for r in report["clauses"]}
    plausible = rows["plausible:value"]["verdicts"]
    assert {t: plausible[t]["status"] for t in checking} == dict.fromkeys(checking, "warn"), shown
    for t in checking:
        if plausible[t]["failures"] is not None:
            assert plausible[t]["failures"] == 2, (t, plausible[t], shown)
    others = [r for r in report["clauses"] if r["id"] != "plausible:value"]
    helpers.check_failing({**report, "clauses": others}, {"catalog_bounds:value": 2}, checking, shown)


def test_the_plan_marks_a_float32_subject() -> None:
    by_id = {c.id: c for c in plan(load("float32_catalog.yaml", CONTRACT))}
    assert by_id["catalog_bounds:value"].param("as_double") is True
    assert by_id["plausible:value"].param("as_double") is True
    other = plan(load("x.yaml", CONTRACT.replace("float32", "float64")))
    assert [c.param("as_double") for c in other if c.kind in ("catalog_bounds", "plausible")] == [None, None]
