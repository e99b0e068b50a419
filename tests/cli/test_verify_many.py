"""`tacit-gen verify contracts/ --data-dir DIR`: every bundled contract in one run, each engine
once for all of them (tacit_gen/verify/many.py).

The CLI runs in this process (click's `CliRunner`), whose engines are imported once: verify then
runs them here, one after another (`fork_safe`: a test process runs other threads). The run whose
engines end in any order is the exception: `--jobs 5` runs as a user runs it, a process of its
own, so the engines really are forked and run in parallel, and its report must be byte for byte
the one-at-a-time run's."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tacit_gen.cli import main
from tests.conftest import BUNDLED, CONTRACTS, ROOT, engine_targets

pytestmark = pytest.mark.engine
NOW = "2024-01-02T15:00:00Z"
# fct_sensor_readings' enum, a clause every target renders (the wire schemas included)
VIOLATED, CLAUSE = "fct_sensor_readings", "accepted_values:quality"


def cli(*args: str) -> Result:
    """`tacit-gen ARGS` in this process, from the repository's root (the paths below are relative
    to it) and 400 columns wide; an exception that escapes it fails the test."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        return CliRunner(env={"COLUMNS": "400"}).invoke(main, list(args), catch_exceptions=False)


def cli_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`tacit-gen ARGS` in a process of its own, as a user runs it: its engines are forked."""
    env = {**os.environ, "COLUMNS": "400"}
    return subprocess.run([sys.executable, "-m", "tacit_gen.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200, check=False)


def sample(folder: Path, name: str, violate: str | None = None) -> None:
    args = ["sample", str(CONTRACTS / f"{name}.yaml"), "--rows", "24", "--now", NOW,
            "--out", str(folder / f"{name}.csv")]
    res = cli(*args, *(["--violate", violate] if violate else []))
    assert res.exit_code == 0, res.stderr


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("clean")
    for path in BUNDLED:
        sample(folder, path.stem)
    return folder


def test_clean_data_of_every_bundled_contract_passes_on_every_engine(clean: Path) -> None:
    res = cli("verify", "contracts/", "--data-dir", str(clean), "--now", NOW, "--jobs", "2",
              "--format", "json")
    assert res.exit_code == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["verdict"] == "pass"
    assert [c["contract"] for c in doc["contracts"]] == [p.stem for p in BUNDLED]
    for c in doc["contracts"]:
        assert c["exit_code"] == 0 and not c["engines_failed"], c["contract"]
        assert c["targets"] == list(engine_targets())
        statuses = {v["status"] for row in c["clauses"] for v in row["verdicts"].values()}
        assert statuses <= {"pass", "n/a"} and "pass" in statuses, c["contract"]
        # every clause has a real pass, and n/a only where a target declared the clause
        # unsupported (otherwise the engines would not agree)
        for row in c["clauses"]:
            assert row["agree"], (c["contract"], row["id"], row["disagreement"])
            assert any(v["status"] == "pass" for v in row["verdicts"].values()), row["id"]


def test_one_violation_fails_that_clause_only_and_the_others_pass(clean: Path,
                                                                 tmp_path: Path) -> None:
    for path in BUNDLED:
        if path.stem != VIOLATED:
            for f in clean.glob(f"{path.stem}.*"):
                shutil.copy(f, tmp_path / f.name)
    sample(tmp_path, VIOLATED, CLAUSE)
    res = cli("verify", *(str(p) for p in BUNDLED), "--data-dir", str(tmp_path), "--now", NOW,
              "--jobs", "2", "--format", "json")
    assert res.exit_code == 1, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["verdict"] == "violations"
    by_name = {c["contract"]: c for c in doc["contracts"]}
    for name, c in by_name.items():
        assert not c["engines_failed"] and all(r["agree"] for r in c["clauses"]), name
        failed = {(r["id"], t) for r in c["clauses"] for t, v in r["verdicts"].items()
                  if v["status"] != "pass" and v["status"] != "n/a"}
        if name == VIOLATED:
            assert c["exit_code"] == 1
            assert failed == {(CLAUSE, t) for t in c["targets"]}, failed
        else:
            assert c["exit_code"] == 0 and not failed, (name, failed)
    # the text report: each contract's table, then one line per contract
    text = cli("verify", *(str(p) for p in BUNDLED), "--data-dir", str(tmp_path), "--now", NOW,
               "--target", "pandera,ibis,jsonschema")
    assert text.exit_code == 1
    summary = text.stdout.split("verify: 3 contract(s)\n")[1].splitlines()
    versions = {p.stem: re.findall(r"^version: *(\S+)$", p.read_text(encoding="utf-8"), re.M)[0]
                for p in BUNDLED}  # read, not pinned: a bundled contract's version moves
    assert [ln.split()[:4] for ln in summary[2:5]] == [
        ["fct_sensor_readings", versions["fct_sensor_readings"], "violations", "1"],
        ["ohlcv_1m", versions["ohlcv_1m"], "pass", "0"],
        ["plant_sensor_reading", versions["plant_sensor_reading"], "pass", "0"]]
    assert summary[-1] == "1 of 3 contract(s) did not pass: exit 1"


def test_output_is_the_same_whatever_order_the_engines_end_in(clean: Path) -> None:
    """One engine at a time (here), then all at once (forked, in a process of its own):
    byte-identical reports."""
    args = ("verify", "contracts/", "--data-dir", str(clean), "--now", NOW, "--target",
            "pandera,ibis,avro,protobuf,jsonschema")
    one, many = cli(*args, "--jobs", "1"), cli_process(*args, "--jobs", "5")
    assert one.exit_code == many.returncode == 0, one.stderr + many.stderr
    assert one.stdout == many.stdout


def test_a_contract_without_data_is_exit_2_naming_it(clean: Path, tmp_path: Path) -> None:
    for f in clean.iterdir():
        if not f.name.startswith("ohlcv_1m."):
            shutil.copy(f, tmp_path / f.name)
    res = cli("verify", "contracts/", "--data-dir", str(tmp_path), "--now", NOW)
    assert res.exit_code == 2
    assert "no data for contract 'ohlcv_1m' (contracts/ohlcv_1m.yaml): expected " in res.stderr
    assert f"{tmp_path.as_posix()}/ohlcv_1m.csv" in res.stderr
    assert res.stdout == "" and "Traceback" not in res.stderr


def test_usage_errors_are_exit_2(clean: Path, tmp_path: Path) -> None:
    both = tmp_path / "both"
    shutil.copytree(clean, both)
    shutil.copy(both / "ohlcv_1m.csv", tmp_path / "x.csv")
    (both / "ohlcv_1m.parquet").write_bytes(b"")
    cases = {
        ("verify", "contracts/", "--now", NOW): "need --data-dir",
        ("verify", "contracts/", "--data-dir", str(clean), "--data", str(tmp_path / "x.csv")):
            "--data: one contract's options",
        ("verify", "contracts/ohlcv_1m.yaml", "--data-dir", str(both)): "two files for the same relation",
        ("verify", "contracts/ohlcv_1m.yaml"): "--data FILE is required",
        ("verify", "contracts/ohlcv_1m.yaml", "--jobs", "2"): "--data FILE is required",
    }
    broken = tmp_path / "broken"
    shutil.copytree(clean, broken)
    (broken / "ohlcv_1m.csv").unlink()
    (broken / "ohlcv_1m.parquet").write_bytes(b"not parquet")
    cases[("verify", "contracts/", "--data-dir", str(broken), "--target", "pandera")] = (
        "contract 'ohlcv_1m': ")
    for args, words in cases.items():
        res = cli(*args)
        assert res.exit_code == 2, (args, res.stderr)
        assert words in res.stderr and "Traceback" not in res.stderr, (args, res.stderr)


@pytest.mark.parametrize("outage, code", [("maintenance", 0), ("sensor_fault", 1), (None, 1)])
def test_outages_are_found_by_name(tmp_path: Path, outage: str | None, code: int) -> None:
    """`DIR/<name>.outages.csv` is the contract's outages relation, as `--outages` is for one
    contract: a day short of readings passes under an outage of an allowed type, fails
    `completeness:` under another type, and fails without the file."""
    from tests.targets.test_completeness_engines import CASES, CID, OUTAGE, _write

    rows = CASES["short"][0]
    _write(tmp_path / "completeness_demo.csv", rows, ["series_id", "event_ts", "value"])
    if outage is not None:
        _write(tmp_path / "completeness_demo.outages.csv", [{**OUTAGE, "type": outage}],
               ["series_id", "start", "end", "type"])
    fixture = ROOT / "tests" / "fixtures" / "series" / "completeness.yaml"
    res = cli("verify", str(fixture), "--data-dir", str(tmp_path), "--now", "2024-01-05T00:00:00Z",
              "--target", "pandera,ibis", "--format", "json")
    assert res.exit_code == code, res.stderr
    report = json.loads(res.stdout)["contracts"][0]
    row = next(r for r in report["clauses"] if r["id"] == CID)
    assert {v["status"] for v in row["verdicts"].values()} == {"pass" if code == 0 else "fail"}


def test_outages_option_with_data_dir_is_exit_2(clean: Path) -> None:
    res = cli("verify", "contracts/", "--data-dir", str(clean), "--outages",
              str(next(clean.iterdir())), "--now", NOW)
    assert res.exit_code == 2 and "--outages: one contract's options" in res.stderr, res.stderr
