"""Avro target: the committed .avsc files are the render, parse in fastavro and the avro package,
and map the contract's types as docs/engines/avro.md says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.avro import TARGET
from tacit_gen.targets.base import RenderOptions

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))

TYPES = """\
contract: wire_types
version: 1.0.0
targets:
  avro: {namespace: com.example.plant}
fields:
  a_s:  {type: timestamp_s_utc, nullable: false}
  a_ms: {type: timestamp_ms_utc, nullable: false}
  a_us: {type: timestamp_us_utc}
  a_ns: {type: timestamp_ns_utc}
  price: {type: decimal(18,8), unit: USD, nullable: false}
  temp_degc: {type: decimal(9,3), unit: degC, dimension: temperature}
  state: {type: enum[good, bad]}
  day: {type: date}
  n: {type: int32}
  renamed: {type: string, aliases: [old_name]}
"""


def render(path: Path) -> dict:
    c = load(path)
    result = TARGET.render(c, plan(c), RenderOptions())
    assert [a.path for a in result.artifacts] == [f"avro/{c.name}.avsc"]
    return json.loads(result.artifacts[0].content)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_committed_schema_is_the_render_and_parses(path: Path) -> None:
    import avro.schema
    import fastavro

    c = load(path)
    text = TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content
    committed = ROOT / "generated" / "avro" / f"{c.name}.avsc"
    assert committed.read_text(encoding="utf-8") == text
    parsed = fastavro.parse_schema(json.loads(text))
    assert parsed["name"] == f"{c.name}.{c.name}"  # the default namespace is the contract's name
    assert [f["name"] for f in parsed["fields"]] == [f.name for f in c.fields]
    assert avro.schema.parse(text).fullname == f"{c.name}.{c.name}"


def test_type_mapping(tmp_path: Path) -> None:
    p = tmp_path / "wire_types.yaml"
    p.write_text(TYPES, encoding="utf-8")
    doc = render(p)
    assert doc["name"] == "wire_types" and doc["namespace"] == "com.example.plant"
    f = {x["name"]: x for x in doc["fields"]}
    assert f["a_s"]["type"] == {"type": "long", "logicalType": "timestamp-millis"}
    assert f["a_ms"]["type"] == {"type": "long", "logicalType": "timestamp-millis"}
    assert f["a_us"]["type"] == ["null", {"type": "long", "logicalType": "timestamp-micros"}]
    assert f["a_us"]["default"] is None
    assert f["a_ns"]["type"][1] == {"type": "long", "logicalType": "timestamp-nanos"}
    # money is bytes + decimal, never double; non-null has no null branch and no default
    assert f["price"]["type"] == {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 8}
    assert "default" not in f["price"] and f["price"]["unit"] == "USD"
    assert f["temp_degc"]["unit"] == "degC" and f["temp_degc"]["dimension"] == "temperature"
    assert f["state"]["type"][1] == {"type": "enum", "name": "state_enum", "symbols": ["good", "bad"]}
    assert f["day"]["type"][1] == {"type": "int", "logicalType": "date"}
    assert f["n"]["type"] == ["null", "int"]
    assert f["renamed"]["aliases"] == ["old_name"]
    assert f["price"]["doc"] == "price: {type: decimal(18,8), unit: USD, nullable: false}"


def test_enum_that_is_not_avro_symbols_is_a_string_and_says_so(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("contract: c\nversion: 1.0.0\nfields:\n  s: {type: 'enum[a-b, c]'}\n", encoding="utf-8")
    c = load(p)
    result = TARGET.render(c, plan(c), RenderOptions())
    assert json.loads(result.artifacts[0].content)["fields"][0]["type"] == ["null", "string"]
    assert "accepted_values:s" in {u.clause_id for u in result.unsupported}


def test_non_structural_clauses_are_declared_unsupported() -> None:
    c = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    result = TARGET.render(c, plan(c), RenderOptions())
    ids = {u.clause_id for u in result.unsupported}
    assert {"unique:symbol,bar_start,revision", "range:volume", "cadence:bar_start",
            "invariant:low <= open <= high", "fixed_value:adjusted"} <= ids
    assert not any(i.startswith(("column:", "not_null:")) for i in ids)
    # the registered schema does not list them (a registry keys a schema by its text):
    # `explain --targets` and `render --verbose` do
    doc = json.loads(result.artifacts[0].content)
    assert set(doc["tacit_gen"]) == {"generated_by", "source", "contract", "version", "notice"}
