"""The render benchmark's contracts are what its docstring says: each copy its own contract and
column names (so no memo of one copy's text serves another), every copy a valid contract."""

from __future__ import annotations

from pathlib import Path

from tacit_gen import registry
from tacit_gen.contract.loader import load
from tacit_gen.render import render_all
from tacit_gen.targets.base import RenderOptions
from tests.benchmarks.bench_render import make_contracts


def test_each_copy_has_its_own_names_and_renders(tmp_path: Path) -> None:
    paths = make_contracts(tmp_path, 9)
    contracts = [load(p) for p in paths]
    assert len({c.name for c in contracts}) == 9
    for i, a in enumerate(contracts):
        for b in contracts[i + 3::3]:  # copies of the same bundled contract
            shared = {f.name for f in a.fields} & {f.name for f in b.fields}
            # what cannot be renamed: `revision` (the provenance column), `unit` (also a key of
            # the contract format) and `value` (a keyword, kept as the bundled contract has it)
            assert shared <= {"revision", "unit", "value"}, shared
            assert len(a.fields) == len(b.fields) and len(a.invariants) == len(b.invariants)
    run = render_all(paths, registry.names(), RenderOptions())
    assert not run.errors and len(run.artifacts) > 9 * 8


def test_made_free_skips_each_part_and_restores_it(tmp_path: Path) -> None:
    """The decomposition rows measure what they say: inside the block the contracts come from
    the given table, the YAML and JSON texts are empty and no cache entry is written; after it,
    every part is back, and a render is the one before."""
    from tacit_gen import jsontext, yamltext
    from tacit_gen import render as r
    from tacit_gen.rendercache import RenderCache
    from tests.benchmarks.bench_render import made_free

    paths = make_contracts(tmp_path, 3)
    names = registry.names()
    before = [(a.path, a.content) for a in render_all(paths, names, RenderOptions()).artifacts]
    loaded = {p: r.load_rooted(p) for p in paths}
    saved = (r.load_rooted, yamltext.BlockWriter.write, jsontext.dumps, jsontext.dumps_fitted,
             RenderCache._store)
    asked: list[Path] = []

    class Table(dict):  # type: ignore[type-arg]
        def __getitem__(self, key: Path) -> object:
            asked.append(key)
            return super().__getitem__(key)

    with made_free(("load", "write", "store"), Table(loaded)):
        cache = RenderCache(tmp_path / "c1")
        run = render_all(paths, names, RenderOptions(), cache)
        assert asked == paths
        body = {a.path: [ln for ln in a.content.splitlines() if ln.strip() and not ln.startswith("#")]
                for a in run.artifacts if a.path.endswith((".yml", ".json", ".avsc"))}
        assert body and not any(body.values()), {k: v[:2] for k, v in body.items() if v}
        assert not list((tmp_path / "c1").rglob("*.entry"))
        assert RenderCache._store is not saved[4]  # (the line above passes vacuously within 2 s of an edit)
    assert (r.load_rooted, yamltext.BlockWriter.write, jsontext.dumps, jsontext.dumps_fitted,
            RenderCache._store) == saved
    after = [(a.path, a.content) for a in render_all(paths, names, RenderOptions()).artifacts]
    assert after == before
