"""Protobuf target: committed .proto files are the render and compile with grpcio-tools' protoc;
presence, Timestamp, enums with a zero UNSPECIFIED, decimals as exact text; the lock keeps numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.protobuf import TARGET
from tacit_gen.targets.protobuf.compile import ProtocError, compile_proto

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))

V1 = """\
contract: readings
version: 1.0.0
key: [series_id, ts]
fields:
  series_id: {type: string, nullable: false}
  ts: {type: timestamp_ms_utc, nullable: false}
  pressure_kpa: {type: decimal(12,4), unit: kPa, nullable: false}
  quality: {type: enum[good, bad]}
  note: {type: string}
"""


def _render(path: Path, out: Path | None = None):  # type: ignore[no-untyped-def]
    c = load(path)
    return TARGET.render(c, plan(c), RenderOptions(out_dir=str(out) if out else None))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_committed_files_are_the_render_and_compile(path: Path) -> None:
    c = load(path)
    result = _render(path, ROOT / "generated")
    for a in result.artifacts:
        assert (ROOT / "generated" / a.path).read_text(encoding="utf-8") == a.content
    fds = compile_proto(result.artifacts[0].content, f"{c.name}.proto")
    msg = fds.file[-1].message_type[0]
    assert [f.name for f in msg.field] == [f.name for f in c.fields]


def test_mapping(tmp_path: Path) -> None:
    p = tmp_path / "readings.yaml"
    p.write_text(V1, encoding="utf-8")
    proto = _render(p).artifacts[0].content
    assert "  string series_id = 1;" in proto
    assert "  google.protobuf.Timestamp ts = 2 [\n    (buf.validate.field).required = true\n  ];" in proto
    # a measurement has presence even when non-null (absent differs from zero); protovalidate's
    # `required` refuses it unset
    assert "  optional string pressure_kpa = 3 [\n    (buf.validate.field).required = true\n  ];" in proto
    assert '// tacit: {"type": "decimal(12,4)", "unit": "kPa", "nullable": false}' in proto
    assert "    QUALITY_UNSPECIFIED = 0;" in proto and "    QUALITY_GOOD = 1;  // good" in proto
    assert ("  optional Quality quality = 4 [\n    (buf.validate.field).enum = {defined_only: true, "
            "not_in: [0]}\n  ];") in proto
    assert "  optional string note = 5;" in proto
    assert 'import "buf/validate/validate.proto";' in proto


def _evolve(tmp_path: Path, text: str) -> tuple[str, dict]:
    p = tmp_path / "readings.yaml"
    p.write_text(text, encoding="utf-8")
    out = tmp_path / "generated"
    result = _render(p, out)
    for a in result.artifacts:
        (out / a.path).parent.mkdir(parents=True, exist_ok=True)
        (out / a.path).write_text(a.content, encoding="utf-8")
    return result.artifacts[0].content, json.loads(result.artifacts[1].content)


def test_removed_field_is_reserved_and_numbers_never_move(tmp_path: Path) -> None:
    _evolve(tmp_path, V1)
    v2 = V1.replace("version: 1.0.0", "version: 2.0.0").replace("  note: {type: string}\n", "")
    v2 += "  pressure_bar: {type: decimal(12,4), unit: bar}\n"
    v2 = v2.replace("quality: {type: enum[good, bad]}", "quality: {type: enum[good, suspect]}")
    proto, lock = _evolve(tmp_path, v2)
    assert lock["fields"] == {"series_id": 1, "ts": 2, "pressure_kpa": 3, "quality": 4, "pressure_bar": 6}
    assert lock["reserved"] == [{"number": 5, "name": "note"}]
    assert '  reserved 5;\n  reserved "note";' in proto
    assert lock["enums"]["quality"] == {"values": {"good": 1, "suspect": 3},
                                        "reserved": [{"number": 2, "name": "bad"}]}
    compile_proto(proto, "readings.proto")
    # the name comes back: protoc refuses it, so `check` fails (reserved names are never reused)
    v3 = v2.replace("version: 2.0.0", "version: 3.0.0") + "  note: {type: string}\n"
    proto3, lock3 = _evolve(tmp_path, v3)
    assert lock3["fields"]["note"] == 7
    with pytest.raises(ProtocError, match="note"):
        compile_proto(proto3, "readings.proto")


def test_rename_with_alias_keeps_the_number(tmp_path: Path) -> None:
    _evolve(tmp_path, V1)
    v2 = V1.replace("version: 1.0.0", "version: 2.0.0").replace(
        "  note: {type: string}", "  comment: {type: string, aliases: [note]}")
    _, lock = _evolve(tmp_path, v2)
    assert lock["fields"]["comment"] == 5 and lock["reserved"] == []
