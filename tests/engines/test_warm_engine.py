"""verify starts its costliest engine's process before it loads the data (`WarmEngine`): the
import runs on the CPU the load leaves idle. Run in a fresh interpreter, as the CLI runs it (a
test worker that has run an engine in process never forks: `fork_safe`)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

PROBE = r"""
import sys, time
from pathlib import Path
from tacit_gen.verify import WarmEngine
root = Path(sys.argv[1])
assert WarmEngine.start(["dbt", "pandera"], 1, root) is None  # one at a time: no early start
assert WarmEngine.start([], 2, root) is None
w = WarmEngine.start(["pandera", "avro", "dbt"], 2, root)
assert w is not None and w.target == "dbt", w and w.target  # the costliest
time.sleep(0.5)
assert w.proc.is_alive()  # importing dbt, or waiting for its inputs
t = time.monotonic()
w.close()  # never sent anything (the load failed): ended at once, not after its import
assert not w.proc.is_alive() and time.monotonic() - t < 5
print("ok", w.proc.exitcode)
"""


def test_the_costliest_engine_starts_early_and_ends_when_unused(tmp_path) -> None:
    res = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[0] == "ok"


def test_a_load_that_fails_ends_the_started_engine(tmp_path) -> None:
    """A data file that cannot be read is exit 2 naming it; the started dbt process is ended
    (verify returns without waiting for its import)."""
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet")
    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "verify",
                          str(ROOT / "contracts" / "ohlcv_1m.yaml"), "--data", str(bad),
                          "--now", "2024-01-02T15:00:00Z", "--keep", str(tmp_path / "keep")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "bad.parquet" in res.stderr and "Traceback" not in res.stderr
