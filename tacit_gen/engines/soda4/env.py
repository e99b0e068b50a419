"""The soda4 engine's own Python environment: created once from the shipped lock, then cached.

soda-core 4 and soda-core 3.5 (the v3 target's engine) are the same distribution, `soda-core`,
so Soda 4 cannot live in the main environment. verify's soda4 engine runs
:mod:`tacit_gen.engines.soda4.worker` (standard library + soda-core 4 only, run by its file path)
with the Python of an environment built from ``requirements.txt`` beside this module (a full
lock) into ``$TACIT_GEN_SODA4_ENV`` if set, else ``$XDG_CACHE_HOME/tacit-gen/envs/soda4-<hash>``
(default ``~/.cache``); the hash is of the lock and the Python version, so a changed lock builds a
new folder and an unchanged one is reused. ``uv`` builds it when it is on PATH (seconds with a
warm cache), else ``venv`` + ``pip``. ``tacit-gen engines setup soda4`` builds it ahead of time.
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

__all__ = ["REQUIREMENTS", "WORKER", "Soda4Env", "Soda4EnvError", "ensure_env", "env_dir"]

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
WORKER = Path(__file__).with_name("worker.py")
_READY = ".tacit-ready"


class Soda4EnvError(RuntimeError):
    """The Soda 4 environment could not be created (the installer's output is in the message)."""


@dataclass(frozen=True)
class Soda4Env:
    """A ready Soda 4 environment: its folder and Python, whether it was built now, and how long."""

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
    explicit = os.environ.get("TACIT_GEN_SODA4_ENV")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "tacit-gen" / "envs" / f"soda4-{lock_hash()}"


def _python_of(path: Path) -> Path:
    return path / "bin" / "python"


def _run(cmd: list[str], log: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    log.append("$ " + " ".join(cmd))
    log.append((proc.stdout + proc.stderr)[-4000:])
    if proc.returncode != 0:
        raise Soda4EnvError("creating the Soda 4 environment failed:\n" + "\n".join(log))


def _build(dest: Path, uv: str | None) -> None:
    log: list[str] = []
    py = str(_python_of(dest))
    if uv:
        _run([uv, "venv", "--quiet", "--python", sys.executable, str(dest)], log)
        _run([uv, "pip", "install", "--quiet", "--python", py, "-r", str(REQUIREMENTS)], log)
    else:
        _run([sys.executable, "-m", "venv", str(dest)], log)
        _run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              "-r", str(REQUIREMENTS)], log)


def ensure_env(rebuild: bool = False) -> Soda4Env:
    """The Soda 4 environment, built if absent (safe when several processes ask at once).

    Args:
        rebuild: remove the cached folder and build it again.

    Returns:
        The ready environment.

    Raises:
        Soda4EnvError: the installer failed (its output is in the message).
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
            return Soda4Env(dest, _python_of(dest), False, 0.0, installer)
        start = time.monotonic()
        shutil.rmtree(dest, ignore_errors=True)
        try:
            _build(dest, uv)  # a venv records its own path: build it where it will live
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        (dest / _READY).write_text(REQUIREMENTS.read_text(encoding="utf-8"), encoding="utf-8")
        return Soda4Env(dest, _python_of(dest), True, time.monotonic() - start, installer)
