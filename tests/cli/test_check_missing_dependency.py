"""A reader whose package is not installed is a usage error naming the package (exit 2), never a
page of drift findings: the machine is what is wrong, not the committed artifact.

check reads back only an artifact that differs from its fresh render (issue 16: fast start), so
the protobuf artifact here carries a hand edit (a comment) that needs the reader to judge."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

# Hides one package from this interpreter, as a venv without the [wire] extra would.
BLOCK = '''
import sys

class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "grpc_tools" or name.startswith("grpc_tools."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _Hide())
'''


def _check(tmp: Path, hide: bool) -> subprocess.CompletedProcess[str]:
    out = tmp / "generated"
    shutil.copytree(ROOT / "generated", out)
    proto = out / "protobuf" / "ohlcv_1m.proto"
    proto.write_text(proto.read_text(encoding="utf-8") + "// reviewed by hand\n", encoding="utf-8")
    env = dict(os.environ)
    if hide:
        (tmp / "shim").mkdir(exist_ok=True)
        (tmp / "shim" / "sitecustomize.py").write_text(BLOCK)
        env["PYTHONPATH"] = os.pathsep.join([str(tmp / "shim"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "tacit_gen.cli", "check", "--no-bump-gate", "--target", "protobuf",
         "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


def test_missing_reader_package_is_exit_2_naming_it(tmp_path: Path) -> None:
    res = _check(tmp_path, hide=True)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "grpc_tools" in res.stderr and "not installed" in res.stderr, res.stderr
    assert "D200" not in res.stdout and "Traceback" not in res.stderr


def test_with_the_package_the_same_check_finds_only_the_byte_drift(tmp_path: Path) -> None:
    res = _check(tmp_path, hide=False)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "protobuf/ohlcv_1m.proto" in res.stdout and "byte drift" in res.stdout, res.stdout
    assert "D200" not in res.stdout and "D202" not in res.stdout, res.stdout
