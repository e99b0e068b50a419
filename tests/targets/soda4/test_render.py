"""Soda 4 target: golden files, byte-stable output, every clause either a check carrying its id
and text or declared unsupported in the file, and a hostile contract that stays data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda4 import TARGET
from tacit_gen.targets.soda4.render import project

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))
GOLDEN = ROOT / "generated" / "soda4"  # the committed render is the golden file

HOSTILE = """\
contract: hostile_ds
version: 1.0.0
owner: "o'brien: #1"
description: "ends the scalar ' \\" and tries a newline\\n- failed_rows:"
key: [id]
fields:
  id: {type: int64, nullable: false}
  label: {type: string, value: "it's: #ok"}
  note: {type: string}
invariants:
  - note != 'x''; DROP TABLE hostile_ds; --'
  - "note != '${var.NOW}'"
"""


def _render(path: Path) -> str:
    contract = load(path)
    result = TARGET.render(contract, plan(contract), RenderOptions())
    assert [a.path for a in result.artifacts] == [f"soda4/{contract.name}.yml"]
    return result.artifacts[0].content


def _checks(doc: dict) -> list[tuple[str, dict]]:
    """(check type, body) of every check, column checks first."""
    out = [(k, b) for col in doc.get("columns") or () for item in col.get("checks") or ()
           for k, b in item.items()]
    return out + [(k, b) for item in doc.get("checks") or () for k, b in item.items()]


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_golden(path: Path) -> None:
    text = _render(path)
    golden = GOLDEN / f"{path.stem}.yml"
    if os.environ.get("TACIT_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_second_render_is_byte_identical(path: Path) -> None:
    assert _render(path) == _render(path)


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_every_clause_is_a_check_with_its_id_and_text_or_declared_unsupported(path: Path) -> None:
    contract = load(path)
    clauses = plan(contract)
    result = TARGET.render(contract, clauses, RenderOptions())
    text = result.artifacts[0].content
    doc = yaml.safe_load(text)
    assert doc["dataset"] == f"tacit/main/{contract.name}"
    unsupported = {u.clause_id for u in result.unsupported}
    by_qualifier = {b["qualifier"]: b for k, b in _checks(doc) if k != "schema"}
    columns = {c["name"]: c for c in doc["columns"]}
    for c in clauses:
        if c.id in unsupported:
            assert c.id in text  # listed in the header, never dropped silently
        elif c.kind == "column":
            assert c.param("column") in columns
        elif c.kind == "no_unknown_columns":
            (schema,) = [b for k, b in _checks(doc) if k == "schema"]
            assert schema["allow_extra_columns"] is False
        else:
            body = by_qualifier[c.id]
            assert body["name"] == " ".join(c.text.split()) or c.id.endswith(body["name"])
    read = TARGET.read(Path("x.yml"), text)
    assert read.findings == ()
    assert read.header_contract == contract.name
    expected = {c.id: project(contract, c) for c in clauses if c.id not in unsupported}
    assert {c.id: c for c in read.clauses} == expected


def test_types_follow_soda_names_with_precision_and_scale() -> None:
    doc = yaml.safe_load(_render(ROOT / "contracts" / "ohlcv_1m.yaml"))
    cols = {c["name"]: c for c in doc["columns"]}
    assert (cols["close"]["data_type"], cols["close"]["numeric_precision"],
            cols["close"]["numeric_scale"]) == ("decimal", 18, 8)
    assert cols["bar_start"]["data_type"] == "timestamp_tz"
    assert cols["trade_count"]["data_type"] == "bigint"
    assert cols["adjusted"]["data_type"] == "boolean"


def test_hostile_strings_stay_data_and_a_soda_variable_is_declared_unsupported(tmp_path: Path) -> None:
    src = tmp_path / "hostile_ds.yaml"
    src.write_text(HOSTILE, encoding="utf-8")
    contract = load(src)
    clauses = plan(contract)
    result = TARGET.render(contract, clauses, RenderOptions())
    text = result.artifacts[0].content
    doc = yaml.safe_load(text)  # the description's quote and newline did not break the YAML
    assert {u.clause_id for u in result.unsupported} == {"invariant:note != '${var.NOW}'"}
    bodies = {b["qualifier"]: b for k, b in _checks(doc) if k != "schema"}
    assert bodies["invariant:note != 'x''; DROP TABLE hostile_ds; --'"]["expression"] == (
        "NOT (note <> 'x''; DROP TABLE hostile_ds; --')")
    assert bodies["fixed_value:label"]["valid_values"] == ["it's: #ok"]
    read = TARGET.read(Path("x.yml"), text)
    assert read.findings == ()
    want = {c.id: project(contract, c) for c in clauses}
    assert {c.id: c for c in read.clauses} == {k: v for k, v in want.items() if v is not None}


def test_a_clause_kind_the_target_does_not_know_is_declared_unsupported() -> None:
    contract = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    novel = Clause("novel:symbol", "novel", ("symbol",), make_params(column="symbol"), "x")
    result = TARGET.render(contract, (*plan(contract), novel), RenderOptions())
    assert [(u.clause_id, u.reason) for u in result.unsupported] == [
        ("novel:symbol", "clause kind 'novel' has no Soda 4 check")]
    assert "#   - novel:symbol: clause kind 'novel' has no Soda 4 check" in result.artifacts[0].content
    assert TARGET.project(contract, novel, RenderOptions()) is None


def test_render_imports_no_engine() -> None:
    import subprocess
    import sys

    code = ("import sys, tacit_gen.targets.soda4.render, tacit_gen.targets.soda4.read;"
            "print(sorted(m for m in ('soda_core', 'soda', 'duckdb', 'psycopg2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_cadence_in_trading_days_is_a_failed_rows_query_on_the_sessions(tmp_path: Path) -> None:
    src = tmp_path / "bars.yaml"
    src.write_text("contract: bars\nversion: 1.0.0\nkey: [symbol, bar_start]\n"
                   "fields:\n  symbol: {type: string}\n  bar_start: {type: timestamp_ms_utc}\n"
                   "time:\n  column: bar_start\n  cadence: 1 trading day\n", encoding="utf-8")
    contract = load(src)
    clauses = plan(contract)
    (cadence,) = [c for c in clauses if c.kind == "cadence"]
    result = TARGET.render(contract, clauses, RenderOptions())
    assert result.unsupported == ()
    doc = yaml.safe_load(result.artifacts[0].content)
    (body,) = [b for k, b in _checks(doc) if b.get("qualifier") == cadence.id]
    assert body["query"].startswith(f"-- tacit_clause: {cadence.id}\n")
    read = TARGET.read(Path("x.yml"), result.artifacts[0].content)
    assert {c.id: c for c in read.clauses}[cadence.id] == TARGET.project(contract, cadence, RenderOptions())
