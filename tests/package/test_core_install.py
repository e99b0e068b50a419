"""The core install, for real: a throwaway environment (`uv venv`) with this tree installed without
any extra (`uv pip install .`): no engine, no dbt. `init`, `lint`, `render` and `check` succeed in
an empty folder, and `init` pins the newest dbt form the renderer knows, as no dbt-core is there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.package.conftest import clean_env

pytestmark = pytest.mark.slow


def test_the_core_install_has_no_engine(core: Path) -> None:
    probe = subprocess.run(
        [str(core / "bin" / "python"), "-c",
         "import importlib.util as u, tacit_gen; print(tacit_gen.__file__); "
         "print([m for m in ('duckdb', 'dbt', 'soda', 'great_expectations', 'pandera', 'ibis', "
         "'fastavro', 'grpc_tools', 'jsonschema', 'exchange_calendars') if u.find_spec(m)])"],
        capture_output=True, text=True, check=True, env=clean_env(core), cwd=core.parent)
    where, engines = probe.stdout.splitlines()
    assert Path(where).is_relative_to(core), where  # the installed copy, not this tree
    assert engines == "[]"


def test_init_lint_render_check_with_the_core_install(core: Path, tmp_path: Path) -> None:
    from tacit_gen.targets.dbt.render import NEWEST_FORM

    env = clean_env(core)

    def tacit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(core / "bin" / "tacit-gen"), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, check=False)

    res = tacit("init")
    assert res.returncode == 0, res.stderr
    newest = f"{NEWEST_FORM[0]}.{NEWEST_FORM[1]}"
    assert f"dbt YAML form pinned to {newest} (no dbt-core installed: the newest form)" in res.stdout
    assert f'version = "{newest}"' in (tmp_path / "tacit-gen.toml").read_text(encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True, env=env)
    for args in (("lint", "--strict"), ("render",), ("render", "--check"), ("check",)):
        res = tacit(*args)
        assert res.returncode == 0, (args, res.stdout, res.stderr)
        assert "Traceback" not in res.stderr, res.stderr
    assert len(list((tmp_path / "generated").rglob("*.*"))) == 11  # every target's artifact


def test_the_core_install_renders_the_committed_bytes(core: Path, tmp_path: Path) -> None:
    """No dbt-core installed: the bundled contracts render to the bytes committed in generated/,
    which this tree's environment (dbt-core installed) renders too (`render --check` in CI)."""
    from tests.conftest import ROOT

    for folder in ("contracts", "templates"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    env = clean_env(core)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True, env=env)
    res = subprocess.run([str(core / "bin" / "tacit-gen"), "render"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, (res.stdout, res.stderr)
    committed = sorted(p.relative_to(ROOT / "generated") for p in (ROOT / "generated").rglob("*") if p.is_file())
    rendered = sorted(p.relative_to(tmp_path / "generated") for p in (tmp_path / "generated").rglob("*")
                      if p.is_file())
    assert rendered == committed
    assert any(p.parts[0] == "dbt" for p in committed), committed
    for rel in committed:
        assert (tmp_path / "generated" / rel).read_bytes() == (ROOT / "generated" / rel).read_bytes(), rel
