"""A naive TIMESTAMP column fails a `timestamp_*_utc` column's type check on the SQL datasources a
GX user runs the suite on (DuckDB through `tacit_gen.gx.duckdb_datasource`, PostgreSQL), where
SQLAlchemy reflects TIMESTAMPTZ and TIMESTAMP alike; a timezone-aware column still passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import psycopg2
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import PgLocation
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx import TARGET
from tacit_gen.targets.gx.engine import context, run_suite
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine
CONTRACT = load(CONTRACTS / "fct_sensor_readings.yaml")
ROW = """'s1' AS series_id, {ts} AS event_ts, CAST(21.5 AS DECIMAL(9,3)) AS value_degc,
         'degC' AS unit, 'good' AS quality, 'plc' AS source_id, CAST(0 AS BIGINT) AS revision"""


def _column_expectations(dialect: str | None) -> list[dict[str, Any]]:
    art = TARGET.render(CONTRACT, plan(CONTRACT), RenderOptions(dialect=dialect)).artifacts[0]
    return [e for e in json.loads(art.content)["expectations"]
            if e["meta"]["tacit_clause"] == "column:event_ts"]


def _failed(results: list[Any]) -> list[bool]:
    return [not ok for _meta, ok, _count, _err, *_ in results]


@pytest.mark.parametrize(("ts", "fails"), [
    ("TIMESTAMPTZ '2024-01-02 14:59:00+00'", False),
    ("TIMESTAMP '2024-01-02 14:59:00'", True),
    ("CAST(TIMESTAMP '2024-01-02 14:59:00' AS TIMESTAMP_MS)", True),
])
def test_duckdb_sql_datasource(tmp_path: Path, ts: str, fails: bool) -> None:
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute(f"CREATE TABLE fct_sensor_readings AS SELECT {ROW.format(ts=ts)}")
    con.close()
    results = run_suite(context(), _column_expectations(None), ("sql", (str(db), "fct_sensor_readings")))
    assert any(_failed(results)) is fails, results


def test_duckdb_empty_naive_table_fails(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    row = ROW.format(ts="TIMESTAMP '2024-01-02 14:59:00'")
    con.execute(f"CREATE TABLE fct_sensor_readings AS SELECT {row} LIMIT 0")
    con.close()
    results = run_suite(context(), _column_expectations(None), ("sql", (str(db), "fct_sensor_readings")))
    assert any(_failed(results)), results


@pytest.mark.parametrize(("pg_type", "fails"), [("timestamptz", False), ("timestamp", True)])
def test_postgres(pg_server: Server, pg_type: str, fails: bool) -> None:
    schema = f"naive_{pg_type}"
    con = psycopg2.connect(pg_server.dsn)
    try:
        with con, con.cursor() as cur:
            cur.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
            cur.execute(f"""CREATE TABLE {schema}.fct_sensor_readings AS SELECT
                's1'::text AS series_id, '2024-01-02 14:59:00+00'::{pg_type} AS event_ts,
                21.5::numeric(9,3) AS value_degc, 'degC'::text AS unit, 'good'::text AS quality,
                'plc'::text AS source_id, 0::bigint AS revision""")
    finally:
        con.close()
    results = run_suite(context(), _column_expectations("postgres"),
                        ("postgres", (PgLocation(pg_server.dsn, schema), "fct_sensor_readings")))
    assert any(_failed(results)) is fails, results


def test_removed_zone_check_is_drift(tmp_path: Path) -> None:
    from tacit_gen.compare import compare

    clauses = plan(CONTRACT)
    doc = json.loads(TARGET.render(CONTRACT, clauses, RenderOptions()).artifacts[0].content)
    doc["expectations"] = [e for e in doc["expectations"]
                           if "TIMESTAMP WITH TIME ZONE" not in str(e["kwargs"].get("unexpected_rows_query"))]
    text = json.dumps(doc, indent=2)
    path = tmp_path / "fct_sensor_readings.json"
    findings = compare(CONTRACT, clauses, TARGET.read(path, text), str(path), "gx")
    assert [(f.clause_id, f.found) for f in findings] == [
        ("column:event_ts", "timestamp_ms_utc (time zone unchecked)")]
