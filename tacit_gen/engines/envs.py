"""An engine's own Python environment, built once from a lock shipped in the package, then cached.

Some engines cannot share the main environment: soda-core 4 and soda-core 3.5 are the same
distribution, and soda-core-spark-df pins a soda-core the main environment's Soda cannot live with.
Each such engine ships a full lock (``requirements.txt``, every package pinned) beside its worker
and describes itself with a :class:`LockedEnv`. The environment is built into ``$<env_var>`` if
set, else ``$XDG_CACHE_HOME/tacit-gen/envs/<name>-<hash>`` (default ``~/.cache``); the hash is of
the lock and the Python version, so a changed lock builds a new folder and an unchanged one is
reused. ``uv`` builds it when it is on PATH (from its cache alone first, ``--offline``: a
second with a warm cache; online if that fails), else ``venv`` + ``pip`` (minutes). A folder
counts as built only once a ready marker is written after the last install step, and a file lock
makes several processes asking at once build it once.
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

__all__ = ["EnvError", "LockedEnv", "ReadyEnv"]

_READY = ".tacit-ready"


class EnvError(RuntimeError):
    """An engine's environment could not be created (the installer's output is in the message)."""


@dataclass(frozen=True)
class ReadyEnv:
    """A ready environment: its folder and Python, whether it was built now, and how long."""

    path: Path
    python: Path
    created: bool
    seconds: float
    installer: str


@dataclass(frozen=True)
class LockedEnv:
    """One engine's environment: its folder name, the variable that moves it, and its lock.

    Attributes:
        name: the cached folder's prefix (``spark``, ``soda4``).
        label: the engine as messages name it (``Spark``, ``Soda 4``).
        env_var: the environment variable that names the folder explicitly.
        requirements: the lock file.
        error: the exception class raised when building fails (a subclass of :class:`EnvError`).
    """

    name: str
    label: str
    env_var: str
    requirements: Path
    error: type[EnvError] = EnvError

    def lock_hash(self) -> str:
        """Hash of the lock and the interpreter's major.minor: it names the cached folder."""
        h = hashlib.sha256(self.requirements.read_bytes())
        h.update(f"py{sys.version_info.major}.{sys.version_info.minor}".encode())
        return h.hexdigest()[:12]

    def env_dir(self) -> Path:
        """Where the environment lives (see the module docstring)."""
        explicit = os.environ.get(self.env_var)
        if explicit:
            return Path(explicit)
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(cache) / "tacit-gen" / "envs" / f"{self.name}-{self.lock_hash()}"

    def ensure(self, rebuild: bool = False) -> ReadyEnv:
        """The environment, built if absent (safe when several processes ask at once).

        Args:
            rebuild: remove the cached folder and build it again.

        Returns:
            The ready environment.

        Raises:
            EnvError: (as ``self.error``) the installer failed; its output is in the message.
        """
        dest = self.env_dir()
        uv = shutil.which("uv")
        installer = "uv" if uv else "pip"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest.parent / f"{dest.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same folder
            if rebuild and dest.exists():
                shutil.rmtree(dest)
            if (dest / _READY).is_file() and _python_of(dest).exists():
                return ReadyEnv(dest, _python_of(dest), False, 0.0, installer)
            start = time.monotonic()
            shutil.rmtree(dest, ignore_errors=True)
            try:
                # A venv records its own path: build it where it will live.
                self._build(dest, uv)
            except BaseException:
                shutil.rmtree(dest, ignore_errors=True)
                raise
            (dest / _READY).write_text(self.requirements.read_text(encoding="utf-8"),
                                       encoding="utf-8")
            return ReadyEnv(dest, _python_of(dest), True, time.monotonic() - start, installer)

    def _build(self, dest: Path, uv: str | None) -> None:
        log: list[str] = []
        py = str(_python_of(dest))
        if uv:
            self._run([uv, "venv", "--quiet", "--python", sys.executable, str(dest)], log)
            # compiled at install as pip does: uv does not, and with PYTHONDONTWRITEBYTECODE set
            # every engine process would compile pyspark or soda-core from source again
            install = [uv, "pip", "install", "--quiet", "--compile-bytecode", "--python", py,
                       "-r", str(self.requirements)]
            # The lock pins every package, so uv's cache alone may hold them all: try it first.
            # Online, uv revalidates each cached file with the index, and where the index answers
            # "modified" it downloads it again, and builds an sdist again (pyspark ships only an
            # sdist: 20 s of CPU and 1.3 GB of cache per build, docs/engines/spark.md).
            if not self._run([*install, "--offline"], log, check=False):
                self._run(install, log)
        else:
            self._run([sys.executable, "-m", "venv", str(dest)], log)
            self._run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                       "-r", str(self.requirements)], log)

    def _run(self, cmd: list[str], log: list[str], check: bool = True) -> bool:
        """Run one install step, its output kept in `log`; False if it failed and not `check`."""
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        log.append("$ " + " ".join(cmd))
        log.append((proc.stdout + proc.stderr)[-4000:])
        if proc.returncode != 0 and check:
            raise self.error(f"creating the {self.label} environment failed:\n" + "\n".join(log))
        return proc.returncode == 0


def _python_of(path: Path) -> Path:
    return path / "bin" / "python"
