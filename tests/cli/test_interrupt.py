"""An interrupt (Ctrl-C, a CI runner cancelling the job) is exit 130, never 1 (which means
"violations found"), and leaves no engine process behind. `verify` of a bundled contract is
interrupted while its engines run side by side in their forked processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT

NOW = "2024-01-01T12:00:00Z"
CONTRACT = str(ROOT / "contracts" / "ohlcv_1m.yaml")


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_an_interrupted_verify_exits_130_and_stops_its_engines(tmp_path: Path) -> None:
    data = tmp_path / "ohlcv.csv"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "tacit_gen.cli", "sample", CONTRACT, "--rows", "30",
                    "--now", NOW, "--out", str(data)], check=True, capture_output=True, env=env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tacit_gen.cli", "verify", CONTRACT, "--data", str(data), "--now",
         NOW, "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # a shell's background job ignores SIGINT: give this one Python's own handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    children: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        children = _children(proc.pid)
        if len(children) >= 2:  # engines running (dbt's started early, then the next)
            break
        time.sleep(0.1)
    assert proc.poll() is None and len(children) >= 2, "verify ran no engine process to interrupt"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    assert "interrupted" in err and "pass all" not in out, out + err
    time.sleep(0.5)

    def running(pid: int) -> bool:
        try:
            return "zombie" not in Path(f"/proc/{pid}/status").read_text()
        except OSError:  # gone
            return False

    assert [c for c in children if running(c)] == []
