"""The Spark engines' own Python environment: created once from the shipped lock, then cached.

soda-core-spark-df 3.5.4 pins soda-core 3.5.4, which cannot share an environment with the main
one's soda-core-duckdb 3.5.6, so verify's Spark engines run in a second environment, in a worker
process (:mod:`tacit_gen.engines.spark.worker`). It is created from ``requirements.txt`` beside
this module (a full lock: every package pinned) into
``$TACIT_GEN_SPARK_ENV`` if set, else ``$XDG_CACHE_HOME/tacit-gen/envs/spark-<hash>`` (default
``~/.cache``); the hash is of the lock and the Python version, so a changed lock builds a new
folder and an unchanged one is reused. ``uv`` builds it when it is on PATH (about 30 s with a warm
cache), else ``venv`` + ``pip`` (minutes). tacit-gen itself is not installed there: the worker
runs this very package through a folder holding only a link to it, so the environment never goes
stale when the code changes and never sees the main environment's packages.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["REQUIREMENTS", "SparkEnv", "SparkEnvError", "ensure_env", "env_dir", "lock_hash"]

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
_READY = ".tacit-ready"


class SparkEnvError(RuntimeError):
    """The Spark environment could not be created (the installer's output is in the message)."""


@dataclass(frozen=True)
class SparkEnv:
    """A ready Spark environment: its folder and Python, whether it was built now, and how long."""

    path: Path
    python: Path
    created: bool
    seconds: float
    installer: str


def lock_hash() -> str:
    """Hash of the lock and the interpreter's major.minor: it names the cached folder."""
    h = hashlib.sha256(REQUIREMENTS.read_bytes())
    h.update(f"py{sys.version_info.major}.{sys.version_info.minor}".encode())
    return h.hexdigest()[:12]


def env_dir() -> Path:
    """Where the environment lives (see the module docstring)."""
    explicit = os.environ.get("TACIT_GEN_SPARK_ENV")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "tacit-gen" / "envs" / f"spark-{lock_hash()}"


def _python_of(path: Path) -> Path:
    return path / "bin" / "python"


def _base_python() -> str:
    """The interpreter to base the environment on: this one's base (a venv's own python works)."""
    return sys.executable


def _run(cmd: list[str], log: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    log.append("$ " + " ".join(cmd))
    log.append((proc.stdout + proc.stderr)[-4000:])
    if proc.returncode != 0:
        raise SparkEnvError("creating the Spark environment failed:\n" + "\n".join(log))


def _build(dest: Path, uv: str | None) -> None:
    log: list[str] = []
    py = str(_python_of(dest))
    if uv:
        _run([uv, "venv", "--quiet", "--python", _base_python(), str(dest)], log)
        _run([uv, "pip", "install", "--quiet", "--python", py, "-r", str(REQUIREMENTS)], log)
    else:
        _run([_base_python(), "-m", "venv", str(dest)], log)
        _run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              "-r", str(REQUIREMENTS)], log)


def ensure_env(rebuild: bool = False) -> SparkEnv:
    """The Spark environment, built if absent (safe when several processes ask at once).

    Args:
        rebuild: remove the cached folder and build it again.

    Returns:
        The ready environment.

    Raises:
        SparkEnvError: the installer failed (its output is in the message).
    """
    dest = env_dir()
    uv = shutil.which("uv")
    installer = "uv" if uv else "pip"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / f"{dest.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same folder
        if rebuild and dest.exists():
            shutil.rmtree(dest)
        if (dest / _READY).is_file() and _python_of(dest).exists():
            return SparkEnv(dest, _python_of(dest), False, 0.0, installer)
        start = time.monotonic()
        shutil.rmtree(dest, ignore_errors=True)
        try:
            # A venv records its own path: build it where it will live.
            _build(dest, uv)
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        (dest / _READY).write_text(REQUIREMENTS.read_text(encoding="utf-8"), encoding="utf-8")
        return SparkEnv(dest, _python_of(dest), True, time.monotonic() - start, installer)
