"""History from git and from a folder; transitive modes; the CI version gate (check_bump)."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.evolution import (
    HistoryError,
    check_bump,
    compat,
    diff,
    history_from_dir,
    history_from_git,
)
from tests.evolution.test_diff import BASE, SITE, edit

GRADE_STRING = "  grade: {type: string}\n"
GRADE_INT = "  grade: {type: int64}\n"

# Five versions. 2.1.0 re-adds 'grade', removed in 2.0.0, with another type: each step reads the
# one before it, but 2.1.0 cannot read data written under 1.x (string grades), nor can 1.x read
# 2.1.0's (int64 grades).
V1 = edit(BASE, (SITE, SITE + GRADE_STRING))
V2 = edit(V1, ("version: 1.0.0", "version: 1.1.0"), (GRADE_STRING, GRADE_STRING + "  comment: {type: string}\n"))
V3 = edit(V2, ("version: 1.1.0", "version: 2.0.0"), (GRADE_STRING, ""))
V4 = edit(V3, ("version: 2.0.0", "version: 2.0.1"), ("Pressure readings per series.", "Pressure, per series."))
V5 = edit(V4, ("version: 2.0.1", "version: 2.1.0"), (SITE, SITE + GRADE_INT))


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    proc = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return proc.stdout


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "Test")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "commit.gpgsign", "false")
    return repo


def _commit(repo: Path, rel: str, text: str, message: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    _git(repo, "add", rel)
    _git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def five(tmp_path: Path) -> Path:
    """A repo with five committed versions; the file is renamed (git mv) at the fourth."""
    repo = _repo(tmp_path)
    _commit(repo, "contracts/sensor.yaml", V1, "v1")
    _commit(repo, "contracts/sensor.yaml", V2, "v2")
    _commit(repo, "contracts/sensor.yaml", V3, "v3")
    _git(repo, "mv", "contracts/sensor.yaml", "contracts/sensor_readings.yaml")
    _commit(repo, "contracts/sensor_readings.yaml", V4, "v4, renamed")
    _commit(repo, "contracts/sensor_readings.yaml", V5, "v5")
    return repo / "contracts" / "sensor_readings.yaml"


def test_history_from_git_follows_renames(five: Path) -> None:
    history = history_from_git(five)
    assert [c.version for c in history] == ["1.0.0", "1.1.0", "2.0.0", "2.0.1", "2.1.0"]
    assert history[0].path.startswith("contracts/sensor.yaml@")
    assert history[-1].path.startswith("contracts/sensor_readings.yaml@")
    # each step is a sound version bump
    for old, new in itertools.pairwise(history):
        assert diff(old, new).ok, diff(old, new).render_text()


def test_transitive_modes_find_what_the_previous_version_hides(five: Path) -> None:
    earlier = history_from_git(five)
    current = load(five)
    history = [*earlier, current]  # as the CLI calls it: the working tree copy replaces 2.1.0
    for mode in ("BACKWARD", "FORWARD", "FULL"):
        report = compat(history, mode)
        assert report.ok, report.render_text()
        assert report.versions == ("2.0.1",)
    for mode, directions in (("BACKWARD_TRANSITIVE", {"backward"}), ("FORWARD_TRANSITIVE", {"forward"}),
                             ("FULL_TRANSITIVE", {"backward", "forward"})):
        report = compat(history, mode)
        assert not report.ok
        assert report.versions == ("1.0.0", "1.1.0", "2.0.0", "2.0.1")
        assert {f.direction for f in report.findings} == directions
        assert {(f.code, f.path) for f in report.findings} == {("compat.type", "fields.grade.type")}
        assert {f.reader_version if f.direction == "forward" else f.writer_version
                for f in report.findings} == {"1.0.0", "1.1.0"}
    (first, *_) = compat(history, "BACKWARD_TRANSITIVE").findings
    assert first.message == "'grade': written as string, read as int64"
    assert (first.reader_line, first.writer_line) == (20, 20)


def test_history_leaves_out_a_commit_that_does_not_load(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _commit(repo, "c.yaml", V1, "v1")
    _commit(repo, "c.yaml", V2.replace("type: int32", "type: int33"), "broken")
    _commit(repo, "c.yaml", V2, "fixed")
    skipped: list[str] = []
    history = history_from_git(repo / "c.yaml", skipped=skipped)
    assert [c.version for c in history] == ["1.0.0", "1.1.0"]
    assert len(skipped) == 1 and "unknown type 'int33'" in skipped[0]
    with pytest.warns(UserWarning, match="left out of the history"):
        history_from_git(repo / "c.yaml")


def test_check_bump(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    path = repo / "contracts" / "sensor.yaml"
    path.parent.mkdir()
    path.write_text(V1, encoding="utf-8")
    assert check_bump(path) is None  # no commit yet
    _commit(repo, "contracts/sensor.yaml", V1, "v1")
    assert check_bump(path) is None  # unchanged
    path.write_text(edit(V1, ("unit: bar", "unit: kPa")), encoding="utf-8")
    report = check_bump(path)
    assert report is not None and not report.ok
    assert report.as_json()["least_bump"] == "major"
    assert report.old_path == "contracts/sensor.yaml@HEAD" or report.old_path.endswith("sensor.yaml@HEAD")
    path.write_text(edit(V1, ("unit: bar", "unit: kPa"), ("version: 1.0.0", "version: 2.0.0")),
                    encoding="utf-8")
    report = check_bump(path)
    assert report is not None and report.ok
    new = repo / "contracts" / "other.yaml"
    new.write_text(V1, encoding="utf-8")
    assert check_bump(new) is None  # not in HEAD: a new contract
    with pytest.raises(HistoryError, match="unknown revision"):
        check_bump(path, base_rev="no-such-branch")


def test_check_bump_outside_git(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(V1, encoding="utf-8")
    with pytest.raises(HistoryError):
        check_bump(path)


def test_history_from_dir_sorts_by_semver(tmp_path: Path) -> None:
    for name, text in (("a.yaml", V5), ("b.yaml", V1), ("c.yml", V3),
                       ("d.yaml", edit(V1, ("version: 1.0.0", "version: 1.10.0"))),
                       ("e.yaml", edit(V1, ("version: 1.0.0", "version: 1.10.0-rc.1")))):
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a contract", encoding="utf-8")
    assert [c.version for c in history_from_dir(tmp_path)] == ["1.0.0", "1.10.0-rc.1", "1.10.0", "2.0.0",
                                                               "2.1.0"]
    (tmp_path / "f.yaml").write_text(V1, encoding="utf-8")
    with pytest.raises(ValueError, match=r"both declare version 1\.0\.0"):
        history_from_dir(tmp_path)


def test_history_from_dir_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no contract files"):
        history_from_dir(tmp_path)
    (tmp_path / "x.yaml").write_text("contract: [", encoding="utf-8")
    with pytest.raises(ValueError):
        history_from_dir(tmp_path)
