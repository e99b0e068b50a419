"""`catalog_dimension` in every target that checks it: rendered, read back clean by `check`, and
a hand edit of the artifact (a unit dropped from the allowed list) is drift naming the clause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import targets_rendering
from tests.targets.cli_drift import check_json, render_to

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "catalog_dimension.yaml"
NAME = "pressure_by_catalog_unit"
CLAUSE = "catalog_dimension:value"

# target -> (artifact, text to find, its hand edit)
EDITS = {
    "dbt": (f"dbt/{NAME}.yml", "          - mbar\n          - psi\n", "          - mbar\n"),
    "soda": (f"soda/{NAME}.yml", "'mbar', 'psi'", "'mbar'"),
    "soda4": (f"soda4/{NAME}.yml", "'mbar', 'psi'", "'mbar'"),
    "gx": (f"gx/{NAME}.json", "'mbar', 'psi'", "'mbar'"),
    "pandera": (f"pandera/{NAME}.py", "'mbar', 'psi')", "'mbar')"),
    "ibis": (f"ibis/{NAME}.py", "'mbar', 'psi'),", "'mbar'),"),
}


def test_the_clause_reads_back_clean(tmp_path: Path) -> None:
    out = render_to(CONTRACT, tmp_path)
    code, output = check_json(CONTRACT, out)
    assert code == 0, output
    for target, (rel, _, _) in EDITS.items():
        assert CLAUSE in (out / rel).read_text(), target


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_hand_edit_of_the_units_is_drift(case: str, tmp_path: Path) -> None:
    out = render_to(CONTRACT, tmp_path)
    rel, old, new = EDITS[case]
    path = out / rel
    text = path.read_text()
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1))
    code, output = check_json(CONTRACT, out)
    assert code == 1, output
    findings = json.loads(output)["findings"]
    assert any(f.get("clause") == CLAUSE and f["code"] != "D100" and rel in f.get("path", "")
               for f in findings), output


def test_every_target_that_renders_the_clause_has_an_edit() -> None:
    """A target that starts rendering the clause joins the test (it fails until it has an edit)."""
    assert set(EDITS) == targets_rendering(CONTRACT, CLAUSE)
