"""Evolution through the wire schemas: each change of seed 001's table through `diff`, `compat`
(the Avro compatibility checker, protoc, jsonschema) and `compat --replay` (old rows encoded with
the old writer schemas, decoded with today's, parsed by today's runtime)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.evolution import diff
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write

pytestmark = pytest.mark.engine

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
  site: {type: string, nullable: false}
"""
NOW = "2024-01-02T15:00:00+00:00"


def _v(version: str, text: str = V1) -> str:
    return text.replace("version: 1.0.0", f"version: {version}")


CASES = {
    # name: (new contract text, least bump, compat FULL ok, replay ok, words in the output)
    "nullable_added": (_v("1.1.0") + "  comment: {type: string}\n", "minor", True, True, []),
    "field_removed": (_v("2.0.0").replace("  site: {type: string, nullable: false}\n", ""), "major",
                      False, True, ["reader_field_missing_default_value", "site"]),
    "rename_with_alias": (_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string, aliases: [note]}"),
                          "major", True, True, []),
    "rename_without_alias": (_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string}"),
                             "major", True, False, ["'remark' reads NULL", "aliases: [note]"]),
    "rename_required_without_alias": (
        _v("2.0.0").replace("  site: {type: string, nullable: false}", "  plant: {type: string, nullable: false}"),
        "major", False, False, ["No default value for field plant", "1.0.0"]),
    "decimal_widened": (_v("1.1.0").replace("decimal(12,4), unit: kPa", "decimal(14,4), unit: kPa"),
                        "minor", False, True, []),
    "unit_changed_new_field": (_v("1.1.0") + "  pressure_bar: {type: decimal(12,4), unit: bar}\n", "minor",
                               True, True, []),
}


def _setup(tmp: Path, new_text: str) -> tuple[Path, Path, Path]:
    hist = tmp / "hist"
    hist.mkdir()
    (hist / "v1.yaml").write_text(V1, encoding="utf-8")
    new = tmp / "readings.yaml"
    new.write_text(new_text, encoding="utf-8")
    c1 = load(hist / "v1.yaml")
    data_path, _ = write(sample(c1, plan(c1), rows=20, seed=5), tmp / "v1_rows.csv")
    return hist, new, data_path


@pytest.mark.parametrize("case", list(CASES))
def test_change_through_diff_compat_and_replay(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text, bump, compat_ok, replay_ok, words = CASES[case]
    monkeypatch.chdir(tmp_path)
    hist, new, data = _setup(tmp_path, text)
    assert diff(load(hist / "v1.yaml"), load(new)).least_bump == bump
    res = CliRunner().invoke(main, ["compat", str(new), "--mode", "FULL", "--history", str(hist),
                                    "--format", "json"])
    doc = json.loads(res.output)
    errors = [f for f in doc["registries"]["findings"] if f["severity"] == "error"]
    assert (not errors) == compat_ok or (case == "decimal_widened" and not errors), doc["registries"]
    if case == "decimal_widened":  # the contract says an old reader cannot hold 14 digits
        assert not doc["ok"] and doc["incompatibilities"][0]["direction"] == "forward"
    res = CliRunner().invoke(main, ["compat", str(new), "--mode", "BACKWARD", "--history", str(hist),
                                    "--replay", str(data), "--now", NOW])
    out = res.output
    assert ("wire replay: 20 rows written under 1.0.0" in out), out
    assert (": ok" in out.split("wire replay:")[1].splitlines()[0]) == replay_ok, out
    everything = out + json.dumps(doc)
    for w in words:
        assert w in everything, (w, everything)


def test_removed_field_is_named_by_avro_in_forward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    hist, new, _ = _setup(tmp_path, CASES["field_removed"][0])
    res = CliRunner().invoke(main, ["compat", str(new), "--mode", "FORWARD", "--history", str(hist)])
    assert res.exit_code == 1
    line = next(ln for ln in res.output.splitlines() if ln.strip().startswith("avro"))
    assert "1.0.0 reading 2.0.0 data field 'site'" in line and "reader_field_missing_default_value" in line


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_reused_proto_number_fails_naming_version_and_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock edited by hand to give a new field the number a removed one had: compat reads the lock
    committed with the old version from git and names the reuse."""
    repo = tmp_path / "repo"
    (repo / "contracts").mkdir(parents=True)
    monkeypatch.chdir(repo)
    _git(repo, "init", "-q")
    path = repo / "contracts" / "readings.yaml"
    path.write_text(V1, encoding="utf-8")
    assert CliRunner().invoke(main, ["render", "contracts", "--target", "protobuf"]).exit_code == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "v1")
    path.write_text(_v("2.0.0").replace("  note: {type: string}", "  remark: {type: string}"), encoding="utf-8")
    assert CliRunner().invoke(main, ["render", "contracts", "--target", "protobuf"]).exit_code == 0
    lock_path = repo / "generated" / "protobuf" / "readings.lock.json"
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    assert lock["reserved"] == [{"number": 5, "name": "note"}]  # the render reserved it
    lock["fields"]["remark"] = 5  # ...and a hand edit reuses it
    lock["reserved"] = []
    lock_path.write_text(json.dumps(lock), encoding="utf-8")
    check = CliRunner().invoke(main, ["check", "contracts", "--target", "protobuf", "--no-bump-gate"])
    assert check.exit_code == 1  # the .proto no longer matches the lock
    res = CliRunner().invoke(main, ["compat", str(path), "--mode", "BACKWARD"])
    assert res.exit_code == 1, res.output
    assert "number 5 is 'note' in 1.0.0 and 'remark' in 2.0.0: a field number is reused" in res.output
