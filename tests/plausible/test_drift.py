"""Every target that checks `plausible:` says it as a warning in its own idiom, its reader reads
the clause back (kind, catalog columns, severity warn) so `check` is clean, and a hand edit that
makes it an error, or points it at other catalog columns, is drift."""

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

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "plausible" / "plausible.yaml"
TARGETS = value_targets()
WIRE = record_targets()
# (target, the idiom of a warning on the plausible clause, an edit making it an error)
IDIOM = {
    "dbt": ("tacit_plausible:", r"(tacit_clause: plausible:value\n.*\n)(\s+)severity: warn",
            r"\1\2severity: error"),
    "soda": ("-- tacit_clause: plausible:value",
             r"(-- tacit_clause: plausible:value\n(?:.*\n)*? +)warn: when > 0",
             r"\1fail: when > 0"),
    "soda4": ("qualifier: plausible:value",
              r"(-- tacit_clause: plausible:value\n(?:.*\n)*? +)level: warn\n", r"\1level: fail\n"),
    "gx": ('"tacit_clause": "plausible:value"',
           r'("tacit_clause": "plausible:value"[^\n]*\},?\n\s+)"severity": "warning"',
           r'\1"severity": "critical"'),
    "pandera": ("warn(catalog_bounds_check(\n                name='plausible:value'",
                r"(?<!\w)warn\((catalog_bounds_check\(\n\s+name='plausible:value',(?:.*\n)*?\s+)\)\),",
                r"\1),"),
    "ibis": ("clause(\n            id='plausible:value'",
             r"(id='plausible:value',(?:[^\n]*\n)*?[^\n]*?) ?\n?\s*severity='warn',", r"\1"),
}


def rendered(tmp_path: Path, target: str) -> tuple[Path, str]:
    arts, _ = render_contract(load(FIXTURE), (target,), RenderOptions())
    art = next(a for a in arts if "macros" not in str(a.path))
    path = tmp_path / art.path
    path.parent.mkdir(parents=True, exist_ok=True)
    return path, art.content


def findings(target: str, path: Path) -> list[tuple[str, str | None]]:
    contract = load(FIXTURE)
    found = compare(contract, plan(contract), read_artifact(target, path), str(path), target)
    return [(f.code, f.clause_id) for f in found]


@pytest.mark.parametrize("target", TARGETS)
def test_it_reads_back_as_the_plans_warn_clause(tmp_path: Path, target: str) -> None:
    path, text = rendered(tmp_path, target)
    assert IDIOM[target][0] in text
    path.write_text(text, encoding="utf-8")
    assert findings(target, path) == []
    read = {c.id: c for c in read_artifact(target, path).clauses}
    assert read["plausible:value"].kind == "plausible" and read["plausible:value"].warn
    assert not read["catalog_bounds:value"].warn


@pytest.mark.parametrize("target", TARGETS)
def test_a_hand_edit_to_error_or_to_other_columns_is_drift(tmp_path: Path, target: str) -> None:
    path, text = rendered(tmp_path, target)
    _, pattern, repl = IDIOM[target]
    edited, n = re.subn(pattern, repl, text, count=1)
    assert n == 1, f"edit did not apply to {target}"
    path.write_text(edited, encoding="utf-8")
    assert ("D202", "plausible:value") in findings(target, path)
    widened = text.replace("plausible_max", "hard_max")
    assert widened != text
    path.write_text(widened, encoding="utf-8")
    assert any(cid == "plausible:value" for _, cid in findings(target, path))


@pytest.mark.parametrize("target", WIRE)
def test_wire_schemas_declare_it_unsupported(target: str) -> None:
    _, unsupported = render_contract(load(FIXTURE), (target,), RenderOptions())
    assert "cannot warn" in {u.clause_id: u.reason for u in unsupported}["plausible:value"]
