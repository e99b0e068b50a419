"""`tacit_gen.fmt.format_text`: canonical, plain YAML, comments kept, idempotent, same meaning."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit_gen.contract import yamlpos
from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import TOP_KEYS, load
from tacit_gen.fmt import format_text
from tacit_gen.plan import plan

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = sorted((ROOT / "contracts").glob("*.yaml"))


def _meaning(text: str) -> object:
    root, _, _ = yamlpos.compose(text)
    assert root is not None
    return yamlpos.plain(root)


@pytest.mark.parametrize("path", CONTRACTS, ids=lambda p: p.stem)
def test_bundled_contracts_format_to_the_same_contract(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    out = format_text(text, path.name)
    assert format_text(out, path.name) == out  # idempotent
    # plain YAML (PyYAML, no protection) reads the output as the loader reads the original
    assert yaml.safe_load(out) == _meaning(text)
    assert "type: '" in out and "decimal(" not in out.replace("'decimal(", "")
    before, after = load(path.name, text), load(path.name, out)
    assert before == after
    # the same clauses (ids, kinds, columns, params); `text` is the verbatim source, reformatted
    def sem(c: object) -> tuple[object, ...]:
        return tuple((x.id, x.kind, x.columns, x.params) for x in plan(c))  # type: ignore[arg-type]

    assert sem(before) == sem(after)
    # every comment survives
    comments = [ln[ln.index("#"):] for ln in text.splitlines() if "#" in ln]
    for c in comments:
        assert c in out


def test_top_level_keys_are_reordered_with_their_comments() -> None:
    text = (
        "# header comment\n"
        "fields:\n"
        "  a: {type: decimal(18,8), unit: USD}   # price\n"
        "  q: {type: enum[good, bad]}\n"
        "x-team: {slack: '#data'}\n"
        "invariants:\n"
        "  - a >= 0  # never negative\n"
        "version: 1.0.0\n"
        "time: {freshness: 15m, column: ts}\n"
        "contract: reorder_me\n"
    )
    text = text.replace("fields:\n", "fields:\n  ts: {type: timestamp_ms_utc}\n", 1)
    out = format_text(text, "r.yaml")
    top = [k for k in yaml.safe_load(out)]
    assert top == ["contract", "version", "time", "fields", "invariants", "x-team"]
    assert [k for k in TOP_KEYS if k in top] == top[:-1]
    assert out.startswith("# header comment\n")
    assert "# price" in out and "# never negative" in out
    assert "type: 'decimal(18,8)'" in out and "type: 'enum[good, bad]'" in out
    assert yaml.safe_load(out)["time"] == {"column": "ts", "freshness": "15m"}
    assert yaml.safe_load(out)["x-team"] == {"slack": "#data"}
    assert format_text(out, "r.yaml") == out
    assert load("r.yaml", out) == load("r.yaml", text)


def test_block_style_and_shorthand_types_are_quoted() -> None:
    text = "contract: x\nversion: 1.0.0\nfields:\n  a:\n    type: decimal(9,2)\n    unit: kPa\n  b: string\n"
    out = format_text(text, "b.yaml")
    assert "    type: 'decimal(9,2)'\n" in out
    assert "  b: 'string'\n" in out
    assert load("b.yaml", out) == load("b.yaml", text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a: {b: 1\n", "TG100"),
        ("contract: x\ncontract: y\n", "TG101"),
        ("- a\n", "TG103"),
    ],
)
def test_refuses_what_it_cannot_format(text: str, code: str) -> None:
    with pytest.raises(ContractError) as info:
        format_text(text, "bad.yaml")
    assert info.value.diagnostics[0].code == code
    assert info.value.diagnostics[0].path == "bad.yaml"


def _blocks(text: str) -> list[str]:
    """Top-level blocks: each top-level key with its indented lines."""
    blocks: list[str] = []
    for line in text.splitlines(keepends=True):
        if line[:1].isalpha() or not blocks:
            blocks.append(line)
        else:
            blocks[-1] += line
    return blocks


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.sampled_from(CONTRACTS), st.randoms(use_true_random=False))
def test_any_key_order_formats_to_the_same_text(path: Path, rnd: object) -> None:
    text = path.read_text(encoding="utf-8")
    blocks = [b for b in _blocks(text) if not b.startswith("#")]
    rnd.shuffle(blocks)  # type: ignore[attr-defined]
    shuffled = "".join(blocks)
    expected = format_text("".join(b for b in _blocks(text) if not b.startswith("#")), path.name)
    assert format_text(shuffled, path.name) == expected
