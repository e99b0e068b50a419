"""verify is quiet about what a target cannot express: an agreed n/a is a cell of the table and
one legend line, never a line per clause and target; `--format json` keeps each engine's detail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOW = "2024-01-01T12:00:00Z"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tacit_gen.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.engine
def test_an_agreed_na_is_one_legend_line(tmp_path: Path) -> None:
    data = tmp_path / "bars.csv"
    made = _cli("sample", "contracts/ohlcv_1m.yaml", "--rows", "40", "--now", NOW, "--out", str(data))
    assert made.returncode == 0, made.stderr
    # avro states no value rule: n/a for the ranges, invariants, key and cadence
    text = _cli("verify", "contracts/ohlcv_1m.yaml", "--data", str(data), "--target", "avro,pandera",
                "--now", NOW)
    assert text.returncode == 0, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    na_rows = [ln for ln in lines if ln.startswith("range:volume")]
    assert na_rows and na_rows[0].split()[1] == "n/a", lines
    assert [ln for ln in lines if ln.startswith("n/a:")] == [
        "n/a: not expressible there (explain --targets says why) or a column is missing"]
    assert not [ln for ln in lines if ": n/a: " in ln], lines  # no line per clause
    assert all(len(ln) <= 80 for ln in lines if not ln.startswith(("clause", "-", "verify"))), lines
    # the JSON report keeps what the engine said for each n/a
    js = _cli("verify", "contracts/ohlcv_1m.yaml", "--data", str(data), "--target", "avro,pandera",
              "--now", NOW, "--format", "json")
    assert js.returncode == 0, js.stderr
    clauses = {c["id"]: c for c in json.loads(js.stdout)["clauses"]}
    avro = clauses["range:volume"]["verdicts"]["avro"]
    assert avro["status"] == "n/a" and avro["detail"], avro
