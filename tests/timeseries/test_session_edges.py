"""A session cadence checks the session's edges (tacit_gen/semantics/sessions.py).

Minute bars of XNYS (`60s within session`, bars stamped at their start) on Tue 2024-11-26, Wed
11-27 and Fri 11-29 (Thanksgiving 11-28 is no session; 11-29 closes at 13:00 New York, 18:00
UTC) and Mon 12-02. Every engine that checks the cadence (dbt, Soda v3, Soda 4, GX, pandera, the
ibis runtime) runs on the same data through `verify`, in one batch on DuckDB; the late open runs
on PostgreSQL 15 too. Each defect is one failing point (the first bar after the night), as a gap
inside a session is:

- a late open: the first hour of 11-27 missing (the feed starts at 10:30 New York);
- a late open on the early-close day 11-29 (its first bar at 09:31: one minute late);
- an early stop: 11-27's last half hour missing (its last bar at 15:29);
- an early stop on the early-close day: 11-29's bars stop at 12:00 (the session runs to 13:00),
  judged by 12-02's first bar.

What stays clean: a table that starts after the open of its first session or stops before the
close of its last (the data cuts a session; nothing after it judges it), with `gaps allowed`
nothing at the edges fails, and a tolerance of 5% admits a first bar 3 s after the open (4 s fails, and so does the
short step after it).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.calendar.data import MINUTE, minute_bars, utc, write
from tests.conftest import value_targets
from tests.parity.harness import failed_by_engine
from tests.parity.postgres_harness import PG_ENGINES

pytestmark = pytest.mark.engine
CID = "cadence:bar_start"
NOW = utc(2024, 12, 10)
DAYS = [date(2024, 11, 26), date(2024, 11, 27), date(2024, 11, 29), date(2024, 12, 2)]
ENGINES = value_targets("duckdb")  # dbt, soda, soda4, gx, pandera, ibis


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _rows() -> list[dict[str, str]]:
    return minute_bars(DAYS, "A")


def _without(rows: list[dict[str, str]], start: datetime, stop: datetime) -> list[dict[str, str]]:
    """`rows` less the bars starting in [start, stop)."""
    gone = {_stamp(start + timedelta(minutes=i)) for i in range(int((stop - start) / timedelta(minutes=1)))}
    return [r for r in rows if r["bar_start"] not in gone]


def _shifted(rows: list[dict[str, str]], at: datetime, seconds: int) -> list[dict[str, str]]:
    """`rows` with the bar at `at` moved `seconds` later."""
    moved = _stamp(at + timedelta(seconds=seconds))
    return [{**r, "bar_start": moved} if r["bar_start"] == _stamp(at) else r for r in rows]


# 2024-11-27 opens 14:30 UTC, closes 21:00; 2024-11-29 opens 14:30, closes 18:00 (early)
# name -> (contract, rows, points off the cadence)
CASES: dict[str, tuple[str, list[dict[str, str]], int]] = {
    "clean": (MINUTE, _rows(), 0),
    "late_open": (MINUTE, _without(_rows(), utc(2024, 11, 27, 14, 30), utc(2024, 11, 27, 15, 30)), 1),
    "late_open_early_close_day": (MINUTE, _without(_rows(), utc(2024, 11, 29, 14, 30), utc(2024, 11, 29, 14, 31)), 1),
    "early_stop": (MINUTE, _without(_rows(), utc(2024, 11, 27, 20, 30), utc(2024, 11, 27, 21)), 1),
    "early_stop_early_close_day": (MINUTE, _without(_rows(), utc(2024, 11, 29, 17), utc(2024, 11, 29, 18)), 1),
    "cut_first_and_last_session": (MINUTE, _without(_without(
        _rows(), utc(2024, 11, 26, 14, 30), utc(2024, 11, 26, 18)), utc(2024, 12, 2, 17), utc(2024, 12, 2, 21)), 0),
    "gaps_allowed_late_open": (MINUTE.replace("60s within session;", "60s within session; gaps allowed;"),
                               _without(_rows(), utc(2024, 11, 27, 14, 30), utc(2024, 11, 27, 15, 30)), 0),
    "tolerance_admits_jitter": (MINUTE.replace("60s within session;", "60s within session; tolerance +/-5% of interval;"),
                                _shifted(_rows(), utc(2024, 11, 27, 14, 30), 3), 0),
    "tolerance_late_open": (MINUTE.replace("60s within session;", "60s within session; tolerance +/-5% of interval;"),
                            _shifted(_rows(), utc(2024, 11, 27, 14, 30), 4), 2),
}


def _case(tmp: Path, name: str) -> VerifyCase:
    text, rows, _ = CASES[name]
    path = tmp / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return VerifyCase(load(str(path)), write(tmp / f"{name}.csv", rows), None, NOW, ENGINES, source=path)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    tmp = tmp_path_factory.mktemp("session-edges")
    got = verify_cases([_case(tmp, n) for n in CASES], engine="duckdb", workdir=tmp / "work")
    return dict(zip(CASES, got, strict=True))


@pytest.mark.parametrize("name", list(CASES))
def test_session_edges_in_every_engine(reports: dict[str, VerifyReport], name: str) -> None:
    report, fails = reports[name], CASES[name][2]
    table = report.render_text()
    assert set(report.targets) == set(ENGINES), table
    expected = {CID} if fails else set()
    for target, failed in failed_by_engine(report).items():
        assert failed == expected, f"{target}: {failed}\n{table}"
    assert not any(failed_by_engine(report, "error").values()), table
    if fails:  # the first bar after the night (and, 4 s late, the short step after it)
        row = next(r for r in report.rows if r.clause.id == CID)
        counts = {t: v.failures for t, v in row.verdicts.items() if v.failures is not None}
        assert counts and set(counts.values()) == {fails}, f"{counts}\n{table}"


def test_late_open_fails_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    case = _case(tmp_path, "late_open")
    report = run_verify(case.contract, case.data, None, PG_ENGINES, NOW, keep=tmp_path / "w",
                        engine="postgres", dsn=pg_server.dsn)
    table = report.render_text()
    assert set(report.targets) == set(PG_ENGINES), table
    assert all(f == {CID} for f in failed_by_engine(report).values()), table
    clean = _case(tmp_path, "clean")
    ok = run_verify(clean.contract, clean.data, None, PG_ENGINES, NOW, keep=tmp_path / "w2",
                    engine="postgres", dsn=pg_server.dsn)
    assert ok.exit_code == 0, ok.render_text()
