"""A throwaway environment with this tree installed without any extra (`uv venv` + `uv pip
install .`), shared by the tests of the core install and of the tutorial."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example"}


def uv() -> str:
    found = shutil.which("uv")
    if not found:
        pytest.fail("uv is not on PATH (python3 -m pip install uv; nox and .ci/run have it)")
    return found


def clean_env(venv: Path) -> dict[str, str]:
    """The environment's own interpreter and scripts only: nothing of the suite's environment (no
    PYTHONPATH to this tree, no VIRTUAL_ENV), and not in CI (the version gate's base is HEAD)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "CI", "GITHUB_BASE_REF")}
    env.update(GIT_ENV, PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", VIRTUAL_ENV=str(venv),
               TACIT_GEN_CACHE_DIR=str(venv / "cache"))
    return env


@pytest.fixture(scope="session")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([uv(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    subprocess.run([uv(), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(ROOT)],
                   check=True, env={**os.environ, "VIRTUAL_ENV": str(venv)})
    return venv
