"""A how-to page run as written: every titled code block is written to its file, then every `$ `
line of the console blocks runs in order in one folder; each line shown under a command is in
what it printed, and a command exits 1 exactly when the page shows a failing test or a violated
clause under it (0 otherwise)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


def run_page(page: Path, folder: Path) -> list[tuple[str, list[str]]]:
    """Run the page in `folder`; the steps it ran."""
    text = page.read_text(encoding="utf-8")
    for name, body in files(text).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "DO_NOT_TRACK": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, env=env)
    ran = steps(text)
    for command, shown in ran:
        res = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                             text=True, check=False)
        printed = ANSI.sub("", res.stdout)
        fails = any(line.startswith("Failure in test") or "violated" in line for line in shown)
        assert res.returncode == (1 if fails else 0), (command, printed[-3000:], res.stderr[-2000:])
        for line in shown:
            assert line in printed, (command, line, printed[-3000:])
        if command.startswith("dbt build") and not fails:
            assert "Failure in test" not in printed, (command, printed[-3000:])
    return ran
