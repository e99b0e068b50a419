"""Many datasets of the same contract in ONE dbt project (tacit_gen/targets/dbt/batch.py: the
Spark parity batch), on real dbt and DuckDB: every case gets the verdicts its own build gives,
clause by clause. The first build is ONE `dbt build` of every case; the cases whose model fails
it (a column of the wrong type breaks the enforced contract, a NULL breaks a not_null
constraint at insert) are fitted and built again, selected alone; a model that fails for a
reason no round fits errors in its case only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.engines.load import load_data
from tacit_gen.plan import plan
from tacit_gen.render import render_contract, write_atomic
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import engine
from tacit_gen.targets.dbt.batch import BatchCase, build_cases
from tacit_gen.targets.dbt.names import case_properties
from tacit_gen.targets.dbt.render import ident
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine

CASES = (("fct_sensor_readings", None), ("fct_sensor_readings", "range:value_degc"),
         ("fct_sensor_readings", "column:value_degc"), ("fct_sensor_readings", "not_null:unit"),
         ("plant_sensor_reading", "catalog_unit:unit"), ("ohlcv_1m", "cadence:bar_start"),
         ("ohlcv_1m", None))
# the cases whose model fails the first build and is fitted (type mismatch, NULL under a
# constraint); not the case whose model selects a relation that does not exist
SECOND_ROUND = ("c2__fct_sensor_readings", "c3__fct_sensor_readings")


def test_case_properties_renames_the_model_its_tests_and_its_refs() -> None:
    text = ("version: 2\nmodels:\n- name: m\n  data_tests:\n  - t:\n      name: m__t\n"
            "      arguments:\n        catalog: ref('cat')\n  columns:\n  - name: a\n"
            "    data_tests:\n    - u:\n        name: m__u\n        arguments:\n"
            "          other: ref(\"x y\")\n")
    out, refs, model = case_properties(text, "c7__")
    assert model == "m"
    assert refs == {"cat", "x y"}
    assert "- name: c7__m\n" in out
    assert "name: c7__m__t\n" in out and "name: c7__m__u\n" in out
    assert "ref('c7__cat')" in out and 'ref("c7__x y")' in out


def _statuses(run_: Any) -> dict[str, str]:
    return {v.clause_id: v.status for v in run_.verdicts}


def test_one_build_gives_every_case_its_own_verdicts(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = []
    for i, (name, violate) in enumerate(CASES):
        contract = load(CONTRACTS / f"{name}.yaml")
        data = sample(contract, plan(contract), rows=24, seed=7, violate=violate)
        assert data.violated == ((violate,) if violate else ())
        data_path, catalog = write(data, tmp_path / f"data{i}" / f"{name}.csv")
        wd = tmp_path / f"c{i}"
        arts, _ = render_contract(contract, ("dbt",), RenderOptions())
        for a in arts:
            write_atomic(wd / "artifacts" / a.path, a.content)
        load_data(contract, data_path, wd / "data.duckdb", table=contract.name,
                  catalog_path=catalog)
        inputs.append(VerifyInput(contract=contract, clauses=plan(contract),
                                  artifact_dir=wd / "artifacts", database=wd / "data.duckdb",
                                  table=contract.name, now=data.now, workdir=wd / "dbt"))
    assert len({inp.now for inp in inputs}) == 1  # one project

    output = {"type": "duckdb", "path": str(tmp_path / "batch.duckdb"), "threads": 1,
              "settings": {"TimeZone": "UTC"},
              "attach": [{"path": str(inp.database.resolve()), "alias": f"src_c{i}",
                          "read_only": True} for i, inp in enumerate(inputs)]}

    def source(i: int) -> Any:
        def sql(relation: str, view: bool = False) -> str:
            cfg = "{{ config(materialized='view') }}\n" if view else ""
            return f"{cfg}select * from src_c{i}.main.{ident(relation)}\n"
        return sql

    cases = [BatchCase(f"c{i}", inp, source(i)) for i, inp in enumerate(inputs)]
    cases.append(BatchCase("broken", inputs[0], lambda rel, view=False: "select * from nowhere\n"))
    builds: list[tuple[str, ...]] = []
    real = engine.invoke

    def counting(project: Path, *args: str, manifest: Any = None) -> Any:
        if args[0] == "build":
            builds.append(args)
        return real(project, *args, manifest=manifest)

    monkeypatch.setattr(engine, "invoke", counting)
    runs = build_cases(cases, tmp_path / "batch",
                       lambda project: engine.write_project(project, Path("-"), output))
    monkeypatch.undo()
    assert "--select" not in builds[0]  # every case in the first build
    assert builds[1][builds[1].index("--select") + 1:] == SECOND_ROUND
    assert len(builds) == 2, builds  # the broken model gets no second round: no round fits it
    broken = _statuses(runs["broken"])
    assert broken["range:value_degc"] == "error" and "fail" not in broken.values()

    for i, inp in enumerate(inputs):
        alone = engine.run(inp)  # the case's own project and build
        assert _statuses(runs[f"c{i}"]) == _statuses(alone), CASES[i]
        failed = {c for c, s in _statuses(alone).items() if s == "fail"}
        assert failed == ({CASES[i][1]} if CASES[i][1] else set()), CASES[i]


def _inputs(tmp_path: Path, cases: tuple[tuple[str, str | None], ...]) -> list[VerifyInput]:
    inputs = []
    for i, (name, violate) in enumerate(cases):
        contract = load(CONTRACTS / f"{name}.yaml")
        data = sample(contract, plan(contract), rows=24, seed=7, violate=violate)
        data_path, catalog = write(data, tmp_path / f"data{i}" / f"{name}.csv")
        wd = tmp_path / f"c{i}"
        for a in render_contract(contract, ("dbt",), RenderOptions())[0]:
            write_atomic(wd / "artifacts" / a.path, a.content)
        load_data(contract, data_path, wd / "data.duckdb", table=contract.name, catalog_path=catalog)
        inputs.append(VerifyInput(contract=contract, clauses=plan(contract),
                                  artifact_dir=wd / "artifacts", database=wd / "data.duckdb",
                                  table=contract.name, now=data.now, workdir=wd / "dbt"))
    return inputs


def test_run_cases_builds_one_contracts_datasets_in_one_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_cases` (verify's batch on DuckDB and PostgreSQL: the parity and hardening suites)
    puts many datasets of ONE contract in one project, each after the first under a prefix of
    its own, so dbt parses once a build instead of once a dataset: one first build of all, one
    more of the models a round fits; each dataset fails exactly the clause its data breaks, with
    the failing rows its own build counts."""
    cases = CASES[:4]
    inputs = _inputs(tmp_path, cases)
    assert engine.batch_groups(inputs) == [[(0, ""), (1, "c1__"), (2, "c2__"), (3, "c3__")]]
    builds: list[tuple[Path, tuple[str, ...]]] = []
    real = engine.invoke

    def counting(project: Path, *args: str, manifest: Any = None) -> Any:
        if args[0] == "build":
            builds.append((project, args))
        return real(project, *args, manifest=manifest)

    monkeypatch.setattr(engine, "invoke", counting)
    runs = engine.run_cases(inputs)
    monkeypatch.undo()
    assert len({project for project, _ in builds}) == 1
    assert "--select" not in builds[0][1] and len(builds) == 2, builds
    assert builds[1][1][builds[1][1].index("--select") + 1:] == SECOND_ROUND
    for (_name, violate), run_ in zip(cases, runs, strict=True):
        failed = {v.clause_id: v.failures for v in run_.verdicts if v.status == "fail"}
        assert set(failed) == ({violate} if violate else set()), (violate, failed)
    assert {v.clause_id: v.failures for v in runs[1].verdicts if v.status == "fail"} == {
        "range:value_degc": 1}
