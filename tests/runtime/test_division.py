"""The runtime divides by NULLIF(divisor, 0): `x / 0` is NULL, so the invariant is UNKNOWN and
the row passes, on DuckDB and on a real PostgreSQL 15 (which raises "division by zero" for a bare
`x / 0`: the whole query failed and the clause errored), with one real failure counted."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.load import load_data, load_postgres
from tacit_gen.engines.postgres_server import Server
from tacit_gen.runtime import Schema
from tacit_gen.runtime.evaluate import evaluate

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: ratios
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  a: {type: 'decimal(18,6)', unit: USD}
  b: {type: 'decimal(18,6)', unit: USD}
  n: {type: int64}
  m: {type: int64}
invariants:
  - a / b < 10
  - n / m <= 1
"""
# row 1 divides by zero twice (both UNKNOWN: pass); row 2 breaks `a / b < 10` (50 / 1)
DATA = "id,a,b,n,m\n1,1,0,3,0\n2,50,1,1,2\n3,0,0,0,0\n"


def _schema(path: Path) -> type[Schema]:
    from tacit_gen.render import render_contract
    from tacit_gen.targets.base import RenderOptions

    arts, _ = render_contract(load(str(path)), ("ibis",), RenderOptions())
    (art,) = [a for a in arts if a.path.endswith(".py")]
    module = types.ModuleType("ratios_module")
    sys.modules["ratios_module"] = module
    exec(compile(art.content, art.path, "exec"), module.__dict__)
    (cls,) = [v for v in vars(module).values()
              if isinstance(v, type) and issubclass(v, Schema) and v is not Schema]
    return cls


def _verdicts(schema: type[Schema], table: object) -> dict[str, tuple[str, int | None]]:
    report = evaluate(schema, table)  # type: ignore[arg-type]
    return {r.clause.id: (r.status, r.count) for r in report.results
            if r.clause.kind == "invariant"}


EXPECTED = {"invariant:a / b < 10": ("fail", 1), "invariant:n / m <= 1": ("pass", 0)}


def test_division_by_zero_is_unknown_on_duckdb(tmp_path: Path) -> None:
    (tmp_path / "ratios.yaml").write_text(CONTRACT, encoding="utf-8")
    (tmp_path / "ratios.csv").write_text(DATA, encoding="utf-8")
    contract = load(str(tmp_path / "ratios.yaml"))
    load_data(contract, tmp_path / "ratios.csv", tmp_path / "r.duckdb")
    con = ibis.duckdb.connect(str(tmp_path / "r.duckdb"))
    try:
        assert _verdicts(_schema(tmp_path / "ratios.yaml"), con.table("ratios")) == EXPECTED
    finally:
        con.disconnect()


def test_division_by_zero_is_unknown_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    (tmp_path / "ratios.yaml").write_text(CONTRACT, encoding="utf-8")
    (tmp_path / "ratios.csv").write_text(DATA, encoding="utf-8")
    contract = load(str(tmp_path / "ratios.yaml"))
    load_postgres(contract, tmp_path / "ratios.csv", pg_server.dsn, "ratios_div", tmp_path / "w")
    con = ibis.postgres.connect(host=pg_server.host, port=pg_server.port, user="postgres",
                                database="postgres")
    try:
        table = con.table("ratios", database="ratios_div")
        assert _verdicts(_schema(tmp_path / "ratios.yaml"), table) == EXPECTED
    finally:
        con.disconnect()
