"""`tacit-gen init`: a project from an empty folder or inside an existing repository, then the
everyday commands green on it; nothing that exists is overwritten (exit 2, nothing written)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tacit_gen import scaffold
from tacit_gen.cli import main
from tacit_gen.targets.dbt.options import installed_dbt_version
from tests.conftest import ROOT

BIN = Path(sys.executable).parent
FILES = ["tacit-gen.toml", "contracts/example.yaml", ".github/workflows/contracts.yml",
         ".pre-commit-config.yaml"]
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example"}


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "tacit-gen"), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}, check=False)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(root).parts)


def test_init_in_an_empty_folder_then_lint_render_check_are_green(tmp_path: Path) -> None:
    res = run(tmp_path, "init")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        *(f"wrote {f}" for f in FILES),
        f"dbt YAML form pinned to {'.'.join(installed_dbt_version().split('.')[:2])}",  # type: ignore[union-attr]
        "next:", "  tacit-gen lint", "  tacit-gen render", "  tacit-gen check"]
    assert listing(tmp_path) == sorted(FILES)
    git(tmp_path, "init", "-q", "-b", "main")
    lint = run(tmp_path, "lint", "--strict")
    assert (lint.returncode, lint.stdout) == (0, "1 contract(s): 0 error(s), 0 warning(s)\n"), lint
    fmt = run(tmp_path, "fmt", "--check", "contracts/example.yaml")
    assert fmt.returncode == 0, fmt  # written in the canonical form
    render = run(tmp_path, "render")
    assert render.returncode == 0, render.stderr
    assert "wrote generated/dbt/example.yml" in render.stdout
    for args in (("render", "--check"), ("check",)):
        res = run(tmp_path, *args)
        assert res.returncode == 0, (args, res.stdout, res.stderr)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first contract")
    res = run(tmp_path, "check")
    assert res.returncode == 0 and "checked: clean" in res.stdout, res


def test_the_settings_pin_the_installed_dbt_form(tmp_path: Path) -> None:
    import tomllib

    assert CliRunner().invoke(main, ["init", str(tmp_path)]).exit_code == 0
    doc = tomllib.loads((tmp_path / "tacit-gen.toml").read_text(encoding="utf-8"))
    installed = installed_dbt_version()
    assert installed is not None  # the suite's environment has dbt (the core-install test has not)
    assert doc["dbt"]["version"] == ".".join(installed.split(".")[:2])
    assert doc["contracts"] == "contracts" and doc["out"] == "generated"
    assert len(doc["targets"]) == 9


@pytest.mark.parametrize("existing", FILES)
def test_init_overwrites_nothing_and_writes_nothing(tmp_path: Path, existing: str) -> None:
    path = tmp_path / existing
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("mine\n", encoding="utf-8")
    res = run(tmp_path, "init")
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr == (f"error: {existing}: already there; init overwrites nothing, "
                          "and wrote nothing\n")
    assert listing(tmp_path) == [existing]
    assert path.read_text(encoding="utf-8") == "mine\n"


def test_init_refuses_beside_settings_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tacit-gen]\nout = "gen"\n', encoding="utf-8")
    res = run(tmp_path, "init")
    assert res.returncode == 2, res
    assert "pyproject.toml ([tool.tacit-gen]): already there" in res.stderr
    assert listing(tmp_path) == ["pyproject.toml"]


def test_init_in_an_existing_repository_and_its_pre_commit_hooks_pass(tmp_path: Path) -> None:
    repo = tmp_path / "analytics"
    (repo / "models").mkdir(parents=True)
    (repo / "models" / "orders.sql").write_text("select 1 as id\n", encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "analytics"\n', encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "existing work")
    res = run(repo, "init")
    assert res.returncode == 0, res.stderr
    assert run(repo, "render").returncode == 0
    git(repo, "add", "-A")
    # the written configuration, run by the real pre-commit with the tacit-gen on PATH
    env = {**os.environ, **GIT_ENV, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    hooks = subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False)
    assert hooks.returncode == 0, hooks.stdout + hooks.stderr
    for name in ("tacit-gen lint", "tacit-gen render --check", "tacit-gen check"):
        assert re.search(rf"^{re.escape(name)}\.+Passed$", hooks.stdout, re.M), hooks.stdout
    # a hand edit of an artifact is caught before the commit
    soda = repo / "generated" / "soda" / "example.yml"
    soda.write_text(soda.read_text(encoding="utf-8").replace("0", "1"), encoding="utf-8")
    hooks = subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False)
    assert hooks.returncode == 1, hooks.stdout
    assert re.search(r"^tacit-gen render --check\.+Failed$", hooks.stdout, re.M), hooks.stdout


def _block(name: str) -> str:
    text = (ROOT / "docs" / "how-to" / "ci.md").read_text(encoding="utf-8")
    m = re.search(rf"<!-- {name}:start -->\n```yaml\n(.*?)```\n<!-- {name}:end -->", text, re.S)
    assert m, name
    return m.group(1)


def test_the_ci_page_shows_what_init_writes() -> None:
    assert _block("ci-snippet") == scaffold.WORKFLOW
    assert _block("pre-commit-config") == scaffold.PRE_COMMIT
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    local = yaml.safe_load(scaffold.PRE_COMMIT)["repos"][0]["hooks"]
    # the local hooks run what the repository's hooks run, on the same files
    assert [(h["id"], h["entry"], h["files"]) for h in local] == [
        (h["id"], h["entry"], h["files"]) for h in hooks]
