"""docs/tutorial.md, run as written: every `$ ` line of its console blocks runs in order in one
fresh folder, with the core install (no extra) first on PATH, and what it prints on stdout is the
text the page shows under it (commit ids aside: they differ on every machine)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.package.conftest import clean_env

pytestmark = pytest.mark.slow
PAGE = ROOT / "docs" / "tutorial.md"
COMMIT = re.compile(r"\b[0-9a-f]{12}\b")


def steps(text: str) -> list[tuple[str, str]]:
    """(command, the output shown under it) for every `$ ` line of the page's console blocks."""
    out: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, shown = chunk.partition("\n")
            out.append((command, shown))
    return out


def test_the_page_has_the_path_from_init_to_a_green_check() -> None:
    commands = [c for c, _ in steps(PAGE.read_text(encoding="utf-8"))]
    assert commands[:4] == ["tacit-gen init", "tacit-gen lint", "tacit-gen render", "tacit-gen check"]
    assert commands[-1] == "tacit-gen check"


def test_every_command_prints_what_the_page_shows(core: Path, tmp_path: Path) -> None:
    env = clean_env(core)
    env.update(GIT_AUTHOR_DATE="2026-01-05T09:00:00Z", GIT_COMMITTER_DATE="2026-01-05T09:00:00Z")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True, env=env)
    for command, shown in steps(PAGE.read_text(encoding="utf-8")):
        res = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=False)
        assert "Traceback" not in res.stderr, (command, res.stderr)
        assert COMMIT.sub("<commit>", res.stdout) == COMMIT.sub("<commit>", shown), command
