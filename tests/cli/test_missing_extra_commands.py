"""Every command that needs an optional library behaves as `verify` does when it is absent: in a
throwaway environment holding only the core install, it names what is missing and the install
line of the extra that brings it, exits 4, and prints no traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_verify_missing_extra import _environment
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine
CONTRACT = str(CONTRACTS / "fct_sensor_readings.yaml")
NOW = "2024-01-02T15:00:00Z"


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _environment(tmp_path_factory.mktemp("core") / "venv", "")


def _run(exe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                          cwd=exe.parent, env=environ)


# the commands a missing extra stops with exit 4 (their --help lists it: tests/cli/test_cli.py)
EXITS_4 = ("calendar", "sample", "profile")


@pytest.mark.parametrize(("args", "module", "extra"), [
    (["calendar", "XNYS", "--start", "2024-01-01", "--end", "2024-01-10"],
     "exchange_calendars", "calendar"),
    (["sample", CONTRACT, "--rows", "5", "--now", NOW, "--out", "{tmp}/s.parquet"],
     "pyarrow", "duckdb"),
    (["profile", CONTRACT, "--data", "{tmp}/d.csv", "--out", "{tmp}/catalog.csv"],
     "duckdb", "duckdb"),
], ids=["calendar", "sample-parquet", "profile"])
def test_a_command_without_its_extra_names_it_and_exits_4(core: Path, tmp_path: Path,
                                                          args: list[str], module: str,
                                                          extra: str) -> None:
    made = _run(core, "sample", CONTRACT, "--rows", "5", "--now", NOW, "--out", f"{tmp_path}/d.csv")
    assert made.returncode == 0, made.stderr  # CSV sampling is core
    got = _run(core, *(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert got.returncode == 4, got.stdout + got.stderr
    assert f"{module} is not installed" in got.stderr
    assert f"pip install 'tacit-gen[{extra}]'" in got.stderr
    assert "Traceback" not in got.stdout + got.stderr
    assert args[0] in EXITS_4
    helped = _run(core, args[0], "--help")
    assert "  4  a library it needs is not installed" in helped.stdout, helped.stdout
