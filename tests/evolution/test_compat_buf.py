"""`compat`'s protobuf verdict against `buf breaking` (WIRE rules; the buf CLI of the `buf-bin`
wheel, offline, on protoc's images), on the two .proto files compat generates for each change of a
test set.

buf runs ``buf breaking NEW --against OLD``; compat runs FULL (both directions). They agree when
buf fails exactly where compat has an error, on the same field numbers. Where tacit-gen says more
on purpose, it is a warning (does not fail) that says why: a narrower varint, a change of
presence. A major version is a new package (``readings.v2``), which buf compares as another
package (FILE_SAME_PACKAGE); the bytes carry no package, so both files are put in the old one."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen import registry
from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.evolution import diff, wire
from tacit_gen.targets.compat import Versioned, WireFinding

pytestmark = pytest.mark.engine

BUF = Path(sys.executable).parent / "buf"  # the dev extra's buf-bin
TARGET = "protobuf"

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
  count: {type: int32, nullable: false}
  level: {type: float64, unit: m, nullable: false}
"""


def _v(version: str, text: str = V1) -> str:
    return text.replace("version: 1.0.0", f"version: {version}")


CASES = {
    # name: (the new version, buf fails, words every warning says)
    "add": (_v("1.1.0") + "  comment: {type: string}\n", False, []),
    "remove_reserved": (_v("2.0.0").replace("  note: {type: string}\n", ""), False, []),
    "rename": (_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string}"), False, []),
    "rename_with_alias": (_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string, aliases: [note]}"),
                          False, []),
    "type_within_wire_type": (_v("2.0.0").replace("count: {type: int32", "count: {type: int64"), False,
                              ["int64 -> int32", "buf breaking (WIRE) accepts it", "truncated"]),
    "type_across_wire_types": (_v("2.0.0").replace("level: {type: float64", "level: {type: float32"), True, []),
    "enum_to_string": (_v("2.0.0").replace("quality: {type: enum[good, bad]}", "quality: {type: string}"), True, []),
    "cardinality": (_v("1.1.0").replace("count: {type: int32, nullable: false}", "count: {type: int32}"), False,
                    ["buf breaking (WIRE) accepts it", "presence"]),
}


def _buf(old: str, new: str, tmp: Path) -> list[dict[str, str]]:
    """buf breaking's WIRE findings on `new` against `old`, both in `old`'s package, each compiled
    by protoc to an image (a FileDescriptorSet with its imports: buf reads it offline, whatever
    the file imports)."""
    from tacit_gen.targets.protobuf.compile import compile_proto

    package = re.search(r"^package ([\w.]+);$", old, re.M)
    assert package is not None
    tmp.mkdir(parents=True)
    for side, text in (("old", old), ("new", re.sub(r"^package [\w.]+;$", package.group(0), new, flags=re.M))):
        (tmp / f"{side}.binpb").write_bytes(compile_proto(text, "readings.proto").SerializeToString())
    res = subprocess.run([str(BUF), "breaking", str(tmp / "new.binpb"), "--against", str(tmp / "old.binpb"),
                          "--config", '{"version": "v2", "breaking": {"use": ["WIRE"]}}', "--error-format=json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode in (0, 100), res.stderr  # 100: breaking changes found
    found = [json.loads(line) for line in res.stdout.splitlines()]
    assert (res.returncode == 100) == bool(found)
    return found


def _buf_numbers(found: list[dict[str, str]]) -> set[int]:
    return {int(m.group(1) or m.group(2)) for f in found
            if (m := re.search(r'Field "(\d+)"|range "\[(\d+)', f["message"]))}


def _errors(findings: list[WireFinding]) -> list[WireFinding]:
    return [f for f in findings if f.registry == TARGET and f.severity == "error"]


def _numbers(findings: list[WireFinding]) -> set[int]:
    return {int(m.group(1)) for f in findings if (m := re.match(r"number (\d+) ", f.message))}


@pytest.mark.parametrize("case", list(CASES))
def test_compat_agrees_with_buf_breaking(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text, buf_fails, warned = CASES[case]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v1.yaml").write_text(V1, encoding="utf-8")
    (tmp_path / "v2.yaml").write_text(text, encoding="utf-8")
    out = tmp_path / "generated"  # the lock as committed with 1.0.0, as a project has it
    assert CliRunner().invoke(main, ["render", "v1.yaml", "--target", TARGET, "--out", str(out)]).exit_code == 0
    c1, c2 = load(tmp_path / "v1.yaml"), load(tmp_path / "v2.yaml")
    findings, _ = wire.registry_compat([c1, c2], "FULL", str(out))
    mine = [f for f in findings if f.registry == TARGET]
    compat = registry.get(TARGET).wire_compat()
    assert compat is not None
    schemas = compat.schemas([c1, c2], wire.history_for(str(out)))
    old, new = schemas.by_version["1.0.0"].schema, schemas.by_version[c2.version].schema
    buf = _buf(old, new, tmp_path / "buf")
    assert bool(buf) == buf_fails, buf
    assert (bool(_errors(mine))) == buf_fails, [f.render() for f in mine]
    assert _numbers(_errors(mine)) == _buf_numbers(buf), ([f.render() for f in mine], buf)
    warnings = [f for f in mine if f.severity == "warning"]
    assert bool(warnings) == bool(warned), [f.render() for f in mine]
    assert all("buf breaking (WIRE) accepts it" in w.message for w in warnings)
    for word in warned:
        assert any(word in w.message for w in warnings), (word, [w.message for w in warnings])
    if case == "remove_reserved":
        assert re.search(r"^  reserved 5;$", new, re.M)  # removed, and its number kept out of use
    if case == "rename":  # compatible on the wire, a breaking change of the contract
        assert diff(c1, c2).least_bump == "major"
        assert not mine


def test_a_reserved_number_used_again_is_refused_by_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """1.0.0 has 'note' = 5; 2.0.0 removes it (5 reserved); a hand edit of the lock then gives 5 to
    a new field and drops the reservation: buf (RESERVED_MESSAGE_NO_DELETE) and compat refuse it,
    where removing the field alone is no finding of either."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "generated"
    protos: dict[str, str] = {}
    texts = {"1.0.0": V1, "2.0.0": _v("2.0.0").replace("  note: {type: string}\n", ""),
             "3.0.0": _v("3.0.0").replace("  note: {type: string}\n", "  remark: {type: string}\n")}
    for version, text in texts.items():
        path = tmp_path / f"v{version}.yaml"
        path.write_text(text, encoding="utf-8")
        if version == "3.0.0":
            lock_path = out / TARGET / "readings.lock.json"
            lock = json.loads(lock_path.read_text(encoding="utf-8"))
            assert lock["reserved"] == [{"number": 5, "name": "note"}]
            lock["fields"]["remark"], lock["reserved"] = 5, []
            lock_path.write_text(json.dumps(lock), encoding="utf-8")
        res = CliRunner().invoke(main, ["render", str(path), "--target", TARGET, "--out", str(out)])
        assert res.exit_code == 0, res.output
        protos[version] = (out / TARGET / "readings.proto").read_text(encoding="utf-8")
    compat = registry.get(TARGET).wire_compat()
    assert compat is not None
    history = wire.history_for(str(out))
    contracts = {v: load(tmp_path / f"v{v}.yaml") for v in texts}
    for old, new, refused in (("1.0.0", "2.0.0", False), ("2.0.0", "3.0.0", True)):
        o, n = Versioned(contracts[old], protos[old]), Versioned(contracts[new], protos[new])
        found = compat.compare(n, o, "backward", history) + compat.compare(o, n, "forward", history)
        buf = _buf(protos[old], protos[new], tmp_path / f"buf-{new}")
        assert bool(buf) == refused and bool(_errors(found)) == refused, (buf, [f.render() for f in found])
        if refused:
            assert {b["type"] for b in buf} == {"RESERVED_MESSAGE_NO_DELETE"}
            assert _numbers(_errors(found)) == _buf_numbers(buf) == {5}
            assert all("a reserved number is never reused" in f.message for f in _errors(found))


MESSAGE = """syntax = "proto3";
package readings.v1;
message Readings {
  enum Quality { QUALITY_UNSPECIFIED = 0; QUALITY_GOOD = 1; }
  %s
}
"""
HAND = {
    # types and cardinalities a contract does not produce today, written by hand: (old, new)
    "repeated": ("int32 count = 6;", "repeated int32 count = 6;"),
    "enum_to_int32": ("Quality quality = 4;", "int32 quality = 4;"),
    "int32_to_sint32": ("int32 count = 6;", "sint32 count = 6;"),
    "string_to_bytes": ("string note = 5;", "bytes note = 5;"),
    "bool_to_int32": ("bool flag = 8;", "int32 flag = 8;"),
    "int32_to_uint64": ("int32 count = 6;", "uint64 count = 6;"),
}


@pytest.mark.parametrize("case", list(HAND))
def test_hand_written_changes_agree_with_buf_breaking(case: str, tmp_path: Path) -> None:
    (tmp_path / "v1.yaml").write_text(V1, encoding="utf-8")
    contract = load(tmp_path / "v1.yaml")
    old, new = (MESSAGE % line for line in HAND[case])
    compat = registry.get(TARGET).wire_compat()
    assert compat is not None
    o, n = Versioned(contract, old), Versioned(contract, new)
    history = wire.history_for(None)
    found = compat.compare(n, o, "backward", history) + compat.compare(o, n, "forward", history)
    buf = _buf(old, new, tmp_path / "buf")
    assert _numbers(_errors(found)) == _buf_numbers(buf), ([f.render() for f in found], buf)
    narrowed = case in ("bool_to_int32", "int32_to_uint64")  # a reader may lose a value: said
    assert bool([f for f in found if f.severity == "warning"]) == narrowed, [f.render() for f in found]


def test_where_compat_differs_from_buf_on_purpose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/engines/protobuf.md lists them: an enum field renamed with aliases renames its enum
    type (buf: FIELD_WIRE_COMPATIBLE_TYPE; the numbers read the same, compat: nothing), and a
    number naming another field without an alias (buf passes, names are not WIRE; compat: reused)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v1.yaml").write_text(V1, encoding="utf-8")
    (tmp_path / "v2.yaml").write_text(
        _v("2.0.0").replace("quality: {type: enum[good, bad]}", "grade: {type: enum[good, bad], aliases: [quality]}"),
        encoding="utf-8")
    out = tmp_path / "generated"
    assert CliRunner().invoke(main, ["render", "v1.yaml", "--target", TARGET, "--out", str(out)]).exit_code == 0
    c1, c2 = load(tmp_path / "v1.yaml"), load(tmp_path / "v2.yaml")
    compat = registry.get(TARGET).wire_compat()
    assert compat is not None
    history = wire.history_for(str(out))
    schemas = compat.schemas([c1, c2], history)
    o, n = schemas.by_version["1.0.0"], schemas.by_version["2.0.0"]
    buf = _buf(o.schema, n.schema, tmp_path / "buf-enum")
    assert [b["type"] for b in buf] == ["FIELD_WIRE_COMPATIBLE_TYPE"] and _buf_numbers(buf) == {4}
    assert compat.compare(n, o, "backward", history) + compat.compare(o, n, "forward", history) == []

    reused = o.schema.replace(" note = 5;", " remark = 5;")
    (tmp_path / "v3.yaml").write_text(_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string}"),
                                      encoding="utf-8")
    r = Versioned(load(tmp_path / "v3.yaml"), reused)
    assert _buf(o.schema, reused, tmp_path / "buf-name") == []
    found = compat.compare(r, o, "backward", history)
    assert [f.message for f in _errors(found)] == [
        "number 5 is 'note' in 1.0.0 and 'remark' in 2.0.0: a field number is reused (no alias declares a rename)"]
