"""`tacit_gen.yamltext.BlockWriter` writes exactly its reference dumper's text: PyYAML's emitter
with indented sequences (the Soda targets) and libyaml's with indentless ones (dbt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit_gen.targets.dbt.render import properties_yaml
from tacit_gen.yamltext import BlockWriter

ROOT = Path(__file__).resolve().parents[1]
DBT = BlockWriter(properties_yaml, indentless=True)

_chars = st.characters(codec="utf-8", exclude_categories=("Cs",))
_text = st.one_of(
    st.text(_chars, max_size=12),
    st.text(st.sampled_from(list("ab :#-'\"\n |>?!&*%@`,[]{}\t\\yesnul0.1e\x85\u2028é{%}")), max_size=10),
    st.sampled_from(["yes", "No", "null", "~", "1", "-1.5", "2024-01-01", "=", "<<", "---", "...",
                     "a: b", "a #b", "not_null", "dbt_utils.expression_is_true", "x ", " x", ""]),
)
_scalar = st.one_of(_text, st.booleans(), st.integers(-10**6, 10**6), st.none())
_key = st.one_of(_text, st.booleans(), st.integers(-5, 5))
_doc = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_key, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_key, _doc, min_size=1, max_size=5))
def test_indentless_libyaml_documents_match(doc: dict[object, object]) -> None:
    direct = DBT.write(doc)
    assert direct is None or direct == properties_yaml(doc)


def test_dbt_shapes_are_written_directly() -> None:
    doc = {"version": 2, "models": [{
        "name": "fct", "description": "Sensor readings",
        "config": {"contract": {"enforced": True}, "meta": {"tacit_clauses": {"not_null:a": "a: {type: x}"}}},
        "columns": [{"name": "a", "data_type": "varchar", "constraints": [{"type": "not_null"}],
                     "tests": ["not_null", {"accepted_values": {"values": ["good", "bad"]}}]},
                    {"name": "b", "tests": []}],
    }]}
    assert DBT.write(doc) == properties_yaml(doc)


@pytest.mark.parametrize("doc", [{"a": "line1\nline2"}, {"x": {"k": 1.5}}, {}])
def test_other_shapes_are_left_to_the_reference(doc: dict[str, object]) -> None:
    assert DBT.write(doc) is None


def test_bundled_dbt_properties_match_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    from tacit_gen import render
    from tacit_gen.targets.base import RenderOptions
    from tacit_gen.targets.dbt import render as dbt_render

    paths = sorted((ROOT / "contracts").glob("*.yaml"))
    fast = {a.path: a.content for a in render.render_all(paths, ("dbt",), RenderOptions()).artifacts}
    class Reference:  # every document through the reference dumper
        def write(self, data: object) -> None:
            return None

    monkeypatch.setattr(dbt_render, "_WRITER", Reference())
    slow = {a.path: a.content for a in render.render_all(paths, ("dbt",), RenderOptions()).artifacts}
    assert len(fast) == len(paths) + 1  # one properties file each and the shared macros
    assert fast == slow


# One-line printable ASCII (the check names, conditions and names a render writes most) is
# written without either emitter: plain when it may be, else single-quoted. Weighted towards the
# characters that decide the style (indicators, `: `, ` #`, quotes, document markers).
_ascii = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
_deciding = st.sampled_from([*list("-?:#,[]{}&*!|>'\"%@` ."), "---", "...", ": ", " #", "''"])
_line = st.one_of(
    st.text(_ascii, min_size=1, max_size=16),
    st.lists(st.one_of(_deciding, st.text(st.sampled_from("ab1_ "), max_size=3)), min_size=1,
             max_size=6).map("".join),
    st.sampled_from(["true", "Off", "~", "null", "0x1F", "0o17", "1_000", "+1", ".inf", "-.NaN",
                     "1e3", "12:30:45", "190:20:30", "2001-12-14t21:59:43.10-05:00", "2024-01-01"]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_line, min_size=1, max_size=6), st.sampled_from(["dbt", "soda"]))
def test_one_line_ascii_strings_match_the_reference(lines: list[str], writer: str) -> None:
    from tacit_gen.targets.soda.writer import pyyaml_dump, write_direct

    doc = {"k": lines[0], "items": lines, "nested": [{"name": x, "v": x} for x in lines],
           "keys": {x: i for i, x in enumerate(lines)}, lines[-1]: "last"}
    if writer == "dbt":
        direct, reference = DBT.write(doc), properties_yaml(doc)
    else:
        direct, reference = write_direct(doc), pyyaml_dump(doc)
    if all(x and x == x.strip() for x in lines):  # no edge space: written directly
        assert direct is not None
    assert direct is None or direct == reference


RESOLVED = ["yes", "No", "TRUE", "false", "on", "Off", "null", "Null", "~", "1", "-1", "+1.5", "0x1F",
            "017", "1_000", "1:20", "190:20:30", "2024-01-01", "2024-01-01T00:00:00Z", ".5",
            ".inf", "-.Inf", ".NaN", "<<", "=", "1.0e+5", "0b101", "2001-12-14 21:59:43.10 -5", "01"]
# PyYAML reads YAML 1.1: `0o17` and `1e5` (no dot) are strings there
STRINGS = ["not_null", "tests", "name", "yesno", "nullable", "3.14.15", "2024-1-1", "-", "+", "._",
           "1e", "true_value", "onward", "0x", "<", "<<<", "==", "1.2.3", "--1", "+-1", "12:5x",
           "0o17", "1e5", "1E+5"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from([*RESOLVED, *STRINGS]) | st.text("yYnNtTfFoOeE-+0189.:_<~= ", max_size=6),
                min_size=1, max_size=3).map("".join).filter(lambda t: t.strip() == t and t))
def test_a_plain_text_is_a_string_exactly_when_the_resolver_says_so(text: str) -> None:
    """The union of a first character's resolver patterns answers as PyYAML's resolver does."""
    import yaml
    import yaml.resolver

    from tacit_gen.yamltext import resolves_to_str

    reference = yaml.resolver.Resolver()  # the safe dumpers' resolver
    assert resolves_to_str(text) == (
        reference.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str")


def test_the_resolver_union_answers_for_the_words_yaml_reads_otherwise() -> None:
    from tacit_gen.yamltext import resolves_to_str

    assert not any(resolves_to_str(w) for w in RESOLVED)
    assert all(resolves_to_str(w) for w in STRINGS)
