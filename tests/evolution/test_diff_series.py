"""`diff` classifies `pattern:`, `revision_policy.by` and `source:` changes: a tighter pattern (or
one not provably looser) is breaking, a looser one with notice, a respelling a patch; fewer
restaters is breaking, more with notice; the source system is documentation."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.evolution.diff import diff

BASE = (Path(__file__).resolve().parents[1] / "fixtures" / "series" / "series_clauses.yaml").read_text()
PAT = 'pattern: "^[A-Z]{2}-[0-9]{3}$"'
BY = "by: [vendor-a, recalibration-job]"

CASES = {
    "pattern tightened": ((PAT, 'pattern: "^[A-Z]{2}-[0-4]{3}$"'), ["field.pattern_tightened"]),
    "pattern changed, neither way": ((PAT, 'pattern: "^[A-Z]{3}-[0-9]{2}$"'), ["field.pattern_tightened"]),
    "pattern widened": ((PAT, 'pattern: "^[A-Z]{2,3}-[0-9]{3,5}$"'), ["field.pattern_widened"]),
    "pattern respelled": ((PAT, 'pattern: "[A-Z][A-Z]\\\\-[0-9]{3}"'), ["field.pattern_respelled"]),
    "pattern removed": ((PAT, "nullable: false"), ["field.pattern_removed"]),
    "restater removed": ((BY, "by: [vendor-a]"), ["revision.tightened"]),
    "restater added": ((BY, "by: [vendor-a, recalibration-job, vendor-b]"), ["revision.relaxed"]),
    "source changed": (("source: plant historian (OSIsoft PI)", "source: plant historian v2"), ["doc.changed"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_change_is_classified(case: str, tmp_path: Path) -> None:
    (old, new), want = CASES[case]
    assert old in BASE
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BASE)
    b.write_text(BASE.replace(old, new))
    report = diff(load(a), load(b))
    assert [c.code for c in report.changes] == want, [(c.code, c.message) for c in report.changes]


def test_a_pattern_added_is_breaking(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BASE.replace(PAT, "nullable: false"))
    b.write_text(BASE)
    report = diff(load(a), load(b))
    assert [c.code for c in report.changes] == ["field.pattern_added"]
    assert report.least_bump == "major"
