"""The cached engine environments (`tacit_gen.engines.envs`): built once, reused, rebuilt on a
changed lock, and never left half-built. Real uv/venv builds, from locks that need no download."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.engines.envs import EnvError, LockedEnv
from tacit_gen.engines.spark import env as spark_env
from tacit_gen.targets.soda4 import env as soda4_env


class _Boom(EnvError):
    pass


def _env(tmp_path: Path, lock: str) -> LockedEnv:
    req = tmp_path / "requirements.txt"
    req.write_text(lock, encoding="utf-8")
    return LockedEnv("demo", "Demo", "TACIT_GEN_DEMO_ENV", req, _Boom)


def test_built_once_then_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TACIT_GEN_DEMO_ENV", raising=False)
    env = _env(tmp_path, "# an empty lock\n")
    first = env.ensure()
    assert first.created and first.python.is_file()
    assert first.path == tmp_path / "cache" / "tacit-gen" / "envs" / f"demo-{env.lock_hash()}"
    again = env.ensure()
    assert not again.created and again.path == first.path
    rebuilt = env.ensure(rebuild=True)
    assert rebuilt.created and rebuilt.python.is_file()
    # a changed lock names another folder
    (tmp_path / "requirements.txt").write_text("# another lock\n", encoding="utf-8")
    assert env.env_dir() != first.path


def test_the_build_compiles_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed modules come with their .pyc (as pip does, and uv does not by default): with
    PYTHONDONTWRITEBYTECODE set, as on the CI machine, every engine process would otherwise
    compile pyspark or soda-core from source (importing GX took twice the CPU that way)."""
    monkeypatch.setenv("TACIT_GEN_DEMO_ENV", str(tmp_path / "env"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    # a pin of the shipped Spark lock: already in the machine's package cache
    six = next(ln for ln in spark_env.ENV.requirements.read_text().splitlines() if ln.startswith("six=="))
    ready = _env(tmp_path, six + "\n").ensure()
    compiled = list(ready.path.glob("lib/python*/site-packages/__pycache__/six.*.pyc"))
    assert len(compiled) == 1, sorted(p.name for p in ready.path.glob("lib/python*/site-packages/*"))


def test_a_failed_build_raises_the_engines_error_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TACIT_GEN_DEMO_ENV", str(tmp_path / "explicit"))
    env = _env(tmp_path, "this is === not a requirement\n")
    with pytest.raises(_Boom, match="creating the Demo environment failed") as err:
        env.ensure()
    assert "not a requirement" in str(err.value)  # the installer's own output is in the message
    assert not (tmp_path / "explicit").exists()


def test_the_shipped_engines_keep_their_folders_and_errors(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    monkeypatch.setenv("TACIT_GEN_SPARK_ENV", str(tmp_path / "s"))
    monkeypatch.setenv("TACIT_GEN_SODA4_ENV", str(tmp_path / "q"))
    assert spark_env.env_dir() == tmp_path / "s"
    assert soda4_env.env_dir() == tmp_path / "q"
    assert issubclass(spark_env.ENV.error, EnvError) and issubclass(soda4_env.ENV.error, EnvError)
    assert spark_env.ENV.requirements.read_text().count("pyspark==") == 1
    assert soda4_env.ENV.requirements.read_text().count("soda-core==4.") == 1


def test_engines_setup_offers_spark_and_each_target_environment() -> None:
    """`engines setup` takes its choices from the registry: the Spark backend's environment and
    every target whose engines declare one (`Engine.environment`), soda4's among them."""
    from click.testing import CliRunner

    from tacit_gen import registry
    from tacit_gen.cli import main

    own = {t for t in registry.names() if any(e.environment for e in registry.get(t).engines.values())}
    assert "soda4" in own
    res = CliRunner().invoke(main, ["engines", "setup", "--help"])
    assert res.exit_code == 0, res.output
    offered = res.output.split("{", 1)[1].split("}", 1)[0].split("|")
    assert set(offered) == {"spark", *own}
    res = CliRunner().invoke(main, ["engines", "setup", "pandera"])
    assert res.exit_code == 2 and "'pandera' is not one of" in res.output
