"""What verify shows while it works: per-engine progress on a terminal's stderr, nothing extra on
a pipe, and never an engine's own logging unless --verbose (issue 16)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.ptyrun import run_tty

NOW = "2024-01-01T12:00:00Z"
CONTRACT = str(ROOT / "contracts" / "ohlcv_1m.yaml")
# Log lines the engines write when logging is on: GX's INFO on its ephemeral docs site, Soda's
# telemetry, dbt's run banner, and Python logging's default format.
ENGINE_LOG = ("INFO", "DEBUG", "great_expectations", "ephemeral docs site", "usage stats",
              "Running with dbt", "Completed successfully", "soda.", "WARNING:")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("verify-progress") / "ohlcv.csv"
    subprocess.run([sys.executable, "-m", "tacit_gen.cli", "sample", CONTRACT, "--rows", "30",
                    "--now", NOW, "--out", str(out)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return out


def _loud_logging(tmp_path: Path) -> dict[str, str]:
    """An environment where every library's logging is on (as in a user's sitecustomize): the
    engines' log lines are emitted, and must still not reach the terminal."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import logging\nlogging.basicConfig(level=logging.DEBUG)\n", encoding="utf-8")
    return {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}


def test_no_engine_log_line_reaches_stdout_or_a_piped_stderr(data: Path, tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "verify", CONTRACT, "--data",
                          str(data), "--now", NOW, "--target", "dbt,soda,gx"],
                         env=_loud_logging(tmp_path), capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stderr == ""  # not a terminal: no progress either
    leaked = [ln for ln in res.stdout.splitlines() if any(w in ln for w in ENGINE_LOG)]
    assert leaked == [], res.stdout
    assert "all 3 engine(s) pass all 35 clauses" in res.stdout


def test_verbose_lets_the_engine_log_through(data: Path, tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "verify", CONTRACT, "--data",
                          str(data), "--now", NOW, "--target", "gx", "--verbose"],
                         env=_loud_logging(tmp_path), capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ephemeral docs site" in res.stderr


def test_progress_on_a_terminal_per_engine(data: Path) -> None:
    res = run_tty("verify", CONTRACT, "--data", str(data), "--now", NOW,
                  "--target", "jsonschema,avro", stderr_tty=True)
    assert res.returncode == 0, res.stdout + res.stderr
    err = res.stderr.replace("\r\n", "\n")
    for engine in ("jsonschema", "avro"):
        assert f"\r\x1b[Kverify {engine}: running" in err, err
        assert f"verify {engine}: " in err and "done" in err.split(f"verify {engine}: ")[-1], err
    assert "failed" not in err
    assert "\r" not in res.stdout and "all 2 engine(s) pass" in res.stdout  # the report: stdout


def test_an_engine_that_cannot_run_shows_failed(data: Path, tmp_path: Path) -> None:
    shim = tmp_path / "shim" / "fastavro"  # the avro engine's library fails to import
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("no fastavro here")\n', encoding="utf-8")
    res = run_tty("verify", CONTRACT, "--data", str(data), "--now", NOW, "--target", "avro",
                  stderr_tty=True, env={"PYTHONPATH": f"{shim.parent}{os.pathsep}{ROOT}"})
    assert res.returncode == 4, res.stdout + res.stderr
    assert "verify avro: \x1b[1;31mfailed\x1b[0m in" in res.stderr, res.stderr
    assert "no fastavro here" in res.stderr


def test_sample_at_a_large_row_count_shows_progress(tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    res = run_tty("sample", str(ROOT / "contracts" / "fct_sensor_readings.yaml"), "--rows",
                  "100000", "--now", NOW, "--out", str(out), stderr_tty=True)
    assert res.returncode == 0, res.stderr
    assert "sample 100000 rows: running" in res.stderr
    assert "sample write big.csv: " in res.stderr and out.is_file()
    small = run_tty("sample", str(ROOT / "contracts" / "fct_sensor_readings.yaml"), "--rows", "10",
                    "--out", str(tmp_path / "small.csv"), stderr_tty=True)
    assert "running" not in small.stderr


def test_compat_replay_shows_its_steps_on_a_terminal(tmp_path: Path) -> None:
    contract = ROOT / "contracts" / "fct_sensor_readings.yaml"
    hist = tmp_path / "hist"
    hist.mkdir()
    (hist / "v1.yaml").write_text(contract.read_text(encoding="utf-8"), encoding="utf-8")
    data = tmp_path / "old.csv"
    subprocess.run([sys.executable, "-m", "tacit_gen.cli", "sample", str(contract), "--rows", "20",
                    "--now", NOW, "--out", str(data)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    args = ("compat", str(contract), "--mode", "BACKWARD", "--history", str(hist), "--replay",
            str(data), "--now", NOW)
    res = run_tty(*args, stderr_tty=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "compat replay through the runtime: running" in res.stderr
    assert "compat wire replay (avro, protobuf): " in res.stderr
    piped = run_tty(*args, stderr_tty=False)
    assert "running" not in piped.stderr and piped.stdout.replace("\r\n", "\n") == \
        res.stdout.replace("\r\n", "\n")


def test_one_contracts_engines_run_side_by_side(data: Path) -> None:
    """One contract's engines run in processes side by side (`--jobs`, default the CPUs), the
    costliest first: with two at a time both have started before either is done; with one at a
    time each is done before the next starts; the report is the same byte for byte."""
    args = ("verify", CONTRACT, "--data", str(data), "--now", NOW, "--target",
            "avro,ibis,pandera")
    both = run_tty(*args, "--jobs", "2", stderr_tty=True)
    one = run_tty(*args, "--jobs", "1", stderr_tty=True)
    assert both.returncode == one.returncode == 0, both.stdout + both.stderr + one.stderr

    def events(err: str) -> list[str]:  # "start ibis", "done ibis", ... in the order written
        return [f"{'start' if m.group(2) == 'running' else 'done'} {m.group(1)}" for m in
                re.finditer(r"\r\x1b\[Kverify (\w+): (running|\x1b\[1;36mdone|done)(?!\s\d)",
                             err)]

    # the costliest first: ibis, pandera, then the wire schema (their declared Engine.cost)
    assert events(both.stderr)[:2] == ["start ibis", "start pandera"], both.stderr
    assert events(one.stderr) == ["start ibis", "done ibis", "start pandera", "done pandera",
                                  "start avro", "done avro"], one.stderr
    assert both.stdout == one.stdout
