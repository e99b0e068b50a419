"""A self reference (`manager_id` references the same relation's `employee_id`), for real in every
engine: `sample` puts each manager among the data's own employees and writes no relation file
(the data is the relation); `verify` runs dbt (a `relationships` test whose `ref` is the model
itself, dbt-duckdb), Soda v3 (a reference check on its own dataset), Soda 4, GX (the anti-join
over its own table), pandera (`schema(refs={"employees": df})`, the frame itself) and the ibis
runtime (`parse()` reads the table being parsed when `refs` does not name it). Clean data passes
in every engine; one dangling manager fails `references:manager_id` with one row in every engine.
The runtime and pandera are also run directly, and their errors name the clause."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.sample import check_sample, sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.conftest import engine_targets, value_targets

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "employees.yaml"
CLAUSE = "references:manager_id"
CHECKING = value_targets()


def _data(tmp_path: Path, violate: str | None) -> Path:
    contract = load(FIXTURE)
    data = sample(contract, plan(contract), rows=12, seed=3, violate=violate)
    assert data.violated == ((violate,) if violate else ())
    data_path, _ = write(data, tmp_path / "employees.csv")
    return data_path


def test_sample_puts_every_manager_among_the_employees(tmp_path: Path) -> None:
    import csv

    contract = load(FIXTURE)
    clean = sample(contract, plan(contract), rows=12, seed=3)
    assert {(v.clause_id, v.status) for v in check_sample(clean, plan(contract))} == {
        (c.id, "pass") for c in plan(contract)}
    ids = set(clean.columns["employee_id"])
    managers = [m for m in clean.columns["manager_id"] if m is not None]
    assert managers and set(managers) <= ids, clean.columns
    assert clean.refs == {}  # nothing beside the data: the data is the relation
    data_path = _data(tmp_path / "clean", None)
    assert sorted(p.name for p in data_path.parent.iterdir()) == ["employees.csv"]

    bad = sample(contract, plan(contract), rows=12, seed=3, violate=CLAUSE)
    assert bad.violated == (CLAUSE,)
    dangling = [m for m in bad.columns["manager_id"] if m is not None and m not in set(bad.columns["employee_id"])]
    assert len(dangling) == 1, bad.columns
    with open(_data(tmp_path / "bad", CLAUSE), newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sum(1 for r in rows if r["manager_id"] and int(r["manager_id"]) not in
               {int(r2["employee_id"]) for r2 in rows}) == 1


def _statuses(report: VerifyReport) -> dict[str, tuple[str, int | None]]:
    row = next(r for r in report.rows if r.clause.id == CLAUSE)
    return {t: (v.status, v.failures) for t, v in row.verdicts.items() if t in CHECKING}


@pytest.mark.engine
def test_every_engine_checks_a_self_reference(tmp_path: Path) -> None:
    assert set(CHECKING) <= set(engine_targets())
    contract = load(FIXTURE)
    cases = []
    for name, violate in (("clean", None), ("bad", CLAUSE)):
        data = sample(contract, plan(contract), rows=12, seed=3, violate=violate)
        data_path, catalog = write(data, tmp_path / name / "employees.csv")
        cases.append(VerifyCase(contract, data_path, catalog, data.now, CHECKING, FIXTURE))
    clean, bad = verify_cases(cases, engine="duckdb", workdir=tmp_path / "work")
    assert clean.exit_code == 0, clean.render_text()
    assert {t: s for t, (s, _) in _statuses(clean).items()} == dict.fromkeys(CHECKING, "pass"), \
        clean.render_text()
    assert bad.exit_code == 1, bad.render_text()
    assert _statuses(bad) == dict.fromkeys(CHECKING, ("fail", 1)), bad.render_text()
    others = {(r.clause.id, t, v.status) for r in bad.rows if r.clause.id != CLAUSE
              for t, v in r.verdicts.items() if v.status not in ("pass", "n/a")}
    assert others == set(), bad.render_text()


def _module(tmp_path: Path, target: str):  # type: ignore[no-untyped-def]
    from tacit_gen.engines.base import load_module

    arts, _ = render_contract(load(FIXTURE), (target,), RenderOptions())
    path = tmp_path / f"employees_{target}.py"
    path.write_text(next(a for a in arts if a.path.endswith(".py")).content, encoding="utf-8")
    return load_module(path, f"selfref_{target}")


@pytest.mark.parametrize("violate", [None, CLAUSE])
def test_the_runtime_reads_the_table_it_parses(tmp_path: Path, violate: str | None) -> None:
    import ibis

    from tacit_gen.engines.load import load_data
    from tacit_gen.runtime import contract
    from tacit_gen.runtime.errors import ConstraintError, ValidationPhase

    employees = _module(tmp_path, "ibis").Employees
    data_path = _data(tmp_path, violate)
    load_data(load(FIXTURE), data_path, tmp_path / "x.duckdb")
    con = ibis.duckdb.connect(str(tmp_path / "x.duckdb"))

    @contract(validate=True, returns=employees)  # the output's parse() reads the output itself
    def staff(raw):  # type: ignore[no-untyped-def]
        return raw.filter(raw.employee_id >= 0)

    try:
        t = con.table("employees")
        if violate is None:
            assert employees.parse(t).count().execute() == 12  # no refs: the table is the relation
            assert staff(t).count().execute() == 12
            return
        with pytest.raises(ConstraintError) as e:
            employees.parse(t)
        assert [(f.clause_id, f.count) for f in e.value.failures] == [(CLAUSE, 1)]
        assert "references: employees.employee_id" in str(e.value), str(e.value)
        with pytest.raises(ConstraintError) as e:
            staff(t)
        assert e.value.phase is ValidationPhase.CONTRACT_OUTPUT and e.value.clause_ids == (CLAUSE,)
        # refs= still wins: checked against a relation that has every id, the data passes
        every = ibis.memtable({"employee_id": list(range(10_000))})
        assert employees.parse(t, refs={"employees": every}).count().execute() == 12
    finally:
        con.disconnect()


@pytest.mark.parametrize("violate", [None, CLAUSE])
def test_pandera_checks_the_frame_against_itself(tmp_path: Path, violate: str | None) -> None:
    import pandera.errors as pe

    from tacit_gen.engines.load import load_data
    from tacit_gen.targets.pandera.engine import failures_by_clause, read_frame

    module = _module(tmp_path, "pandera")
    load_data(load(FIXTURE), _data(tmp_path, violate), tmp_path / "x.duckdb")
    df = read_frame(tmp_path / "x.duckdb", "employees")  # Arrow-backed, as the engine reads it
    schema = module.schema(refs={"employees": df})
    if violate is None:
        assert len(schema.validate(df, lazy=True)) == 12
        return
    with pytest.raises(pe.SchemaErrors) as e:
        schema.validate(df, lazy=True)
    # the check is named by its clause id, and its error is the contract's text
    rows, scalar, notes = failures_by_clause(e.value, schema)
    assert (set(rows), scalar, notes) == ({CLAUSE}, set(), []), e.value.failure_cases
    assert len(rows[CLAUSE]) == 1, e.value.failure_cases
    assert set(e.value.failure_cases["check"]) == {
        "manager_id: {type: int64, references: employees.employee_id}"}
