"""`.ci/sessions` (what `.ci/run` runs once the machine is ready) with a stand-in `nox` on PATH:
lint first, typecheck and spark beside tests, every outcome in the summary, any failure fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

# The stand-in: notes each session's start, prints a line, and exits with $FAKE_<SESSION>_RC. The
# tests session first waits (at most 30 s) until typecheck and spark have started: it ends only
# when they run beside it, and fails (exit 9) when they run after it.
FAKE_NOX = """\
#!/usr/bin/env bash
set -eu
session=$2
touch "$FAKE_DIR/$session.started"
echo "output of $session"
if [ "$session" = tests ]; then
  for _ in $(seq 300); do
    if [ -e "$FAKE_DIR/typecheck.started" ] && [ -e "$FAKE_DIR/spark.started" ]; then break; fi
    sleep 0.1
  done
  if ! [ -e "$FAKE_DIR/typecheck.started" ] || ! [ -e "$FAKE_DIR/spark.started" ]; then
    echo "typecheck and spark did not start beside tests"; exit 9
  fi
fi
rc_var="FAKE_${session^^}_RC"
exit "${!rc_var:-0}"
"""


def _run(tmp_path: Path, **codes: int) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nox = bin_dir / "nox"
    nox.write_text(FAKE_NOX, encoding="utf-8")
    nox.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_DIR": str(tmp_path),
           **{f"FAKE_{name.upper()}_RC": str(code) for name, code in codes.items()}}
    return subprocess.run([str(ROOT / ".ci" / "sessions")], env=env, capture_output=True, text=True,
                          timeout=120)


def _summary(out: str) -> dict[str, str]:
    table = out[out.index("CI sessions (wall time"):]
    return {m[1]: m[2] for m in re.finditer(r"^(\w+) +\d+m\d\ds  (.*)$", table, re.M)}


def test_every_session_runs_and_the_background_ones_beside_tests(tmp_path: Path) -> None:
    res = _run(tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _summary(res.stdout) == {"setup": "(system packages, nox)", "lint": "ok", "typecheck": "ok",
                                    "tests": "ok", "spark": "ok"}
    assert re.search(r"^total +\d+m\d\ds$", res.stdout, re.M)
    # the summary lists the sessions in the order of the README's command
    assert [m[1] for m in re.finditer(r"^(lint|typecheck|tests|spark) ", res.stdout, re.M)] == [
        "lint", "typecheck", "tests", "spark"]
    # the background sessions' output follows tests' whole, one session after the other
    out = res.stdout
    order = [out.index("output of lint"), out.index("output of tests"),
             out.index("---- nox -s typecheck (ran alongside tests) ----"), out.index("output of typecheck"),
             out.index("---- nox -s spark (ran alongside tests) ----"), out.index("output of spark")]
    assert order == sorted(order)


@pytest.mark.parametrize(("codes", "failed"), [
    ({"tests": 5}, {"tests": "FAILED (exit 5)"}),  # pytest: no test collected
    ({"spark": 1, "typecheck": 2}, {"spark": "FAILED (exit 1)", "typecheck": "FAILED (exit 2)"}),
    ({"lint": 1}, {"lint": "FAILED (exit 1)"}),
])
def test_a_failed_session_fails_the_run_after_the_others_ran(tmp_path: Path, codes: dict[str, int],
                                                             failed: dict[str, str]) -> None:
    res = _run(tmp_path, **codes)
    assert res.returncode == 1, res.stdout + res.stderr
    outcomes = _summary(res.stdout)
    assert {s: o for s, o in outcomes.items() if o.startswith("FAILED")} == failed
    assert {s for s, o in outcomes.items() if o == "ok"} == {"lint", "typecheck", "tests", "spark"} - set(failed)
    for session in ("lint", "typecheck", "tests", "spark"):
        assert (tmp_path / f"{session}.started").exists()


def test_the_costliest_files_exist_and_are_collected_first() -> None:
    from tests.conftest import COSTLIEST_FIRST

    assert [p for p in COSTLIEST_FIRST if not (ROOT / p).is_file()] == []
    assert len(set(COSTLIEST_FIRST)) == len(COSTLIEST_FIRST)
    # named last on the command line, collected first
    files = ["tests/test_atomic.py", "tests/since/test_howto_dbt.py", "tests/cli/test_verify_many.py"]
    res = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", *files],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    order = list(dict.fromkeys(line.split("::")[0] for line in res.stdout.splitlines() if "::" in line))
    assert order == ["tests/cli/test_verify_many.py", "tests/since/test_howto_dbt.py", "tests/test_atomic.py"]
