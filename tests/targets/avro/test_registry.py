"""What a schema registry keeps: the Avro Parsing Canonical Form (what Confluent's registry and
Avro's fingerprints compare) does not change when a contract edit changes nothing on the wire,
and the record has a namespace."""

from __future__ import annotations

import json
from pathlib import Path

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.avro.render import schema_document
from tacit_gen.targets.jsonschema.render import schema_document as json_schema_document

ROOT = Path(__file__).resolve().parents[3]


def _edited(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "contracts" / "ohlcv_1m.yaml").read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / "ohlcv_1m.yaml"
    p.write_text(text.replace(old, new), encoding="utf-8")
    return p


def _canonical(path: Path) -> tuple[tuple[str, str], str]:
    """(fastavro's canonical form, the Apache `avro` package's), the record's namespace. The two
    write a logical type's base differently (``"long"`` and ``{"type": "long"}``): each is
    compared with itself."""
    import avro.schema
    from fastavro.schema import parse_schema, to_parsing_canonical_form

    c = load(path)
    doc, _ = schema_document(c, plan(c))
    text = json.dumps(doc)
    fast = to_parsing_canonical_form(parse_schema(json.loads(text)))
    reference = avro.schema.parse(text).canonical_form
    return (fast, reference), doc["namespace"]


def test_a_note_edit_keeps_the_canonical_form(tmp_path: Path) -> None:
    before, namespace = _canonical(ROOT / "contracts" / "ohlcv_1m.yaml")
    # a field's note and the contract's version: nothing on the wire (the hash in the header changes)
    after, _ = _canonical(_edited(tmp_path, "symbol:   {type: string, nullable: false}",
                                  'symbol:   {type: string, nullable: false, note: "the venue\'s ticker"}'))
    assert after == before
    assert namespace == "ohlcv_1m" and all('"name":"ohlcv_1m.ohlcv_1m"' in b for b in before)


def test_a_wire_edit_changes_the_canonical_form(tmp_path: Path) -> None:
    """The test above can fail: a type change is a new canonical form."""
    before, _ = _canonical(ROOT / "contracts" / "ohlcv_1m.yaml")
    after, _ = _canonical(_edited(tmp_path, "trade_count: {type: int64, nullable: true}",
                                  "trade_count: {type: int32, nullable: true}"))
    assert after[0] != before[0] and after[1] != before[1]


def test_the_json_schema_id_names_the_major_version() -> None:
    c = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    doc, _ = json_schema_document(c, plan(c))
    assert doc["$id"] == f"urn:tacit-gen:ohlcv_1m.v{c.version.split('.')[0]}.schema.json"
