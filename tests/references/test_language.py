"""`references: <relation>.<column>` on a field: one clause `references:<c>` (a foreign key);
a reference that is not `<relation>.<column>` is TG140 at the word; `sample` writes the referenced
relation beside the data (clean values) and breaks the clause alone with one absent value;
`verify`'s loader reads that sibling file (a missing one is a clear error); the ibis runtime
checks it with `parse(..., refs=)` on DuckDB (an anti-join; a relation not given is an execution
error naming it); diff: added is breaking, removed a notice; wire schemas declare it unsupported."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.engines.load import LoadError, load_data
from tacit_gen.evolution.diff import diff
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.sample import check_sample, sample, write
from tacit_gen.targets.base import RenderOptions
from tests.conftest import record_targets

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "orders.yaml"
CLAUSE = "references:customer_id"


def variant(tmp_path: Path, old: str, new: str, name: str = "orders.yaml") -> Path:
    text = FIXTURE.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new), encoding="utf-8")
    return p


def test_the_plan_has_one_clause_naming_the_relation_and_column() -> None:
    c = {c.id: c for c in plan(load(FIXTURE))}[CLAUSE]
    assert (c.kind, c.columns, c.severity) == ("references", ("customer_id",), "error")
    assert c.params_dict == {"column": "customer_id", "to_relation": "customers",
                             "to_column": "customer_id"}


@pytest.mark.parametrize(("value", "col", "word"), [
    ("customers", 42, "customers"),
    ("customers.customer-id", 52, "customer-id"),
    ("1customers.customer_id", 42, "1customers"),
])
def test_a_reference_not_relation_dot_column_is_tg140_at_the_word(
        tmp_path: Path, value: str, col: int, word: str) -> None:
    p = variant(tmp_path, "references: customers.customer_id", f"references: {value}")
    res = CliRunner().invoke(main, ["lint", str(p)])
    assert res.exit_code == 1
    assert f"orders.yaml:8:{col}: error: references of 'customer_id' must be <relation>.<column>" in res.output
    assert "[TG140]" in res.output
    line = res.output.splitlines()
    caret = next(x for x in line if "^" in x)
    assert caret.index("^") - line[line.index(caret) - 1].index("customer_id: {") == col - 3
    assert caret.count("^") == len(word)


@pytest.mark.parametrize(("value", "line", "col", "word"), [
    ("[customers.customer_id, customers.region]", 8, 66, "customers.region"),
    ("{relation: customers, columns: [customer_id, region]}", 8, 43, "relation"),
    ("customers(customer_id, region)", 8, 51, "(customer_id"),
    ('"customers.customer_id,region"', 8, 64, ",region"),
    ("\n      - customers.customer_id\n      - customers.region", 12, 9, "customers.region"),
])
def test_a_composite_foreign_key_is_tg140_saying_so(
        tmp_path: Path, value: str, line: int, col: int, word: str) -> None:
    if value.startswith("\n"):  # block style: the field as a block mapping
        p = variant(tmp_path, "customer_id: {type: int64, references: customers.customer_id}",
                    f"customer_id:\n    type: int64\n    references:{value}")
    else:
        p = variant(tmp_path, "references: customers.customer_id", f"references: {value}")
    res = CliRunner().invoke(main, ["lint", str(p)])
    assert res.exit_code == 1, res.output
    assert (f"orders.yaml:{line}:{col}: error: references of 'customer_id': a composite foreign key "
            "(several columns) is not expressible") in res.output, res.output
    assert "[TG140]" in res.output
    out = res.output.splitlines()
    caret = next(x for x in out if "^" in x)
    source = out[out.index(caret) - 1]
    assert source[caret.index("^"):caret.index("^") + len(word)] == word, res.output
    assert caret.count("^") == len(word)


def test_sample_writes_the_relation_beside_the_data_and_breaks_the_clause_alone(tmp_path: Path) -> None:
    contract = load(FIXTURE)
    clauses = plan(contract)
    clean = sample(contract, clauses, rows=16, seed=3)
    assert all(v.status == "pass" for v in check_sample(clean, clauses))
    _, catalog = write(clean, tmp_path / "clean" / "orders.csv")
    assert catalog is None
    with (tmp_path / "clean" / "customers.csv").open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["customer_id"]
    used = {str(v) for v in clean.columns["customer_id"] if v is not None}
    assert {r[0] for r in rows[1:]} == used and len(rows) - 1 == len(used)

    bad = sample(contract, clauses, rows=16, seed=3, violate=CLAUSE)
    assert bad.violated == (CLAUSE,)
    verdict = {v.clause_id: v for v in check_sample(bad, clauses)}[CLAUSE]
    assert (verdict.status, verdict.failures) == ("fail", 1)
    absent = [v for v in bad.columns["customer_id"] if v is not None and str(v) not in used]
    assert len(absent) == 1
    assert bad.refs == clean.refs  # the relation is the clean data's: the value is absent from it


def test_the_cli_says_where_the_relation_went(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["sample", str(FIXTURE), "--rows", "8", "--out",
                                    str(tmp_path / "orders.parquet")])
    assert res.exit_code == 0, res.output
    assert f"wrote {(tmp_path / 'customers.parquet').as_posix()}" in res.output
    assert (tmp_path / "customers.parquet").is_file()


def test_the_loader_reads_the_sibling_relation_typed_as_the_referencing_column(tmp_path: Path) -> None:
    import duckdb

    contract = load(FIXTURE)
    data_path, _ = write(sample(contract, plan(contract), rows=8), tmp_path / "orders.csv")
    report = load_data(contract, data_path, tmp_path / "x.duckdb")
    assert report.ok and [r.table for r in report.refs] == ["customers"]
    con = duckdb.connect(str(tmp_path / "x.duckdb"), read_only=True)
    try:
        assert con.execute("DESCRIBE customers").fetchall()[0][:2] == ("customer_id", "BIGINT")
    finally:
        con.close()
    (tmp_path / "customers.csv").unlink()
    with pytest.raises(LoadError, match=r"references read relation 'customers': no customers.csv "
                                        r"or customers.parquet beside .*orders.csv"):
        load_data(contract, data_path, tmp_path / "y.duckdb")


def test_verify_without_the_relation_file_is_exit_2_naming_it(tmp_path: Path) -> None:
    contract = load(FIXTURE)
    data_path, _ = write(sample(contract, plan(contract), rows=8), tmp_path / "orders.csv")
    (tmp_path / "customers.csv").unlink()
    res = CliRunner().invoke(main, ["verify", str(FIXTURE), "--data", str(data_path),
                                    "--target", "ibis"])
    assert res.exit_code == 2, res.output
    assert "customers.csv" in res.output and "Traceback" not in res.output


def _ibis_schema(tmp_path: Path):  # type: ignore[no-untyped-def]
    from tacit_gen.engines.base import load_module

    arts, _ = render_contract(load(FIXTURE), ("ibis",), RenderOptions())
    path = tmp_path / "orders_schema.py"
    path.write_text(arts[0].content, encoding="utf-8")
    return load_module(path, "refs_test").Orders


@pytest.mark.parametrize("violate", [None, CLAUSE])
def test_the_runtime_anti_join_on_duckdb(tmp_path: Path, violate: str | None) -> None:
    import ibis

    from tacit_gen.runtime.errors import ValidationError

    contract = load(FIXTURE)
    schema = _ibis_schema(tmp_path)
    data = sample(contract, plan(contract), rows=16, seed=5, violate=violate)
    data_path, _ = write(data, tmp_path / "orders.csv")
    load_data(contract, data_path, tmp_path / "x.duckdb")
    con = ibis.duckdb.connect(str(tmp_path / "x.duckdb"))
    try:
        orders, customers = con.table("orders"), con.table("customers")
        if violate is None:
            assert schema.parse(orders, refs={"customers": customers}).count().execute() == 16
        else:
            with pytest.raises(ValidationError) as e:
                schema.parse(orders, refs={"customers": customers})
            assert [(f.clause_id, f.count) for f in e.value.failures] == [(CLAUSE, 1)]
        report = schema.evaluate(orders)  # no refs: the clause cannot run, said by name
        r = next(x for x in report.results if x.clause.id == CLAUSE)
        assert r.status == "error" and "pass refs={'customers': <table>}" in r.message
    finally:
        con.disconnect()


def test_diff_adding_a_reference_is_breaking_removing_it_a_notice(tmp_path: Path) -> None:
    without = variant(tmp_path, ", references: customers.customer_id", "", "old.yaml")
    added = diff(load(without), load(FIXTURE))
    assert [(c.code, c.cls) for c in added.changes] == [("field.references_added", "breaking")]
    removed = diff(load(FIXTURE), load(without))
    assert [(c.code, c.cls) for c in removed.changes] == [("field.references_removed",
                                                           "compatible-with-notice")]
    moved = variant(tmp_path, "customers.customer_id", "clients.id", "moved.yaml")
    assert [c.code for c in diff(load(FIXTURE), load(moved)).changes] == ["field.references_changed"]


@pytest.mark.parametrize("target", record_targets())
def test_wire_schemas_declare_it_unsupported(target: str) -> None:
    _, unsupported = render_contract(load(FIXTURE), (target,), RenderOptions())
    reason = {u.clause_id: u.reason for u in unsupported}[CLAUSE]
    assert "foreign key reads another relation (customers)" in reason


@pytest.mark.parametrize(("customers", "message"), [
    ("  customer_id: {type: string}\n",
     "'customer_id' is int64 but references customers.customer_id, which is string: the values cannot match"),
    ("  id: {type: int64}\n",
     "'customer_id' references customers.customer_id, but contract customers has no field 'customer_id'"),
    ("  customer_id: {type: int32}\n", None),
])
def test_a_contract_of_the_referenced_relation_beside_it_is_checked(
        tmp_path: Path, customers: str, message: str | None) -> None:
    (tmp_path / "orders.yaml").write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "customers.yaml").write_text(
        "contract: customers\nversion: 1.0.0\nfields:\n" + customers, encoding="utf-8")
    res = CliRunner().invoke(main, ["lint", str(tmp_path / "orders.yaml")])
    if message is None:
        assert res.exit_code == 0, res.output
        return
    assert res.exit_code == 1
    assert f"orders.yaml:8:42: error: {message} [TG222]" in res.output
