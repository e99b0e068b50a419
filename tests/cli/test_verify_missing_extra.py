"""An engine that cannot run here is named with its extra: `verify` in throwaway environments
that hold only the core install, or the core and one engine's extra, as a user who skipped an
extra has them (built with uv from this tree; uv's cache makes it quick). verify names the
engine, what is missing and the install line, exits 4, keeps the verdicts of the engines that
ran, and prints no traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CONTRACTS, ROOT

pytestmark = pytest.mark.engine
NOW = "2024-01-02T15:00:00Z"
CONTRACT = CONTRACTS / "fct_sensor_readings.yaml"


def _environment(root: Path, extras: str) -> Path:
    """A fresh venv holding this tree installed with `extras` (none: the core install), at the
    versions this environment runs (uv resolves from its cache, offline)."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.fail("uv is needed to build the throwaway environments (it is in the dev env)")
    pins = root.parent / f"{root.name}-pins.txt"
    frozen = subprocess.run([uv, "pip", "freeze", "--python", sys.executable], check=True,
                            capture_output=True, text=True).stdout
    pins.write_text("".join(ln + "\n" for ln in frozen.splitlines()
                            if "==" in ln and not ln.startswith("tacit-gen")), encoding="utf-8")
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(root)], check=True)
    spec = f"{ROOT}[{extras}]" if extras else str(ROOT)
    subprocess.run([uv, "pip", "install", "-q", "--offline", "--python", str(root / "bin" / "python"),
                    "-c", str(pins), spec], check=True, capture_output=True, text=True)
    return root / "bin" / "tacit-gen"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("data") / "readings.csv"
    subprocess.run([sys.executable, "-m", "tacit_gen.cli", "sample", str(CONTRACT), "--rows", "24",
                    "--now", NOW, "--out", str(out)], cwd=ROOT, check=True, capture_output=True)
    catalog = out.with_name("readings.catalog.csv")
    return ["--data", str(out), *(["--catalog", str(catalog)] if catalog.exists() else [])]


def _verify(exe: Path, data: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`tacit-gen verify` of a throwaway environment: its own install, nothing of this tree's
    path."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(exe), "verify", str(CONTRACT), *data, "--now", NOW, *args],
                          capture_output=True, text=True, timeout=600, cwd=exe.parent, env=environ)


def test_the_core_install_names_duckdb_and_its_extra(tmp_path: Path, data: list[str]) -> None:
    exe = _environment(tmp_path / "core", "")
    res = _verify(exe, data)
    assert res.returncode == 4, res.stdout + res.stderr
    assert "duckdb is not installed" in res.stderr, res.stderr
    assert "pip install 'tacit-gen[duckdb]'" in res.stderr, res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    # a lint of the same contract needs no extra
    lint = subprocess.run([str(exe.with_name("tacit-gen")), "lint", str(CONTRACT)],
                          capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_one_engine_installed_gives_verdicts_and_the_others_are_named(tmp_path: Path,
                                                                      data: list[str]) -> None:
    exe = _environment(tmp_path / "pandera", "pandera")
    res = _verify(exe, data, "--target", "pandera,dbt,avro", "--format", "json")
    assert res.returncode == 4, res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert report["verdict"] == "incomplete"
    failed = report["engines_failed"]
    assert set(failed) == {"dbt", "avro"}, failed
    assert "dbt is not installed" in failed["dbt"] and "pip install 'tacit-gen[dbt]'" in failed["dbt"]
    assert "fastavro is not installed" in failed["avro"], failed["avro"]
    assert "pip install 'tacit-gen[wire]'" in failed["avro"]
    # pandera ran: a verdict on every clause, all pass on the sampled data
    statuses = {c["id"]: c["verdicts"]["pandera"]["status"] for c in report["clauses"]}
    assert statuses and set(statuses.values()) <= {"pass", "n/a"} and "pass" in statuses.values()
    assert all(set(c["verdicts"]) == {"pandera"} for c in report["clauses"])
    # the text report names them with the install line too
    text = _verify(exe, data, "--target", "pandera,dbt")
    assert text.returncode == 4 and "Traceback" not in text.stdout + text.stderr
    assert ("ENGINE dbt could not run: dbt is not installed (install it with: "
            "pip install 'tacit-gen[dbt]')") in text.stdout, text.stdout
    # --engine postgres without the postgres extra: the driver, named before any server starts
    pg = _verify(exe, data, "--target", "pandera", "--engine", "postgres")
    assert pg.returncode == 4, pg.stdout + pg.stderr
    assert "psycopg2 is not installed" in pg.stderr and "pip install 'tacit-gen[postgres]'" in pg.stderr
    assert "Traceback" not in pg.stdout + pg.stderr


def test_spark_without_java_is_named_and_the_wire_verdicts_stand(tmp_path: Path,
                                                                  data: list[str]) -> None:
    """No Java on the PATH and no JAVA_HOME: the Spark engines are named with why, the wire
    schemas (run outside the Spark session) still give their verdicts."""
    bin_dir = tmp_path / "bin"  # a PATH without java
    bin_dir.mkdir()
    env = {**os.environ, "PATH": str(bin_dir)}
    env.pop("JAVA_HOME", None)
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "verify", str(CONTRACT), *data,
                          "--now", NOW, "--target", "pandera,avro", "--engine", "spark",
                          "--format", "json"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 4, res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert set(report["engines_failed"]) == {"pandera"}, report["engines_failed"]
    assert "Java" in report["engines_failed"]["pandera"], report["engines_failed"]
    assert {c["verdicts"]["avro"]["status"] for c in report["clauses"]} <= {"pass", "n/a"}
    assert any(c["verdicts"]["avro"]["status"] == "pass" for c in report["clauses"])
