"""Protobuf reader: protoc compiles the file; a hand edit (type, presence, enum value, number,
reserved reuse) is named by `check` as the clause."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacit_gen.checking import run_check
from tacit_gen.targets.base import RenderOptions

ROOT = Path(__file__).resolve().parents[3]


def _check_after(tmp_path: Path, old: str, new: str, contract: str = "ohlcv_1m") -> list[str]:
    out = tmp_path / "generated"
    shutil.copytree(ROOT / "generated" / "protobuf", out / "protobuf")
    p = out / "protobuf" / f"{contract}.proto"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new), encoding="utf-8")
    rep = run_check([str(ROOT / "contracts" / f"{contract}.yaml")], out, ("protobuf",),
                    RenderOptions(out_dir=str(out)), bump_gate=False)
    return [f.render() for f in rep.findings if f.code != "D100"]


def test_clean_copy_has_no_semantic_finding(tmp_path: Path) -> None:
    assert _check_after(tmp_path, "syntax", "syntax") == []


@pytest.mark.parametrize(("old", "new", "clause", "word"), [
    ("optional string open = 3 [", "optional double open = 3 [", "column:open", "float64"),
    ("  string symbol = 1;", "  optional string symbol = 1;", "not_null:symbol", "D200"),
    ("optional string open = 3 [", "string open = 3 [", "column:open", "without presence"),
    ("  int64 revision = 13 [", "  int64 revision = 14 [", "column:revision", "never moves"),
])
def test_hand_edit_names_the_clause(tmp_path: Path, old: str, new: str, clause: str, word: str) -> None:
    found = _check_after(tmp_path, old, new)
    assert any(clause in f and word in f for f in found), found


def test_enum_value_edit(tmp_path: Path) -> None:
    found = _check_after(tmp_path, "QUALITY_BAD = 3;  // bad", "QUALITY_BROKEN = 3;  // bad",
                         "fct_sensor_readings")
    assert any("accepted_values:quality" in f and "broken" in f for f in found), found


def test_reserved_number_reuse_fails_check(tmp_path: Path) -> None:
    found = _check_after(tmp_path, "  ];\n}\n", "  ];\n  reserved 13;\n}\n")
    assert any("D205" in f and "protoc" in f for f in found), found


@pytest.mark.parametrize(("contract", "old", "new", "clause", "word"), [
    # a bound of a standard rule, of a decimal's CEL rule and of a sign bound
    ("ohlcv_1m", "trade_count = 8 [\n    (buf.validate.field).int64 = {gte: 0}",
     "trade_count = 8 [\n    (buf.validate.field).int64 = {gte: 1}", "range:trade_count", "min is 1"),
    ("fct_sensor_readings", "double(this) >= -40.0", "double(this) >= -50.0", "range:value_degc", "min is -50"),
    ("fct_sensor_readings", "double(this) <= 150.0", "double(this) < 150.0", "range:value_degc",
     "max_inclusive"),
    ("fct_sensor_readings", 'string.const = "degC"', 'string.const = "degF"', "fixed_value:unit", "degF"),
    ("plant_sensor_reading", "[a-z0-9_]{0,62}", "[a-z0-9_]{0,30}", "pattern:series_id", "{0,30}"),
    # the invariant's CEL edited: it no longer says what the clause says
    ("fct_sensor_readings", "this.quality == 3", "this.quality == 2",
     "invariant:value_degc is null only when quality = bad", "edited by hand"),
    # a rule removed
    ("ohlcv_1m", "    (buf.validate.field).required = true,\n    (buf.validate.field).cel", "    (buf.validate.field).cel",
     "not_null:volume", "not in the artifact"),
])
def test_hand_edit_of_a_rule_is_drift(tmp_path: Path, contract: str, old: str, new: str, clause: str,
                                      word: str) -> None:
    found = _check_after(tmp_path, old, new, contract)
    assert any(clause in f and word in f for f in found), found


def test_rules_read_back_as_the_plan(tmp_path: Path) -> None:
    """Every clause a protovalidate rule states reads back: a clean copy has no finding (above),
    and the reader returns the ranges, pattern, fixed value and invariant themselves."""
    from tacit_gen.targets.protobuf.read import read

    p = ROOT / "generated" / "protobuf" / "fct_sensor_readings.proto"
    ids = {c.id: c for c in read(p, p.read_text(encoding="utf-8")).clauses}
    assert ids["range:value_degc"].param("min") == "-40" and ids["range:value_degc"].param("max") == "150"
    assert ids["range:revision"].param("min") == "0"
    assert ids["fixed_value:unit"].param("value") == "degC"
    assert "invariant:value_degc is null only when quality = bad" in ids
    assert "not_null:event_ts" in ids
