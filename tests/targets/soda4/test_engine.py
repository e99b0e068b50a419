"""Soda 4 engine: the real soda-core 4.28, in its own environment, runs the rendered contracts.

Every generated file validates against the contract JSON Schema soda-core 4 ships; verify passes
clean data and names the broken clause (with Soda's failing-row count) on one-violation data; a
column the data lacks fails its column clause while the clauses reading it are n/a, never a
crash; the environment is the cached one built from the shipped lock, holding soda-core 4.28."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda4 import TARGET
from tacit_gen.targets.soda4.env import ensure_env
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.hardening.helpers import cli

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))


def _soda_python(code: str) -> str:
    env = ensure_env()
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run([str(env.python), "-c", code], capture_output=True, text=True, check=True,
                         cwd=env.path, env=clean)  # as the engine runs it: no path to this checkout
    return out.stdout.strip()


def test_the_environment_holds_soda_core_4_and_no_tacit_gen() -> None:
    got = _soda_python(
        "import importlib.metadata as m, importlib.util as u;"
        "print(m.version('soda-core'), m.version('soda-duckdb'), m.version('soda-postgres'),"
        " u.find_spec('tacit_gen') is None)")
    assert got == "4.28.0 4.28.0 4.28.0 True"
    res = cli("engines", "setup", "soda4")
    assert res.returncode == 0, res.stderr
    assert str(ensure_env().path) in res.stdout and "(cached)" in res.stdout


def test_generated_contracts_validate_against_soda_core_4_json_schema() -> None:
    import jsonschema

    where = _soda_python("import soda_core, os; print(os.path.dirname(soda_core.__file__))")
    schema = json.loads((Path(where) / "contracts" / "soda_data_contract_json_schema_1_0_0.json")
                        .read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted((ROOT / "generated" / "soda4").glob("*.yml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert [e.message for e in validator.iter_errors(doc)] == [], path.name
    # and it is not a schema that accepts anything: a misspelt check key is refused
    assert list(validator.iter_errors({"dataset": "a/b/c", "checks": [{"failed_row": {}}]}))


CLEAN = [(p.stem, None) for p in BUNDLED]
VIOLATIONS = [
    ("ohlcv_1m", "invariant:low <= open <= high", 1),
    ("ohlcv_1m", "cadence:bar_start", None),
    ("plant_sensor_reading", "catalog_unit:unit", None),
    ("fct_sensor_readings", "freshness:event_ts", None),
    ("fct_sensor_readings", "accepted_values:quality", 1),
]
MISSING = ("fct_sensor_readings", "no quality column")


def _unsupported(name: str) -> set[str]:
    contract = load(ROOT / "contracts" / f"{name}.yaml")
    return {u.clause_id for u in TARGET.render(contract, plan(contract), RenderOptions()).unsupported}


def _drop_column(path: Path, name: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    drop = lines[0].split(",").index(name)
    path.write_text("\n".join(",".join(x for i, x in enumerate(ln.split(",")) if i != drop)
                              for ln in lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str | None], VerifyReport]:
    """Every case of this module in ONE verify batch (one soda-core 4 worker)."""
    root = tmp_path_factory.mktemp("soda4-engine")
    keys = [*CLEAN, *((n, c) for n, c, _ in VIOLATIONS), MISSING]
    cases = []
    for i, (name, clause) in enumerate(keys):
        path = ROOT / "contracts" / f"{name}.yaml"
        contract = load(path)
        violate = clause if clause in {c for _, c, _ in VIOLATIONS} else None
        data = sample(contract, plan(contract), rows=24, seed=3, violate=violate)
        assert data.violated == ((violate,) if violate else ())
        data_path, catalog = write(data, root / f"d{i}" / f"{name}.csv")
        if (name, clause) == MISSING:
            _drop_column(data_path, "quality")
        cases.append(VerifyCase(contract, data_path, catalog, data.now, ("soda4",), path))
    return dict(zip(keys, verify_cases(cases, engine="duckdb", workdir=root / "work"), strict=True))


@pytest.mark.parametrize("key", CLEAN, ids=[k[0] for k in CLEAN])
def test_clean_sample_passes_every_clause(reports: dict, key: tuple[str, None]) -> None:
    report = reports[key]
    assert report.exit_code == 0, report.render_text()
    skip = _unsupported(key[0])  # declared at render (a clause kind Soda 4 cannot say): n/a
    assert {r.clause.id: r.verdicts["soda4"].status for r in report.rows} == {
        r.clause.id: "n/a" if r.clause.id in skip else "pass" for r in report.rows}


@pytest.mark.parametrize(("name", "clause", "failures"), VIOLATIONS)
def test_one_violation_is_named_by_soda_4(reports: dict, name: str, clause: str,
                                          failures: int | None) -> None:
    report = reports[(name, clause)]
    assert report.exit_code == 1, report.render_text()
    got = {r.clause.id: r.verdicts["soda4"] for r in report.rows}
    assert {cid for cid, v in got.items() if v.status == "fail"} == {clause}
    if failures is not None:
        assert got[clause].failures == failures
    skip = _unsupported(name)
    assert {v.status for cid, v in got.items() if cid != clause and cid not in skip} == {"pass"}


def test_a_missing_column_fails_its_column_clause_and_the_rest_still_runs(reports: dict) -> None:
    report = reports[MISSING]
    got = {r.clause.id: r.verdicts["soda4"] for r in report.rows}
    assert got["column:quality"].status == "fail"
    assert "missing" in got["column:quality"].detail
    assert got["accepted_values:quality"].status == "n/a"
    assert got["not_null:series_id"].status == "pass"
    assert report.exit_code == 1, report.render_text()


def test_verify_cli_names_the_broken_clause(tmp_path: Path) -> None:
    contract = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    clause = "range:volume"
    data = sample(contract, plan(contract), rows=24, seed=3, violate=clause)
    data_path, _ = write(data, tmp_path / "ohlcv_1m.csv")
    res = cli("verify", str(ROOT / "contracts" / "ohlcv_1m.yaml"), "--data", str(data_path),
              "--target", "soda4", "--now", data.now.isoformat(), "--format", "json", timeout=600)
    assert res.returncode == 1, res.stdout[-3000:] + res.stderr[-2000:]
    rows = {r["id"]: r["verdicts"]["soda4"] for r in json.loads(res.stdout)["clauses"]}
    assert {cid for cid, v in rows.items() if v["status"] == "fail"} == {clause}
    assert rows[clause]["failures"] == 1
