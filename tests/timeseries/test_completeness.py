"""`time.completeness`: the loader reads it (and names what it cannot read), the plan carries it,
`diff` classifies a change, and `sample` writes data that breaks it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.loader import load
from tacit_gen.evolution.diff import diff
from tacit_gen.plan import plan
from tacit_gen.sample import sample
from tacit_gen.sample.verdicts import violated_clauses

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "series" / "completeness.yaml"
LINE = "24 per 1d per series; at least 90%; gaps allowed for maintenance, market_halt"


def _with(line: str, version: str = "1.0.0") -> str:
    text = FIXTURE.read_text(encoding="utf-8").replace(LINE, line)
    return text.replace("version: 1.0.0", f"version: {version}")


def test_the_clause_and_its_params() -> None:
    c = next(c for c in plan(load("c.yaml", _with(LINE))) if c.kind == "completeness")
    assert c.id == "completeness:event_ts"
    assert c.params_dict == {
        "allowed_gaps": ("maintenance", "market_halt"), "column": "event_ts", "expected": 24,
        "min_pct": "90", "outages_end": "end", "outages_relation": "outages",
        "outages_start": "start", "outages_type": "type", "series": ("series_id",),
        "window_seconds": 86400}
    plain = next(c for c in plan(load("c.yaml", _with("1440 per 1h"))) if c.kind == "completeness")
    assert plain.param("min_pct") == "100" and plain.param("outages_relation") is None
    assert plain.param("window_seconds") == 3600


@pytest.mark.parametrize(("line", "word", "code"), [
    ("24 per day", "day", "TG106"),  # not a duration
    ("24 per 7h", "7h", "TG106"),  # does not divide a UTC day
    ("24 per 1d; at least 120%", "at least 120%", "TG106"),
    ("24 per 1d; mostly", "mostly", "TG106"),
    ("24 per 1d; gaps allowed for main-tenance", "main-tenance", "TG106"),
    ("every day 24", "every", "TG106"),
    ("390 per session per series", "session", "TG114"),  # no time.calendar
])
def test_what_the_loader_refuses(line: str, word: str, code: str) -> None:
    with pytest.raises(ContractError) as e:
        load("c.yaml", _with(line))
    found = [d for d in e.value.diagnostics if d.code == code]
    assert found and found[0].line == 8, e.value.diagnostics
    assert word in found[0].message


@pytest.mark.parametrize(("new", "codes"), [
    ("24 per 1d per series; at least 95%; gaps allowed for maintenance, market_halt",
     ["time.completeness_tightened"]),
    ("30 per 1d per series; at least 90%; gaps allowed for maintenance, market_halt",
     ["time.completeness_tightened"]),
    ("20 per 1d per series; at least 90%; gaps allowed for maintenance, market_halt",
     ["time.completeness_relaxed"]),
    ("24 per 1d per series; at least 90%; gaps allowed for maintenance",
     ["time.completeness_tightened"]),
    ("24 per 1d per series; at least 90%; gaps allowed for maintenance, market_halt, calibration",
     ["time.completeness_relaxed"]),
    ("1 per 1h per series; at least 90%; gaps allowed for maintenance, market_halt",
     ["time.completeness_changed"]),
])
def test_diff_classifies(new: str, codes: list[str]) -> None:
    a = load("a.yaml", _with(LINE))
    b = load("b.yaml", _with(new, "2.0.0"))
    assert [c.code for c in diff(a, b).changes] == codes


def test_diff_added_and_removed() -> None:
    a = load("a.yaml", _with(LINE))
    bare = FIXTURE.read_text(encoding="utf-8").replace(f"  completeness: {LINE}\n", "")
    b = load("b.yaml", bare.replace("version: 1.0.0", "version: 2.0.0"))
    assert [c.code for c in diff(b, a).changes] == ["time.completeness_added"]
    assert [c.code for c in diff(a, b).changes] == ["time.completeness_removed"]


@pytest.mark.parametrize("line", [LINE, "1 per 1h; at least 100%"])
def test_sample_breaks_completeness_alone(line: str) -> None:
    contract = load("c.yaml", _with(line))
    clauses = plan(contract)
    clean = sample(contract, clauses, rows=30, seed=3)
    assert violated_clauses(clean, clauses) == ()
    bad = sample(contract, clauses, rows=30, seed=3, violate="completeness:event_ts")
    assert violated_clauses(bad, clauses) == ("completeness:event_ts",)
