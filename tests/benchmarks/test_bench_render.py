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
