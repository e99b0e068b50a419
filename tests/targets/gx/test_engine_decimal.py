"""GX checks decimal precision and scale through a custom-SQL expectation (no type list can)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx import TARGET
from tacit_gen.targets.gx.engine import run
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine
NOW = datetime(2024, 1, 2, 15, 0, tzinfo=UTC)


def _setup(tmp: Path, value_type: str) -> VerifyInput:
    contract = load(CONTRACTS / "fct_sensor_readings.yaml")
    clauses = plan(contract)
    art = TARGET.render(contract, clauses, RenderOptions()).artifacts[0]
    (tmp / "gx").mkdir()
    (tmp / art.path).write_text(art.content)
    db = tmp / "data.duckdb"
    con = duckdb.connect(str(db))
    con.execute(f"""CREATE TABLE fct_sensor_readings AS SELECT 's1' AS series_id,
        TIMESTAMPTZ '2024-01-02 14:59:00+00' AS event_ts, CAST(21.5 AS {value_type}) AS value_degc,
        'degC' AS unit, 'good' AS quality, 'plc' AS source_id, CAST(0 AS BIGINT) AS revision""")
    con.close()
    return VerifyInput(contract, clauses, tmp, db, "fct_sensor_readings", NOW, tmp / "work")


def test_exact_decimal_passes(tmp_path: Path) -> None:
    verdicts = {v.clause_id: v.status for v in run(_setup(tmp_path, "DECIMAL(9,3)")).verdicts}
    assert verdicts["column:value_degc"] == "pass"


def test_other_scale_fails(tmp_path: Path) -> None:
    verdicts = {v.clause_id: v for v in run(_setup(tmp_path, "DECIMAL(9,2)")).verdicts}
    assert verdicts["column:value_degc"].status == "fail", verdicts["column:value_degc"]


def test_edited_precision_is_drift(tmp_path: Path) -> None:
    contract = load(CONTRACTS / "fct_sensor_readings.yaml")
    clauses = plan(contract)
    text = TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content
    edited = text.replace("'DECIMAL(9,3)'", "'DECIMAL(12,3)'")
    assert edited != text
    json.loads(edited)
    path = tmp_path / "fct_sensor_readings.json"
    findings = compare(contract, clauses, TARGET.read(path, edited), str(path), "gx")
    assert [(f.code, f.clause_id, f.found) for f in findings] == [("D202", "column:value_degc", "decimal(12,3)")]
