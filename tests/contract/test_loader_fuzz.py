"""Thousands of mutated contracts: each loads or raises ContractError with positions; nothing else."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "contracts").glob("*.yaml"))]
TEXTS += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests/fixtures/bad").glob("*.yaml"))]

INDICATORS = [
    *"{}[],:#&*!|>'\"%@`-? \t\n()<=+/;",
    "---", "...", ": ", "- ", "\n  ", "\n- ", "decimal(", "enum[", "null", "~", "1e9", ".inf",
    "!!python/object ", "<<: *a", "&a ", "*a", "!!binary ", "!!set ", "!!float ", "!!int ",
    "!!timestamp ", "? ", "\x00", "\ufeff", "\x85", "\u2028", "123: ", "{a: 1}", "[a, b]",
    " only when ", " is not null", " in (", " between 1 and ", " within catalog hard_bounds for ",
    " equals catalog unit for ", "not ", " and ", " or ", "1.5", "'x'", "2024-01-01", "0x1F",
    "true", "5 trading days", "per series from catalog", "tolerance +/-", "x-meta: ", "é",
]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 7))
        if not text:
            text = "x"
        i = draw(st.integers(0, len(text) - 1))
        j = min(len(text), i + draw(st.integers(1, 12)))
        lines = text.split("\n")
        a = draw(st.integers(0, len(lines) - 1))
        b = draw(st.integers(0, len(lines) - 1))
        if op == 0:  # delete characters
            text = text[:i] + text[j:]
        elif op == 1:  # duplicate characters
            text = text[:i] + text[i:j] + text[i:]
        elif op == 2:  # swap two characters
            if j - i >= 2:
                text = text[:i] + text[j - 1] + text[i + 1 : j - 1] + text[i] + text[j:]
        elif op == 3:  # insert a YAML indicator or a grammar word
            text = text[:i] + draw(st.sampled_from(INDICATORS)) + text[i:]
        elif op == 4:  # swap lines
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif op == 5:  # duplicate a line
            lines.insert(a, lines[b])
            text = "\n".join(lines)
        elif op == 6:  # delete a line
            del lines[a]
            text = "\n".join(lines)
        else:  # swap two tokens
            toks = text.split(" ")
            x = draw(st.integers(0, len(toks) - 1))
            y = draw(st.integers(0, len(toks) - 1))
            toks[x], toks[y] = toks[y], toks[x]
            text = " ".join(toks)
    return text


def _check(text: str) -> None:
    try:
        load("mutant.yaml", text)
    except ContractError as e:
        assert e.diagnostics, "a ContractError carries at least one diagnostic"
        for d in e.diagnostics:
            assert d.line >= 1 and d.col >= 1, d
            assert d.severity == "error" and d.code.startswith("TG") and d.message
            assert d.path == "mutant.yaml"


@settings(
    max_examples=2500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(mutated())
def test_mutated_contracts_load_or_raise_contract_error(text: str) -> None:
    _check(text)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(max_size=200))
def test_arbitrary_text_load_or_raise_contract_error(text: str) -> None:
    _check(text)


def test_known_crashers() -> None:
    """Inputs that once crashed a YAML-with-positions loader."""
    for text in [
        "\ufeffcontract: x",
        "contract: x\nversion: 1.0.0\nfields:\n  ? [a, b]\n  : {type: string}\n",
        "contract: x\nversion: 1.0.0\nfields:\n  1: {type: string}\n  null: {type: string}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: {x: 1}}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: [decimal]}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: decimal(18,8)}}\nkey: {a: 1}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string}}\ntime: {column: [a]}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string, value: [1]}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string}}\ninvariants: {a: 1}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string}}\ninvariants: [[a]]\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string}}\ninvariants: ['']\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: string}}\nrevision_policy: [1]\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: decimal(9,2), unit: '!!'}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: decimal(9,2), unit: 'm/'}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: decimal(9,2), unit: 1e9}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: decimal(9,2), unit: kPa, dimension: '[[['}}\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: int64}}\ninvariants: ['a * a / a - -a > 1e999999']\n",
        "contract: x\nversion: 1.0.0\nfields: {a: {type: int64}}\ninvariants: ['((((a > 1']\n",
        "&a [*a]",
        "a: &a\n  b: *a\n",
    ]:
        _check(text)
