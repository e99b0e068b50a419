"""`buf lint` (its STANDARD rules, the buf CLI of the `buf-bin` wheel, offline) accepts every
bundled .proto, laid out as buf expects a package (``<package path>/<file>``): the package carries
its major version (PACKAGE_VERSION_SUFFIX), and the protovalidate rules are well formed (buf
checks each rule, and that a CEL rule's id is ``[A-Za-z0-9._-]``).

The files import ``buf/validate/validate.proto``: buf would fetch it from its registry, so buf
lints an image instead, built by protoc from the file and the descriptors the `protovalidate`
package ships (`compile.compile_proto`), limited to the file itself (``--path``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tacit_gen.targets.protobuf.compile import compile_proto

ROOT = Path(__file__).resolve().parents[3]
BUF = Path(sys.executable).parent / "buf"  # the dev extra's buf-bin


def _package(text: str) -> str:
    m = re.search(r"^package ([\w.]+);$", text, re.M)
    assert m, "no package line"
    return m.group(1)


def _lint(text: str, name: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`buf lint --error-format=json` of one .proto at its package's path."""
    rel = "/".join(_package(text).split(".")) + f"/{name}.proto"
    image = tmp_path / "image.binpb"
    image.write_bytes(compile_proto(text, rel).SerializeToString())
    (tmp_path / "buf.yaml").write_text("version: v2\nlint:\n  use: [STANDARD]\n", encoding="utf-8")
    return subprocess.run([str(BUF), "lint", str(image), "--config", str(tmp_path / "buf.yaml"),
                           "--path", rel, "--error-format=json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", ["fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading"])
def test_buf_lint_accepts_the_bundled_proto(name: str, tmp_path: Path) -> None:
    text = (ROOT / "generated" / "protobuf" / f"{name}.proto").read_text(encoding="utf-8")
    assert re.fullmatch(rf"{name}\.v[0-9]+", _package(text))
    assert '(buf.validate.field)' in text
    res = _lint(text, name, tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr


def test_buf_lint_refuses_a_package_without_version(tmp_path: Path) -> None:
    """The test above can fail: the package as it was (no version suffix) is refused."""
    src = ROOT / "generated" / "protobuf" / "ohlcv_1m.proto"
    text = re.sub(r"^package [\w.]+;$", "package ohlcv_1m;", src.read_text(encoding="utf-8"), flags=re.M)
    res = _lint(text, "ohlcv_1m", tmp_path)
    assert res.returncode != 0
    assert [json.loads(line)["type"] for line in res.stdout.splitlines()] == ["PACKAGE_VERSION_SUFFIX"]


def test_buf_lint_refuses_a_cel_rule_id_protovalidate_refuses(tmp_path: Path) -> None:
    """And it reads the rules: a clause id as a CEL rule's id (spaces, ``:``) is refused."""
    src = ROOT / "generated" / "protobuf" / "fct_sensor_readings.proto"
    text = src.read_text(encoding="utf-8").replace('id: "invariant.', 'id: "invariant: ', 1)
    res = _lint(text, "fct_sensor_readings", tmp_path)
    assert res.returncode != 0
    assert "cel.id" in res.stdout, res.stdout
