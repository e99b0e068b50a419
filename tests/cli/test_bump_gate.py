"""`tacit-gen check` as a PR gate: a contract change whose version bump is too small fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import ROOT


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def check(repo: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    old = os.getcwd()
    os.chdir(repo)
    try:
        res = CliRunner().invoke(main, ["check", "--format", "json"])
    finally:
        os.chdir(old)
    return res.exit_code, json.loads(res.output)


def test_gate(tmp_path: Path) -> None:
    repo = tmp_path / "analytics"
    (repo / "contracts").mkdir(parents=True)
    shutil.copy(ROOT / "contracts" / "fct_sensor_readings.yaml", repo / "contracts")
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "ci@example")
    git(repo, "config", "user.name", "ci")
    CliRunner().invoke(main, ["render", str(repo / "contracts"), "--out", str(repo / "generated")])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v1")
    code, doc = check(repo)
    assert code == 0, doc

    # tighten the range without a bump, and re-render so nothing else drifts
    path = repo / "contracts" / "fct_sensor_readings.yaml"
    path.write_text(path.read_text().replace("-40 <= value_degc <= 150", "-40 <= value_degc <= 120"))
    CliRunner().invoke(main, ["render", str(repo / "contracts"), "--out", str(repo / "generated")])
    code, doc = check(repo)
    assert code == 1
    gate = [f for f in doc["findings"] if f["code"] == "D300"]
    assert len(gate) == 1 and "major" in gate[0]["message"], doc["findings"]

    # a major bump satisfies the gate
    path.write_text(path.read_text().replace("version: 1.0.0", "version: 2.0.0"))
    CliRunner().invoke(main, ["render", str(repo / "contracts"), "--out", str(repo / "generated")])
    code, doc = check(repo)
    assert code == 0, doc["findings"]
