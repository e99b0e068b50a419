"""`tacit_gen.jsontext.dumps` writes exactly what `json.dumps(indent=2, ensure_ascii=False)` writes."""

from __future__ import annotations

import json
from enum import IntEnum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit_gen.jsontext import dumps

_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",))),
                    st.text(st.sampled_from(list('a"\\\n\t\x00\x1f\u2028é😀/'))))
_key = st.one_of(st.text(max_size=5), st.integers(-3, 3), st.booleans(), st.none(), st.floats())
_doc = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(_key, inner, max_size=4)), max_leaves=25)


@settings(max_examples=500, deadline=None)
@given(_doc)
def test_random_documents_match_json_dumps(doc: object) -> None:
    assert dumps(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


class Level(IntEnum):
    LOW = 1


def test_subclasses_and_refusals_match_json_dumps() -> None:
    class Text(str):
        pass

    doc = {"a": Text("x"), "b": Level.LOW, "c": [1.5, float("inf")], Text("k"): {}}
    assert dumps(doc) == json.dumps(doc, indent=2, ensure_ascii=False)
    with pytest.raises(TypeError):
        dumps({"a": {1, 2}})
    with pytest.raises(TypeError):
        dumps({(1, 2): 1})


@settings(max_examples=300, deadline=None)
@given(_doc, st.integers(0, 120))
def test_fitted_reads_back_as_the_same_data(doc: object, width: int) -> None:
    """`dumps_fitted` is JSON that loads to what `dumps` loads to (NaN compared as text)."""
    from tacit_gen.jsontext import dumps_fitted

    fitted = dumps_fitted(doc, width)
    assert dumps(json.loads(fitted)) == dumps(json.loads(dumps(doc)))


def test_fitted_keeps_what_fits_on_one_line() -> None:
    from tacit_gen.jsontext import dumps_fitted

    doc = {"kwargs": {"column": "a", "values": [1, 2]}, "long": ["x" * 30, "y" * 30, "z" * 30]}
    assert dumps_fitted(doc, 60) == (
        '{\n  "kwargs": {"column": "a", "values": [1, 2]},\n'
        f'  "long": [\n    "{"x" * 30}",\n    "{"y" * 30}",\n    "{"z" * 30}"\n  ]\n}}')
    assert dumps_fitted([], 60) == "[]" and dumps_fitted({"a": {}}, 60) == '{"a": {}}'
