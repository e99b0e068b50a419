"""Benchmark: render 500 contracts to every target, against a baseline in the same process.

The baseline is the floor any tool pays for the same files: reading each contract with PyYAML and
writing its data back out as YAML and JSON. The figure to watch is the ratio, not the seconds.
Run with `nox -s bench` or `python tests/benchmarks/bench_render.py [N]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def make_contracts(folder: Path, n: int) -> list[Path]:
    sources = sorted((ROOT / "contracts").glob("*.yaml"))
    out = []
    for i in range(n):
        src = sources[i % len(sources)]
        text = src.read_text()
        first = text.split("contract: ", 1)[1].split("\n", 1)[0].strip()
        text = text.replace(f"contract: {first}", f"contract: {first}_{i:04d}", 1)
        p = folder / f"{first}_{i:04d}.yaml"
        p.write_text(text)
        out.append(p)
    return out


def baseline(paths: list[Path]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        text = p.read_text().replace("decimal(", "'decimal(").replace("),", ")',")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            data = {"text": text}
        yaml.safe_dump(data)
        json.dumps(data, default=str)
    return time.perf_counter() - t0


def run_render(paths: list[Path]) -> tuple[float, int]:
    from tacit_gen import registry
    from tacit_gen import render as r
    from tacit_gen.targets.base import RenderOptions

    t0 = time.perf_counter()
    result = r.render_all(paths, registry.names(), RenderOptions())
    elapsed = time.perf_counter() - t0
    assert not result.errors, result.errors[:3]
    return elapsed, len(result.artifacts)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv and argv[0].isdigit() else 500
    with tempfile.TemporaryDirectory() as d:
        paths = make_contracts(Path(d), n)
        run_render(paths[:3])  # warm imports and caches
        base = min(baseline(paths) for _ in range(3))
        elapsed, count = run_render(paths)
    print(f"render {n} contracts x 5 targets: {count} artifacts in {elapsed:.2f} s "
          f"({1000 * elapsed / n:.1f} ms per contract)")
    print(f"baseline (PyYAML load + YAML/JSON dump of the same contracts): {base:.2f} s")
    print(f"ratio render / baseline: {elapsed / base:.1f}x")


if __name__ == "__main__":
    main()
