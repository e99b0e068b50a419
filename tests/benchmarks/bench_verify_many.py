"""Benchmark: `verify` of the three bundled contracts in ONE run (`verify contracts/ --data-dir`,
each engine once for all of them, engines in parallel) against three separate `verify` runs of
the same data, timed in the same run (issue 17: one call for three contracts within 1.5x of one
contract's call), and one contract's call alone as a wall time (goal: 8 s), against the same call
with its engines one after another (`--jobs 1`) in the same run.

Data: `tacit-gen sample --rows 15` of each bundled contract. Engines: dbt, Soda, GX, pandera and
the ibis runtime on DuckDB (the five of the issue's table). Every run is a fresh `tacit-gen`
process, as a user runs it; the runs are interleaved (many, then the singles, REPEAT times) so a
busy machine slows both alike; medians are kept. The load average is printed: on a shared
2-core machine the seconds move, the ratios less.

    python tests/benchmarks/bench_verify_many.py [REPEAT] [--jobs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, use_json  # noqa: E402

NOW = "2024-01-02T15:00:00Z"
TARGETS = "dbt,soda,gx,pandera,ibis"
GOAL = 1.5  # the three in one call, at most 1.5x one contract's call
WALL_GOAL = 8.0  # one contract's verify of a 15-row file, five engines: at most 8 s wall


def _wall(argv: list[str], want: int = 0) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(argv, cwd=ROOT, check=False, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if res.returncode != want:
        raise SystemExit(f"{' '.join(argv)}: exit {res.returncode}\n{res.stdout}\n{res.stderr}")
    return took


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repeat", nargs="?", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    use_json(args.json)
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "GX_ANALYTICS_ENABLED": "false", "SCARF_NO_ANALYTICS": "true"}
    os.environ.update(env)
    py = [sys.executable, "-m", "tacit_gen.cli"]
    contracts = sorted((ROOT / "contracts").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        for c in contracts:
            _wall([*py, "sample", str(c), "--rows", "15", "--now", NOW, "--out", f"{tmp}/{c.stem}.csv"])
        jobs = ["--jobs", str(args.jobs)] if args.jobs else []
        many_argv = [*py, "verify", "contracts/", "--data-dir", tmp, "--now", NOW,
                     "--target", TARGETS, *jobs]

        def single(c: Path) -> list[str]:
            cat = Path(tmp) / f"{c.stem}.catalog.csv"
            return [*py, "verify", str(c), "--data", f"{tmp}/{c.stem}.csv", "--now", NOW,
                    "--target", TARGETS, *(["--catalog", str(cat)] if cat.exists() else [])]

        load0 = os.getloadavg()[0]
        many: list[float] = []
        singles: dict[str, list[float]] = {c.stem: [] for c in contracts}
        serial: dict[str, list[float]] = {c.stem: [] for c in contracts}
        for _ in range(args.repeat):
            many.append(_wall(many_argv))
            for c in contracts:
                singles[c.stem].append(_wall(single(c)))
                # the same call with the engines one after another (`--jobs 1`), as verify ran
                # them before they ran side by side: the same-run baseline of the wall time
                serial[c.stem].append(_wall([*single(c), "--jobs", "1"]))
        load1 = os.getloadavg()[0]
    m = statistics.median(many)
    each = {k: statistics.median(v) for k, v in singles.items()}
    total = sum(each.values())
    mean = total / len(each)
    load = f"load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs"
    print("single runs: " + ", ".join(f"{k} {v:.1f} s" for k, v in each.items()))
    emit(Row("verify_many", f"verify of {len(contracts)} contracts in one run ({TARGETS})", m,
             f"{len(contracts)} separate verify runs, summed", total, kind="faster",
             repeat=args.repeat, note=load, extra={"single": each}))
    # issue 17's row: one 15-row file, five engines, wall time of a `tacit-gen verify` process
    # (the median single run of each contract; the goal is the slowest one's)
    slowest = max(each, key=lambda k: each[k])
    emit(Row("verify_one", f"verify of one 15-row file, five engines ({TARGETS}), slowest of "
             f"{len(each)} contracts: {slowest}", each[slowest], kind="wall", goal=WALL_GOAL,
             repeat=args.repeat, note=load, extra={"single": each}))
    one_by_one = statistics.median(serial[slowest])
    emit(Row("verify_one", f"verify of one 15-row file ({slowest}), engines side by side "
             f"({args.jobs or os.cpu_count()} at a time)", each[slowest],
             "the same verify with the engines one after another (--jobs 1)", one_by_one,
             kind="faster", repeat=args.repeat, note=load,
             extra={"one_by_one": {k: statistics.median(v) for k, v in serial.items()}}))
    row = emit(Row("verify_many", f"verify of {len(contracts)} contracts in one run ({TARGETS})", m,
                   "one contract's verify run (mean of the three)", mean, kind="slower", goal=GOAL,
                   repeat=args.repeat, note=load, extra={"single": each}))
    return 0 if row.met else 1


if __name__ == "__main__":
    sys.exit(main())
