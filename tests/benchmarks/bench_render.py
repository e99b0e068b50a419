"""Benchmark: render N contracts (default 501) to every target, against a baseline in the same run.

The baseline is the floor any tool pays for the same files: reading each contract with PyYAML's
C loader (``CSafeLoader``) and writing its data back out as YAML (``CSafeDumper``) and JSON. The
seed's notation (``enum[good, suspect, bad]`` and ``decimal(12,4)`` unquoted in flow mappings)
is not plain YAML, so the baseline reads each contract's canonical form (``tacit-gen fmt``, made
before timing): the same data, every contract loaded (a contract PyYAML refused used to cost the
baseline nothing, which flattered it). The figure to watch is the ratio (goal: within 6x), not
the seconds. Both are timed interleaved, median of R runs.

    python tests/benchmarks/bench_render.py [N] [--repeat R] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, interleaved, use_json  # noqa: E402


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


def canonical(paths: list[Path], folder: Path) -> list[Path]:
    """Each contract's canonical form (`tacit-gen fmt`), plain YAML any loader reads."""
    from tacit_gen.fmt import format_text

    folder.mkdir()
    out = []
    for p in paths:
        q = folder / p.name
        q.write_text(format_text(p.read_text(), str(p)))
        out.append(q)
    return out


def baseline(paths: list[Path]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        data = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
        yaml.dump(data, Dumper=yaml.CSafeDumper)
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
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("n", nargs="?", type=int, default=501)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", metavar="FILE", help="append every row to FILE as JSON")
    args = p.parse_args(argv)
    use_json(args.json)
    n = args.n
    with tempfile.TemporaryDirectory() as d:
        paths = make_contracts(Path(d), n)
        plain = canonical(paths, Path(d) / "canonical")
        run_render(paths[:3])  # warm imports and caches
        res = interleaved({"render": lambda: run_render(paths), "base": lambda: baseline(plain)},
                          args.repeat)
    (elapsed, (_, count)), (base, _) = res["render"], res["base"]
    emit(Row("render", f"render {n} contracts x every target ({count} files)", elapsed,
             "CSafeLoader load + CSafeDumper YAML dump + JSON dump of the same contracts", base,
             "slower", 6.0, args.repeat, note=f"{1000 * elapsed / n:.1f} ms a contract"))


if __name__ == "__main__":
    main()
