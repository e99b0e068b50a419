"""Replay: data written under an older version, validated through today's runtime."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.evolution import replay
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine

V1 = (CONTRACTS / "fct_sensor_readings.yaml").read_text()
# v2 tightens the range: history written under v1 (up to 150 degC) may no longer read.
V2 = V1.replace("version: 1.0.0", "version: 2.0.0").replace("-40 <= value_degc <= 150", "-40 <= value_degc <= 50")


def old_data(tmp: Path) -> tuple[Path, str]:
    c1 = load(CONTRACTS / "fct_sensor_readings.yaml")
    data = sample(c1, plan(c1), rows=40, seed=3)
    assert any(v is not None and v > 50 for v in data.columns["value_degc"])
    path, _ = write(data, tmp / "history.csv")
    return path, data.now.isoformat()


def test_history_reads_through_the_same_version(tmp_path: Path) -> None:
    path, now = old_data(tmp_path)
    from tacit_gen.verify import parse_now

    rep = replay(load(CONTRACTS / "fct_sensor_readings.yaml"), path, now=parse_now(now))
    assert rep.ok, rep.render_text()


def test_tightened_range_fails_replay(tmp_path: Path) -> None:
    path, now = old_data(tmp_path)
    new = tmp_path / "fct_sensor_readings.yaml"
    new.write_text(V2)
    from tacit_gen.verify import parse_now

    rep = replay(load(new), path, now=parse_now(now))
    assert not rep.ok
    assert [c for c, _, _ in rep.failures] == ["range:value_degc"]
    res = CliRunner().invoke(main, ["compat", str(new), "--mode", "BACKWARD", "--history", str(tmp_path / "hist"),
                                    "--replay", str(path), "--now", now])
    # no history folder: usage error, exit 2
    assert res.exit_code == 2
    hist = tmp_path / "hist"
    hist.mkdir()
    (hist / "v1.yaml").write_text(V1)
    res = CliRunner().invoke(main, ["compat", str(new), "--mode", "BACKWARD", "--history", str(hist),
                                    "--replay", str(path), "--now", now])
    assert res.exit_code == 1
    assert "range:value_degc" in res.output
