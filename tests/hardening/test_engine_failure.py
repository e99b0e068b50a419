"""Class 11 of issue 15: an engine that cannot run has no verdict. verify names it and why, keeps
the other engines' verdicts, exits 4, and never calls it a disagreement or a pass. The failures
are real: an import that fails (as under a memory limit) and a native crash (SIGSEGV), made by
packages shadowing the real ones on PYTHONPATH, in one verify run."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import ROOT
from tests.hardening.helpers import BASE, cli


def test_engines_that_cannot_run(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    (shim / "great_expectations").mkdir(parents=True)
    (shim / "great_expectations" / "__init__.py").write_text(
        'raise ImportError("libarrow.so: failed to map segment from shared object")\n', encoding="utf-8")
    (shim / "pandera").mkdir()
    (shim / "pandera" / "__init__.py").write_text(
        "import ctypes\nctypes.string_at(0)  # a native crash: SIGSEGV\n", encoding="utf-8")
    contract = tmp_path / "hostile.yaml"
    contract.write_text(BASE, encoding="utf-8")
    data = tmp_path / "d.csv"
    data.write_text("id,note\n1,a\n2,\n", encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    res = cli("verify", str(contract), "--data", str(data), "--target", "gx,pandera,ibis",
              "--format", "json", env=env, timeout=600)
    assert "Traceback" not in res.stdout, res.stdout[-2000:]
    assert res.returncode == 4, res.stdout[-3000:] + res.stderr[-3000:]
    report = json.loads(res.stdout)
    assert report["verdict"] == "incomplete"
    failed = report["engines_failed"]
    assert set(failed) == {"gx", "pandera"}
    assert "failed to map segment" in failed["gx"]
    assert "SIGSEGV" in failed["pandera"]
    for row in report["clauses"]:
        assert row["disagreement"] is None
        assert set(row["verdicts"]) == {"ibis"}  # the others' verdicts are kept, none invented
        assert row["verdicts"]["ibis"]["status"] == "pass"
    text = cli("verify", str(contract), "--data", str(data), "--target", "gx,ibis", env=env, timeout=600)
    assert text.returncode == 4
    assert "gx could not run" in text.stdout and "failed to map segment" in text.stdout
    assert "DISAGREE" not in text.stdout
