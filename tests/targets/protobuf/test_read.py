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
    ("optional string open = 3;", "optional double open = 3;", "column:open", "float64"),
    ("  string symbol = 1;", "  optional string symbol = 1;", "not_null:symbol", "D200"),
    ("optional string open = 3;", "string open = 3;", "column:open", "without presence"),
    ("  int64 revision = 13;", "  int64 revision = 14;", "column:revision", "never moves"),
])
def test_hand_edit_names_the_clause(tmp_path: Path, old: str, new: str, clause: str, word: str) -> None:
    found = _check_after(tmp_path, old, new)
    assert any(clause in f and word in f for f in found), found


def test_enum_value_edit(tmp_path: Path) -> None:
    found = _check_after(tmp_path, "QUALITY_BAD = 3;  // bad", "QUALITY_BROKEN = 3;  // bad",
                         "fct_sensor_readings")
    assert any("accepted_values:quality" in f and "broken" in f for f in found), found


def test_reserved_number_reuse_fails_check(tmp_path: Path) -> None:
    found = _check_after(tmp_path, "  int64 revision = 13;\n", "  int64 revision = 13;\n  reserved 13;\n")
    assert any("D205" in f and "protoc" in f for f in found), found
