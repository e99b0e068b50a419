"""The soda4 engine's own Python environment: created once from the shipped lock, then cached.

soda-core 4 and soda-core 3.5 (the v3 target's engine) are the same distribution, `soda-core`,
so Soda 4 cannot live in the main environment. verify's soda4 engine runs
:mod:`tacit_gen.targets.soda4.worker` (standard library + soda-core 4 only, run by its file path)
with the Python of an environment built from ``requirements.txt`` beside this module (a full
lock) into ``$TACIT_GEN_SODA4_ENV`` if set, else ``$XDG_CACHE_HOME/tacit-gen/envs/soda4-<hash>``,
by :mod:`tacit_gen.engines.envs` (the caching, locking and uv-or-pip rules live there).
``tacit-gen engines setup soda4`` builds it ahead of time.
"""

from __future__ import annotations

from pathlib import Path

from tacit_gen.engines.envs import EnvError, LockedEnv, ReadyEnv

__all__ = ["ENV", "REQUIREMENTS", "WORKER", "Soda4Env", "Soda4EnvError", "ensure_env", "env_dir"]

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
WORKER = Path(__file__).with_name("worker.py")
Soda4Env = ReadyEnv


class Soda4EnvError(EnvError):
    """The Soda 4 environment could not be created (the installer's output is in the message)."""


ENV = LockedEnv("soda4", "Soda 4", "TACIT_GEN_SODA4_ENV", REQUIREMENTS, Soda4EnvError)


def env_dir() -> Path:
    """Where the environment lives (see the module docstring)."""
    return ENV.env_dir()


def ensure_env(rebuild: bool = False) -> ReadyEnv:
    """The Soda 4 environment, built if absent (see :meth:`LockedEnv.ensure`)."""
    return ENV.ensure(rebuild)
