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

import os
import shutil
from pathlib import Path

from tacit_gen.engines.envs import EnvError, LockedEnv, ReadyEnv
from tacit_gen.extras import MissingExtra

__all__ = ["ENV", "REQUIREMENTS", "SparkEnv", "SparkEnvError", "ensure_env", "env_dir",
           "java_missing", "lock_hash"]

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


def java_missing() -> MissingExtra | None:
    """Why pyspark cannot start here, or None: it needs a Java runtime (17), found as pyspark
    finds it, under ``$JAVA_HOME`` when set, else ``java`` on the PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return None
    if not home and shutil.which("java"):
        return None
    where = f"no bin/java under JAVA_HOME={home}" if home else "no java on the PATH, no JAVA_HOME"
    return MissingExtra("the Spark engines", "java", None,
                        why=f"Spark needs a Java 17 runtime ({where})",
                        install="a Java 17 runtime, e.g. apt-get install openjdk-17-jre-headless")


def ensure_env(rebuild: bool = False) -> ReadyEnv:
    """The Spark environment, built if absent (see :meth:`LockedEnv.ensure`)."""
    return ENV.ensure(rebuild)
