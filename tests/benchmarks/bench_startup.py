"""Benchmark: start-up of `lint`, `render` and `check` of one contract, against a baseline run in
the same process: a fresh interpreter that imports what any such tool imports
(`python -c "import yaml, jinja2, click"`). The figure to watch is the ratio, not the seconds
(issue 16: a pre-commit hook must not be felt; the goal is at most 2.5x).

`render` and `check` are measured three times, each with its own cache folder
(``TACIT_GEN_CACHE_DIR``):
- **cold**: the render cache is empty (its ``render/`` folder is removed before every run; the
  caches of what no contract changes stay beside it: the entry points, the compiled Jinja
  templates and the compiled SQL templates, `tacit_gen.sql.shapes`), so every target renders and
  the entry is stored: the first run after a contract, a template or a setting changed;
- **warm**: the entry for this contract and these settings is there: the artifacts come from the
  cache, no target renders and sqlglot is not imported (a hook run on an unchanged contract);
- **every cache empty**: the whole cache folder removed before every run: the first run after
  tacit-gen or a library it renders with was installed or upgraded (every key holds the code's
  fingerprint), once per upgrade. Reported against the same goal; it does not meet it, and the
  bench's exit status does not count it (the goal is for the runs a hook makes).

Every bundled contract is measured in turn (``contracts/*.yaml``, sorted), or only those named
with ``--contract PATH`` (repeatable): their clauses differ, and with them what a cold render must
import (a cold render of each bundled contract imports no sqlglot).

Each command runs REPEAT times, alternating with the baseline so a busy machine slows both alike;
the median is kept. The runs may write bytecode (`PYTHONDONTWRITEBYTECODE` is dropped from their
environment): an installed package starts from its `.pyc` files (pip compiles them at install,
Python at first import), and without them every run compiles sqlglot's 10,000-line modules anew,
which measures the compiler, not the start-up (uv does not compile at install; this machine's
shells set the variable). Run with `nox -s bench` or
`python tests/benchmarks/bench_startup.py [REPEAT] [--contract PATH]... [--json FILE]`. Exit 1
when a ratio is over the goal.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, use_json  # noqa: E402

GOAL = 2.5
CONTRACTS = tuple(sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "contracts").glob("*.yaml")))
BASELINE = "python -c 'import yaml, jinja2, click'"


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TACIT_GEN_CACHE_DIR"] = str(cache)
    return env


def _wall(argv: list[str], env: dict[str, str], cold: Path | None = None, empty: bool = False) -> float:
    """Seconds of one run; `cold`: the render cache folder removed first (not timed), or with
    `empty` the whole cache folder."""
    if cold is not None:
        shutil.rmtree(cold if empty else cold / "render", ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str]) -> int:
    if "--json" in argv:
        i = argv.index("--json")
        use_json(argv[i + 1])
        del argv[i : i + 2]
    contracts: list[str] = []
    while "--contract" in argv:
        i = argv.index("--contract")
        contracts.append(argv[i + 1])
        del argv[i : i + 2]
    repeat = int(argv[0]) if argv else 7
    over: list[str] = []
    for contract in contracts or CONTRACTS:
        over += _measure(contract, repeat)
    return 1 if over else 0


def _measure(contract: str, repeat: int) -> list[str]:
    """Time every command on one contract against the baseline; the names of the rows over the goal."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        caches = {name: Path(tmp) / f"cache-{name}" for name in ("lint", "cold", "warm", "empty")}
        render = [py, "-m", "tacit_gen.cli", "render", contract, "--out", f"{tmp}/gen"]
        check = [py, "-m", "tacit_gen.cli", "check", contract, "--no-bump-gate"]
        # name -> (argv, cache folder, emptied: "" / "render" / "all")
        commands: dict[str, tuple[list[str], Path, str]] = {
            "lint": ([py, "-m", "tacit_gen.cli", "lint", contract], caches["lint"], ""),
            "render, cold cache": (render, caches["cold"], "render"),
            "render, warm cache": (render, caches["warm"], ""),
            "render, every cache empty": (render, caches["empty"], "all"),
            "check, cold cache": (check, caches["cold"], "render"),
            "check, warm cache": (check, caches["warm"], ""),
            "check, every cache empty": (check, caches["empty"], "all"),
        }
        base_argv = [py, "-c", "import yaml, jinja2, click"]
        base_env = _env(Path(tmp) / "cache-base")
        _wall(base_argv, base_env)  # warm the file cache
        for args, cache, _ in commands.values():  # fill the entry-point caches and the warm ones
            for _ in range(2):
                # A command that fails would be timed as a fast one: each must succeed first.
                done = subprocess.run(args, cwd=ROOT, env=_env(cache), check=False,
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"{' '.join(args[2:])} exited {done.returncode}:\n{done.stderr}")
        base: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeat):
            for name, (args, cache, emptied) in commands.items():
                base.append(_wall(base_argv, base_env))
                times[name].append(_wall(args, _env(cache), cache if emptied else None,
                                         emptied == "all"))
    b = statistics.median(base)
    load = os.getloadavg()
    print(f"{contract}: baseline ({BASELINE}): {b * 1000:.0f} ms (median of {len(base)}); "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    over = []
    for name, ts in times.items():
        row = emit(Row(bench="startup", measure=f"tacit-gen {name.split(',')[0]} {contract}"
                       + (f" ({name.split(', ')[1]})" if "," in name else ""),
                       seconds=statistics.median(ts), baseline=BASELINE, baseline_seconds=b,
                       goal=GOAL, repeat=repeat,
                       note="once per install or upgrade: not counted in the exit status"
                       if "every cache empty" in name else ""))
        if not row.met and "every cache empty" not in name:
            over.append(f"{name}: {contract}")
    return over


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
