"""`catalog_dimension`: a catalog unit of the wrong dimension fails (issue 13's `kPa` under
`dimension: temperature`), in the plan, the lint, the reference verdict and `diff`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load, load_report
from tacit_gen.contract.model import Contract
from tacit_gen.contract.units import units_of_dimension
from tacit_gen.evolution.diff import diff
from tacit_gen.plan import plan
from tacit_gen.semantics.dimension import dimension_ok

BASE = (Path(__file__).resolve().parents[1] / "fixtures" / "series" / "catalog_dimension.yaml").read_text()
DIM = "dimension: pressure"


def _contract(tmp_path: Path, text: str, name: str = "c.yaml") -> Contract:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return load(p)


def test_units_of_a_dimension_come_from_the_unit_table() -> None:
    assert units_of_dimension("temperature") == ("K", "degC", "degF", "kelvin")
    assert units_of_dimension("pressure") == ("MPa", "Pa", "atm", "bar", "hPa", "kPa", "mbar", "psi")
    assert "USD" in (units_of_dimension("currency") or ())
    assert units_of_dimension("per series") is None
    assert units_of_dimension("wobble") is None


def test_plan_emits_one_clause_with_the_allowed_units(tmp_path: Path) -> None:
    clauses = plan(_contract(tmp_path, BASE.replace(DIM, "dimension: temperature")))
    (cl,) = [c for c in clauses if c.kind == "catalog_dimension"]
    assert cl.id == "catalog_dimension:value"
    assert cl.param("units") == ("K", "degC", "degF", "kelvin")
    assert (cl.param("relation"), cl.param("catalog_key"), cl.param("catalog_column"),
            cl.param("key")) == ("sensor_catalog", "series_id", "unit", "series_id")
    # `dimension: per series` states nothing to check
    assert not [c for c in plan(_contract(tmp_path, BASE.replace(DIM, "dimension: per series"), "p.yaml"))
                if c.kind == "catalog_dimension"]


@pytest.mark.parametrize(("catalog_unit", "dimension", "ok"), [
    ("kPa", "temperature", False), ("degC", "temperature", True), ("kPa", "pressure", True),
    ("kg", "pressure", False), ("KPA", "pressure", False), (None, "pressure", False),
])
def test_reference_verdict(catalog_unit: str | None, dimension: str, ok: bool, tmp_path: Path) -> None:
    clauses = plan(_contract(tmp_path, BASE.replace(DIM, f"dimension: {dimension}")))
    (cl,) = [c for c in clauses if c.kind == "catalog_dimension"]
    lookup = {"s1": {"series_id": "s1", "unit": catalog_unit}}
    assert dimension_ok(cl, {"series_id": "s1"}, lookup) is ok
    assert dimension_ok(cl, {"series_id": "missing"}, lookup) is False  # not in the catalog
    assert dimension_ok(cl, {"series_id": None}, lookup) is None  # not_null's to judge


def test_lint_warns_only_on_an_unknown_dimension(tmp_path: Path) -> None:
    def codes(text: str) -> list[str]:
        return [d.code for d in load_report("c.yaml", text)[1]]

    assert "TG215" not in codes(BASE)
    assert "TG215" in codes(BASE.replace(DIM, "dimension: wobble"))


@pytest.mark.parametrize(("old", "new", "codes", "bump"), [
    ("dimension: per series", DIM, ["catalog_check.added"], "major"),
    (DIM, "dimension: per series", ["catalog_check.removed"], "minor"),
    (DIM, "dimension: temperature", ["catalog_check.removed", "catalog_check.added"], "major"),
])
def test_diff_classifies_a_dimension_change(old: str, new: str, codes: list[str], bump: str,
                                            tmp_path: Path) -> None:
    a = _contract(tmp_path, BASE.replace(DIM, old), "a.yaml")
    b = _contract(tmp_path, BASE.replace(DIM, new), "b.yaml")
    report = diff(a, b)
    got = [c.code for c in report.changes if c.code.startswith("catalog_check")]
    assert got == codes, [(c.code, c.message) for c in report.changes]
    assert report.least_bump == bump
