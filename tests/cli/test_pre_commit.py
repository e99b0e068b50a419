"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real `pre-commit try-repo` against a
scratch git repository: pre-commit installs the hooks' environment from this repository (pip
installs it from its local path), green on the bundled contracts, red on a contract with an error."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

HOOKS = ("tacit-gen-lint", "tacit-gen-render-check", "tacit-gen-check")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _scratch(tmp_path: Path) -> Path:
    repo = tmp_path / "analytics"
    repo.mkdir()
    shutil.copytree(ROOT / "contracts", repo / "contracts")
    shutil.copytree(ROOT / "generated", repo / "generated")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "contracts")
    return repo


def _try_repo(repo: Path, home: Path, *hook: str) -> subprocess.CompletedProcess[str]:
    pre_commit = shutil.which("pre-commit")
    assert pre_commit, "pre-commit is in the dev extra"
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    env.pop("CI", None)
    return subprocess.run([pre_commit, "try-repo", str(ROOT), *hook, "--all-files", "--verbose"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=1200)


def test_the_hooks_file_names_the_three_commands() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == list(HOOKS)
    assert [h["entry"] for h in hooks] == ["tacit-gen lint", "tacit-gen render --check",
                                           "tacit-gen check"]


def test_the_check_hook_installs_the_wire_readers() -> None:
    """`check` reads the Avro, Protobuf and JSON Schema artifacts back: its hook environment holds
    exactly the `wire` extra (pre-commit installs the repository without extras)."""
    import tomllib

    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert hooks["tacit-gen-check"]["additional_dependencies"] == extras["wire"]


def test_the_ci_page_snippets_run_what_the_hooks_run() -> None:
    import yaml

    readme = (ROOT / "docs" / "how-to" / "ci.md").read_text(encoding="utf-8")
    snippet = readme.split("<!-- ci-snippet:start -->")[1].split("<!-- ci-snippet:end -->")[0]
    runs = [step["run"] for step in yaml.safe_load(snippet.split("```yaml")[1].split("```")[0])
            ["jobs"]["contracts"]["steps"] if "run" in step and "tacit-gen" in step["run"]]
    entries = [h["entry"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))]
    assert [r.split(" contracts/")[0] for r in runs if r != "pip install tacit-gen"] == entries
    config = readme.split("<!-- pre-commit-config:start -->")[1].split("<!-- pre-commit-config:end -->")[0]
    ids = [h["id"] for h in yaml.safe_load(config.split("```yaml")[1].split("```")[0])["repos"][0]["hooks"]]
    assert ids == list(HOOKS)


def test_try_repo_green_on_the_bundled_contracts(tmp_path: Path, home: Path) -> None:
    repo = _scratch(tmp_path)
    res = _try_repo(repo, home)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    for name in ("tacit-gen lint", "tacit-gen render --check", "tacit-gen check"):
        assert any(line.startswith(name + ".") and line.endswith("Passed")
                   for line in out.splitlines()), (name, out)
    assert "3 contract(s): 0 error(s)" in out


def test_try_repo_red_on_a_contract_with_an_error(tmp_path: Path, home: Path) -> None:
    repo = _scratch(tmp_path)
    path = repo / "contracts" / "ohlcv_1m.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("decimal(24,4)", "decimal(24,4",
                                                             1), encoding="utf-8")
    _git(repo, "commit", "-qam", "a typo")
    res = _try_repo(repo, home, "tacit-gen-lint")
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert any(line.startswith("tacit-gen lint.") and line.endswith("Failed")
               for line in out.splitlines()), out
    assert "contracts/ohlcv_1m.yaml:18:" in out and "error: " in out
    assert "   |" in out and "^" in out  # the line and its caret
