"""End to end through the CLI: `tacit-gen diff` and `tacit-gen compat --history DIR` exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tests.evolution.test_diff import BASE, edit
from tests.evolution.test_history import V1, V2, V3, V4, V5


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_diff_exit_codes_and_formats(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.yaml", BASE)
    small = _write(tmp_path / "small.yaml", edit(BASE, ("unit: bar", "unit: kPa"), ("version: 1.0.0", "version: 1.1.0")))
    major = _write(tmp_path / "major.yaml", edit(BASE, ("unit: bar", "unit: kPa"), ("version: 1.0.0", "version: 2.0.0")))
    runner = CliRunner()
    res = runner.invoke(main, ["diff", old, small])
    assert res.exit_code == 1, res.output
    assert "[field.unit_changed]" in res.output and "NOT OK" in res.output
    res = runner.invoke(main, ["diff", old, major, "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert (data["least_bump"], data["declared_bump"], data["ok"]) == ("major", "major", True)
    res = runner.invoke(main, ["diff", old, major, "--changelog"])
    assert res.exit_code == 0 and res.output.startswith("## sensor 2.0.0 (major)\n")


def test_compat_with_a_folder_of_versions(tmp_path: Path) -> None:
    hist = tmp_path / "history"
    hist.mkdir()
    for i, text in enumerate((V1, V2, V3, V4)):
        _write(hist / f"v{i}.yaml", text)
    current = _write(tmp_path / "sensor.yaml", V5)
    runner = CliRunner()
    res = runner.invoke(main, ["compat", current, "--mode", "FULL", "--history", str(hist)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["compat", current, "--mode", "full_transitive", "--history", str(hist),
                               "--format", "json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.output)
    assert data["compared_with"] == ["1.0.0", "1.1.0", "2.0.0", "2.0.1"]
    assert {f["code"] for f in data["incompatibilities"]} == {"compat.type"}
