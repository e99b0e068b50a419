"""The parse query compiles for other ibis backends' SQL dialects, and sqlglot parses it back."""

from __future__ import annotations

import subprocess
import sys

import ibis
import pytest
import sqlglot

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.runtime.evaluate import parse_query

from ..conftest import CONTRACTS
from .helpers import NOW

# ibis dialect -> sqlglot dialect
DIALECTS = {"duckdb": "duckdb", "postgres": "postgres", "snowflake": "snowflake",
            "bigquery": "bigquery", "pyspark": "spark", "databricks": "databricks"}


def _schema_for(name: str):  # type: ignore[no-untyped-def]
    """The generated module's Schema for a bundled contract (rendered and executed in memory)."""
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.ibis import TARGET

    contract = load(str(CONTRACTS / f"{name}.yaml"))
    text = TARGET.render(contract, plan(contract), RenderOptions()).artifacts[0].content
    ns: dict[str, object] = {"__name__": f"gen_{name}"}
    exec(compile(text, f"{name}.py", "exec", dont_inherit=True), ns)
    return ns[ns["__all__"][0]]  # type: ignore[index]


@pytest.mark.parametrize("contract", ["ohlcv_1m", "plant_sensor_reading", "fct_sensor_readings"])
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_parse_query_compiles_and_parses(contract: str, dialect: str) -> None:
    schema = _schema_for(contract)
    types = {s.name: _ibis_type(str(s.type)) for s in schema.columns()}
    table = ibis.table(types, name=contract)
    catalog = ibis.table({"series_id": "string", "unit": "string", "hard_min": "decimal(12,4)",
                          "hard_max": "decimal(12,4)", "cadence_seconds": "int32"},
                         name="series_catalog")
    query = parse_query(schema, table, catalog=catalog, now=NOW)
    assert query is not None
    sql = ibis.to_sql(query, dialect=dialect)
    parsed = sqlglot.parse_one(str(sql), read=DIALECTS[dialect])
    assert parsed is not None
    assert len(sqlglot.parse(str(sql), read=DIALECTS[dialect])) == 1  # ONE statement


def _ibis_type(t: str) -> str:
    if t.startswith("timestamp"):
        return "timestamp('UTC', 6)"
    if t.startswith("enum"):
        return "string"
    return {"bool": "boolean"}.get(t, t)


def test_import_runtime_does_not_import_ibis() -> None:
    code = ("import sys, tacit_gen.runtime, tacit_gen.targets.ibis.render, tacit_gen.targets.ibis.read; "
            "assert 'ibis' not in sys.modules, 'ibis imported'; "
            "import tacit_gen.cli; assert 'tacit_gen.runtime' not in sys.modules or True")
    subprocess.run([sys.executable, "-c", code], check=True)
    code2 = ("import sys, tacit_gen.cli, tacit_gen.targets.ibis.render, tacit_gen.targets.ibis.read; "
             "assert 'tacit_gen.runtime' not in sys.modules")
    subprocess.run([sys.executable, "-c", code2], check=True)
