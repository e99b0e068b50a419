"""The seed's notation read as meant: `decimal(18,8)` and `enum[a, b]` unquoted in flow mappings."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tacit_gen.contract import yamlpos
from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load, load_report
from tacit_gen.contract.types import DataType
from tacit_gen.plan import plan

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seeds" / "001_1d47b32c730c28a4.txt"


def _seed_block(seed: str, first_line: str) -> str:
    """A worked contract of the seed: from `first_line` through its provenance_required line."""
    lines = seed.splitlines()
    start = lines.index(first_line)
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("provenance_required:"))
    return "\n".join(lines[start : end + 1]) + "\n"


@pytest.mark.parametrize("name", ["ohlcv_1m", "plant_sensor_reading"])
def test_bundled_contracts_are_the_seed_byte_for_byte(name: str) -> None:
    # The seed lives outside the repository (../shared); a verbatim copy of its two worked
    # contracts is kept in tests/fixtures/seed so this runs from any clone, and is checked
    # against the seed itself wherever the seed is present.
    copy = (ROOT / "tests" / "fixtures" / "seed" / f"{name}.yaml").read_bytes()
    if SEED.exists():
        block = _seed_block(SEED.read_text(encoding="utf-8"), f"contract: {name}")
        assert copy == block.encode("utf-8")
    bundled = (ROOT / "contracts" / f"{name}.yaml").read_text(encoding="utf-8")
    assert seed_plus_additions(bundled, name) == copy.decode("utf-8")


# What the bundled contracts add to the seed's text (issue 18: the series id scheme and the
# source system of plant_sensor_reading, its completeness per day), undone to compare with the seed byte for byte.
ADDITIONS = {
    # issue 13: the venue's exchange calendar and its sessions relation (a breaking change: 4.0.0)
    "ohlcv_1m": (
        ("version: 4.0.0\n", "version: 3.1.0\n"),
        ("  calendar: XLON\n", ""),
        ("calendar: {relation: venue_sessions}\n", ""),
    ),
    "plant_sensor_reading": (
        ("version: 4.0.0\n", "version: 2.0.0\n"),
        ("source: plant historian (OPC UA collector)\n", ""),
        ("  completeness: 1440 per 1d per series; at least 95%\n", ""),  # 4.0.0
        ('{type: string, pattern: "^[a-z][a-z0-9_]{0,62}[0-9]$", note: "a lower-case tag ending in '
         'the sensor number"}', "{type: string}"),
    ),
}


def seed_plus_additions(text: str, name: str) -> str:
    """The bundled contract with the additions undone (each must be there exactly once)."""
    for new, old in ADDITIONS.get(name, ()):
        assert text.count(new) == 1, new
        text = text.replace(new, old)
    return text


# Seed 001's plant_sensor_reading, pasted unchanged (kept here so the test runs from a clean clone).
PLANT = """\
contract: plant_sensor_reading
version: 2.0.0
owner: plant-telemetry@example
key: [series_id, event_ts, revision]
time:
  column: event_ts
  precision: ms
  timezone: UTC instant; device zone recorded in catalog
  cadence: per series from catalog; tolerance +/-10% of interval
fields:
  series_id:  {type: string}
  event_ts:   {type: timestamp_ms_utc}
  value:      {type: decimal(12,4), unit: per series from catalog, dimension: per series}
  unit:       {type: string, constraint: equals catalog unit for series_id}
  quality:    {type: enum[good, suspect, bad]}
  calibration_id: {type: string, nullable: false, note: "calibration record in force at event_ts"}
invariants:
  - value is null only when quality = bad
  - value within catalog hard_bounds for series_id
  - unit equals catalog unit for series_id   # the check that catches the kPa incident
revision_policy:
  allowed: true
  reasons: [recalibration, transport_replay]
  note: recalibration re-derives all points from raw counts; raw counts are never revised
provenance_required: [source_id, ingest_run_id, transform_version, revision, calibration_id]
"""


def test_pasted_plant_sensor_reading_loads() -> None:
    c = load("plant_sensor_reading.yaml", PLANT)
    assert c.field("value").type == DataType("decimal", precision=12, scale=4)  # type: ignore[union-attr]
    assert c.field("quality").type.values == ("good", "suspect", "bad")  # type: ignore[union-attr]
    assert c.field("value").unit_from_catalog  # type: ignore[union-attr]
    assert c.time is not None and c.time.timezone_note == "device zone recorded in catalog"
    assert c.time.cadence is not None and c.time.cadence.tolerance_pct == "10"
    assert c.time.cadence.from_catalog
    assert [f.name for f in c.fields if f.implied] == [
        "source_id", "ingest_run_id", "transform_version", "revision"
    ]
    bundled = load("plant_sensor_reading.yaml",
                   seed_plus_additions((ROOT / "contracts" / "plant_sensor_reading.yaml").read_text(), "plant_sensor_reading"))
    assert c == bundled
    assert plan(c) == plan(bundled)


def test_plain_yaml_misreads_the_seed_notation() -> None:
    """What plain YAML does with the notation, so the loader's job is clear."""
    assert yaml.safe_load("{type: decimal(18,8), unit: x}") == {
        "type": "decimal(18", "8)": None, "unit": "x"
    }
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("{type: enum[good, suspect, bad]}")


def test_flow_mapping_positions_after_the_type_are_exact() -> None:
    text = (
        "contract: x\nversion: 1.0.0\nfields:\n"
        "  open:   {type: decimal(18,8), unit: quote_currency, nulable: false}\n"
        "  q:      {type: enum[good, suspect, bad], unit: kPa, bogus: 1}\n"
    )
    contract, diags = load_report("p.yaml", text)
    assert contract is None
    errs = [(d.line, d.col, d.code, d.word) for d in diags if d.severity == "error"]
    line4, line5 = text.splitlines()[3], text.splitlines()[4]
    assert (4, line4.index("nulable") + 1, "TG102", "nulable") in errs
    assert (5, line5.index("bogus") + 1, "TG102", "bogus") in errs
    # the unit key on the same line, after the type, has its exact position in the tree
    root, dups, _ = yamlpos.compose(text)
    assert root is not None and not dups
    fields = root.get("fields")
    assert fields is not None
    open_ = fields.get("open")
    assert open_ is not None
    unit = open_.get("unit")
    assert unit is not None and (unit.line, unit.col) == (4, line4.index("quote_currency") + 1)
    typ = open_.get("type")
    assert typ is not None and typ.value == "decimal(18,8)" and typ.col == line4.index("decimal") + 1
    q = fields.get("q")
    assert q is not None and q.get("type").value == "enum[good, suspect, bad]"  # type: ignore[union-attr]
    assert q.get("unit").col == line5.index("kPa") + 1  # type: ignore[union-attr]
    assert set(open_.key_nodes()[i].value for i in range(3)) == {"type", "unit", "nulable"}


@pytest.mark.parametrize(
    "type_text",
    ["decimal(18,8)", "decimal(18, 8)", "decimal( 18 ,8 )", "enum[good, suspect, bad]", "enum[a,b]"],
)
def test_notation_inside_flow_and_block_and_quoted(type_text: str) -> None:
    other = "unit: USD" if type_text.startswith("decimal") else "note: USD"
    forms = [
        f"  a: {{type: {type_text}, {other}}}\n",
        f"  a: {{{other}, type: {type_text}}}\n",
        f"  a:\n    type: {type_text}\n    {other}\n",
        f"  a: {{type: '{type_text}', {other}}}\n",
        f"  a: {{type: \"{type_text}\", {other}}}\n",
    ]
    types = set()
    for form in forms:
        c, diags = load_report("n.yaml", "contract: x\nversion: 1.0.0\nfields:\n" + form)
        assert c is not None, [d.render() for d in diags]
        f = c.field("a")
        assert f is not None and "USD" in (f.unit, f.note)
        types.add(f.type)
    assert len(types) == 1


@pytest.mark.parametrize(
    ("field_text", "word"),
    [
        ("{type: 'decimal(18', unit: USD}", "decimal(18"),  # the misparse, written out: rejected
        ("{type: decimal(18, unit: USD}", None),  # unclosed: never read as decimal(18
        ("{type: enum[good, bad, unit: x}", None),
        ("{type: decimal(18,8)), unit: USD}", None),
    ],
)
def test_the_misparse_is_never_accepted(field_text: str, word: str | None) -> None:
    text = f"contract: x\nversion: 1.0.0\nfields:\n  a: {field_text}\n"
    with pytest.raises(ContractError) as info:
        load("m.yaml", text)
    diags = info.value.diagnostics
    assert all(d.line == 4 for d in diags), [d.render() for d in diags]
    if word is not None:
        assert any(d.code == "TG105" and d.word == word for d in diags)


def test_protect_keeps_length_and_strings() -> None:
    text = 'a: {type: decimal(18,8), note: "type: decimal(1,2) stays"}  # type: enum[x, y]\n'
    p = yamlpos.protect(text)
    assert len(p) == len(text)
    assert yamlpos.unprotect(p) == text
    root, _, _ = yamlpos.compose(text)
    assert yamlpos.plain(root) == {"a": {"type": "decimal(18,8)", "note": "type: decimal(1,2) stays"}}  # type: ignore[arg-type]
