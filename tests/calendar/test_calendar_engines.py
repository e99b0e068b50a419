"""Issue 13's done-when list, run in every engine: XNYS 2024 sessions from exchange_calendars.

Minute bars with `60s within session` over the March DST change (2024-03-08 -> 03-11: the open
moves from 14:30 to 13:30 UTC), the November one (2024-11-01 -> 11-04: 13:30 to 14:30 UTC, the
close 20:00 to 21:00) and the early close of 2024-11-29 (18:00 UTC), with overnight steps, pass in dbt, Soda, GX, pandera and the ibis runtime; a bar missing inside a session, a bar
at 13:30 New York on the early-close day, and a bar on Thanksgiving each fail naming
`cadence:bar_start` in every engine. Daily bars across Independence Day pass with the calendar
and fail Monday-to-Friday without it. A restatement 5 sessions after its event passes and one 6
sessions after fails across Thanksgiving week (Monday to Friday would count the holiday).
The DuckDB cases run in one batch (`verify_cases`: each engine once, one dbt build).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.calendar.data import DAILY, MINUTE, iso, minute_bars, utc, write
from tests.parity.harness import failed_by_engine
from tests.parity.postgres_harness import PG_ENGINES

pytestmark = pytest.mark.engine
ENGINES = PG_ENGINES  # dbt, soda, gx, pandera, ibis
NOW = utc(2024, 12, 10)
DST = [date(2024, 3, 8), date(2024, 3, 11)]
EARLY = [date(2024, 11, 27), date(2024, 11, 29)]
NOVEMBER_DST = [date(2024, 11, 1), date(2024, 11, 4)]  # New York falls back on Sunday 11-03


def _contract(tmp: Path, text: str, name: str = "c.yaml"):
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return load(str(path))


def _clean_minutes() -> list[dict[str, str]]:
    # series C first: the defects below copy B's last bar (rows[-2])
    rows = minute_bars(NOVEMBER_DST, "C") + minute_bars(DST, "A") + minute_bars(EARLY, "B")
    # a restatement of Wed 2024-11-27 15:00 ingested Thu 2024-12-05: 5 sessions later
    # (11-29, 12-02, 12-03, 12-04, 12-05; Thanksgiving 11-28 is none): inside the window
    rows.append({**next(r for r in rows if r["bar_start"] == "2024-11-27T15:00:00.000Z"),
                 "ingested_at": iso(utc(2024, 12, 5, 22)), "revision": "1"})
    return rows


def _verify(tmp: Path, contract_text: str, rows: list[dict[str, str]], name: str,
            engine: str = "duckdb", dsn: str | None = None) -> VerifyReport:
    contract = _contract(tmp, contract_text, f"{name}.yaml")
    data = write(tmp / f"{name}.csv", rows)
    return run_verify(contract, data, None, ENGINES, NOW, keep=tmp / f"work-{name}",
                      engine=engine, dsn=dsn)


def _only(report: VerifyReport, clause: str) -> None:
    table = report.render_text()
    assert report.exit_code == 1, table
    assert set(report.targets) == set(ENGINES), table
    for target, failed in failed_by_engine(report).items():
        assert failed == {clause}, f"{target}: {failed}\n{table}"


def _all_pass(report: VerifyReport) -> None:
    table = report.render_text()
    assert report.exit_code == 0, table
    assert set(report.targets) == set(ENGINES), table
    for r in report.rows:
        for t, v in r.verdicts.items():
            assert v.status == "pass", f"{t} {r.clause.id}: {v.status}\n{table}"


def _defect(defect: str) -> list[dict[str, str]]:
    rows = _clean_minutes()
    if defect == "missing_inside":  # 10:17 New York on 2024-11-27
        return [r for r in rows if r["bar_start"] != "2024-11-27T15:17:00.000Z"]
    at = utc(2024, 11, 29, 18, 30) if defect == "after_early_close" else utc(2024, 11, 28, 15)
    rows.append({**rows[-2], "bar_start": iso(at), "ingested_at": iso(at), "revision": "0"})
    return rows


def _late6() -> list[dict[str, str]]:
    rows = _clean_minutes()
    rows[-1] = {**rows[-1], "ingested_at": iso(utc(2024, 12, 6, 22))}  # 6 sessions after 11-27
    return rows


def _daily(days: list[date]) -> list[dict[str, str]]:
    return [{"symbol": "A", "bar_date": iso(utc(d.year, d.month, d.day)), "close": "1.00000000",
             "revision": "0"} for d in days]


# Mon 07-01, Tue 07-02, Wed 07-03, (Thu 07-04 holiday), Fri 07-05, Mon 07-08
INDEPENDENCE = [date(2024, 7, d) for d in (1, 2, 3, 5, 8)]
MONDAY_TO_FRIDAY = DAILY.replace("  calendar: XNYS\n", "").replace("calendar: {relation: xnys_sessions}\n", "")
PER_SERIES_ENGINES = ("dbt", "ibis", "pandera", "soda")
# `calendar: per series from catalog`: each series' exchange from the catalog's venue column
PER_SERIES = MINUTE.replace("  calendar: XNYS\n", "  calendar: per series from catalog\n") + (
    "catalog: {relation: instruments, key: symbol, calendar: venue}\n")


def _per_series_catalog(path: Path, b: str) -> Path:
    path.write_text("symbol,unit,hard_min,hard_max,cadence_seconds,venue\n"
                    f"A,USD,0,1,60,XNYS\nB,USD,0,1,60,{b}\nC,USD,0,1,60,XNYS\n", encoding="utf-8")
    return path


def _daily_xnys() -> list[dict[str, str]]:
    rows = _daily(INDEPENDENCE)
    rows[3]["bar_date"] = iso(utc(2024, 7, 5, 13, 30))  # stamped at the open: accepted too
    return rows


def _holiday_added() -> list[dict[str, str]]:
    rows = _clean_minutes()
    at = iso(utc(2024, 11, 28, 15))
    return [*rows, {**rows[-2], "bar_start": at, "ingested_at": at}]


# name: (contract text, rows, the catalog's venue of series B (None: no catalog), targets)
CASES: dict[str, tuple[str, list[dict[str, str]], str | None, tuple[str, ...]]] = {
    "clean": (MINUTE, _clean_minutes(), None, ENGINES),
    **{d: (MINUTE, _defect(d), None, ENGINES) for d in ("missing_inside", "after_early_close", "on_holiday")},
    "late6": (MINUTE, _late6(), None, ENGINES),
    "daily_xnys": (DAILY, _daily_xnys(), None, ENGINES),
    "daily_mf": (MONDAY_TO_FRIDAY, _daily(INDEPENDENCE), None, ENGINES),
    "ps_clean": (PER_SERIES, _clean_minutes(), "XNYS", PER_SERIES_ENGINES),
    "ps_bad": (PER_SERIES, _holiday_added(), "XNYS", PER_SERIES_ENGINES),
    "ps_lon": (PER_SERIES, _clean_minutes(), "XLON", PER_SERIES_ENGINES),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Every DuckDB case above verified in ONE run: each engine once (one dbt build) for all."""
    tmp = tmp_path_factory.mktemp("calendar-engines")
    cases = []
    for name, (text, rows, venue, targets) in CASES.items():
        (tmp / name).mkdir()
        path = tmp / name / "c.yaml"
        path.write_text(text, encoding="utf-8")
        cat = _per_series_catalog(tmp / name / "catalog.csv", venue) if venue else None
        cases.append(VerifyCase(load(str(path)), write(tmp / name / "data.csv", rows), cat, NOW,
                                targets, path))
    got = verify_cases(cases, engine="duckdb", workdir=tmp / "work")
    return dict(zip(CASES, got, strict=True))


def test_minute_bars_over_dst_early_close_and_nights_pass(reports: dict[str, VerifyReport]) -> None:
    rows = _clean_minutes()
    assert "2024-03-11T13:30:00.000Z" in {r["bar_start"] for r in rows}  # DST open
    assert "2024-11-29T17:59:00.000Z" in {r["bar_start"] for r in rows}  # last bar, early close
    starts = {r["bar_start"] for r in rows}
    assert {"2024-11-01T13:30:00.000Z", "2024-11-01T19:59:00.000Z"} <= starts  # EDT, before
    assert {"2024-11-04T14:30:00.000Z", "2024-11-04T20:59:00.000Z"} <= starts  # EST, after
    assert not {"2024-11-04T13:30:00.000Z", "2024-11-01T20:00:00.000Z"} & starts
    _all_pass(reports["clean"])


@pytest.mark.parametrize("defect", ["missing_inside", "after_early_close", "on_holiday"])
def test_session_defects_fail_naming_cadence(reports: dict[str, VerifyReport], defect: str) -> None:
    _only(reports[defect], "cadence:bar_start")


def test_restatement_six_sessions_late_fails(reports: dict[str, VerifyReport]) -> None:
    _only(reports["late6"], "revision_window")


def test_daily_bars_across_independence_day(reports: dict[str, VerifyReport]) -> None:
    _all_pass(reports["daily_xnys"])  # with the calendar, 07-04 is no session
    _only(reports["daily_mf"], "cadence:bar_date")  # Monday to Friday: 07-04 is missing


def test_minute_bars_pass_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    _all_pass(_verify(tmp_path, MINUTE, _clean_minutes(), "pg", engine="postgres",
                      dsn=pg_server.dsn))


def test_per_series_calendar_from_the_catalog(reports: dict[str, VerifyReport]) -> None:
    """`calendar: per series from catalog`: dbt, pandera, Soda and the ibis runtime join each series' code
    from the catalog. Clean bars pass; a bar on Thanksgiving fails; and when the catalog moves
    series B to XLON, B's New York afternoon bars are outside London's sessions and its
    restatement is 6 London sessions late (London trades on Thanksgiving), in every engine."""
    clean = reports["ps_clean"]
    assert clean.exit_code == 0, clean.render_text()
    assert set(clean.targets) == set(PER_SERIES_ENGINES), clean.render_text()
    bad = reports["ps_bad"]
    assert bad.exit_code == 1, bad.render_text()
    assert all(f == {"cadence:bar_start"} for f in failed_by_engine(bad).values()), bad.render_text()
    london = reports["ps_lon"]
    assert london.exit_code == 1, london.render_text()
    assert all(f == {"cadence:bar_start", "revision_window"}
               for f in failed_by_engine(london).values()), london.render_text()


def test_cli_verify_reads_the_calendar_file(tmp_path: Path) -> None:
    """`tacit-gen calendar` writes the table and `verify --calendar FILE` uses that file, not a
    fresh one: without the 2024-11-29 session in it, that day's bars are outside every session."""
    from click.testing import CliRunner

    from tacit_gen.cli import main

    (tmp_path / "m.yaml").write_text(MINUTE, encoding="utf-8")
    write(tmp_path / "bars.csv", _clean_minutes())
    sessions = tmp_path / "sessions.csv"
    made = CliRunner().invoke(main, ["calendar", "XNYS", "--start", "2024-03-01", "--end",
                                     "2024-12-31", "--out", str(sessions)])
    assert made.exit_code == 0, made.output
    args = ["verify", str(tmp_path / "m.yaml"), "--data", str(tmp_path / "bars.csv"),
            "--calendar", str(sessions), "--target", "soda,ibis", "--now", "2024-12-10T00:00:00Z"]
    ok = CliRunner().invoke(main, args)
    assert ok.exit_code == 0, ok.output
    kept = [ln for ln in sessions.read_text().splitlines() if ",2024-11-29," not in ln]
    sessions.write_text("\n".join(kept) + "\n", encoding="utf-8")
    bad = CliRunner().invoke(main, [*args, "--format", "json"])
    assert bad.exit_code == 1, bad.output
    import json

    report = json.loads(bad.stdout)
    failed = {c["id"] for c in report["clauses"] for v in c["verdicts"].values() if v["status"] == "fail"}
    assert failed == {"cadence:bar_start"}, bad.output
