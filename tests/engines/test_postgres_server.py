"""The throwaway PostgreSQL server and the loader that types data into it (real PostgreSQL 15)."""

from __future__ import annotations

import os
import signal
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg2
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.load import load_postgres, postgres_type
from tacit_gen.engines.postgres_server import Server, throwaway_server, utc_dsn
from tests.conftest import PG_SERVER_TIMEZONE

pytestmark = pytest.mark.engine


def _one(dsn: str, sql: str) -> Any:
    con = psycopg2.connect(dsn)
    try:
        with con.cursor() as cur:
            cur.execute(sql)
            row = cur.fetchone()
            return row[0] if row else None
    finally:
        con.close()


def _pid(server: Server) -> int:
    return int(_one(server.dsn, "SELECT pg_backend_pid()"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sessions_run_in_utc_on_a_server_whose_zone_is_not(pg_server: Server) -> None:
    raw = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    assert _one(raw, "SHOW timezone") == PG_SERVER_TIMEZONE
    assert _one(pg_server.dsn, "SHOW timezone") == "UTC"
    assert _one(utc_dsn(raw + "?application_name=x"), "SHOW timezone") == "UTC"
    assert _one(pg_server.dsn, "SHOW listen_addresses") == "127.0.0.1"
    assert str(_one(pg_server.dsn, "SHOW server_version")).split(".")[0].isdigit()


def test_server_stops_and_its_folder_goes_on_exit_and_on_interrupt() -> None:
    # Python's own SIGINT handler (KeyboardInterrupt), whatever a library loaded earlier in this
    # worker installed (under xdist, an engine's import may leave a handler of its own)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _stops_on_exit_and_interrupt()
    finally:
        signal.signal(signal.SIGINT, previous)


def _stops_on_exit_and_interrupt() -> None:
    for interrupt in (False, True):
        folder: Path | None = None
        postmaster = 0
        with pytest.raises(KeyboardInterrupt) if interrupt else _null():  # noqa: SIM117
            with throwaway_server() as server:
                folder = Path(str(_one(server.dsn, "SHOW data_directory"))).parent
                postmaster = int(_one(server.dsn, "SELECT pid FROM pg_stat_activity "
                                                  "WHERE backend_type = 'checkpointer'"))
                assert folder.is_dir() and _alive(postmaster)
                if interrupt:
                    os.kill(os.getpid(), signal.SIGINT)
        assert folder is not None and not folder.exists()
        assert not _alive(postmaster)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


CONTRACT = load(
    "typed.yaml",
    """\
contract: typed
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  n32: {type: int32}
  price: {type: decimal(18,8), unit: USD}
  f: {type: float64, unit: m}
  ok: {type: bool}
  day: {type: date}
  ts: {type: timestamp_ms_utc}
  note: {type: string}
  q: {type: enum[good, bad]}
""",
)


def test_load_types_every_column_as_the_duckdb_loader_does(pg_server: Server, tmp_path: Path) -> None:
    data = tmp_path / "typed.csv"
    data.write_text(
        "id,n32,price,f,ok,day,ts,note,q\n"
        '1,7,123456789.12345678,0.1,true,2024-03-10,2024-03-10T06:59:59.999Z,"a,""b\\",good\n'
        "2,,0.00000001,,false,,2024-03-10T03:00:00.001-04:00,,bad\n",
        encoding="utf-8",
    )
    report = load_postgres(CONTRACT, data, pg_server.dsn, "typed_s", tmp_path / "w")
    assert report.ok and report.rows == 2
    con = psycopg2.connect(pg_server.dsn)
    try:
        with con.cursor() as cur:
            cur.execute("SELECT column_name, data_type, numeric_precision, numeric_scale "
                        "FROM information_schema.columns WHERE table_schema = 'typed_s' "
                        "ORDER BY ordinal_position")
            cols = cur.fetchall()
            cur.execute("SELECT price, note, ts, extract(epoch from ts) FROM typed_s.typed ORDER BY id")
            rows = cur.fetchall()
    finally:
        con.close()
    assert [c[0] for c in cols] == ["id", "n32", "price", "f", "ok", "day", "ts", "note", "q"]
    assert {c[0]: c[1] for c in cols} == {c: postgres_type(t) if "(" not in postgres_type(t) else "numeric"
                                          for c, t in report.columns}
    assert cols[2][2:] == (18, 8)
    assert rows[0][0] == Decimal("123456789.12345678") and rows[1][0] == Decimal("0.00000001")
    assert rows[0][1] == 'a,"b\\' and rows[1][1] is None  # quotes, commas, backslash intact
    assert rows[0][3] == Decimal("1710053999.999000")  # the instant, read in UTC
    assert rows[1][3] == Decimal("1710054000.001000")  # -04:00 offset converted, not dropped


def test_a_value_that_does_not_fit_is_loaded_with_the_fallback_type(pg_server: Server, tmp_path: Path) -> None:
    data = tmp_path / "bad.csv"
    data.write_text("id,n32,price,f,ok,day,ts,note,q\n"
                    "1,7,1.5,0.1,true,2024-03-10,2024-03-10 06:59:59,x,good\n", encoding="utf-8")
    report = load_postgres(CONTRACT, data, pg_server.dsn, "typed_bad", tmp_path / "w")
    assert [f.column for f in report.failures] == ["ts"]
    kind = _one(pg_server.dsn, "SELECT data_type FROM information_schema.columns "
                               "WHERE table_schema = 'typed_bad' AND column_name = 'ts'")
    assert kind == "timestamp without time zone"
