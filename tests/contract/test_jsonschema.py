"""The JSON Schema of the contract format: in sync with the loader, and it validates real contracts."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from tacit_gen import registry
from tacit_gen.contract import loader
from tacit_gen.contract.jsonschema import contract_schema, schema_text, type_pattern
from tacit_gen.contract.types import TypeSyntaxError, parse_type
from tacit_gen.fmt import format_text

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "contract.schema.json"
CONTRACTS = sorted((ROOT / "contracts").glob("*.yaml"))
VALIDATOR = jsonschema.Draft202012Validator(contract_schema())


def test_committed_schema_is_the_generated_one() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "regenerate: python -m tacit_gen.contract.jsonschema > docs/contract.schema.json"
    )


def test_schema_is_valid_draft_2020_12() -> None:
    schema = contract_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_follows_the_loader_tables() -> None:
    schema = contract_schema()
    assert list(schema["properties"]) == list(loader.TOP_KEYS)
    assert set(schema["required"]) == {"contract", "version", "fields"}
    assert list(schema["properties"]["time"]["properties"]) == list(loader.TIME_KEYS)
    field = schema["properties"]["fields"]["additionalProperties"]["oneOf"][0]
    assert list(field["properties"]) == list(loader.FIELD_KEYS)
    targets = schema["properties"]["targets"]["properties"]
    assert list(targets) == list(registry.names())
    for name, spec in targets.items():  # each target's keys, as its Target declares them
        keys = [k.key for k in registry.get(name).contract_keys]
        assert list(spec["properties"]) == [*keys, "enabled"]
    comp = schema["properties"]["evolution"]["properties"]["compatibility"]["enum"]
    assert comp == list(loader.COMPAT_MODES)


@pytest.mark.parametrize("path", CONTRACTS, ids=lambda p: p.stem)
def test_bundled_contracts_after_fmt_validate(path: Path) -> None:
    data = yaml.safe_load(format_text(path.read_text(encoding="utf-8"), path.name))
    errors = [e.message for e in VALIDATOR.iter_errors(data)]
    assert errors == []


def test_the_misparse_fails_validation() -> None:
    raw = yaml.safe_load((ROOT / "contracts" / "ohlcv_1m.yaml").read_text(encoding="utf-8"))
    assert raw["fields"]["open"]["type"] == "decimal(18"  # what plain YAML reads
    assert not VALIDATOR.is_valid(raw)


@pytest.mark.parametrize(
    ("patch", "path"),
    [
        ({"ownr": "x"}, ["ownr"]),
        ({"version": "3.1"}, ["version"]),
        ({"version": 3.1}, ["version"]),
        ({"fields": {"a": {"type": "strng"}}}, ["fields", "a"]),
        ({"fields": {"a": {"type": "string", "nulable": False}}}, ["fields", "a"]),
        ({"fields": {"1a": {"type": "string"}}}, ["fields"]),
        ({"time": {"column": "a", "timezone": "Europe/Paris"}}, ["time", "timezone"]),
        ({"time": {"column": "a", "freshness": "soon"}}, ["time", "freshness"]),
        ({"evolution": {"compatibility": "FUL"}}, ["evolution", "compatibility"]),
        ({"targets": {"dbtt": {}}}, ["targets"]),
    ],
)
def test_schema_rejects_bad_contracts(patch: dict[str, object], path: list[str]) -> None:
    data: dict[str, object] = {"contract": "x", "version": "1.0.0", "fields": {"a": {"type": "string"}}}
    data.update(patch)
    errors = list(VALIDATOR.iter_errors(data))
    assert errors
    assert any(list(e.absolute_path)[: len(path)] == path or list(e.absolute_path) == path[:-1]
               for e in errors), [(list(e.absolute_path), e.message) for e in errors]


def test_x_keys_are_allowed() -> None:
    data = {"contract": "x", "version": "1.0.0", "x-team": {"a": 1},
            "fields": {"a": {"type": "string", "x-pii": True}}}
    assert VALIDATOR.is_valid(data)


@pytest.mark.parametrize(
    "text",
    ["string", "bool", "int32", "int64", "float32", "float64", "date", "timestamp_s_utc",
     "timestamp_ns_utc", "decimal(18,8)", "decimal( 9 , 3 )", "enum[good, suspect, bad]",
     "enum['a', b]", "strng", "timestamp_ms", "decimal(18)", "decimal(18,8", "enum[]",
     "enum[a b]", "enum[good, , bad]", "Decimal(1,1)", "timestamp_ms_UTC"],
)
def test_type_pattern_agrees_with_the_parser_on_shape(text: str) -> None:
    try:
        parse_type(text)
        parsed = True
    except TypeSyntaxError:
        parsed = False
    # the parser also checks ranges (precision 1..38, scale <= precision, distinct values),
    # which a pattern does not; on shape they agree
    assert bool(re.match(type_pattern(), text)) == parsed
