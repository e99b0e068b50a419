"""The Spark engines' own Python environment: created once from the shipped lock, then cached.

soda-core-spark-df 3.5.4 pins soda-core 3.5.4, which cannot share an environment with the main
one's soda-core-duckdb 3.5.6, so verify's Spark engines run in a second environment, in a worker
process (:mod:`tacit_gen.engines.spark.worker`). It is built from ``requirements.txt`` beside this
module (a full lock) into ``$TACIT_GEN_SPARK_ENV`` if set, else
``$XDG_CACHE_HOME/tacit-gen/envs/spark-<hash>``, by :mod:`tacit_gen.engines.envs` (the caching,
locking and uv-or-pip rules live there). tacit-gen itself is not installed there: the worker runs
this very package through a folder holding only a link to it, so the environment never goes stale
when the code changes and never sees the main environment's packages.
"""

from __future__ import annotations

from pathlib import Path

from tacit_gen.engines.envs import EnvError, LockedEnv, ReadyEnv

__all__ = ["ENV", "REQUIREMENTS", "SparkEnv", "SparkEnvError", "ensure_env", "env_dir",
           "lock_hash"]

REQUIREMENTS = Path(__file__).with_name("requirements.txt")
SparkEnv = ReadyEnv


class SparkEnvError(EnvError):
    """The Spark environment could not be created (the installer's output is in the message)."""


ENV = LockedEnv("spark", "Spark", "TACIT_GEN_SPARK_ENV", REQUIREMENTS, SparkEnvError)


def lock_hash() -> str:
    """Hash of the lock and the interpreter's major.minor: it names the cached folder."""
    return ENV.lock_hash()


def env_dir() -> Path:
    """Where the environment lives (see the module docstring)."""
    return ENV.env_dir()


def ensure_env(rebuild: bool = False) -> ReadyEnv:
    """The Spark environment, built if absent (see :meth:`LockedEnv.ensure`)."""
    return ENV.ensure(rebuild)
