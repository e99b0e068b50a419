"""Benchmark: start-up of `lint`, `render` and `check` of one contract, against a baseline run in
the same process: a fresh interpreter that imports what any such tool imports
(`python -c "import yaml, jinja2, click"`). The figure to watch is the ratio, not the seconds
(issue 16: a pre-commit hook must not be felt; the goal is at most 2.5x).

Each command runs REPEAT times, alternating with the baseline so a busy machine slows both alike;
the median is kept. The runs may write bytecode (`PYTHONDONTWRITEBYTECODE` is dropped from their
environment): an installed package starts from its `.pyc` files (pip compiles them at install,
Python at first import), and without them every run compiles sqlglot's 10,000-line modules anew,
which measures the compiler, not the start-up (uv does not compile at install; this machine's
shells set the variable). Run with `nox -s bench` or `python tests/benchmarks/bench_startup.py [REPEAT]`.
Exit 1 when a ratio is over the goal.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOAL = 2.5
CONTRACT = "contracts/ohlcv_1m.yaml"


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=ENV, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "lint": [py, "-m", "tacit_gen.cli", "lint", CONTRACT],
            "render": [py, "-m", "tacit_gen.cli", "render", CONTRACT, "--out", f"{tmp}/gen"],
            "check": [py, "-m", "tacit_gen.cli", "check", CONTRACT, "--no-bump-gate"],
        }
        base_argv = [py, "-c", "import yaml, jinja2, click"]
        _wall(base_argv)  # warm the file cache
        for argv in commands.values():
            _wall(argv)
        base: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, argv in commands.items():
                base.append(_wall(base_argv))
                times[name].append(_wall(argv))
    b = statistics.median(base)
    print(f"baseline (python -c 'import yaml, jinja2, click'): {b * 1000:.0f} ms (median of {len(base)})")
    over = []
    for name, ts in times.items():
        m = statistics.median(ts)
        ratio = m / b
        print(f"tacit-gen {name} {CONTRACT}: {m * 1000:.0f} ms  {ratio:.2f}x"
              + ("" if ratio <= GOAL else f"  OVER the {GOAL}x goal"))
        if ratio > GOAL:
            over.append(name)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
