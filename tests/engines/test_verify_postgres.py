"""`verify --engine postgres`: every target on a real PostgreSQL 15 whose own time zone is
America/New_York; a one-minute series across both 2024 DST changes keeps its cadence and
freshness verdicts in every target (sessions run in UTC; time steps are epoch differences). The
six datasets of the two changes are verified in one batch (each engine once, one dbt build)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import psycopg2
import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify
from tests.conftest import CONTRACTS, PG_SERVER_TIMEZONE, verify_named
from tests.parity.harness import failed_by_engine
from tests.parity.postgres_harness import PG_ENGINES as ENGINES
from tests.runtime.test_postgres import DST_CHANGES, FIXTURE, _csv

pytestmark = pytest.mark.engine
CONTRACT = load(str(FIXTURE))


# each DST change's three datasets: clean, one gap (cadence fails), stale (freshness fails)
KINDS = ("clean", "gap", "stale")


@pytest.fixture(scope="module")
def dst_reports(pg_server: Server,
                tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, str], VerifyReport]:
    """Both DST changes' three datasets verified on the server in ONE run (`verify_cases`: each
    engine once, one dbt build), the server's own zone checked first."""
    raw = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    con = psycopg2.connect(raw)
    try:
        with con.cursor() as cur:
            cur.execute("SHOW timezone")
            assert cur.fetchone() == (PG_SERVER_TIMEZONE,)
    finally:
        con.close()
    tmp = tmp_path_factory.mktemp("dst")
    cases = {}
    for i, change in enumerate(DST_CHANGES):
        last = change + dt.timedelta(minutes=5)
        fresh_now = last + dt.timedelta(minutes=14, seconds=59)
        made = {"clean": (_csv(tmp / f"{i}-clean.csv", change), fresh_now),
                "gap": (_csv(tmp / f"{i}-gap.csv", change, gap_at=6),
                        fresh_now + dt.timedelta(minutes=1)),
                "stale": (_csv(tmp / f"{i}-stale.csv", change), fresh_now + dt.timedelta(seconds=2))}
        for kind in KINDS:
            data, now = made[kind]
            cases[(i, kind)] = VerifyCase(CONTRACT, data, None, now, ENGINES, FIXTURE)
    return verify_named(cases, tmp / "work", engine="postgres", dsn=raw)


@pytest.mark.parametrize("change", range(len(DST_CHANGES)), ids=["spring_forward", "fall_back"])
def test_dst_change_moves_no_verdict_in_any_target(
        dst_reports: dict[tuple[int, str], VerifyReport], change: int) -> None:
    clean = dst_reports[(change, "clean")]
    assert clean.exit_code == 0, clean.render_text()
    assert all(v.status == "pass" for r in clean.rows for v in r.verdicts.values())

    gap = dst_reports[(change, "gap")]
    assert gap.exit_code == 1, gap.render_text()
    assert all(f == {"cadence:event_ts"} for f in failed_by_engine(gap).values()), gap.render_text()

    stale = dst_reports[(change, "stale")]
    assert stale.exit_code == 1, stale.render_text()
    assert all(f == {"freshness:event_ts"} for f in failed_by_engine(stale).values()), stale.render_text()


def test_cli_engine_postgres_on_a_throwaway_server(tmp_path: Path) -> None:
    change = DST_CHANGES[0]
    data = _csv(tmp_path / "d.csv", change)
    now = (change + dt.timedelta(minutes=10)).isoformat().replace("+00:00", "Z")
    res = CliRunner().invoke(main, ["verify", str(FIXTURE), "--data", str(data), "--now", now,
                                    "--engine", "postgres", "--target", "soda,ibis",
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output[res.output.index("{"):])
    assert report["verdict"] == "pass" and report["targets"] == ["soda", "ibis"]


def test_cli_dsn_needs_engine_postgres(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["verify", str(CONTRACTS / "fct_sensor_readings.yaml"),
                                    "--data", str(FIXTURE), "--dsn", "postgresql://x@127.0.0.1/db"])
    assert res.exit_code == 2
    assert "--dsn is for --engine postgres" in res.output


def test_cli_unreachable_server_is_a_usage_error(tmp_path: Path) -> None:
    data = _csv(tmp_path / "d.csv", DST_CHANGES[0])
    res = CliRunner().invoke(main, ["verify", str(FIXTURE), "--data", str(data), "--engine",
                                    "postgres", "--dsn", "postgresql://u:secret@127.0.0.1:1/db",
                                    "--target", "ibis"])
    assert res.exit_code == 2, res.output
    assert "cannot connect to PostgreSQL" in res.output and "secret" not in res.output


def test_a_contract_pinned_dialect_runs_in_the_engine_dialect(pg_server: Server,
                                                                tmp_path: Path) -> None:
    """A contract pinning `targets.<t>.dialect: duckdb` still runs on PostgreSQL: verify renders
    for the engine and says so, instead of running DuckDB SQL on PostgreSQL."""
    pinned = tmp_path / "pinned.yaml"
    text = FIXTURE.read_text(encoding="utf-8")
    assert "\ntargets:" not in text
    pinned.write_text(text + "targets:\n  soda: {dialect: duckdb}\n  gx: {dialect: duckdb}\n",
                      encoding="utf-8")
    contract = load(str(pinned))
    assert contract.target_option("soda", "dialect") == "duckdb"
    raw = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    change = DST_CHANGES[0]
    now = change + dt.timedelta(minutes=10)
    report = run_verify(contract, _csv(tmp_path / "clean.csv", change), None, ("soda", "gx"), now,
                        keep=tmp_path / "w", engine="postgres", dsn=raw)
    assert report.exit_code == 0, report.render_text()
    assert all(v.status == "pass" for r in report.rows for v in r.verdicts.values())
    for t in ("soda", "gx"):
        assert (f"{t}: the contract pins targets.{t}.dialect: duckdb; verify renders it for the "
                "postgres engine it runs on") in report.load_notes
    gx_suite = json.loads(next((tmp_path / "w").rglob("gx/*.json")).read_text(encoding="utf-8"))
    assert gx_suite["meta"]["tacit_dialect"] == "postgres"
