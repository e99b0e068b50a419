"""`completeness: 390 per session per series`: the windows are the sessions of the series'
calendar. The reference (`tacit_gen.semantics.completeness`) and the SQL tree every SQL target
runs agree with failures known by hand (tests/timeseries/session_bars_verify.py), then the real engines
do: dbt, Soda, Soda 4, GX, pandera and the ibis runtime on DuckDB, and dbt, Soda, GX, pandera and
the runtime on a PostgreSQL 15 server (the DuckDB cases in one batch: `verify_cases`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.evolution.diff import diff
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.render import render_contract
from tacit_gen.semantics.completeness import session_windows, short_windows
from tacit_gen.sql import relation
from tacit_gen.sql.completeness import short_windows_sql
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.conftest import engine_targets, value_targets
from tests.parity.harness import failed_by_engine
from tests.parity.postgres_harness import PG_ENGINES
from tests.targets.cli_drift import check_json, render_to
from tests.timeseries import session_bars_verify as sb

CLAUSE = "completeness:bar_start"
# the targets that check rows (the wire schemas describe one record and declare it unsupported)
CHECKING = value_targets(own_environment=False)


def _clause(path: Path) -> Clause:
    return next(c for c in plan(load(str(path))) if c.kind == "completeness")


def _code(venue: bool):  # type: ignore[no-untyped-def]
    return (lambda key: sb.VENUES.get(key[0])) if venue else (lambda key: "XNYS")


@pytest.mark.parametrize("venue", [False, True], ids=["XNYS", "per_series_calendar"])
def test_the_reference_finds_the_short_sessions(venue: bool) -> None:
    c = _clause(sb.VENUE if venue else sb.LITERAL)
    codes = ("XNYS", "XLON") if venue else ("XNYS",)
    got = short_windows(c, sb.bars(venue), [sb.HALT], sessions=session_windows(c, sb.sessions(codes), _code(venue)))
    assert {(w.series[0], w.start) for w in got} == (sb.SHORT_VENUE if venue else sb.SHORT_LITERAL)
    assert sorted(w.readings for w in got) == [190, 300]
    whole = short_windows(c, sb.bars(venue, whole=True), [sb.HALT],
                          sessions=session_windows(c, sb.sessions(codes), _code(venue)))
    assert whole == []
    # without the outage the halted session is short too (literal calendar: 330 of 390)
    if not venue:
        bare = short_windows(c, sb.bars(venue, whole=True), [],
                             sessions=session_windows(c, sb.sessions(codes), _code(venue)))
        assert [(w.series[0], w.start, w.readings) for w in bare] == [
            ("AAA", datetime(2024, 11, 26, 14, 30, tzinfo=UTC), 330)]


def test_per_session_needs_the_sessions() -> None:
    with pytest.raises(ValueError, match="needs the sessions"):
        short_windows(_clause(sb.LITERAL), sb.bars(), [])


@pytest.mark.parametrize("venue", [False, True], ids=["XNYS", "per_series_calendar"])
def test_the_sql_tree_on_duckdb_equals_the_reference(venue: bool) -> None:
    c = _clause(sb.VENUE if venue else sb.LITERAL)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("CREATE TABLE bars (symbol VARCHAR, bar_start TIMESTAMPTZ, close DECIMAL(18, 8))")
    con.executemany("INSERT INTO bars VALUES (?, ?, ?)",
                    [(r["symbol"], r["bar_start"], r["close"]) for r in sb.bars(venue)])
    con.execute('CREATE TABLE outages (symbol VARCHAR, start TIMESTAMPTZ, "end" TIMESTAMPTZ, type VARCHAR)')
    con.execute("INSERT INTO outages VALUES (?, ?, ?, ?)", list(sb.HALT.values()))
    con.execute("CREATE TABLE venue_sessions (calendar VARCHAR, session DATE, open TIMESTAMPTZ, "
                "close TIMESTAMPTZ)")
    codes = ("XNYS", "XLON") if venue else ("XNYS",)
    con.executemany("INSERT INTO venue_sessions VALUES (?, ?, ?, ?)",
                    [(s.calendar, s.session, s.open, s.close) for s in sb.sessions(codes)])
    con.execute("CREATE TABLE instruments (symbol VARCHAR, venue_calendar VARCHAR)")
    con.executemany("INSERT INTO instruments VALUES (?, ?)", sorted(sb.VENUES.items()))
    rows = con.execute(short_windows_sql(c, relation("bars"), "duckdb")).fetchall()
    got = {(s, datetime.fromtimestamp(ms / 1000, UTC)) for s, ms, _end, _ in rows}
    assert got == (sb.SHORT_VENUE if venue else sb.SHORT_LITERAL)
    assert all(end > ms for _, ms, end, _ in rows)  # window_end_ms: the session's close
    assert sorted(n for _, _, _, n in rows) == [190, 300]


def test_every_sql_and_dataframe_target_renders_it() -> None:
    for path in (sb.LITERAL, sb.VENUE):
        _, unsupported = render_contract(load(str(path)), value_targets(),
                                         RenderOptions())
        assert not [u for u in unsupported if u.clause_id == CLAUSE], unsupported


LINE = "390 per session per series; at least 95%; gaps allowed for market_halt"


@pytest.mark.parametrize(("new", "code"), [
    ("390 per session per series; at least 90%; gaps allowed for market_halt", "time.completeness_relaxed"),
    ("400 per session per series; at least 95%; gaps allowed for market_halt", "time.completeness_tightened"),
    ("390 per session per series; at least 95%", "time.completeness_tightened"),
    ("1440 per 1d per series; at least 95%; gaps allowed for market_halt", "time.completeness_changed"),
])
def test_diff_classifies(new: str, code: str) -> None:
    text = sb.LITERAL.read_text(encoding="utf-8")
    assert LINE in text
    b = text.replace(LINE, new).replace("version: 1.0.0", "version: 2.0.0")
    assert [c.code for c in diff(load("a.yaml", text), load("b.yaml", b)).changes] == [code]


@pytest.mark.parametrize(("arg", "other"), [("sessions", "ref('other_sessions')"),
                                            ("calendar_catalog", "ref('other_instruments')")])
def test_a_hand_edited_relation_of_the_dbt_test_is_drift(arg: str, other: str, tmp_path: Path) -> None:
    out = render_to(sb.VENUE, tmp_path)
    assert check_json(sb.VENUE, out)[0] == 0
    yml = out / "dbt" / "bars_per_venue_session.yml"
    text = yml.read_text(encoding="utf-8")
    want = {"sessions": "ref('venue_sessions')", "calendar_catalog": "ref('instruments')"}[arg]
    head, sep, tail = text.rpartition(f"{arg}: {want}")  # the last one: the completeness test's
    assert sep and "tacit_completeness" in head and "tacit_completeness" not in tail, text
    yml.write_text(head + f"{arg}: {other}" + tail, encoding="utf-8")
    code, output = check_json(sb.VENUE, out)
    assert code == 1 and "D202" in output and CLAUSE in output and other in output, output


def _only_completeness_fails(report: VerifyReport, targets: tuple[str, ...]) -> None:
    failed = failed_by_engine(report)
    assert report.exit_code == 1, report.render_text()
    for t in targets:
        assert failed[t] == {CLAUSE}, (t, report.render_text())
    row = next(r for r in report.rows if r.clause.id == CLAUSE)
    for t in targets:  # the two short sessions, as each engine counted them
        assert row.verdicts[t].failures in (None, 2), (t, row.verdicts[t])
    assert sum(row.verdicts[t].failures == 2 for t in targets) >= 3, report.render_text()



@pytest.fixture(scope="module")
def on_duckdb(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[bool, bool], VerifyReport]:
    """(venue, whole) -> the report: the short and the whole sessions of both calendars verified
    in ONE run on DuckDB, every engine once for the four (one dbt build)."""
    tmp = tmp_path_factory.mktemp("session-completeness")
    keys, cases = [], []
    for venue in (False, True):
        source = sb.VENUE if venue else sb.LITERAL
        contract = load(str(source))
        for whole in (False, True):
            files = sb.write(tmp / f"{'whole' if whole else 'short'}-{venue}", venue, whole=whole)
            keys.append((venue, whole))
            cases.append(VerifyCase(contract, files["data"], files.get("catalog"), sb.NOW,
                                    engine_targets(), source, outages=files["outages"]))
    return dict(zip(keys, verify_cases(cases, engine="duckdb", workdir=tmp / "work"), strict=True))


@pytest.mark.engine
@pytest.mark.parametrize("venue", [False, True], ids=["XNYS", "per_series_calendar"])
def test_every_engine_on_duckdb(venue: bool, on_duckdb: dict[tuple[bool, bool], VerifyReport]) -> None:
    report = on_duckdb[venue, False]
    assert set(report.targets) == set(engine_targets()), report.render_text()
    _only_completeness_fails(report, value_targets())
    clean = on_duckdb[venue, True]
    assert clean.exit_code == 0, clean.render_text()


@pytest.mark.engine
def test_every_engine_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    raw = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    for venue in (False, True):
        contract = load(str(sb.VENUE if venue else sb.LITERAL))
        short = sb.write(tmp_path / f"short{venue}", venue)
        report = run_verify(contract, short["data"], short.get("catalog"), PG_ENGINES, sb.NOW,
                            keep=tmp_path / f"w{venue}", engine="postgres", dsn=raw,
                            outages=short["outages"])
        _only_completeness_fails(report, PG_ENGINES)
