"""Class 3 of issue 15: one name validator. Names land in file names, SQL identifiers and Python
source, so each must be one spelling every target accepts; a clear lint error otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load_report
from tests.hardening.helpers import BASE, assert_usage_error, cli


def _errors(tmp_path: Path, text: str) -> list[str]:
    p = tmp_path / "c.yaml"
    p.write_text(text, encoding="utf-8")
    contract, diags = load_report(p)
    errs = [f"{d.line}:{d.col} {d.code} {d.message}" for d in diags if d.severity == "error"]
    assert (contract is None) == bool(errs)
    return errs


@pytest.mark.parametrize(("text", "where"), [
    (BASE.replace("contract: hostile", 'contract: "nl\\n"'), "1:11 TG115"),
    (BASE.replace("  note: {type: string}", '  "note\\n": {type: string}'), "6:3 TG115"),
    (BASE + "provenance_required: [\"src\\n\"]\n", "7:23 TG115"),
    (BASE + "targets: {dbt: {model: \"m\\n\"}}\n", "7:24 TG115"),
    (BASE + "catalog: {relation: \"cat\\n\", key: id}\n", "7:21 TG115"),
])
def test_trailing_newline_is_not_a_name(tmp_path: Path, text: str, where: str) -> None:
    errs = _errors(tmp_path, text)
    assert any(e.startswith(where) for e in errs), errs


def test_trailing_newline_never_reaches_a_file_name(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(BASE.replace("contract: hostile", 'contract: "nl\\n"'), encoding="utf-8")
    res = cli("render", str(p), "--out", str(tmp_path / "out"))
    assert_usage_error(res, "TG115")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["none", "true", "false", "class_"])
def test_contract_name_that_makes_a_python_keyword_class(tmp_path: Path, name: str) -> None:
    errs = _errors(tmp_path, BASE.replace("contract: hostile", f"contract: {name}"))
    if name == "class_":
        assert errs == []  # 'Class' is a fine class name
    else:
        assert any("TG115" in e and "class_name" in e for e in errs), errs


def test_the_class_name_rule_is_the_ibis_targets_declared_check(tmp_path: Path) -> None:
    """The ibis target declares the rule (`check_contract`); the loader runs it through the
    registry and reports it at the contract's name, whichever targets the contract renders."""
    from tacit_gen import registry

    assert registry.get("ibis").check_contract("none", {})[0].code == "TG115"
    assert registry.get("ibis").check_contract("none", {"class_name": "NoneSchema"}) == ()
    assert all(registry.get(t).check_contract("none", {}) == () for t in registry.names() if t != "ibis")
    errs = _errors(tmp_path, BASE.replace("contract: hostile", "contract: none")
                   + "targets: {ibis: {enabled: false}}\n")
    assert errs == ["1:11 TG115 contract name 'none' makes the Python class name 'None' is a Python "
                    "keyword; rename the contract or set targets.ibis.class_name"], errs


def test_contract_name_is_fine_when_class_name_overrides(tmp_path: Path) -> None:
    assert _errors(tmp_path, BASE.replace("contract: hostile", "contract: none")
                   + "targets: {ibis: {class_name: NoneSchema}}\n") == []


@pytest.mark.parametrize("cls", ["None", "True", "str", "int", "Exception", "Schema", "Column", "class"])
def test_class_name_option_is_a_usable_class_name(tmp_path: Path, cls: str) -> None:
    errs = _errors(tmp_path, BASE + f"targets: {{ibis: {{class_name: '{cls}'}}}}\n")
    assert any(e.startswith("7:30 TG115") for e in errs), errs


def test_class_name_none_is_not_a_traceback(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(BASE + "targets: {ibis: {class_name: None}}\n", encoding="utf-8")
    assert_usage_error(cli("render", str(p), "--out", str(tmp_path / "out")), "c.yaml:7:30", "class_name")


def test_columns_differing_only_in_case(tmp_path: Path) -> None:
    errs = _errors(tmp_path, BASE + "  Note: {type: string}\n")
    assert any(e.startswith("7:3 TG115") and "'note'" in e and "line 6" in e for e in errs), errs
    errs = _errors(tmp_path, BASE + "provenance_required: [NOTE]\n")
    assert any("TG115" in e and "NOTE" in e for e in errs), errs


def test_overlong_name(tmp_path: Path) -> None:
    errs = _errors(tmp_path, BASE + f"  {'c' * 64}: {{type: string}}\n")
    assert any(e.startswith("7:3 TG115") and "63" in e for e in errs), errs
    assert _errors(tmp_path, BASE + f"  {'c' * 63}: {{type: string}}\n") == []
