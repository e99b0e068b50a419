"""`verify` shows the offending rows of a violated clause, from every engine that can give them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main

pytestmark = pytest.mark.engine
NOW = "2024-01-02T15:00:00Z"

CONTRACT = """\
contract: grid_voltage
version: 1.0.0
owner: grid@example
key: [meter_id, event_ts, revision]
time:
  column: event_ts
  precision: ms
  timezone: UTC instant
fields:
  meter_id:  {type: string, nullable: false}
  event_ts:  {type: timestamp_ms_utc, nullable: false}
  voltage_v: {type: float64, unit: V, dimension: electric_potential, nullable: false}
  source_id: {type: string, nullable: false}
  revision:  {type: int64, nullable: false}
invariants:
  - 0 <= voltage_v <= 260
revision_policy:
  allowed: true
  by: [scada]
"""

# m01's key twice, m02 above its bound, m03 restated by a source the contract does not allow
DATA = """\
meter_id,event_ts,voltage_v,source_id,revision
m01,2024-01-02T10:00:00.000Z,230.1,scada,0
m01,2024-01-02T10:00:00.000Z,230.2,scada,0
m02,2024-01-02T10:00:00.000Z,999.5,scada,0
m03,2024-01-02T10:00:00.000Z,231.0,scada,0
m03,2024-01-02T10:00:00.000Z,229.0,manual_fix,1
m04,2024-01-02T10:00:00.000Z,231.0,scada,0
"""

SAMPLING = ("dbt", "soda", "gx", "pandera", "ibis")
EXPECTED = {  # clause -> (column, value) every sampled row of it holds
    "unique:meter_id,event_ts,revision": ("meter_id", "m01"),
    "range:voltage_v": ("voltage_v", "999.5"),
    "revision_by:source_id": ("meter_id", "m03"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("grid")
    (d / "grid.yaml").write_text(CONTRACT, encoding="utf-8")
    (d / "data.csv").write_text(DATA, encoding="utf-8")
    return d / "grid.yaml", d / "data.csv"


@pytest.fixture(scope="module")
def report(files: tuple[Path, Path]) -> dict[str, Any]:
    contract, data = files
    res = CliRunner().invoke(main, ["verify", str(contract), "--data", str(data), "--now", NOW,
                                    "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 1, res.output
    return json.loads(res.output)


def test_each_engine_that_samples_names_the_offending_rows(report: dict[str, Any]) -> None:
    clauses = {c["id"]: c for c in report["clauses"]}
    for cid, (col, value) in EXPECTED.items():
        for t in SAMPLING:
            v = clauses[cid]["verdicts"][t]
            assert v["status"] == "fail", (cid, t, v)
            assert v["rows"], (cid, t, "no rows")
            assert len(v["rows"]) <= 5
            assert all(row.get(col) == value for row in v["rows"]), (cid, t, v["rows"])
    # the restated row itself: revision 1 by manual_fix, where the engine returns whole rows
    for t in ("dbt", "soda", "gx", "pandera", "ibis"):
        rows = clauses["revision_by:source_id"]["verdicts"][t]["rows"]
        assert rows[0]["source_id"] == "manual_fix", (t, rows)


def test_nothing_is_sampled_for_a_passing_clause(report: dict[str, Any]) -> None:
    for c in report["clauses"]:
        for t, v in c["verdicts"].items():
            if v["status"] == "pass":
                assert v["rows"] == [], (c["id"], t)


def test_an_engine_without_rows_is_named_once(report: dict[str, Any], files: tuple[Path, Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    missing = report["rows_unavailable"]
    assert not set(missing) & set(SAMPLING)
    assert "jsonschema" in missing  # it fails range:voltage_v, with no rows
    contract, data = files
    monkeypatch.setenv("COLUMNS", "80")
    res = CliRunner().invoke(main, ["verify", str(contract), "--data", str(data), "--now", NOW,
                                    "--target", "ibis,jsonschema"], catch_exceptions=False)
    out = res.output
    assert res.exit_code == 1, out
    assert out.count("no offending rows from jsonschema") == 1, out
    assert max(len(ln) for ln in out.splitlines()) <= 80, out
    section = out[out.index("offending rows"):]
    assert "999.5" in section and "manual_fix" in section and "m01" in section
    # the range clause's table shows the key and the clause's column, not every column
    head = section[section.index("range:voltage_v"):].splitlines()[1].split()
    assert head == ["meter_id", "event_ts", "revision", "voltage_v"]


def test_dbt_and_gx_rows_with_their_keys_on_postgres(files: tuple[Path, Path], pg_server) -> None:  # type: ignore[no-untyped-def]
    """dbt's `--store-failures` tables live in the audit schema on the server: read back there;
    GX's rows carry the key there too (its index columns, a failed custom query run again)."""
    contract, data = files
    dsn = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    res = CliRunner().invoke(main, ["verify", str(contract), "--data", str(data), "--now", NOW,
                                    "--engine", "postgres", "--dsn", dsn, "--target", "dbt,gx,ibis",
                                    "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 1, res.output
    clauses = {c["id"]: c for c in json.loads(res.output)["clauses"]}
    for cid, (col, value) in EXPECTED.items():
        for t in ("dbt", "gx", "ibis"):
            v = clauses[cid]["verdicts"][t]
            assert v["status"] == "fail" and v["rows"], (cid, t, v)
            assert all(row.get(col) == value for row in v["rows"]), (cid, t, v["rows"])
            assert all({"meter_id", "event_ts"} <= set(row) for row in v["rows"]), (cid, t, v["rows"])
    assert clauses["revision_by:source_id"]["verdicts"]["dbt"]["rows"][0]["source_id"] == "manual_fix"


def test_dbt_rows_on_the_many_dataset_path(tmp_path: Path) -> None:
    """`verify --data-dir`: one dbt build for every dataset (two contracts here, one clean) stores
    the failures too, and each failed test's rows go back to its own dataset."""
    contract = tmp_path / "grid_voltage.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    clean = tmp_path / "grid_clean.yaml"
    clean.write_text(CONTRACT.replace("contract: grid_voltage", "contract: grid_clean"), encoding="utf-8")
    d = tmp_path / "data"
    d.mkdir()
    (d / "grid_voltage.csv").write_text(DATA, encoding="utf-8")
    (d / "grid_clean.csv").write_text("\n".join(DATA.splitlines()[:2]) + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["verify", str(contract), str(clean), "--data-dir", str(d),
                                    "--now", NOW, "--target", "dbt", "--format", "json"],
                             catch_exceptions=False)
    assert res.exit_code == 1, res.output
    reports = {r["contract"]: r for r in json.loads(res.output)["contracts"]}
    failing = {c["id"]: c["verdicts"]["dbt"] for c in reports["grid_voltage"]["clauses"]}
    for cid, (col, value) in EXPECTED.items():
        v = failing[cid]
        assert v["status"] == "fail" and v["rows"], (cid, v)
        assert all(row.get(col) == value for row in v["rows"]), (cid, v["rows"])
    assert failing["revision_by:source_id"]["rows"][0]["source_id"] == "manual_fix"
    for c in reports["grid_clean"]["clauses"]:
        assert c["verdicts"]["dbt"]["rows"] == [], c
