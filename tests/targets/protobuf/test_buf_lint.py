"""`buf lint` (its STANDARD rules, the buf CLI of the `buf-bin` wheel, offline) accepts every
bundled .proto, laid out as buf expects a package (``<package path>/<file>``): the package carries
its major version (PACKAGE_VERSION_SUFFIX)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BUF = Path(sys.executable).parent / "buf"  # the dev extra's buf-bin


def _package(text: str) -> str:
    m = re.search(r"^package ([\w.]+);$", text, re.M)
    assert m, "no package line"
    return m.group(1)


@pytest.mark.parametrize("name", ["fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading"])
def test_buf_lint_accepts_the_bundled_proto(name: str, tmp_path: Path) -> None:
    src = ROOT / "generated" / "protobuf" / f"{name}.proto"
    package = _package(src.read_text(encoding="utf-8"))
    assert re.fullmatch(rf"{name}\.v[0-9]+", package), package
    folder = tmp_path / Path(*package.split("."))
    folder.mkdir(parents=True)
    shutil.copy(src, folder / src.name)
    (tmp_path / "buf.yaml").write_text("version: v2\nlint:\n  use: [STANDARD]\n", encoding="utf-8")
    res = subprocess.run([str(BUF), "lint"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


def test_buf_lint_refuses_a_package_without_version(tmp_path: Path) -> None:
    """The test above can fail: the package as it was (no version suffix) is refused."""
    src = ROOT / "generated" / "protobuf" / "ohlcv_1m.proto"
    text = re.sub(r"^package [\w.]+;$", "package ohlcv_1m;", src.read_text(encoding="utf-8"), flags=re.M)
    (tmp_path / "ohlcv_1m").mkdir()
    (tmp_path / "ohlcv_1m" / "ohlcv_1m.proto").write_text(text, encoding="utf-8")
    (tmp_path / "buf.yaml").write_text("version: v2\nlint:\n  use: [STANDARD]\n", encoding="utf-8")
    res = subprocess.run([str(BUF), "lint", "--error-format=json"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode != 0
    assert [json.loads(line)["type"] for line in res.stdout.splitlines()] == ["PACKAGE_VERSION_SUFFIX"]
