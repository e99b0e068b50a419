"""Wire compatibility and replay are declared by the targets (`Target.compat`, `Target.replays`):
`compat` asks every registered target that declares one, an outside target included, and names
none itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tacit_gen import registry
from tacit_gen.contract.loader import load
from tacit_gen.evolution import wire

ROOT = Path(__file__).resolve().parents[2]

V1 = """\
contract: readings
version: 1.0.0
key: [series_id]
fields:
  series_id: {type: string, nullable: false}
  note: {type: string}
"""
V2 = V1.replace("version: 1.0.0", "version: 2.0.0").replace("  note: {type: string}\n", "")

# An outside target whose registry refuses any removed field, declared through the protocol alone.
PLUGIN = '''
from typing import Any, ClassVar

from tacit_gen.targets.base import NoOptions, RenderResult
from tacit_gen.targets.compat import Schemas, Versioned, WireCompat, WireFinding


class FieldLog(WireCompat[tuple]):
    def schemas(self, versions, history):
        return Schemas({c.version: Versioned(c, tuple(f.name for f in c.fields)) for c in versions},
                       ["fieldlog numbered nothing"])

    def compare(self, reader, writer, direction, history):
        return [WireFinding("fieldlog", direction, reader.version, writer.version, n,
                            "the field log never forgets a field")
                for n in writer.schema if n not in reader.schema]


COMPAT = FieldLog()


class FieldLogTarget:
    name = "fieldlog"
    options = NoOptions
    contract_keys = ()
    artifact_name_option = None
    engines: ClassVar[dict[str, Any]] = {}
    templates = False
    compat = "tacit_fieldlog:COMPAT"

    def artifact_paths(self, contract):
        return (f"fieldlog/{contract.name}.txt",)

    def render(self, contract, clauses, options):
        return RenderResult(())

    def project(self, contract, clause, options):
        return None


TARGET = FieldLogTarget()
'''


def test_the_targets_declaring_wire_compatibility_give_one() -> None:
    declared = [n for n in registry.names() if registry.get(n).compat]
    assert declared  # the wire targets declare theirs
    for name in declared:
        assert registry.get(name).wire_compat() is not None
    assert [n for n in registry.names() if registry.get(n).replays]  # the runtime replays
    undeclared = [n for n in registry.names() if n not in declared]
    assert all(registry.get(n).wire_compat() is None for n in undeclared)


def test_every_declared_target_judges_a_removed_required_field(tmp_path: Path) -> None:
    """Each registry the targets declare answers for itself: every declared target's compare runs
    and a removal of a field that an old reader needs is refused by at least one."""
    (tmp_path / "v1.yaml").write_text(V1.replace("  note: {type: string}", "  note: {type: string, nullable: false}"),
                                      encoding="utf-8")
    (tmp_path / "v2.yaml").write_text(V2, encoding="utf-8")
    findings, _ = wire.registry_compat([load(tmp_path / "v1.yaml"), load(tmp_path / "v2.yaml")], "FORWARD", None)
    assert "note" in {f.field for f in findings}
    assert {f.direction for f in findings} == {"forward"}
    assert {f.registry for f in findings} <= {n for n in registry.names() if registry.get(n).compat}


def test_an_outside_target_declaring_compat_joins_compat(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "tacit_fieldlog.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "tacit_fieldlog-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tacit-fieldlog\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[tacit_gen.targets]\nfieldlog = tacit_fieldlog:TARGET\n",
                                           encoding="utf-8")
    hist = tmp_path / "hist"
    hist.mkdir()
    (hist / "v1.yaml").write_text(V1, encoding="utf-8")
    new = tmp_path / "readings.yaml"
    new.write_text(V2, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))}
    res = subprocess.run([sys.executable, "-c", "from tacit_gen.cli import main; main()", "compat", str(new),
                          "--mode", "BACKWARD", "--history", str(hist), "--format", "json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    doc = json.loads(res.stdout)
    mine = [f for f in doc["registries"]["findings"] if f["registry"] == "fieldlog"]
    assert mine == [{"registry": "fieldlog", "direction": "backward", "reader_version": "2.0.0",
                     "writer_version": "1.0.0", "field": "note", "message": "the field log never forgets a field",
                     "severity": "error"}], doc
    assert "fieldlog numbered nothing" in doc["registries"]["notes"]
    assert res.returncode == 1  # the outside registry's error fails compat like a built-in one


def test_one_version_is_no_pair(tmp_path: Path) -> None:
    (tmp_path / "v1.yaml").write_text(V1, encoding="utf-8")
    assert wire.registry_compat([load(tmp_path / "v1.yaml")], "FULL", None) == ([], [])
