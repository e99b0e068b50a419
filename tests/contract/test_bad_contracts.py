"""Every kind of bad contract: exact path:line:col, the code, and the offending word in the message.

Each fixture in tests/fixtures/bad/ opens with one `# expect: LINE:COL CODE WORD` line per error
the loader must report (all of them, in order, nothing else).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load, load_report

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "fixtures" / "bad"
FIXTURES = sorted(BAD.glob("*.yaml"))
EXPECT = re.compile(r"^# expect: (\d+):(\d+) (TG\d{3}) (.+)$")

# The kinds the brief lists, each mapped to the fixture that proves it.
KINDS = {
    "yaml syntax error": "syntax_error.yaml",
    "tab indentation": "syntax_error_tab.yaml",
    "duplicate key (all of them)": "duplicate_keys.yaml",
    "unknown key with did-you-mean": "unknown_keys.yaml",
    "unknown type": "unknown_type.yaml",
    "malformed decimal": "malformed_decimal.yaml",
    "malformed enum": "malformed_enum.yaml",
    "unknown column in an invariant": "unknown_column_invariant.yaml",
    "enum literal not in the enum": "enum_literal.yaml",
    "kPa vs bar": "units_kpa_bar.yaml",
    "price vs volume": "units_price_volume.yaml",
    "different dimensions": "units_dimensions.yaml",
    "arithmetic across units": "units_arithmetic.yaml",
    "nullable key": "nullable_key.yaml",
    "nullable time column": "nullable_time.yaml",
    "float money": "float_money.yaml",
    "non-semver version": "non_semver.yaml",
    "key column that does not exist": "key_missing.yaml",
    "multiple errors in one file": "multiple_errors.yaml",
}


def _expected(path: Path) -> list[tuple[int, int, str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = EXPECT.match(line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
    return out


def test_every_kind_has_a_fixture() -> None:
    names = {p.name for p in FIXTURES}
    assert set(KINDS.values()) <= names
    assert all(_expected(p) for p in FIXTURES), "every fixture states what it expects"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_bad_fixture_reports_exactly(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    with pytest.raises(ContractError) as info:
        load(rel)
    got = [(d.line, d.col, d.code, d.word) for d in info.value.diagnostics]
    assert got == _expected(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for d in info.value.diagnostics:
        assert d.severity == "error"
        assert d.path == rel
        rendered = d.render()
        assert rendered.startswith(f"{rel}:{d.line}:{d.col}: error: ")
        assert rendered.endswith(f"[{d.code}]")
        # the offending word is named in the message and (except for control characters) sits at
        # the reported position in the file
        assert d.word in d.message or repr(d.word)[1:-1] in d.message
        if d.word.isprintable() and not d.word.startswith("\\"):
            assert lines[d.line - 1][d.col - 1 :].startswith(d.word)
    # the str() of the error is the rendered diagnostics, one per line
    assert str(info.value).splitlines() == [d.render() for d in info.value.diagnostics]


def _errors(text: str) -> list[tuple[int, int, str, str]]:
    contract, diags = load_report("inline.yaml", text)
    assert contract is None
    return [(d.line, d.col, d.code, d.word) for d in diags if d.severity == "error"]


def test_word_sits_at_the_position_for_invariant_errors() -> None:
    text = (
        "contract: x\nversion: 1.0.0\nfields:\n  a: {type: decimal(9,3), unit: kPa}\n"
        "  b: {type: decimal(9,3), unit: bar}\ninvariants:\n  - 'a <= b'\n  - \"  a > zz\"\n"
    )
    errs = _errors(text)
    assert errs == [(7, 11, "TG111", "b"), (8, 12, "TG107", "zz")]
    lines = text.splitlines()
    for line, col, _, word in errs:
        assert lines[line - 1][col - 1 :].startswith(word)


def test_duplicate_keys_all_reported_with_first_line() -> None:
    text = "contract: a\ncontract: b\nversion: 1.0.0\nversion: 1.0.1\nfields: {a: {type: string}}\nfields: {}\n"
    contract, diags = load_report("d.yaml", text)
    assert contract is None
    dups = [d for d in diags if d.code == "TG101"]
    assert [(d.line, d.col, d.word) for d in dups] == [(2, 1, "contract"), (4, 1, "version"), (6, 1, "fields")]
    assert "first at line 1" in dups[0].message and "first at line 3" in dups[1].message


def test_did_you_mean_everywhere() -> None:
    text = (
        "contract: x\nversion: 1.0.0\nfeilds:\n  a: {type: string}\n"
        "revision_policy: {alowed: true}\n"
    )
    _, diags = load_report("t.yaml", text)
    msgs = [d.message for d in diags if d.severity == "error"]
    assert "unknown key 'feilds' in the contract; did you mean 'fields'?" in msgs
    assert "unknown key 'alowed' in 'revision_policy'; did you mean 'allowed'?" in msgs
    # the misspelled key is not reported a second time as missing
    assert not any("has no 'fields'" in m for m in msgs)


@pytest.mark.parametrize(
    ("text", "code", "word"),
    [
        ("", "TG103", ""),
        ("- a\n- b\n", "TG103", ""),
        ("just a string\n", "TG103", "just a string"),
        ("contract: x\nversion: 1.0.0\nfields: [a, b]\n", "TG103", ""),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: [string]\n", "TG103", "a"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {nullable: true}\n", "TG104", "a"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string, nullable: maybe}\n", "TG103", "maybe"),
        ("contract: x\nversion: 1.0.0\nfields:\n  1a: {type: string}\n", "TG115", "1a"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: bool, value: 3}\n", "TG114", "3"),
        ("contract: x\nversion: 1.0.0\ntime: {column: a, freshness: soon}\nfields:\n  a: {type: timestamp_s_utc}\n", "TG106", "soon"),
        ("contract: x\nversion: 1.0.0\ntime: {column: a, cadence: often}\nfields:\n  a: {type: timestamp_s_utc}\n", "TG106", "often"),
        ("contract: x\nversion: 1.0.0\ntime: {column: a, timezone: Europe/Paris}\nfields:\n  a: {type: timestamp_s_utc}\n", "TG114", "Europe/Paris"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\ninvariants:\n  - a ==\n", "TG108", "end of expression"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\ninvariants:\n  - a = 'x\n", "TG108", "'x"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\ninvariants:\n  - a > 1\n", "TG110", ">"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\nevolution: {compatibility: FUL}\n", "TG114", "FUL"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\ntargets: {dbtt: {}}\n", "TG102", "dbtt"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: string}\n---\ncontract: y\n", "TG100", "---"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: &x {type: string}\n  b: *y\n", "TG100", "*y"),
        # a key naming a column twice, no fields at all, an empty `between`
        ("contract: x\nversion: 1.0.0\nkey: [a, a]\nfields:\n  a: {type: string}\n", "TG114", "a"),
        ("contract: x\nversion: 1.0.0\nfields: {}\n", "TG104", "fields"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: int64}\ninvariants:\n  - a between 10 and 1\n",
         "TG114", "10"),
        ("contract: x\nversion: 1.0.0\nfields:\n  a: {type: int64}\ninvariants:\n  - a not between 2.5 and 1\n",
         "TG114", "2.5"),
    ],
)
def test_other_bad_values(text: str, code: str, word: str) -> None:
    errs = _errors(text)
    assert any(c == code and w == word for _, _, c, w in errs), errs
    assert all(line >= 1 and col >= 1 for line, col, _, _ in errs)


def test_unreadable_file_is_a_diagnostic(tmp_path: Path) -> None:
    p = tmp_path / "latin1.yaml"
    p.write_bytes(b"contract: caf\xe9\n")
    contract, diags = load_report(p)
    assert contract is None
    assert diags[0].code == "TG100" and diags[0].line == 1 and diags[0].col == 14  # the byte
    contract, diags = load_report(tmp_path / "missing.yaml")
    assert contract is None and diags[0].code == "TG100"
