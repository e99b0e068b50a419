"""Class 9 of issue 15: one unreadable old version in git history is reported and skipped, named,
never fatal to `compat`; `check`'s version gate never skips silently."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.hardening.helpers import BASE, cli


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit(repo: Path, data: bytes, message: str) -> str:
    (repo / "contracts" / "hostile.yaml").write_bytes(data)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


BAD_VERSIONS = {
    "non-utf8": BASE.replace("1.0.0", "1.1.0").encode() + b"description: caf\xe9\n",
    "surrogate": BASE.replace("1.0.0", "1.1.0").encode() + b'description: "\\ud800"\n',
    "nul": BASE.replace("1.0.0", "1.1.0").encode() + b'description: "\\0"\n',
    "not yaml": b"contract: [\n",
}


@pytest.mark.parametrize("kind", sorted(BAD_VERSIONS))
def test_compat_skips_and_names_an_unreadable_old_version(tmp_path: Path, kind: str) -> None:
    repo = tmp_path / "repo"
    (repo / "contracts").mkdir(parents=True)
    _git(repo, "init", "-q")
    _commit(repo, BASE.encode(), "v1")
    bad = _commit(repo, BAD_VERSIONS[kind], "broken")
    _commit(repo, (BASE.replace("1.0.0", "1.2.0") + "  extra: {type: string}\n").encode(), "v1.2")
    res = cli("compat", "contracts/hostile.yaml", "--mode", "BACKWARD_TRANSITIVE", cwd=repo)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode == 0, out
    assert bad[:12] in res.stderr and "skipped" in res.stderr, out
    assert "1.0.0" in res.stdout, out  # the readable versions were still checked


def test_check_gate_does_not_skip_silently(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "contracts").mkdir(parents=True)
    _git(repo, "init", "-q")
    _commit(repo, BAD_VERSIONS["non-utf8"], "broken")
    (repo / "contracts" / "hostile.yaml").write_text(BASE, encoding="utf-8")
    assert cli("render", cwd=repo).returncode == 0
    res = cli("check", cwd=repo)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out
    assert res.returncode == 1, out
    assert "version gate cannot compare" in res.stdout and "--no-bump-gate" in res.stdout, out
    assert cli("check", "--no-bump-gate", cwd=repo).returncode == 0
