"""Every target carries a clause's severity, its reader reads it back, and `check` catches a
hand edit of it either way (warn where the contract says error, error where it says warn)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tacit_gen.compare import compare, read_artifact
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tests.conftest import record_targets, value_targets

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "contracts" / "ohlcv_warn.yaml"
TARGETS = value_targets()
WIRE = record_targets()

# (target, first-occurrence edit that makes the warn clause `not_null:volume` an error)
TO_ERROR = {
    "dbt": (r"(tacit_clause: not_null:volume\n.*\n)(\s+)severity: warn", r"\1\2severity: error"),
    "soda": (r"(identity: not_null:volume\n(?:\s+filter: .*\n)?)(\s+)warn: when > 0", r"\1\2fail: when > 0"),
    "gx": (r'("tacit_clause": "not_null:volume"[^\n]*\},?\n\s+)"severity": "warning"',
           r'\1"severity": "critical"'),
    "pandera": (r"(name='not_null:volume', [^\n]*?), raise_warning=True", r"\1"),
    "ibis": (r"(id='not_null:volume',(?:[^\n]*\n)*?[^\n]*?) ?\n?\s*severity='warn',", r"\1"),
    "soda4": (r"(qualifier: not_null:volume\n(?:\s+filter: .*\n)?\s+threshold:\n\s+must_be: 0\n\s+)level: warn", r"\1level: fail"),
}
# (target, edit that makes the error clause `range:revision` a warning)
TO_WARN = {
    "dbt": (r"(tacit_clause: range:revision\n.*\n)", r"\1          severity: warn\n"),
    "soda": (r"(- invalid_count\(revision\)) = 0:\n(\s+)(name: .*\n)",
             r"\1:\n\2\3\2warn: when > 0\n"),
    "gx": (r'("tacit_clause": "range:revision"[^\n]*\})\n', r'\1,\n      "severity": "warning"\n'),
    "pandera": (r"(name='range:revision', error=[^\n]*?)\)", r"\1, raise_warning=True)"),
    "ibis": (r"(id='range:revision',(?:[^\n]*\n)*?[^\n]*?line=\d+,)", r"\1 severity='warn',"),
    "soda4": (r"(qualifier: range:revision\n\s+valid_min: 0\n(?:\s+filter: .*\n)?)",
              r"\1          threshold: {must_be: 0, level: warn}\n"),
}


def rendered(tmp_path: Path, target: str) -> tuple[Path, str]:
    contract = load(FIXTURE)
    arts, _ = render_contract(contract, (target,), RenderOptions())
    art = arts[0]
    path = tmp_path / art.path
    path.parent.mkdir(parents=True, exist_ok=True)
    return path, art.content


def findings(target: str, path: Path) -> list[tuple[str, str | None, str]]:
    contract = load(FIXTURE)
    found = compare(contract, plan(contract), read_artifact(target, path), str(path), target)
    return [(f.code, f.clause_id, f.message) for f in found]


@pytest.mark.parametrize("target", TARGETS)
def test_the_artifact_carries_severity_and_reads_back_clean(tmp_path: Path, target: str) -> None:
    path, text = rendered(tmp_path, target)
    path.write_text(text, encoding="utf-8")
    assert findings(target, path) == []
    read = read_artifact(target, path)
    warned = {c.id for c in read.clauses if c.warn}
    assert warned == {c.id for c in plan(load(FIXTURE)) if c.warn}


@pytest.mark.parametrize("target", TARGETS)
def test_a_hand_edit_of_severity_is_drift(tmp_path: Path, target: str) -> None:
    path, text = rendered(tmp_path, target)
    pattern, repl = TO_ERROR[target]
    edited, n = re.subn(pattern, repl, text, count=1)
    assert n == 1, f"edit did not apply to {target}"
    path.write_text(edited, encoding="utf-8")
    assert ("D202", "not_null:volume",
            "not_null:volume severity is error, contract says warn") in findings(target, path)
    pattern, repl = TO_WARN[target]
    edited, n = re.subn(pattern, repl, text, count=1)
    assert n == 1, f"edit did not apply to {target}"
    path.write_text(edited, encoding="utf-8")
    assert ("D203", "range:revision",
            "range:revision severity is warn, contract says error") in findings(target, path)


@pytest.mark.parametrize("target", WIRE)
def test_wire_schemas_declare_warn_clauses_unsupported(target: str) -> None:
    contract = load(FIXTURE)
    arts, unsupported = render_contract(contract, (target,), RenderOptions())
    reasons = {u.clause_id: u.reason for u in unsupported}
    assert "cannot warn" in reasons["not_null:volume"]
    assert "not_null:symbol" not in reasons  # an error not_null is still carried
    text = arts[0].content
    if target == "avro":  # the warn not_null field has presence: the schema cannot warn
        assert re.search(r'"name": "volume",\s*"type": \[\s*"null"', text), text
