"""The registered wire schemas (Avro, JSON Schema, Protobuf) carry no bookkeeping that changes
without the wire changing: no contract hash, no contract line numbers, no list of the clauses
other targets check. A registry keys a schema by its text, so editing a contract's note leaves
all three byte-identical (no new schema version), while `check` still finds the artifacts that
did change stale (the others carry the hash), and a change on the wire (a bound) stales the
schemas that state it."""

from __future__ import annotations

import shutil
from pathlib import Path

from tacit_gen.checking import run_check
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions

ROOT = Path(__file__).resolve().parents[2]
WIRE = ("avro", "jsonschema", "protobuf")


def _render(path: Path, out: Path, targets: tuple[str, ...]) -> dict[str, str]:
    artifacts, _ = render_contract(load(path), targets, RenderOptions(out_dir=str(out)))
    for a in artifacts:
        (out / a.path).parent.mkdir(parents=True, exist_ok=True)
        (out / a.path).write_text(a.content, encoding="utf-8")
    return {a.path: a.content for a in artifacts}


def _stale(path: Path, out: Path, targets: tuple[str, ...]) -> set[str]:
    rep = run_check([str(path)], out, targets, RenderOptions(out_dir=str(out)), bump_gate=False)
    return {Path(f.path).relative_to(out).as_posix() for f in rep.findings if f.code == "D100"}


def test_a_note_edit_leaves_the_wire_schemas_byte_identical(tmp_path: Path) -> None:
    src = tmp_path / "plant_sensor_reading.yaml"
    text = (ROOT / "contracts" / "plant_sensor_reading.yaml").read_text(encoding="utf-8")
    shutil.copy(ROOT / "contracts" / "plant_sensor_reading.yaml", src)
    out = tmp_path / "generated"
    before = _render(src, out, (*WIRE, "ibis"))
    old_hash = load(src).canonical_hash
    note = "note: recalibration re-derives all points from raw counts; raw counts are never revised"
    assert note in text
    # the note edited, and a line added above it: contract line numbers move too
    src.write_text(text.replace(note, "# reviewed\n  " + note.replace("never", "not ever")), encoding="utf-8")
    assert load(src).canonical_hash != old_hash
    after, _ = render_contract(load(src), (*WIRE, "ibis"), RenderOptions(out_dir=str(out)))
    for a in after:
        if a.path.split("/")[0] in WIRE:
            assert a.content == before[a.path], a.path
    for body in (v for k, v in before.items() if k.split("/")[0] in WIRE):
        assert old_hash not in body and "contract line" not in body
    # check: the wire schemas are up to date; the ibis module (it carries the hash) is stale
    assert _stale(src, out, (*WIRE, "ibis")) == {"ibis/plant_sensor_reading.py"}


def test_a_bound_edit_stales_the_schemas_that_state_it(tmp_path: Path) -> None:
    src = tmp_path / "fct_sensor_readings.yaml"
    text = (ROOT / "contracts" / "fct_sensor_readings.yaml").read_text(encoding="utf-8")
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "generated"
    _render(src, out, WIRE)
    src.write_text(text.replace("-40 <= value_degc <= 150", "-40 <= value_degc <= 160"), encoding="utf-8")
    assert next(c for c in plan(load(src)) if c.id == "range:value_degc").param("max") == "160"
    # Avro cannot state a range: its schema is unchanged; the other two state the bound
    assert _stale(src, out, WIRE) == {"jsonschema/fct_sensor_readings.schema.json",
                                      "protobuf/fct_sensor_readings.proto"}
