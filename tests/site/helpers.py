"""Contracts and git repositories the site tests build pages from."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.evolution.test_diff import BASE, edit
from tests.evolution.test_history import V1, V2, V3

# Contract text is hostile input: markup, an attribute breakout, a template expression and an
# ampersand in every place a contract carries free text.
SCRIPT = "</p><script>alert('desc')</script>"
HOSTILE = edit(
    BASE,
    ("description: Pressure readings per series.",
     f'description: "{SCRIPT} & <b>bold</b> {{{{ 7*7 }}}}"'),
    ("owner: plant@example", "owner: '\"><img src=x onerror=alert(1)>'"),
    ("site: {type: string, description: plant site code}",
     "site: {type: string, description: '</td></tr></table><script>alert(2)</script>'}"),
    ("  - pressure >= 0\n", "  - pressure >= 0\n  - site != '</td><script>alert(3)</script>'\n"),
) + "x-notes: \"<style>body{display:none}</style><a href='https://example.com/x'>x</a>\"\n"


def git(repo: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout


def history_repo(root: Path) -> Path:
    """A repository whose contracts/sensor.yaml has three committed versions (1.0.0, 1.1.0 adds
    a field, 2.0.0 removes one: breaking) on three days; returns the contract's path."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    path = root / "contracts" / "sensor.yaml"
    path.parent.mkdir()
    for day, text in enumerate((V1, V2, V3), 1):
        path.write_text(text, encoding="utf-8")
        git(root, "add", "contracts/sensor.yaml")
        git(root, "commit", "-q", "-m", f"v{day}", date=f"2026-01-0{day}T10:00:00Z")
    return path
