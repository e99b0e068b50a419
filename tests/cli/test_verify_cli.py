"""`tacit-gen verify` and `sample` as users run them: exit codes, JSON, and a broken renderer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen import registry
from tacit_gen.cli import main
from tests.conftest import CONTRACTS, engine_targets

pytestmark = pytest.mark.engine
NOW = "2024-01-02T15:00:00Z"


def invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.output


def sample(tmp: Path, name: str, violate: str | None = None) -> list[str]:
    out = tmp / f"{name}.csv"
    args = ["sample", str(CONTRACTS / f"{name}.yaml"), "--rows", "24", "--now", NOW, "--out", str(out)]
    if violate:
        args += ["--violate", violate]
    code, text = invoke(*args)
    assert code == 0, text
    data = ["--data", str(out)]
    cat = tmp / f"{name}.catalog.csv"
    return data + (["--catalog", str(cat)] if cat.exists() else [])


def test_verify_clean_exits_0_and_json_is_documented(tmp_path: Path) -> None:
    data = sample(tmp_path, "fct_sensor_readings")
    code, out = invoke("verify", str(CONTRACTS / "fct_sensor_readings.yaml"), *data, "--now", NOW,
                       "--format", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["verdict"] == "pass" and doc["exit_code"] == 0
    assert doc["targets"] == list(engine_targets())
    row = next(c for c in doc["clauses"] if c["id"] == "range:value_degc")
    assert row["agree"] is True
    # Avro cannot state a range (n/a, never a pass); JSON Schema and protobuf enforce it
    assert {t: v["status"] for t, v in row["verdicts"].items()} == {
        **dict.fromkeys(doc["targets"], "pass"), "avro": "n/a"}


def test_verify_violation_exits_1_with_the_table(tmp_path: Path) -> None:
    data = sample(tmp_path, "fct_sensor_readings", "range:value_degc")
    code, out = invoke("verify", str(CONTRACTS / "fct_sensor_readings.yaml"), *data, "--now", NOW)
    assert code == 1, out
    line = next(ln for ln in out.splitlines() if ln.startswith("range:value_degc"))
    assert line.split()[1:] == ["FAIL", "1"] * 6 + ["n/a", "FAIL", "1", "FAIL", "1"]
    assert "all engines agree" in out


def test_a_renderer_that_drops_a_clause_makes_verify_exit_3(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch the Soda target to silently drop range:value_degc: verify must say so, loudly."""
    soda = registry.get("soda")
    original = soda.render

    def dropping(contract, clauses, options):  # type: ignore[no-untyped-def]
        return original(contract, tuple(c for c in clauses if c.id != "range:value_degc"), options)

    monkeypatch.setattr(soda, "render", dropping)
    data = sample(tmp_path, "fct_sensor_readings", "range:value_degc")
    code, out = invoke("verify", str(CONTRACTS / "fct_sensor_readings.yaml"), *data, "--now", NOW)
    assert code == 3, out
    assert "DISAGREE range:value_degc: soda gave no verdict" in out


def test_bad_now_is_a_usage_error(tmp_path: Path) -> None:
    data = sample(tmp_path, "fct_sensor_readings")
    code, out = invoke("verify", str(CONTRACTS / "fct_sensor_readings.yaml"), *data, "--now", "2024-01-02 15:00")
    assert code == 2
    assert "has no offset" in out


def test_sample_unknown_clause_is_a_usage_error() -> None:
    code, out = invoke("sample", str(CONTRACTS / "ohlcv_1m.yaml"), "--violate", "range:volum")
    assert code == 2 and "did you mean 'range:volume'" in out


@pytest.mark.parametrize("cmd", ["render", "check", "verify"])
def test_a_mistyped_target_gets_a_did_you_mean(tmp_path: Path, cmd: str) -> None:
    args = [cmd, str(CONTRACTS / "ohlcv_1m.yaml"), "--target", "dbt,sodaa"]
    if cmd == "verify":
        args += sample(tmp_path, "ohlcv_1m")
    code, out = invoke(*args)
    assert code == 2, out
    assert "unknown target 'sodaa'; did you mean 'soda'?" in out, out


def test_unreadable_data_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "garbage.parquet"
    bad.write_bytes(b"\x00not parquet at all" * 10)
    code, out = invoke("verify", str(CONTRACTS / "fct_sensor_readings.yaml"), "--data", str(bad), "--now", NOW)
    assert code == 2
    assert "garbage.parquet: cannot read" in out and "Traceback" not in out


def test_sample_out_needs_csv_or_parquet(tmp_path: Path) -> None:
    code, out = invoke("sample", str(CONTRACTS / "ohlcv_1m.yaml"), "--out", str(tmp_path / "x.txt"))
    assert code == 2 and "write a .csv or .parquet file" in out
    assert not (tmp_path / "x.txt").exists()
