"""`severity: {warn: [<clause id>, ...]}`: loaded with positions, applied by the plan, refused with
line:col and a did-you-mean when an id names no clause (or a structural one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "contracts" / "ohlcv_warn.yaml"
WARNED = {"range:volume", "invariant:low <= close <= high", "not_null:volume",
          "unique:symbol,bar_start,revision", "cadence:bar_start", "fixed_value:adjusted"}


def with_severity(tmp_path: Path, block: str) -> Path:
    text = FIXTURE.read_text(encoding="utf-8").split("severity:\n")[0] + block
    p = tmp_path / "c.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_plan_carries_each_listed_clause_as_warn_and_the_rest_as_error() -> None:
    clauses = plan(load(FIXTURE))
    assert {c.id for c in clauses if c.warn} == WARNED
    assert all(c.severity == "error" for c in clauses if c.id not in WARNED)


@pytest.mark.parametrize(("block", "where", "code", "words"), [
    ("severity:\n  warn: [range:volumes]\n", "25:10", "TG119",
     "'range:volumes', which is not a clause of this contract; did you mean 'range:volume'?"),
    ("severity:\n  warn:\n    - invariant:volume >= 0\n", "26:7", "TG119",
     "did you mean 'range:volume'? (`tacit-gen explain` lists the clause ids)"),
    ("severity:\n  warn:\n    - column:volume\n", "26:7", "TG114",
     "'column:volume' cannot be a warning"),
    ("severity:\n  warn:\n    - no_unknown_columns\n", "26:7", "TG114", "cannot be a warning"),
    ("severity:\n  fail: [range:volume]\n", "25:3", "TG102", "unknown key 'fail' in 'severity'"),
    ("severity:\n  warn: [range:volume, range:volume]\n", "25:24", "TG101",
     "clause 'range:volume' is listed twice"),
    ("severity: warn\n", "24:11", "TG103", "'severity' must be a mapping"),
])
def test_a_bad_severity_is_an_error_with_its_position(tmp_path: Path, block: str, where: str,
                                                      code: str, words: str) -> None:
    path = with_severity(tmp_path, block)
    result = CliRunner().invoke(main, ["lint", str(path)])
    assert result.exit_code == 1, result.output
    line = next(ln for ln in result.output.splitlines() if f"[{code}]" in ln)
    assert f":{where}: error: " in line and words in line, result.output
    # every other command refuses it too: exit 2, the same message, never a traceback
    explained = CliRunner().invoke(main, ["explain", str(path)])
    assert explained.exit_code == 2 and words in explained.output, explained.output


def test_plan_refuses_an_unknown_id_for_library_callers(tmp_path: Path) -> None:
    contract = load(with_severity(tmp_path, "severity:\n  warn: [range:nope]\n"))
    with pytest.raises(ContractError, match="TG119"):
        plan(contract)


def test_explain_marks_warn_clauses() -> None:
    result = CliRunner().invoke(main, ["explain", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    rows = {ln.split()[0]: ln for ln in result.output.splitlines() if ln and ":" in ln.split()[0]}
    assert "range (warn)" in rows["range:volume"]
    assert "(warn)" not in rows["range:revision"]
    data = CliRunner().invoke(main, ["explain", str(FIXTURE), "--format", "json"])
    import json

    severity = {c["id"]: c["severity"] for c in json.loads(data.output)["clauses"]}
    assert {k for k, v in severity.items() if v == "warn"} == WARNED
