"""Soda 4 reader: a hand edit of each operative part is drift that `check` reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.drift.base import SEVERITY_WEAKENED, UNREADABLE
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda4 import TARGET

ROOT = Path(__file__).resolve().parents[3]
P = Path("soda4/fct_sensor_readings.yml")


@pytest.fixture(scope="module")
def fct() -> tuple[object, tuple, str]:
    contract = load(ROOT / "contracts" / "fct_sensor_readings.yaml")
    clauses = plan(contract)
    return contract, clauses, TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content


def _findings(fct: tuple, text: str) -> list[tuple[str, str | None]]:
    contract, clauses, _ = fct
    read = TARGET.read(P, text)
    return sorted((f.code, f.clause_id) for f in compare(contract, clauses, read, str(P), "soda4"))


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_generated_file_has_no_drift(fct: tuple) -> None:
    assert _findings(fct, fct[2]) == []


@pytest.mark.parametrize(("old", "new", "want"), [
    ("valid_max: 150", "valid_max: 1500", [("D202", "range:value_degc")]),
    ("            - bad\n", "", [("D202", "accepted_values:quality")]),
    ("numeric_scale: 3", "numeric_scale: 2", [("D202", "column:value_degc")]),
    ("allow_extra_columns: false", "allow_extra_columns: true", [("D200", "no_unknown_columns")]),
    ("unit: minute", "unit: hour", [("D202", "freshness:event_ts")]),
    ("expression: NOT (NOT (value_degc IS NULL) OR quality = 'bad')",
     "expression: NOT (NOT (value_degc IS NULL) OR quality = 'good')",
     [("D200", "invariant:value_degc is null only when quality = bad"),
      ("D201", "invariant:value_degc is null only when quality = good")]),
])
def test_hand_edit_is_drift(fct: tuple, old: str, new: str, want: list) -> None:
    text = fct[2]
    if "quality = 'good'" in new:  # the qualifier names the clause: a new meaning is a new clause
        text = text.replace("qualifier: invariant:value_degc is null only when quality = bad",
                            "qualifier: invariant:value_degc is null only when quality = good")
    assert _findings(fct, _edit(text, old, new)) == want


def test_deleted_check_is_a_missing_clause(fct: tuple) -> None:
    text = fct[2]
    start = text.index("      - missing:\n          name: 'source_id:")
    end = text.index("\n  - name:", start)
    assert _findings(fct, text[:start] + text[end + 1:]) == [("D200", "not_null:source_id")]


def test_weakened_threshold_is_a_finding(fct: tuple) -> None:
    text = _edit(fct[2], "          qualifier: not_null:source_id\n",
                 "          qualifier: not_null:source_id\n          threshold:\n            must_be_less_than: 5\n")
    assert (SEVERITY_WEAKENED, "not_null:source_id") in _findings(fct, text)


def test_unreadable_yaml_is_a_finding() -> None:
    read = TARGET.read(P, "dataset: [unclosed\n")
    assert [f.code for f in read.findings] == [UNREADABLE]
