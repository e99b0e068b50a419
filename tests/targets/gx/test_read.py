"""Reading GX suites back: round trip, one test per hand-edit kind, hand-written suites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.drift import base as d
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx import TARGET
from tacit_gen.targets.gx.read import KNOWN_TYPES, read

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))


def _setup(name: str) -> tuple[Any, Any, dict[str, Any]]:
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    clauses = plan(contract)
    doc = json.loads(TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content)
    return contract, clauses, doc


def _findings(contract: Any, clauses: Any, doc: dict[str, Any]) -> list[d.Finding]:
    text = json.dumps(doc, indent=2)
    return compare(contract, clauses, read(Path("gx/x.json"), text), "gx/x.json", "gx")


def _edit(doc: dict[str, Any], clause_id: str, etype: str | None = None) -> dict[str, Any]:
    for e in doc["expectations"]:
        if e["meta"]["tacit_clause"] == clause_id and (etype is None or e["type"] == etype):
            return e
    raise AssertionError(clause_id)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_round_trip_has_no_findings(path: Path) -> None:
    contract, clauses, doc = _setup(path.stem)
    read_back = read(Path("gx/x.json"), json.dumps(doc))
    assert {c.id for c in read_back.clauses} == {c.id for c in clauses}
    assert read_back.header_contract == contract.name
    assert read_back.header_version == contract.version
    assert _findings(contract, clauses, doc) == []


def test_deleted_expectation_is_a_missing_clause() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    doc["expectations"] = [e for e in doc["expectations"] if e["meta"]["tacit_clause"] != "not_null:close"]
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id) for f in fs] == [(d.MISSING_CLAUSE, "not_null:close")]


def test_deleted_half_of_a_chain_changes_the_invariant() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    victim = _edit(doc, "invariant:low <= open <= high")
    doc["expectations"].remove(victim)
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id) for f in fs] == [(d.PARAM_CHANGED, "invariant:low <= open <= high")]


def test_changed_bound() -> None:
    contract, clauses, doc = _setup("fct_sensor_readings")
    _edit(doc, "range:value_degc")["kwargs"]["max_value"] = 200
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id, f.found) for f in fs] == [(d.PARAM_CHANGED, "range:value_degc", "200")]


def test_changed_type() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    from tacit_gen.targets.gx.compile import type_list

    _edit(doc, "column:volume", "expect_column_values_to_be_in_type_list")["kwargs"]["type_list"] = type_list("float64")
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id, f.found) for f in fs] == [(d.PARAM_CHANGED, "column:volume", "float64")]


def test_mostly_is_a_weakened_severity() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    _edit(doc, "not_null:close")["kwargs"]["mostly"] = 0.9
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id, f.found) for f in fs] == [(d.SEVERITY_WEAKENED, "not_null:close", "0.9")]


def test_severity_change() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    _edit(doc, "unique:symbol,bar_start,revision")["severity"] = "warning"
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id) for f in fs] == [(d.SEVERITY_WEAKENED, "unique:symbol,bar_start,revision")]


def test_unknown_expectation_type() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    _edit(doc, "not_null:close")["type"] = "expect_column_values_to_not_be_nul"
    fs = _findings(contract, clauses, doc)
    codes = sorted((f.code, f.clause_id) for f in fs)
    assert codes == [(d.MISSING_CLAUSE, "not_null:close"), (d.UNKNOWN_CHECK, "not_null:close")]


def test_removed_column() -> None:
    contract, clauses, doc = _setup("ohlcv_1m")
    doc["expectations"] = [e for e in doc["expectations"]
                           if e["kwargs"].get("column") != "trade_count"
                           and e["meta"]["tacit_clause"] != "column:trade_count"]
    _edit(doc, "no_unknown_columns")["kwargs"]["column_set"].remove("trade_count")
    fs = _findings(contract, clauses, doc)
    got = sorted((f.code, f.clause_id) for f in fs)
    assert (d.PARAM_CHANGED, "no_unknown_columns") in got
    assert (d.MISSING_CLAUSE, "column:trade_count") in got
    assert (d.MISSING_CLAUSE, "range:trade_count") in got


def test_edited_custom_sql_is_found() -> None:
    contract, clauses, doc = _setup("plant_sensor_reading")
    e = _edit(doc, "catalog_unit:unit")
    e["kwargs"]["unexpected_rows_query"] = "SELECT * FROM {batch} WHERE FALSE"
    fs = _findings(contract, clauses, doc)
    assert [(f.code, f.clause_id) for f in fs] == [(d.PARAM_CHANGED, "catalog_unit:unit")]


def test_changed_freshness_interval() -> None:
    contract, clauses, doc = _setup("fct_sensor_readings")
    e = _edit(doc, "freshness:event_ts")
    e["kwargs"]["unexpected_rows_query"] = e["kwargs"]["unexpected_rows_query"].replace("900", "3600")
    fs = _findings(contract, clauses, doc)
    assert (d.PARAM_CHANGED, "freshness:event_ts", "3600") in [(f.code, f.clause_id, f.found) for f in fs]


def test_unreadable() -> None:
    assert read(Path("x.json"), "{not json").findings[0].code == d.UNREADABLE
    assert read(Path("x.json"), "[]").findings[0].code == d.UNREADABLE


def test_hand_written_suite() -> None:
    """The seed's class-based suite, as GX 1.x serialises it (no tacit meta)."""
    doc = {
        "name": "ohlcv_1m_v3",
        "expectations": [
            {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "close"}, "meta": {}},
            {"type": "expect_compound_columns_to_be_unique",
             "kwargs": {"column_list": ["symbol", "bar_start", "revision"]}, "meta": {}},
            {"type": "expect_column_pair_values_a_to_be_greater_than_b",
             "kwargs": {"column_A": "high", "column_B": "low", "or_equal": True}, "meta": {}},
            {"type": "expect_column_values_to_be_between", "kwargs": {"column": "volume", "min_value": 0},
             "meta": {}},
            {"type": "expect_column_values_to_match_regex",
             "kwargs": {"column": "bar_start", "regex": "\\+00:00$"}, "meta": {}},
        ],
        "meta": {},
    }
    res = read(Path("gx/hand.json"), json.dumps(doc))
    assert res.findings == ()
    assert res.header_contract is None
    got = {c.id: dict(c.params) for c in res.clauses}
    assert got["not_null:close"] == {"column": "close"}
    assert got["unique:symbol,bar_start,revision"] == {"columns": ("symbol", "bar_start", "revision")}
    assert got["range:volume"] == {"column": "volume", "min": "0", "max": None,
                                   "min_inclusive": True, "max_inclusive": True}
    assert "invariant:low <= high" in got
    assert "gx:expect_column_values_to_match_regex:bar_start" in got
    contract = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    fs = compare(contract, plan(contract), res, "gx/hand.json", "gx")
    codes = {(f.code, f.clause_id) for f in fs}
    assert (d.HEADER, None) in codes
    assert (d.EXTRA_CLAUSE, "gx:expect_column_values_to_match_regex:bar_start") in codes
    assert (d.MISSING_CLAUSE, "not_null:open") in codes
    assert not [f for f in fs if f.clause_id in ("not_null:close", "range:volume")]


@pytest.mark.engine
def test_known_types_match_installed_gx() -> None:
    from tacit_gen.targets.gx.engine import context

    context()
    from great_expectations.expectations.registry import _registered_expectations

    assert frozenset(_registered_expectations) == KNOWN_TYPES


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_a_suite_with_the_meta_on_every_expectation_reads_the_same(path: Path) -> None:
    """Suites written before the text and params moved to the suite's meta still read back."""
    contract, clauses, doc = _setup(path.stem)
    texts, params = doc["meta"].pop("tacit_clauses"), doc["meta"].pop("tacit_params")
    for e in doc["expectations"]:
        cid = e["meta"]["tacit_clause"]
        e["meta"]["tacit_text"] = texts[cid]
        if e["type"] == "unexpected_rows_expectation":
            e["meta"]["tacit_params"] = params[cid]
        e.setdefault("severity", "critical")
    old = read(Path("gx/x.json"), json.dumps(doc))
    _, _, new_doc = _setup(path.stem)
    new = read(Path("gx/x.json"), json.dumps(new_doc))
    assert old.clauses == new.clauses and [c.text for c in old.clauses] == [c.text for c in new.clauses]
    assert old.findings == new.findings == ()
    assert _findings(contract, clauses, doc) == []


def test_an_edited_custom_sql_param_in_the_suite_meta_is_found() -> None:
    contract, clauses, doc = _setup("fct_sensor_readings")
    doc["meta"]["tacit_params"]["freshness:event_ts"]["max_age_seconds"] = 3600
    fs = _findings(contract, clauses, doc)
    assert ("freshness:event_ts" in {f.clause_id for f in fs}), fs
