"""The GitHub Actions snippet of docs/how-to/ci.md (what `tacit-gen init` writes), replayed on
a scratch repository with a bare `origin`.

`actions/checkout` with `fetch-depth: 0` is a full clone checked out at the pull request's commit;
every `run:` step that calls tacit-gen runs as written, with `CI=true` and `GITHUB_BASE_REF` as
GitHub sets them. The default branch is `trunk`, not `main`, as in the report that filed this.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
CONTRACT = "contracts/fct_sensor_readings.yaml"


def snippet() -> dict:  # type: ignore[type-arg]
    text = (ROOT / "docs" / "how-to" / "ci.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- ci-snippet:start -->\n```yaml\n(.*?)```\n<!-- ci-snippet:end -->", text, re.S)
    assert m, "docs/how-to/ci.md has no ci-snippet block"
    return yaml.safe_load(m.group(1))


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "ci", "GIT_AUTHOR_EMAIL": "ci@example", "GIT_COMMITTER_NAME": "ci",
           "GIT_COMMITTER_EMAIL": "ci@example"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout


def tacit(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "tacit-gen"), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, check=False)


def push_branch(tmp: Path, origin: Path, branch: str, edits: tuple[tuple[str, str], ...]) -> None:
    work = tmp / f"dev-{branch}"
    git(tmp, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", branch)
    path = work / CONTRACT
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    assert tacit(work, "render").returncode == 0
    git(work, "add", "-A")
    git(work, "commit", "-qm", f"{branch}: tighten the range")
    git(work, "push", "-q", "origin", branch)


def run_steps(steps: list[dict], cwd: Path, env: dict[str, str]) -> list[tuple[str, int, str]]:  # type: ignore[type-arg]
    """Every `run:` step that calls tacit-gen, as a shell line; (command, exit code, output)."""
    out = []
    for step in steps:
        cmd = step.get("run")
        if not cmd or not cmd.strip().startswith("tacit-gen"):
            continue  # pip install: tacit-gen is installed in this environment already
        proc = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True,
                              env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env},
                              check=False)
        out.append((cmd.split("#")[0].strip(), proc.returncode, proc.stdout + proc.stderr))
    return out


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("ci")
    origin = tmp / "origin.git"
    git(tmp, "init", "-q", "--bare", "-b", "trunk", str(origin))
    seed = tmp / "seed"
    git(tmp, "clone", "-q", str(origin), str(seed))
    git(seed, "checkout", "-q", "-b", "trunk")
    (seed / "contracts").mkdir()
    shutil.copy(ROOT / CONTRACT, seed / CONTRACT)
    assert tacit(seed, "render").returncode == 0
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "v1")
    git(seed, "push", "-q", "origin", "trunk")
    tighten = ("-40 <= value_degc <= 150", "-40 <= value_degc <= 120")
    push_branch(tmp, origin, "unbumped", (tighten,))
    push_branch(tmp, origin, "bumped", (tighten, ("version: 1.0.0", "version: 2.0.0")))
    return origin


def checkout(origin: Path, branch: str, dest: Path, depth: int = 0) -> Path:
    """actions/checkout: `fetch-depth: 0` is a full clone; 1 is the default shallow one."""
    args = ["clone", "-q"] + (["--depth", str(depth), "--branch", branch] if depth else [])
    git(dest.parent, *args, f"file://{origin}", str(dest))
    if not depth:
        git(dest, "checkout", "-q", branch)
    return dest


def test_snippet_checks_out_the_whole_history() -> None:
    steps = snippet()["jobs"]["contracts"]["steps"]
    co = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert co and co[0]["with"]["fetch-depth"] == 0
    assert any(str(s.get("run", "")).startswith("tacit-gen check") for s in steps)


def test_green_on_a_bumped_change(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "bumped", tmp_path / "ci")
    results = run_steps(snippet()["jobs"]["contracts"]["steps"], repo,
                        {"CI": "true", "GITHUB_BASE_REF": "trunk"})
    assert len(results) == 3
    for cmd, code, output in results:
        assert code == 0, (cmd, output)
    assert "version gate: base" in results[-1][2] and "origin/trunk" in results[-1][2]


def test_red_on_an_unbumped_change(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "unbumped", tmp_path / "ci")
    results = run_steps(snippet()["jobs"]["contracts"]["steps"], repo,
                        {"CI": "true", "GITHUB_BASE_REF": "trunk"})
    codes = {cmd: code for cmd, code, _ in results}
    assert codes["tacit-gen render --check"] == 0
    assert codes["tacit-gen check"] == 1, results
    assert "D300" in results[-1][2] and "major" in results[-1][2]
    # without GITHUB_BASE_REF (another CI service): origin/HEAD, the remote's default branch
    proc = tacit(repo, "check", env={"CI": "true", "GITHUB_BASE_REF": ""})
    assert proc.returncode == 1 and "origin/HEAD" in proc.stdout, proc.stdout + proc.stderr
    # outside CI the default is HEAD (the change is committed: clean), and it says so
    proc = tacit(repo, "check", env={"CI": "", "GITHUB_BASE_REF": ""})
    assert proc.returncode == 0 and "outside CI" in proc.stdout, proc.stdout


def test_unknown_base_is_exit_2_with_a_fetch_hint(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "unbumped", tmp_path / "ci")
    proc = tacit(repo, "check", "--base", "no-such-rev")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown revision 'no-such-rev'" in lines[0], proc.stderr
    proc = tacit(repo, "check", "--base", "origin/main")  # this repository's branch is trunk
    assert proc.returncode == 2 and "git fetch origin main:refs/remotes/origin/main" in proc.stderr


def test_shallow_checkout_is_exit_2_not_a_pass(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "unbumped", tmp_path / "shallow", depth=1)
    proc = tacit(repo, "check", env={"CI": "true", "GITHUB_BASE_REF": "trunk"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "git fetch --unshallow" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_push_to_the_default_branch_compares_with_the_previous_commit(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "unbumped", tmp_path / "ci")
    git(repo, "checkout", "-q", "-B", "trunk")  # as if the branch was merged by fast-forward
    git(repo, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    proc = tacit(repo, "check", env={"CI": "true", "GITHUB_BASE_REF": ""})
    assert proc.returncode == 1 and "previous commit" in proc.stdout, proc.stdout + proc.stderr


def test_diff_reads_a_revision(origin: Path, tmp_path: Path) -> None:
    repo = checkout(origin, "unbumped", tmp_path / "ci")
    proc = tacit(repo, "diff", f"origin/trunk:{CONTRACT}", CONTRACT)
    assert proc.returncode == 1 and "major" in proc.stdout, proc.stdout + proc.stderr
    proc = tacit(repo / "contracts", "diff", "origin/trunk:./fct_sensor_readings.yaml",
                 "fct_sensor_readings.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    proc = tacit(repo, "diff", f"no-such-rev:{CONTRACT}", CONTRACT)
    assert proc.returncode == 2 and "unknown revision 'no-such-rev'" in proc.stderr
