"""`plausible: catalog` on a numeric field: one clause `plausible:<c>`, a warning by construction
(severity cannot make it an error), joined to the catalog's plausible_min/plausible_max (or the
columns `catalog:` names); a non-numeric field, another source or a multi-column series is an
error with its position; diff calls adding or removing it a notice (it never fails a build)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.evolution.diff import diff
from tacit_gen.plan import plan

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "plausible" / "plausible.yaml"


def variant(tmp_path: Path, old: str, new: str, name: str = "c.yaml") -> Path:
    text = FIXTURE.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new), encoding="utf-8")
    return p


def test_the_plan_has_one_warn_clause_reading_the_catalog_plausible_columns() -> None:
    clauses = {c.id: c for c in plan(load(FIXTURE))}
    c = clauses["plausible:value"]
    assert (c.kind, c.severity, c.columns) == ("plausible", "warn", ("value", "series_id"))
    assert c.params_dict == {"column": "value", "key": "series_id", "relation": "series_catalog",
                             "catalog_key": "series_id", "min_column": "plausible_min",
                             "max_column": "plausible_max"}
    assert clauses["catalog_bounds:value"].severity == "error"


def test_catalog_names_its_plausible_columns(tmp_path: Path) -> None:
    p = variant(tmp_path, "catalog: {relation: series_catalog, key: series_id}",
                "catalog: {relation: sensors, key: tag, plausible_min: p_lo, plausible_max: p_hi}")
    c = next(c for c in plan(load(p)) if c.kind == "plausible")
    assert (c.param("relation"), c.param("catalog_key"), c.param("key"), c.param("min_column"),
            c.param("max_column")) == ("sensors", "tag", "series_id", "p_lo", "p_hi")


def test_severity_warn_may_name_it_and_it_stays_warn(tmp_path: Path) -> None:
    p = variant(tmp_path, "invariants:", "severity: {warn: [plausible:value]}\ninvariants:")
    assert next(c for c in plan(load(p)) if c.kind == "plausible").warn


@pytest.mark.parametrize(("old", "new", "where", "words"), [
    ("value:     {type: decimal(12,4), unit: kPa, plausible: catalog}",
     "value:     {type: decimal(12,4), unit: kPa, plausible: history}", "12:58",
     "'plausible' of 'value' takes 'catalog'"),
    ("series_id: {type: string}", "series_id: {type: string, plausible: catalog}", "10:40",
     "'plausible' applies to numeric fields; 'series_id' is string"),
    ("key: [series_id, event_ts]", "key: [series_id, site, event_ts]\n", "",
     "reads the catalog row of one series column; the series key is series_id, site"),
])
def test_a_bad_plausible_is_an_error_with_its_position(tmp_path: Path, old: str, new: str,
                                                        where: str, words: str) -> None:
    if "site" in new:
        p = variant(tmp_path, "fields:\n", "fields:\n  site: {type: string}\n")
        p.write_text(p.read_text(encoding="utf-8").replace(old, new.strip()), encoding="utf-8")
    else:
        p = variant(tmp_path, old, new)
    result = CliRunner().invoke(main, ["lint", str(p)])
    assert result.exit_code == 1, result.output
    line = next(ln for ln in result.output.splitlines() if "[TG110]" in ln)
    assert words in line and (not where or f":{where}: error: " in line), result.output


def test_explain_shows_it_as_a_warning() -> None:
    result = CliRunner().invoke(main, ["explain", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    row = next(ln for ln in result.output.splitlines() if ln.startswith("plausible:value"))
    assert "plausible (warn)" in row and "plausible: catalog" in row


@pytest.mark.parametrize(("added", "rule"), [(True, "field.plausible_added"),
                                             (False, "field.plausible_removed")])
def test_diff_adding_or_removing_it_is_a_notice(tmp_path: Path, added: bool, rule: str) -> None:
    without = load(variant(tmp_path, ", plausible: catalog}", "}", "old.yaml"))
    with_it = load(FIXTURE)
    report = diff(without, with_it) if added else diff(with_it, without)
    codes = {c.code: c for c in report.changes}
    assert rule in codes, report.changes
    assert codes[rule].cls == "compatible-with-notice"
    assert report.least_bump == "minor"


def test_sample_breaks_it_alone_and_says_the_expected_verdict_is_warn(tmp_path: Path) -> None:
    out = tmp_path / "d.csv"
    result = CliRunner().invoke(main, ["sample", str(FIXTURE), "--violate", "plausible:value",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "valid but outside its plausible bounds" in result.output
    assert "expected verdict: WARN" in result.output and "also breaks" not in result.output
    header = (tmp_path / "d.catalog.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "series_id,hard_min,hard_max,plausible_min,plausible_max"


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_sample_violation_is_one_value_inside_the_hard_bounds_outside_the_plausible_ones(
        tmp_path: Path, seed: int) -> None:
    """Read from the files sample writes: clean data lies inside every series' plausible bounds;
    the violation changes one value, which stays inside its series' hard bounds (so
    catalog_bounds passes) and leaves its plausible ones."""
    import csv
    from decimal import Decimal

    def rows(name: str, *violate: str) -> tuple[list[dict[str, str]], dict[str, dict[str, str]]]:
        out = tmp_path / f"{name}.csv"
        res = CliRunner().invoke(main, ["sample", str(FIXTURE), "--rows", "24", "--seed", str(seed),
                                        "--out", str(out), *violate])
        assert res.exit_code == 0, res.output
        with out.open(encoding="utf-8") as f:
            data = list(csv.DictReader(f))
        with (tmp_path / f"{name}.catalog.csv").open(encoding="utf-8") as f:
            catalog = {r["series_id"]: r for r in csv.DictReader(f)}
        return data, catalog

    def inside(r: dict[str, str], cat: dict[str, dict[str, str]], low: str, high: str) -> bool:
        b = cat[r["series_id"]]
        return Decimal(b[low]) <= Decimal(r["value"]) <= Decimal(b[high])

    clean, clean_cat = rows("clean")
    bad, cat = rows("bad", "--violate", "plausible:value")
    assert cat == clean_cat
    values = [r for r in clean if r["value"]]
    assert values and all(inside(r, cat, "plausible_min", "plausible_max") for r in values)
    changed = [b for a, b in zip(clean, bad, strict=True) if a != b]
    assert len(changed) == 1, changed
    assert inside(changed[0], cat, "hard_min", "hard_max")
    assert not inside(changed[0], cat, "plausible_min", "plausible_max")
