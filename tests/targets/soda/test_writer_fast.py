"""The direct YAML writer of `tacit_gen.targets.soda.writer.dump` writes exactly PyYAML's text.

`dump` writes common shapes itself and asks PyYAML only for unusual scalars; these tests compare
it with PyYAML's emitter (`pyyaml_dump`, the same dumper and options) on random documents with
hostile strings, on the shapes the Soda targets write, and on every bundled contract's render.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit_gen.targets.soda.writer import Block, Num, dump, pyyaml_dump, write_direct

ROOT = Path(__file__).resolve().parents[3]

_chars = st.characters(codec="utf-8", exclude_categories=("Cs",))
_text = st.one_of(
    st.text(_chars, max_size=12),
    st.text(st.sampled_from(list("ab :#-'\"\n |>?!&*%@`,[]{}\t\\yesnul0.1e\x85\u2028é")), max_size=10),
    st.sampled_from(["yes", "No", "null", "~", "1", "-1.5", "2024-01-01", "=", "<<", "---", "...",
                     "a: b", "a #b", "fail condition", "SELECT 1\nFROM t\n", " x", "x ", ""]),
)
_scalar = st.one_of(
    _text,
    _text.map(Block),
    st.sampled_from(["1", "-2", "1.5", "1e5", "0x1F", ".5"]).map(Num),
    st.booleans(),
    st.integers(-10**6, 10**6),
    st.none(),
)
_key = st.one_of(_text, st.booleans(), st.integers(-5, 5))
_doc = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_key, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_key, _doc, min_size=1, max_size=5))
def test_random_documents_match_pyyaml(doc: dict[object, object]) -> None:
    assert dump(doc) == pyyaml_dump(doc)


def test_soda_shapes_match_pyyaml() -> None:
    sql = Block("SELECT *\nFROM t\n\nWHERE a = 'x'\n  AND b IS NULL\n")
    doc = {
        "checks for fct": [
            {"schema": {"fail": {"when required column missing": ["a", "b c", "yes"]}}},
            {"missing_count(a) = 0": {"name": "not_null:a"}},
            {"failed rows": {"name": "range:v", "fail query": sql, "samples limit": Num("10")}},
            {"invalid_count(q) = 0": {"valid values": ["good", "bad", ""], "valid min": Num("-1.5")}},
            {"x": {}}, {"y": []}, {"z": [[Block("a\n"), {}], {"k": Block(" lead\n")}]},
        ]
    }
    assert write_direct(doc) == pyyaml_dump(doc)  # written directly, no fallback to PyYAML


def test_shared_objects_and_odd_roots_fall_back_to_pyyaml() -> None:
    shared = {"a": 1}
    for doc in ({"x": shared, "y": shared}, {}, [], "text", {"k": 1.5}, {"k": "a\nb"}):
        assert write_direct(doc) is None
        assert dump(doc) == pyyaml_dump(doc)


def test_bundled_contracts_render_the_same_through_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    from tacit_gen import render
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.soda import render as soda_render
    from tacit_gen.targets.soda4 import render as soda4_render

    paths = sorted((ROOT / "contracts").glob("*.yaml"))
    targets = ("soda", "soda4")
    fast = {a.path: a.content for a in render.render_all(paths, targets, RenderOptions()).artifacts}
    monkeypatch.setattr(soda_render, "dump", pyyaml_dump)
    monkeypatch.setattr(soda4_render, "dump", pyyaml_dump)
    slow = {a.path: a.content for a in render.render_all(paths, targets, RenderOptions()).artifacts}
    assert len(fast) >= 2 * len(paths) - 1
    assert fast == slow
