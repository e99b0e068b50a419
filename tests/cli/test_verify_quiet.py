"""verify is quiet about what a target cannot express: an agreed n/a is a cell of the table and
one legend line, never a line per clause and target; `--format json` keeps each engine's detail.
The CLI runs in this process (click's `CliRunner`), so the engines are imported once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tacit_gen.cli import main

ROOT = Path(__file__).resolve().parents[2]
NOW = "2024-01-01T12:00:00Z"


def _cli(*args: str) -> Result:
    """`tacit-gen ARGS` from the repository's root; an exception that escapes it fails the test."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.engine
def test_an_agreed_na_is_one_legend_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    data = tmp_path / "bars.csv"
    made = _cli("sample", "contracts/ohlcv_1m.yaml", "--rows", "40", "--now", NOW, "--out", str(data))
    assert made.exit_code == 0, made.stderr
    # avro states no value rule: n/a for the ranges, invariants, key and cadence
    text = _cli("verify", "contracts/ohlcv_1m.yaml", "--data", str(data), "--target", "avro,pandera",
                "--now", NOW)
    assert text.exit_code == 0, text.stdout + text.stderr
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
    assert js.exit_code == 0, js.stderr
    clauses = {c["id"]: c for c in json.loads(js.stdout)["clauses"]}
    avro = clauses["range:volume"]["verdicts"]["avro"]
    assert avro["status"] == "n/a" and avro["detail"], avro
