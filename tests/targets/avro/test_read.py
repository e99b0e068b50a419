"""Avro reader: a hand edit of a committed .avsc is named by `check` as the clause it changes."""

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
    shutil.copytree(ROOT / "generated" / "avro", out / "avro")
    p = out / "avro" / "fct_sensor_readings.avsc"
    doc = json.loads(p.read_text(encoding="utf-8"))
    edit({f["name"]: f for f in doc["fields"]}, doc)
    p.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    rep = run_check([str(ROOT / "contracts" / "fct_sensor_readings.yaml")], out, ("avro",),
                    RenderOptions(), bump_gate=False)
    return [f.render() for f in rep.findings if f.code != "D100"]


def test_clean_copy_has_no_semantic_finding(tmp_path: Path) -> None:
    assert _check_after(tmp_path, lambda f, d: None) == []


@pytest.mark.parametrize(("edit", "clause", "word"), [
    (lambda f, d: f["value_degc"]["type"][1].update(scale=2), "column:value_degc", "decimal(9,2)"),
    (lambda f, d: f.__setitem__("x", f["revision"].update(type=["null", "long"], default=None)),
     "not_null:revision", "D200"),
    (lambda f, d: f["quality"]["type"][1]["symbols"].append("unknown"), "accepted_values:quality", "unknown"),
    (lambda f, d: f["value_degc"].update(unit="degF"), "column:value_degc", "degF"),
    (lambda f, d: d["fields"].pop(), "column:revision", "D200"),
])
def test_hand_edit_names_the_clause(tmp_path: Path, edit, clause: str, word: str) -> None:  # type: ignore[no-untyped-def]
    found = _check_after(tmp_path, edit)
    assert any(clause in f and word in f for f in found), found


def test_invalid_avro_is_unreadable(tmp_path: Path) -> None:
    found = _check_after(tmp_path, lambda f, d: f["value_degc"].update(type="decimal"))
    assert any("D205" in f and "fastavro" in f for f in found), found
