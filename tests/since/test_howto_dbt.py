"""docs/how-to/incremental-dbt.md, run as written with dbt-duckdb: every titled code block is
written to its file, then every `$ ` line of the console blocks runs in order in one folder; each
line shown under a command is in what it printed, and a command fails (exit 1) exactly when the
page shows a failing test (or a violated clause) under it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.engine
PAGE = ROOT / "docs" / "how-to" / "incremental-dbt.md"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def files(text: str) -> dict[str, str]:
    return dict(re.findall(r'```\w+ title="([^"]+)"\n(.*?)```', text, re.S))


def steps(text: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, shown = chunk.partition("\n")
            out.append((command, [line for line in shown.splitlines() if line.strip()]))
    return out


def test_the_page_runs_as_written(tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    for name, body in files(text).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "DO_NOT_TRACK": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    ran = steps(text)
    assert [c.split()[1] for c, _ in ran[-4:]] == ["build", "build", "test", "verify"]
    for command, shown in ran:
        res = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=False)
        printed = ANSI.sub("", res.stdout)
        fails = any(line.startswith("Failure in test") or "violated" in line for line in shown)
        assert res.returncode == (1 if fails else 0), (command, printed[-3000:], res.stderr[-2000:])
        for line in shown:
            assert line in printed, (command, line, printed[-3000:])
        if command.startswith("dbt build") and not fails:
            assert "Failure in test" not in printed
