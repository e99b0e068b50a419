"""Every target's reader reads the foreign key back: a fresh render is no drift, and a hand edit
that points the reference at another relation is a changed clause (D202) in every target."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.compare import compare, read_artifact
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tests.conftest import targets_rendering

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "orders.yaml"
CLAUSE = "references:customer_id"
EDITS = {
    "dbt": ("to: ref('customers')", "to: ref('clients')"),
    "soda": ("must exist in customers (customer_id)", "must exist in clients (customer_id)"),
    "soda4": ("dataset: tacit/main/customers", "dataset: tacit/main/clients"),
    "gx": ("FROM customers WHERE", "FROM clients WHERE"),
    "pandera": ("to_relation='customers'", "to_relation='clients'"),
    "ibis": ("to_relation='customers'", "to_relation='clients'"),
}


def findings(target: str, path: Path) -> list[tuple[str, str | None]]:
    contract = load(FIXTURE)
    return [(f.code, f.clause_id) for f in
            compare(contract, plan(contract), read_artifact(target, path), str(path), target)]


@pytest.mark.parametrize("target", sorted(EDITS))
def test_a_fresh_render_reads_back_and_a_moved_reference_is_drift(tmp_path: Path, target: str) -> None:
    arts, unsupported = render_contract(load(FIXTURE), (target,), RenderOptions())
    assert CLAUSE not in {u.clause_id for u in unsupported}
    art = next(a for a in arts if not a.path.endswith(".sql"))
    path = tmp_path / art.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(art.content, encoding="utf-8")
    assert findings(target, path) == []
    assert CLAUSE in {c.id for c in read_artifact(target, path).clauses}
    old, new = EDITS[target]
    assert art.content.count(old) == 1, target
    path.write_text(art.content.replace(old, new), encoding="utf-8")
    assert ("D202", CLAUSE) in findings(target, path)


def test_every_target_that_renders_the_reference_has_an_edit() -> None:
    """A target that starts rendering the clause joins the test (it fails until it has an edit)."""
    assert set(EDITS) == targets_rendering(FIXTURE, CLAUSE)
