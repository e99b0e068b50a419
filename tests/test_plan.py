"""The clause plan of the bundled contracts: stable ids, params, verbatim text."""

from __future__ import annotations

from pathlib import Path

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.plan_types import KINDS, Clause

ROOT = Path(__file__).resolve().parents[1]


def _plan(name: str):  # type: ignore[no-untyped-def]
    return plan(load(ROOT / "contracts" / f"{name}.yaml"))


def test_ohlcv_plan() -> None:
    clauses = _plan("ohlcv_1m")
    by_id = {c.id: c for c in clauses}
    assert by_id["column:open"].param("type") == "decimal(18,8)"
    assert by_id["column:open"].param("unit") == "quote_currency"
    for implied in ("source_id", "ingest_run_id", "transform_version", "revision"):
        assert f"column:{implied}" in by_id and f"not_null:{implied}" in by_id
    assert by_id["column:revision"].param("type") == "int64"
    assert by_id["unique:symbol,bar_start,revision"].columns == ("symbol", "bar_start", "revision")
    assert by_id["fixed_value:adjusted"].param("value") is False
    vol = by_id["range:volume"]
    assert (vol.param("min"), vol.param("max"), vol.text) == ("0", None, "volume >= 0")
    tc = by_id["range:trade_count"]
    assert tc.param("min") == "0" and tc.text == "trade_count is null or trade_count >= 0"
    assert by_id["range:revision"].param("min") == "0"
    inv = by_id["invariant:low <= open <= high"]
    assert inv.param("expr") == "low <= open <= high" and inv.columns == ("low", "open", "high")
    assert inv.line == 22
    cad = by_id["cadence:bar_start"]
    assert cad.param("interval_seconds") == 60 and cad.param("series") == ("symbol",)
    assert "not_null:trade_count" not in by_id
    # plan order follows KINDS; ids are unique
    ranks = [KINDS.index(c.kind) for c in clauses]
    assert ranks == sorted(ranks)
    assert len(by_id) == len(clauses)


def test_fct_sensor_readings_plan() -> None:
    by_id = {c.id: c for c in _plan("fct_sensor_readings")}
    r = by_id["range:value_degc"]
    assert (r.param("min"), r.param("max"), r.param("min_inclusive"), r.param("max_inclusive")) == (
        "-40", "150", True, True,
    )
    assert by_id["accepted_values:quality"].param("values") == ("good", "suspect", "bad")
    assert by_id["fixed_value:unit"].param("value") == "degC"
    assert by_id["freshness:event_ts"].param("max_age_seconds") == 900
    assert "invariant:value_degc is null only when quality = bad" in by_id


def test_plant_sensor_reading_plan() -> None:
    clauses = _plan("plant_sensor_reading")
    by_id = {c.id: c for c in clauses}
    # the constraint and the invariant say the same thing: one clause
    assert [c.id for c in clauses].count("catalog_unit:unit") == 1
    cu = by_id["catalog_unit:unit"]
    assert cu.param("relation") == "series_catalog" and cu.param("key") == "series_id"
    cb = by_id["catalog_bounds:value"]
    assert (cb.param("min_column"), cb.param("max_column")) == ("hard_min", "hard_max")
    cad = by_id["cadence:event_ts"]
    assert cad.param("from_catalog") is True and cad.param("tolerance_pct") == "10"
    assert cad.param("interval_seconds") is None
    assert by_id["column:value"].param("unit") == "per series from catalog"


def test_plan_is_deterministic() -> None:
    for name in ("ohlcv_1m", "plant_sensor_reading", "fct_sensor_readings"):
        assert _plan(name) == _plan(name)
        assert [c.id for c in _plan(name)] == [c.id for c in _plan(name)]


def test_a_clause_parameter_is_the_first_given_else_the_default() -> None:
    c = Clause("x", "range", ("a",), (("column", "a"), ("min", 1), ("min", 2)), "a >= 1")
    assert c.param("min") == 1 and c.param("column") == "a"
    assert c.param("max") is None and c.param("max", 7) == 7
    assert c.param("min") == 1  # asked again: from the table built at the first lookup
    assert c == Clause("x", "range", ("a",), (("column", "a"), ("min", 1), ("min", 2)), "a >= 1")
