"""Benchmark: render N contracts (default 501) to every target, against a baseline in the same run.

The baseline is the floor any tool pays for the same files: reading each contract with PyYAML's
C loader (``CSafeLoader``) and writing its data back out as YAML (``CSafeDumper``) and JSON. The
seed's notation (``enum[good, suspect, bad]`` and ``decimal(12,4)`` unquoted in flow mappings)
is not plain YAML, so the baseline reads each contract's canonical form (``tacit-gen fmt``, made
before timing): the same data, every contract loaded (a contract PyYAML refused used to cost the
baseline nothing, which flattered it). The figure to watch is the ratio (goal: within 6x), not
the seconds. Every row is timed interleaved with the baseline, median of R runs. Each row's note
also says how much text each side writes: a render writes every target's artifacts, dozens of
times the text the baseline writes back.

The N contracts are the bundled three, each copy with its own contract name and its own column
names (``symbol`` becomes ``symbol_17`` in copy 17, in its key, invariants and every clause), so
nothing of one copy's text is another's: a cache of contract content could not serve them. What
they share is their queries' shapes, as the contracts of one team's repository do. Three rows:

- ``render`` as the CLI runs it on a fresh machine (CI): every cache empty at the start, the
  render cache written at the end, the SQL templates (`tacit_gen.sql.shapes`) compiled by the
  first copy of each shape and filled in for the others;
- ``render --no-cache``: every query printed by sqlglot, the figure for a repository where no
  two contracts share a query's shape;
- ``check`` with the render cache warm: every contract's artifacts read back, none rendered.

Four more rows say where the fresh render's time goes, each the same render with a part of it
made free (a measurement only: the artifacts are not right then): the contracts already loaded
(what loading costs is the difference from the fresh row), the YAML and JSON writers returning
nothing, the render cache's entries not written, and all three at once, which leaves the
targets' own work (planning, building each document, the SQL). They have no goal.

    python tests/benchmarks/bench_render.py [N] [--repeat R] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.benchmarks.rows import Row, emit, interleaved, use_json  # noqa: E402

_PARTS = (("load",), ("write",), ("store",), ("load", "write", "store"))
_PART_NAMES = {"load": "loading the contracts", "write": "writing YAML and JSON",
               "store": "writing the render cache's entries"}


def _renamable(text: str, tag: str) -> list[str]:
    """The field names of a contract text that can be renamed to ``<name>_<tag>`` everywhere
    (as a whole word) and still give the same contract with only that column renamed: the
    renamed text loads, and renaming back gives the original's canonical form. A name SQL must
    quote (a keyword: `value`) is kept, as the bundled contract has it: its queries take the
    templates of quoted names (`tacit_gen.sql.shapes`), compiled from the first copy."""
    from tacit_gen.contract.loader import load
    from tacit_gen.fmt import format_text
    from tacit_gen.sql.names import prints_as_itself

    original = load("bench.yaml", text)
    canon = format_text(text, "bench.yaml")
    out = []
    for f in original.fields:
        if not prints_as_itself(f.name):
            continue
        new = f"{f.name}_{tag}"
        renamed = _rename(text, [f.name], tag)
        try:
            got = load("bench.yaml", renamed)
        except Exception:
            continue
        back = re.sub(rf"\b{re.escape(new)}\b", f.name, format_text(renamed, "bench.yaml"))
        if [g.name for g in got.fields] == [new if g.name == f.name else g.name for g in original.fields] \
                and back == canon:
            out.append(f.name)
    return out


def _rename(text: str, names: list[str], tag: str) -> str:
    for name in names:
        text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", f"{name}_{tag}", text)
    return text


def make_contracts(folder: Path, n: int) -> list[Path]:
    """N contracts: the bundled ones in turn, each copy with its own contract and column names."""
    sources = sorted((ROOT / "contracts").glob("*.yaml"))
    texts = [src.read_text() for src in sources]
    names = [_renamable(t, "0") for t in texts]
    out = []
    for i in range(n):
        text, renamable = texts[i % len(texts)], names[i % len(texts)]
        first = text.split("contract: ", 1)[1].split("\n", 1)[0].strip()
        text = _rename(text, renamable, str(i))
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


def baseline_bytes(paths: list[Path]) -> int:
    """The characters the baseline writes (its YAML and JSON texts), for the rows' notes."""
    total = 0
    for p in paths:
        data = yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
        total += len(yaml.dump(data, Dumper=yaml.CSafeDumper)) + len(json.dumps(data, default=str))
    return total


def artifact_bytes(paths: list[Path]) -> int:
    """The characters a render of `paths` writes (every artifact's text)."""
    from tacit_gen import registry
    from tacit_gen import render as r
    from tacit_gen.targets.base import RenderOptions

    return sum(len(a.content) for a in r.render_all(paths, registry.names(), RenderOptions()).artifacts)


def run_render(paths: list[Path], cache_dir: Path | None = None, fresh: bool = True) -> tuple[float, int]:
    """Render every contract: with `cache_dir`, as the CLI does (its render cache and SQL
    templates there; `fresh`: a folder not made yet, as on a new machine), else as ``--no-cache``."""
    from tacit_gen import registry
    from tacit_gen import render as r
    from tacit_gen.rendercache import RenderCache
    from tacit_gen.targets.base import RenderOptions

    if cache_dir is not None and fresh:
        assert not cache_dir.exists()
    cache = RenderCache(cache_dir / "render") if cache_dir is not None else None
    t0 = time.perf_counter()
    result = r.render_all(paths, registry.names(), RenderOptions(), cache)
    elapsed = time.perf_counter() - t0
    assert not result.errors, result.errors[:3]
    return elapsed, len(result.artifacts)


@contextlib.contextmanager
def made_free(parts: tuple[str, ...], loaded: dict[Path, Any]) -> Iterator[None]:
    """Within the block, the render skips `parts`: ``load`` (each contract taken from `loaded`,
    made before timing: the same objects every run, so what a render caches on a contract, such
    as its positions' index, is built once; well under 1%), ``write`` (the YAML and JSON writers return an empty text), ``store``
    (the render cache's entries are not written). For the decomposition rows only."""
    from tacit_gen import jsontext, yamltext
    from tacit_gen import render as r
    from tacit_gen.rendercache import RenderCache

    saved = (r.load_rooted, yamltext.BlockWriter.write, jsontext.dumps, jsontext.dumps_fitted,
             RenderCache._store)
    try:
        if "load" in parts:
            r.load_rooted = loaded.__getitem__  # type: ignore[assignment]
        if "write" in parts:
            yamltext.BlockWriter.write = lambda self, data: ""  # type: ignore[method-assign]
            jsontext.dumps = lambda data: ""
            jsontext.dumps_fitted = lambda data, width=100: ""
        if "store" in parts:
            RenderCache._store = lambda self, entries, began=None: 0  # type: ignore[method-assign]
        yield
    finally:
        (r.load_rooted, yamltext.BlockWriter.write, jsontext.dumps, jsontext.dumps_fitted,
         RenderCache._store) = saved  # type: ignore[method-assign]


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
        warm = Path(d) / "cache-warm"
        fresh = (Path(d) / f"cache-cold-{k}" for k in itertools.count())  # a new empty folder each run
        run_render(paths[:3])  # warm imports and in-process caches (never the on-disk ones)
        written, base_written = artifact_bytes(paths), baseline_bytes(plain)
        run_render(paths, warm)  # the warm cache of the `check` row
        if not any((warm / "render").rglob("*.entry")):  # else every row measures no cache
            sys.exit("the render cache stored nothing: tacit-gen's files changed within 2 s "
                     "before this run (a checkout, an edit); run the bench again")
        from tacit_gen.render import load_rooted

        loaded = {p: load_rooted(p) for p in paths}

        def free(*parts: str) -> tuple[float, int]:
            with made_free(parts, loaded):
                return run_render(paths, next(fresh))

        res = interleaved({"cli": lambda: run_render(paths, next(fresh)),
                           "nocache": lambda: run_render(paths),
                           "warm": lambda: run_render(paths, warm, fresh=False),
                           **{f"free:{'+'.join(parts)}": functools.partial(free, *parts) for parts in _PARTS},
                           "base": lambda: baseline(plain)}, args.repeat)
    base = res["base"][0]
    base_name = "CSafeLoader load + CSafeDumper YAML dump + JSON dump of the same contracts"
    for key, what in (("cli", "render {n} contracts x every target ({count} files), every cache empty "
                              "at the start (a fresh machine: the SQL templates compiled once per shape)"),
                      ("nocache", "render --no-cache {n} contracts ({count} files): every query "
                                  "printed by sqlglot, no shape reused"),
                      ("warm", "check {n} contracts ({count} files), render cache warm: nothing rendered")):
        elapsed, (_, count) = res[key]
        emit(Row("render", what.format(n=n, count=count), elapsed, base_name, base, "slower", 6.0,
                 args.repeat, note=f"{1000 * elapsed / n:.1f} ms a contract; artifacts of "
                                   f"{written / n / 1000:.1f} kB a contract against the baseline's "
                                   f"{base_written / n / 1000:.1f} kB of YAML and JSON "
                                   f"({written / base_written:.0f}x the text)"))
    cli = res["cli"][0]
    for parts in _PARTS:
        elapsed, _ = res[f"free:{'+'.join(parts)}"]
        what = _PART_NAMES[parts[0]] if len(parts) == 1 else "all three"
        left = " (left: the targets' own work)" if len(parts) > 1 else ""
        emit(Row("render", f"the fresh render of {n} contracts with {what} made free{left}: "
                           "a decomposition, not a goal", elapsed, base_name, base, "slower", None,
                 args.repeat, note=f"{what}: {cli - elapsed:.3f} s of the fresh render's {cli:.3f} s "
                                   f"({100 * (cli - elapsed) / cli:.0f}%, {(cli - elapsed) / base:.2f}x the "
                                   "baseline)"))


if __name__ == "__main__":
    main()
