"""`pattern:`, `source:` and `revision_policy.by` in every target: rendered, read back clean by
`check`, and a hand edit of the artifact (the pattern or the list of restaters changed) is drift
naming the clause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import targets_rendering
from tests.targets.cli_drift import check_json, render_to

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml"

# target -> (artifact, text to find, its hand edit, clause that must drift)
EDITS = {
    "dbt": ("dbt/series_clauses.yml", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "dbt-by": ("dbt/series_clauses.yml", "'vendor-a', ", "", "revision_by:revised_by"),
    "soda": ("soda/series_clauses.yml", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "soda-by": ("soda/series_clauses.yml", "'vendor-a', ", "", "revision_by:revised_by"),
    "soda4": ("soda4/series_clauses.yml", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "soda4-by": ("soda4/series_clauses.yml", "'vendor-a', ", "", "revision_by:revised_by"),
    "gx": ("gx/series_clauses.json", "[0-9]{3})\\\\Z", "[0-9]{4})\\\\Z", "pattern:series_id"),
    "gx-by": ("gx/series_clauses.json", "'vendor-a', ", "", "revision_by:revised_by"),
    "pandera": ("pandera/series_clauses.py", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "pandera-by": ("pandera/series_clauses.py", "'vendor-a', ", "", "revision_by:revised_by"),
    "ibis": ("ibis/series_clauses.py", "[0-9]{3}'", "[0-9]{4}'", "pattern:series_id"),
    "jsonschema": ("jsonschema/series_clauses.schema.json", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "protobuf": ("protobuf/series_clauses.proto", "[0-9]{3})$", "[0-9]{4})$", "pattern:series_id"),
    "ibis-by": ("ibis/series_clauses.py", "'vendor-a', ", "", "revision_by:revised_by"),
}


def test_every_artifact_reads_back_clean_and_names_the_source_system(tmp_path: Path) -> None:
    out = render_to(CONTRACT, tmp_path)
    code, output = check_json(CONTRACT, out)
    assert code == 0, output
    for path in sorted(out.rglob("*")):
        if path.is_file() and "macros" not in str(path) and not path.name.endswith(".lock.json"):
            assert "plant historian (OSIsoft PI)" in path.read_text(), path


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_hand_edit_of_the_clause_is_drift(case: str, tmp_path: Path) -> None:
    out = render_to(CONTRACT, tmp_path)
    rel, old, new, clause = EDITS[case]
    path = out / rel
    text = path.read_text()
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1))
    code, output = check_json(CONTRACT, out)
    assert code == 1, output
    findings = json.loads(output)["findings"]
    assert any(f.get("clause") == clause and f["code"] != "D100" for f in findings), output


def test_every_target_that_renders_a_clause_has_an_edit() -> None:
    """A target that starts rendering a clause joins the test (it fails until it has an edit)."""
    for clause in ("pattern:series_id", "revision_by:revised_by"):
        edited = {case.split("-")[0] for case, (*_, c) in EDITS.items() if c == clause}
        assert edited == targets_rendering(CONTRACT, clause), clause
