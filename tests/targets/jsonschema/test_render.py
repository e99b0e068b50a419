"""JSON Schema target: committed schemas are the render and pass jsonschema's draft 2020-12
meta-schema; the mapping (nullability, decimals as strings, instants with an offset, const) holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.jsonschema import TARGET

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))


def _doc(name: str) -> dict:
    c = load(ROOT / "contracts" / f"{name}.yaml")
    return json.loads(TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_committed_schema_is_the_render_and_meta_validates(path: Path) -> None:
    import jsonschema

    c = load(path)
    text = TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content
    assert (ROOT / "generated" / "jsonschema" / f"{c.name}.schema.json").read_text(encoding="utf-8") == text
    doc = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == f"urn:tacit-gen:{c.name}.v{c.version.split('.')[0]}.schema.json"
    assert doc["additionalProperties"] is False
    assert doc["required"] == [f.name for f in c.fields if not f.nullable]


def test_mapping() -> None:
    import jsonschema

    doc = _doc("ohlcv_1m")
    p = doc["properties"]
    assert p["open"]["type"] == "string" and "decimal fields travel as strings" in doc["$comment"]
    assert re.fullmatch(p["open"]["pattern"], "1234567890.12345678")
    assert not re.fullmatch(p["open"]["pattern"], "12345678901.1")  # 11 integer digits > 18-8
    assert not re.fullmatch(p["open"]["pattern"], "1.123456789")  # 9 decimals > 8
    assert p["bar_start"]["format"] == "date-time"
    assert re.fullmatch(p["bar_start"]["pattern"], "2024-01-02T03:04:05.123Z")
    assert not re.fullmatch(p["bar_start"]["pattern"], "2024-01-02T03:04:05.123")  # no offset
    assert p["adjusted"]["const"] is False
    assert p["trade_count"]["type"] == ["integer", "null"]
    v = jsonschema.Draft202012Validator(doc)
    assert any(e.validator == "additionalProperties" for e in v.iter_errors({"extra": 1}))


def test_id_prefix_option(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("contract: c\nversion: 1.0.0\ntargets:\n  jsonschema: {id_prefix: 'https://schemas.example.com/'}\n"
                 "fields:\n  s: {type: string}\n", encoding="utf-8")
    c = load(p)
    doc = json.loads(TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content)
    assert doc["$id"] == "https://schemas.example.com/c.v1.schema.json"
