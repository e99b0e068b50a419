"""Sessions from a real exchange calendar (exchange_calendars' XNYS), and the calendar language.

XNYS 2024: 252 sessions; Independence Day (Thu 2024-07-04) is no session; the day after
Thanksgiving (2024-11-29) closes at 13:00 New York (18:00 UTC); DST began 2024-03-10 (the open
moves from 14:30 to 13:30 UTC) and ended 2024-11-03 (back to 14:30 UTC).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.contract.loader import load_report
from tacit_gen.plan import plan
from tacit_gen.semantics.calendar import CALENDAR_CODES
from tacit_gen.semantics.sessions import (
    CalendarError,
    SessionIndex,
    exchange_sessions,
    read_sessions_csv,
    sessions_csv,
)


def utc(*a: int) -> datetime:
    return datetime(*a, tzinfo=UTC)


@pytest.fixture(scope="module")
def xnys() -> list:
    return exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 12, 31))


def test_shipped_codes_are_the_librarys() -> None:
    import exchange_calendars as xc

    assert tuple(sorted(xc.get_calendar_names(include_aliases=True))) == CALENDAR_CODES


def test_xnys_2024_holidays_early_close_and_dst(xnys: list) -> None:
    by_day = {s.session: s for s in xnys}
    assert len(xnys) == 252
    for holiday in (date(2024, 1, 1), date(2024, 7, 4), date(2024, 11, 28), date(2024, 12, 25),
                    date(2024, 3, 29)):
        assert holiday not in by_day
    assert by_day[date(2024, 11, 29)].close == utc(2024, 11, 29, 18)  # 13:00 New York
    assert by_day[date(2024, 11, 27)].close == utc(2024, 11, 27, 21)
    assert by_day[date(2024, 3, 8)].open == utc(2024, 3, 8, 14, 30)  # EST
    assert by_day[date(2024, 3, 11)].open == utc(2024, 3, 11, 13, 30)  # EDT
    assert by_day[date(2024, 11, 1)].open == utc(2024, 11, 1, 13, 30)
    assert by_day[date(2024, 11, 4)].open == utc(2024, 11, 4, 14, 30)


def test_index_within_trading_day_and_count(xnys: list) -> None:
    idx = SessionIndex(xnys)
    n = idx.within("XNYS", utc(2024, 11, 29, 17, 59), 60)
    assert n is not None and idx.within("XNYS", utc(2024, 11, 29, 14, 30), 60) == n
    assert idx.within("XNYS", utc(2024, 11, 29, 18, 30), 60) is None  # 13:30 New York, closed
    assert idx.within("XNYS", utc(2024, 11, 27, 20, 59), 60) == n - 1
    assert idx.within("XNYS", utc(2024, 11, 27, 21, 0), 60) is None
    assert idx.within("XNYS", utc(2024, 3, 11, 13, 30), 60) is not None  # DST open
    assert idx.within("XNYS", utc(2024, 3, 8, 14, 29), 60) is None
    assert idx.trading_day("XNYS", utc(2024, 7, 3)) is not None
    assert idx.trading_day("XNYS", utc(2024, 7, 4)) is None  # a holiday
    assert idx.trading_day("XNYS", utc(2024, 7, 5, 13, 30)) is not None  # the open
    assert idx.trading_day("XNYS", utc(2024, 7, 5, 12)) is None
    # Wed 2024-11-27 -> sessions after it through Fri 2024-12-06: 11-29, 12-02..12-06 = 6
    assert idx.count_after("XNYS", date(2024, 11, 27), date(2024, 12, 5)) == 5
    assert idx.count_after("XNYS", date(2024, 11, 27), date(2024, 12, 6)) == 6


def test_csv_round_trip(tmp_path, xnys: list) -> None:
    path = tmp_path / "s.csv"
    path.write_text(sessions_csv(xnys[:3]), encoding="utf-8")
    assert read_sessions_csv(path) == xnys[:3]
    assert path.read_text().splitlines()[:2] == [
        "calendar,session,open,close", "XNYS,2024-01-02,2024-01-02T14:30:00Z,2024-01-02T21:00:00Z"]


def test_unknown_code_did_you_mean() -> None:
    with pytest.raises(CalendarError, match="did you mean 'XNYS'"):
        exchange_sessions("XNSY", date(2024, 1, 1), date(2024, 1, 5))


def test_cli_calendar_writes_the_table(tmp_path) -> None:
    out = tmp_path / "sessions.csv"
    r = CliRunner().invoke(main, ["calendar", "XNYS", "--start", "2024-11-27", "--end",
                                  "2024-12-02", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert out.read_text().splitlines() == [
        "calendar,session,open,close",
        "XNYS,2024-11-27,2024-11-27T14:30:00Z,2024-11-27T21:00:00Z",
        "XNYS,2024-11-29,2024-11-29T14:30:00Z,2024-11-29T18:00:00Z",
        "XNYS,2024-12-02,2024-12-02T14:30:00Z,2024-12-02T21:00:00Z",
    ]
    bad = CliRunner().invoke(main, ["calendar", "XNSY", "--start", "2024-01-01", "--end", "2024-01-02"])
    assert bad.exit_code == 2 and "did you mean 'XNYS'" in bad.output


HEAD = ("contract: bars\nversion: 1.0.0\nkey: [symbol, bar_start, revision]\n"
        "fields:\n  symbol: {type: string}\n  bar_start: {type: timestamp_ms_utc}\n"
        "  ingested_at: {type: timestamp_ms_utc}\n  revision: {type: int64}\n")


def _load(time: str, extra: str = ""):
    return load_report("bars.yaml", HEAD + "time:\n  column: bar_start\n  ingest_column: ingested_at\n"
                       + time + extra)


def test_unknown_calendar_is_an_error_at_its_line() -> None:
    contract, diags = _load("  calendar: XNSY\n  cadence: 60s within session\n")
    assert contract is None
    (d,) = [d for d in diags if d.severity == "error"]
    assert (d.code, d.line, d.word) == ("TG118", 12, "XNSY")
    assert "did you mean 'XNYS'" in d.message


def test_without_a_calendar() -> None:
    # the seed's text loads unchanged: 'within session' stays a note (lint TG221)
    contract, diags = _load("  cadence: 60s within session\n")
    assert contract is not None
    assert [(d.code, d.line) for d in diags if d.severity == "warning"] == [("TG221", 12)]
    (c,) = [c for c in plan(contract) if c.kind == "cadence"]
    assert c.param("sessions") is None and c.param("interval_seconds") == 60
    # '1 trading day' counts Monday to Friday (lint TG219: holidays are gaps)
    contract, diags = _load("  cadence: 1 trading day\n")
    assert contract is not None
    assert [(d.code, d.line) for d in diags if d.severity == "warning"] == [("TG219", 12)]
    (c,) = [c for c in plan(contract) if c.kind == "cadence"]
    assert c.param("sessions") == "trading_day" and c.param("calendar") is None
    assert c.param("sessions_relation") is None


@pytest.mark.parametrize(("text", "sessions", "interval"), [
    ("60s within session; no bars outside session", "within", 60),
    ("60s; no bars outside session", "within", 60),
    ("1 trading day", "trading_day", None),
    ("1 trading day; gaps allowed", "trading_day", None),
])
def test_cadence_forms_plan(text: str, sessions: str, interval: int | None) -> None:
    contract, diags = _load(f"  calendar: XNYS\n  cadence: {text}\n",
                            "calendar: {relation: xnys_sessions}\n")
    assert contract is not None, [d.render() for d in diags]
    (c,) = [c for c in plan(contract) if c.kind == "cadence"]
    assert c.id == "cadence:bar_start"
    assert c.param("sessions") == sessions and c.param("interval_seconds") == interval
    assert c.param("calendar") == "XNYS" and c.param("sessions_relation") == "xnys_sessions"
    assert c.param("gaps_allowed") == text.endswith("gaps allowed")


def test_trading_day_takes_no_tolerance_and_only_one_day() -> None:
    contract, diags = _load("  calendar: XNYS\n  cadence: 1 trading day; tolerance +/-5%\n")
    assert contract is None and [d.code for d in diags if d.severity == "error"] == ["TG114"]
    contract, diags = _load("  calendar: XNYS\n  cadence: 2 trading days\n")
    assert contract is None and [d.code for d in diags if d.severity == "error"] == ["TG106"]


def test_trading_day_window_counts_sessions_with_a_calendar() -> None:
    contract, _ = _load("  calendar: XNYS\n", "revision_policy:\n  allowed: true\n  window: 5 trading days\n")
    assert contract is not None
    (w,) = [c for c in plan(contract) if c.kind == "revision_window"]
    assert w.param("business_days") == 5 and w.param("calendar") == "XNYS"
    assert w.param("sessions_relation") == "trading_sessions"
    # business days stay Monday to Friday, calendar or not
    contract, _ = _load("  calendar: XNYS\n", "revision_policy:\n  allowed: true\n  window: 5 business days\n")
    assert contract is not None
    (w,) = [c for c in plan(contract) if c.kind == "revision_window"]
    assert w.param("calendar") is None and w.param("business_days") == 5


def test_per_series_calendar_from_catalog() -> None:
    contract, diags = _load("  calendar: per series from catalog\n  cadence: 1 trading day\n",
                            "catalog: {relation: instruments, calendar: venue_calendar}\n")
    assert contract is not None, [d.render() for d in diags]
    (c,) = [c for c in plan(contract) if c.kind == "cadence"]
    assert c.param("calendar") is None
    assert (c.param("calendar_catalog"), c.param("calendar_catalog_key"),
            c.param("calendar_catalog_column")) == ("instruments", "symbol", "venue_calendar")


def test_sessions_are_kept_on_disk_and_read_back_the_same(tmp_path, monkeypatch) -> None:
    """The second call for the same calendar and dates reads the cache file (written by the
    first) instead of exchange_calendars, and gives the same sessions, early close and DST
    included; a damaged file is computed again and rewritten; another span is another file."""
    import subprocess
    import sys

    from tacit_gen.semantics import sessions as s

    monkeypatch.setenv("TACIT_GEN_CACHE_DIR", str(tmp_path))
    fresh = s._exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 12, 31))
    first = exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 12, 31))
    files = sorted(tmp_path.glob("sessions-*.json"))
    assert len(files) == 1 and first == fresh and len(first) == 252
    assert exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 12, 31)) == fresh
    early = next(x for x in first if x.session == date(2024, 11, 29))
    assert early.close == utc(2024, 11, 29, 18, 0)
    # read back in a fresh interpreter: exchange_calendars (and pandas) are never imported
    probe = ("import sys\nfrom datetime import date\n"
             "from tacit_gen.semantics.sessions import exchange_sessions\n"
             "got = exchange_sessions('XNYS', date(2024, 1, 1), date(2024, 12, 31))\n"
             "print(len(got), 'exchange_calendars' in sys.modules, 'pandas' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ,
                                          "TACIT_GEN_CACHE_DIR": str(tmp_path)})
    assert res.stdout.split() == ["252", "False", "False"], res.stderr
    files[0].write_text('{"sessions": [["not a date"]]}', encoding="utf-8")
    assert exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 12, 31)) == fresh
    assert '"2024-11-29"' in files[0].read_text(encoding="utf-8")
    exchange_sessions("XNYS", date(2024, 1, 1), date(2024, 1, 31))
    assert len(list(tmp_path.glob("sessions-*.json"))) == 2
