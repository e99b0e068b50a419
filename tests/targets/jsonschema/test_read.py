"""JSON Schema reader: a hand edit of a committed schema is named by `check` as the clause."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tacit_gen.checking import run_check
from tacit_gen.targets.base import RenderOptions

ROOT = Path(__file__).resolve().parents[3]


def _check_after(tmp_path: Path, edit) -> list[str]:  # type: ignore[no-untyped-def]
    out = tmp_path / "generated"
    shutil.copytree(ROOT / "generated" / "jsonschema", out / "jsonschema")
    p = out / "jsonschema" / "ohlcv_1m.schema.json"
    doc = json.loads(p.read_text(encoding="utf-8"))
    edit(doc["properties"], doc)
    p.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    rep = run_check([str(ROOT / "contracts" / "ohlcv_1m.yaml")], out, ("jsonschema",), RenderOptions(),
                    bump_gate=False)
    return [f.render() for f in rep.findings if f.code != "D100"]


def test_clean_copy_has_no_semantic_finding(tmp_path: Path) -> None:
    assert _check_after(tmp_path, lambda p, d: None) == []


@pytest.mark.parametrize(("edit", "clause", "word"), [
    (lambda p, d: p["open"].update(pattern="^-?[0-9]+(\\.[0-9]+)?$"), "column:open", "jsonschema"),
    (lambda p, d: d.update(additionalProperties=True), "no_unknown_columns", "D200"),
    (lambda p, d: d["required"].remove("symbol"), "not_null:symbol", "required"),
    (lambda p, d: p["adjusted"].update(const=True), "fixed_value:adjusted", "true"),
    (lambda p, d: p["bar_start"].update(pattern="^.*$"), "column:bar_start", "jsonschema"),
    # the rules of `allOf`: a bound edited by hand, a rule deleted
    (lambda p, d: d["allOf"][1]["properties"]["trade_count"].update(minimum=1), "range:trade_count", "D202"),
    (lambda p, d: d["allOf"].pop(1), "range:trade_count", "D200"),
    (lambda p, d: d["allOf"][0]["properties"]["volume"]["not"].update(pattern="^-"), "range:volume", "D204"),
])
def test_hand_edit_names_the_clause(tmp_path: Path, edit, clause: str, word: str) -> None:  # type: ignore[no-untyped-def]
    found = _check_after(tmp_path, edit)
    assert any(clause in f and word in f for f in found), found


def test_schema_that_fails_the_meta_schema_is_unreadable(tmp_path: Path) -> None:
    found = _check_after(tmp_path, lambda p, d: p["open"].update(type="decimal"))
    assert any("D205" in f and "2020-12" in f for f in found), found


def test_hand_edit_of_an_invariant_rule_is_semantic_drift(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    shutil.copytree(ROOT / "generated" / "jsonschema", out / "jsonschema")
    p = out / "jsonschema" / "plant_sensor_reading.schema.json"
    doc = json.loads(p.read_text(encoding="utf-8"))
    rule = next(e for e in doc["allOf"] if e["$comment"].startswith("invariant:"))
    rule["then"]["properties"]["quality"]["enum"] = ["suspect", None]
    p.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    rep = run_check([str(ROOT / "contracts" / "plant_sensor_reading.yaml")], out, ("jsonschema",),
                    RenderOptions(), bump_gate=False)
    found = [f.render() for f in rep.findings if f.code != "D100"]
    assert any("D202" in f and "quality = suspect" in f for f in found), found


@pytest.mark.parametrize(("old", "new", "word"), [
    # the upper bound's pattern written for 160 instead of 150: reads as max 160
    ("|150\\\\.0*[1-9][0-9]*)$", None, "max is 160"),
    # a pattern tacit-gen does not write
    ("15[1-9]", "15[2-9]", "does not write"),
])
def test_hand_edit_of_a_decimal_bound_is_semantic_drift(tmp_path: Path, old: str, new: str | None,
                                                        word: str) -> None:
    from tacit_gen.targets.jsonschema.decimal_bounds import outside

    out = tmp_path / "generated"
    shutil.copytree(ROOT / "generated" / "jsonschema", out / "jsonschema")
    p = out / "jsonschema" / "fct_sensor_readings.schema.json"
    text = p.read_text(encoding="utf-8")
    upper = json.dumps(outside("150", True, True))[1:-1]
    assert upper in text and old in text
    edited = text.replace(upper, json.dumps(outside("160", True, True))[1:-1]) if new is None else text.replace(old, new)
    p.write_text(edited, encoding="utf-8")
    rep = run_check([str(ROOT / "contracts" / "fct_sensor_readings.yaml")], out, ("jsonschema",),
                    RenderOptions(), bump_gate=False)
    found = [f.render() for f in rep.findings if f.code != "D100"]
    assert any("range:value_degc" in f and word in f for f in found), found
