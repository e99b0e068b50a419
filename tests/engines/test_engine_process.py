"""verify's engine processes: an engine that leaves a thread running cannot keep verify waiting,
and engines are forked only from a process that has not loaded an engine's library itself.

Each case runs in a fresh interpreter, as the CLI runs verify. The engine here is a stand-in
module whose `run` answers and leaves a non-daemon thread sleeping for an hour (a thread pool or
a telemetry flusher that is never shut down): a process that exits normally joins that thread
first, so before the fix the parent's join waited for an hour (the probe's timeout failed it)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

LINGERING = r"""
import sys, threading, time, types
from pathlib import Path
import tacit_gen.verify.pool as v
from tacit_gen.engines.base import EngineRun
from tacit_gen.targets.base import Engine

def run(inp):
    threading.Thread(target=time.sleep, args=(3600,), name="never-ends").start()
    return EngineRun("lingering", (), notes=(f"ran in {inp.workdir.name}",))

module = types.SimpleNamespace(run=run)
v._engine = lambda target, backend: (Engine("lingering"), module)  # the forked children inherit it
v.unavailable = lambda target, backend: None  # a stand-in: no registered target, no library
root = Path(sys.argv[1])
assert v.fork_safe(), "a fresh interpreter may fork its engines"
inputs = [types.SimpleNamespace(workdir=root / name, engine="duckdb") for name in ("a", "b", "c")]
for inp in inputs:
    inp.workdir.mkdir()
start = time.monotonic()
out = v.run_engines([("one", inputs[:2]), ("two", inputs[2:])], root, 2)
print("run_engines", round(time.monotonic() - start),
      sorted((t, r.notes[0]) for t, runs in out.items() for r in runs))
start = time.monotonic()
one = v.run_engine("one", inputs[0])
print("run_engine", round(time.monotonic() - start), one.failure, one.notes[0])
"""


def test_an_engine_that_leaves_a_thread_running_does_not_keep_verify_waiting(tmp_path) -> None:
    res = subprocess.run([sys.executable, "-c", LINGERING, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    batched, single = res.stdout.splitlines()
    name, seconds, runs = batched.split(" ", 2)
    assert name == "run_engines" and int(seconds) < 30, batched
    assert runs == str([("one", "ran in a"), ("one", "ran in b"), ("two", "ran in c")]), batched
    name, seconds, rest = single.split(" ", 2)
    assert name == "run_engine" and int(seconds) < 30 and rest == "None ran in a", single


FORK_SAFE = r"""
import sys
import duckdb  # verify loads the data with DuckDB itself: that does not stop it forking
import tacit_gen.verify.pool as v
print(v.fork_safe())
import {library}
print(v.fork_safe())
"""


def test_engines_are_not_forked_from_a_process_that_loaded_an_engine_library() -> None:
    """A process that imported an engine's library (a test worker that ran GX in process, an
    application embedding verify) runs the engines in process: a forked child would inherit that
    library's state (pooled connections, a data context, threads it started)."""
    # psycopg2 is the driver verify loads PostgreSQL with (its connection closed before the
    # engines start): it does not stop the forks, or a PostgreSQL verify would lose its isolation
    for library, after in (("sqlalchemy", "False"), ("pandera", "False"), ("psycopg2", "True")):
        res = subprocess.run([sys.executable, "-c", FORK_SAFE.format(library=library)], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        assert res.stdout.split() == ["True", after], (library, res.stdout)
