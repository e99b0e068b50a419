"""A range stated as several invariants is checked on every side it has, in every target: verify's
verdicts on DuckDB and PostgreSQL, and the plan's expression of the range.

Found by probing verify with new contracts and data (2026-12-04): the plan folds one-column
bounds on the same column (``z > 0``, then ``z < 10``) into one ``range:z`` clause, but kept the
first invariant's expression as the range's. Soda 4 writes a range it cannot say natively (an
exclusive side; a float32 column and a bound float32 does not hold) as a failed-rows expression
made from that expression, so it checked ``z > 0`` alone and passed a z of 12: verify exited 3
(Soda 4 one failing row, every other engine two). The range's expression is now every bound's,
joined with AND.

The case is verified in-process on each backend (`verify_cases`, every engine on DuckDB, then on
PostgreSQL), not through a `tacit-gen verify` subprocess each: one case a backend, the whole batch.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sql import to_sql
from tacit_gen.verify import VerifyCase, verify_cases
from tests.conftest import engine_targets, value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: merged_range
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  z: {type: float64, unit: m}
  x: {type: float32, unit: m}
invariants:
  - z > 0
  - z < 10
  - x >= 0.05
  - x <= 0.1
"""
# (id, z, x): z fails above 10 and below 0; x fails below 0.05 and at a stored 0.1 (0.100000001490116)
DATA = "id,z,x\n1,5,0.0625\n2,12,0.0625\n3,-1,0.0625\n4,5,0.01\n5,5,0.1\n"
CHECKING = value_targets()
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_range_expression_has_every_bound() -> None:
    ranges = {c.id: c for c in plan(load("merged_range.yaml", CONTRACT)) if c.kind == "range"}
    assert sorted(ranges) == ["range:x", "range:z"]
    assert to_sql(ranges["range:z"].expr, "duckdb") == "(z > 0 AND z < 10)"  # type: ignore[arg-type]
    x = ranges["range:x"]
    assert to_sql(x.expr, "duckdb", singles=x.singles) == (  # type: ignore[arg-type]
        "(CAST(x AS DOUBLE) >= 0.05 AND CAST(x AS DOUBLE) <= 0.1)")


def _check(tmp_path: Path, engine: str, dsn: str | None = None) -> None:
    """The case verified by every engine of `engine` (what `tacit-gen verify` runs by default)."""
    contract, data = helpers.write_case(tmp_path, "merged_range", CONTRACT, DATA)
    case = VerifyCase(load(str(contract)), data, None, NOW, engine_targets(engine), contract)
    (report,) = verify_cases([case], engine=engine, workdir=tmp_path / "work", dsn=dsn)
    shown = report.render_text()
    assert set(report.targets) == set(engine_targets(engine)), shown
    helpers.check_failing(report.as_json(), {"range:z": 2, "range:x": 2}, CHECKING, shown)


def test_every_side_in_every_engine(tmp_path: Path) -> None:
    _check(tmp_path, "duckdb")


def test_every_side_in_every_engine_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    _check(tmp_path, "postgres", pg_server.dsn)
