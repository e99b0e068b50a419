"""`completeness: 390 per session per series` (issue 18) in the ibis runtime (DuckDB), pandera
(Arrow-backed pandas) and `sample`, each against the reference
(`tacit_gen.semantics.completeness`) on hand-made bars (tests/timeseries/session_bars.py): the
short sessions the engine finds are the reference's and exactly the hand-known ones (BBB on
2024-11-27 with 300 of 390; AAA on the early close 2024-11-29 with 190 of 210, while 210 of 210
passes; AAA's halt excused by a `market_halt` outage, not by another type), also with a calendar
per series from the catalog (XNYS and XLON). A hand edit of the rule in the pandera or ibis
artifact is drift; `sample` data passes the clause and `--violate` breaks it alone."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ibis
import pandas as pd
import pandera.errors as pa_errors
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import load_module
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.render import render_contract
from tacit_gen.runtime import contract
from tacit_gen.runtime.errors import ConstraintError, ValidationPhase
from tacit_gen.sample import sample, write
from tacit_gen.sample.sessions import completeness_sessions
from tacit_gen.sample.verdicts import check_sample, violated_clauses
from tacit_gen.semantics.completeness import session_windows, short_windows
from tacit_gen.semantics.sessions import Session
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.pandera.engine import check_errors, failures_by_clause
from tacit_gen.verify import VerifyCase, verify_cases
from tests.targets.cli_drift import check_json, render_to
from tests.timeseries.session_bars import (
    CID,
    FIXTURE,
    PER_SERIES,
    at,
    bars,
    london_bars,
    outages,
    sessions,
)

NOW = datetime(2024, 12, 3, tzinfo=UTC)
ENGINES = ("ibis", "pandera")
# What the hand-made data misses: (series, session open, readings)
BBB_SHORT = (("BBB",), at(27, 14, 30), 300)
AAA_EARLY = (("AAA",), at(29, 14, 30), 190)
AAA_HALT = (("AAA",), at(26, 14, 30), 330)
CCC_LONDON = (("CCC",), at(28, 8), 300)
CASES: dict[str, tuple[dict[str, Any], str, set[tuple[Any, ...]]]] = {
    "short_and_early": ({}, "market_halt", {BBB_SHORT, AAA_EARLY}),
    "early_close_full": ({"early": 210}, "market_halt", {BBB_SHORT}),
    "clean": ({"early": 210, "short": False}, "market_halt", set()),
    "halt_not_excused": ({"early": 210, "short": False}, "maintenance", {AAA_HALT}),
}
TYPES = {
    "data": {"symbol": "VARCHAR", "bar_start": "TIMESTAMPTZ", "close": "DECIMAL(18,8)"},
    "venue_sessions": {"calendar": "VARCHAR", "session": "DATE", "open": "TIMESTAMPTZ",
                       "close": "TIMESTAMPTZ"},
    "outages": {"symbol": "VARCHAR", "start": "TIMESTAMPTZ", "end": "TIMESTAMPTZ", "type": "VARCHAR"},
    "instruments": {"symbol": "VARCHAR", "venue": "VARCHAR"},
}


def _clause(text: str | None = None) -> Clause:
    c = load(FIXTURE) if text is None else load("per_series.yaml", text)
    return next(x for x in plan(c) if x.id == CID)


def _reference(rows: list[dict[str, Any]], out: list[dict[str, Any]], ses: list[Session],
               code: Any = lambda key: "XNYS", text: str | None = None) -> set[tuple[Any, ...]]:
    clause = _clause(text)
    found = short_windows(clause, rows, out, sessions=session_windows(clause, ses, code))
    return {(w.series, w.start, w.readings) for w in found}


class _Db:
    """The data, the sessions, the outages (and a catalog) as real DuckDB tables."""

    def __init__(self, rows: list[dict[str, Any]], out: list[dict[str, Any]], ses: list[Session],
                 catalog: dict[str, str] | None = None) -> None:
        self.con = ibis.duckdb.connect()
        self.con.raw_sql("SET TimeZone = 'UTC'")
        records = {
            "data": [(r["symbol"], r["bar_start"], r["close"]) for r in rows],
            "venue_sessions": [(s.calendar, s.session, s.open, s.close) for s in ses],
            "outages": [(o["symbol"], o["start"], o["end"], o["type"]) for o in out],
            "instruments": sorted((catalog or {}).items()),
        }
        for name, types in TYPES.items():
            cols = ", ".join(f'"{c}" {t}' for c, t in types.items())
            self.con.raw_sql(f'CREATE TABLE "{name}" ({cols})')
            if records[name]:
                marks = ", ".join("?" for _ in types)
                self.con.con.executemany(f'INSERT INTO "{name}" VALUES ({marks})', records[name])

    def table(self, name: str) -> Any:
        return self.con.table(name)

    def frame(self, name: str) -> pd.DataFrame:
        """The relation as an Arrow-backed pandas frame (the pandera convention)."""
        arrow = self.con.con.execute(f'SELECT * FROM "{name}"').arrow()
        return arrow.to_pandas(types_mapper=pd.ArrowDtype)


def _module(target: str, text: str | None, tmp_path: Path, name: str) -> Any:
    """The rendered `target` module of the fixture (or of `text`), imported."""
    c = load(FIXTURE) if text is None else load("per_series.yaml", text)
    arts, unsupported = render_contract(c, (target,), RenderOptions())
    assert not [u for u in unsupported if u.clause_id == CID], unsupported
    path = tmp_path / f"{name}.py"
    path.write_text(arts[0].content, encoding="utf-8")
    return load_module(path, name)


def _runtime_short(schema: Any, db: _Db, catalog: bool = False, may_fail: tuple[str, ...] = ()
                   ) -> tuple[str, int | None, set[Any]]:
    """The runtime's verdict on the clause (status, count, the short sessions it names), and
    that no other clause fails (but those of `may_fail`)."""
    from tacit_gen.runtime.evaluate import evaluate

    report = evaluate(schema, db.table("data"), sessions=db.table("venue_sessions"),
                      outages=db.table("outages"), now=NOW,
                      catalog=db.table("instruments") if catalog else None)
    others = [(r.clause.id, r.status, r.message) for r in report.results
              if r.clause.id not in (CID, *may_fail) and r.status != "pass"]
    assert not others, others
    r = next(r for r in report.results if r.clause.id == CID)
    named = {((w["symbol"],), w["window_start"].astimezone(UTC), w["readings"]) for w in r.rows}
    return r.status, r.count, named


@pytest.mark.parametrize("case", sorted(CASES))
def test_reference_finds_the_hand_known_sessions(case: str) -> None:
    kw, kind, expected = CASES[case]
    assert _reference(bars(**kw), outages(kind), sessions("XNYS")) == expected


@pytest.mark.parametrize("case", sorted(CASES))
def test_runtime_on_duckdb_equals_the_reference(case: str, tmp_path: Path) -> None:
    kw, kind, expected = CASES[case]
    rows, out, ses = bars(**kw), outages(kind), sessions("XNYS")
    schema = _module("ibis", None, tmp_path, f"rt_{case}").BarsPerSession
    status, count, named = _runtime_short(schema, _Db(rows, out, ses))
    assert named == expected == _reference(rows, out, ses)
    assert (status, count) == (("fail", len(expected)) if expected else ("pass", 0))


def test_runtime_needs_the_sessions(tmp_path: Path) -> None:
    """Without `sessions=` the clause is an error naming the relation, never a pass."""
    from tacit_gen.runtime.evaluate import evaluate

    db = _Db(bars(early=210, short=False), outages(), sessions("XNYS"))
    schema = _module("ibis", None, tmp_path, "rt_nosessions").BarsPerSession
    report = evaluate(schema, db.table("data"), outages=db.table("outages"), now=NOW)
    r = next(r for r in report.results if r.clause.id == CID)
    assert r.status == "error" and "venue_sessions" in (r.message or ""), r


def test_the_decorator_passes_the_sessions(tmp_path: Path) -> None:
    """`@contract(validate=True, sessions=..., outages=...)`: parse() gets both; the short
    session fails the function's output, the clean bars go through."""
    schema = _module("ibis", None, tmp_path, "rt_decorator").BarsPerSession
    short, clean = _Db(bars(), outages(), sessions("XNYS")), _Db(
        bars(early=210, short=False), outages(), sessions("XNYS"))
    for db, fails in ((short, True), (clean, False)):

        @contract(validate=True, returns=schema, now=NOW, sessions=db.table("venue_sessions"),
                  outages=db.table("outages"))
        def passthrough(raw: ibis.Table) -> ibis.Table:
            return raw

        if not fails:
            assert passthrough(db.table("data")).count().execute() == len(
                bars(early=210, short=False))
            continue
        with pytest.raises(ConstraintError) as e:
            passthrough(db.table("data"))
        assert e.value.phase is ValidationPhase.CONTRACT_OUTPUT
        assert e.value.clause_ids == (CID,) and e.value.counts[CID] == 2


def _pandera_failed(mod: Any, db: _Db, catalog: bool = False) -> set[str]:
    """The clause ids pandera's lazy validation reports failed (empty: valid)."""
    schema = mod.schema(now=NOW, sessions=db.frame("venue_sessions"), outages=db.frame("outages"),
                        catalog=db.frame("instruments") if catalog else None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            schema.validate(db.frame("data"), lazy=True)
    except pa_errors.SchemaErrors as e:
        assert not check_errors(e), check_errors(e)  # a verdict, not a check that raised
        rows, scalar, notes = failures_by_clause(e, schema)
        assert not notes, notes
        return set(rows) | scalar
    return set()


def _pandera_short(mod: Any, db: _Db, code: Any) -> set[tuple[Any, ...]]:
    """The short sessions `_short_sessions` of the series checks the generated module imports (what its
    check runs) finds in the frames."""
    from tacit_gen.pandera_checks import series

    frame = db.frame("venue_sessions")
    out = db.frame("outages")
    spans: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    keep = out[out["type"] == "market_halt"]
    for sym, a, b in zip(keep["symbol"], keep["start"], keep["end"], strict=True):
        spans.setdefault((sym,), []).append((int(a.timestamp() * 1000), int(b.timestamp() * 1000)))

    def sessions_of(cal: str) -> tuple[Any, Any]:
        _, opens, closes = series._session_arrays(frame, cal, "calendar", "session", "open", "close")
        return opens // 1000, closes // 1000

    found = series._short_sessions(db.frame("data"), "bar_start", ("symbol",), 390, "95", code,
                                sessions_of, spans)
    return {(key, datetime.fromtimestamp(ws / 1000, UTC), n) for key, ws, n in found}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pandera_equals_the_reference(case: str, tmp_path: Path) -> None:
    kw, kind, expected = CASES[case]
    rows, out, ses = bars(**kw), outages(kind), sessions("XNYS")
    mod = _module("pandera", None, tmp_path, f"pa_{case}")
    db = _Db(rows, out, ses)
    assert _pandera_failed(mod, db) == ({CID} if expected else set())
    if kind == "market_halt":
        assert _pandera_short(mod, db, lambda key: "XNYS") == expected == _reference(rows, out, ses)


def test_pandera_without_the_sessions_frame_fails(tmp_path: Path) -> None:
    mod = _module("pandera", None, tmp_path, "pa_noframe")
    db = _Db(bars(early=210, short=False), outages(), sessions("XNYS"))
    with pytest.raises(pa_errors.SchemaErrors) as e:
        mod.schema(now=NOW, outages=db.frame("outages")).validate(db.frame("data"), lazy=True)
    assert "no sessions frame" in str(e.value) and CID in str(e.value)


# -- a calendar per series (the catalog names XNYS or XLON) ---------------------------------
CATALOG = {"AAA": "XNYS", "BBB": "XNYS", "CCC": "XLON"}


def test_per_series_calendar_in_the_runtime_and_pandera(tmp_path: Path) -> None:
    """AAA and BBB on XNYS, CCC on XLON: CCC's short Thanksgiving (a London session, no New York
    one) fails and its 510-minute sessions pass; a symbol missing from the catalog (DDD, a copy
    of BBB's short bars) has no sessions, so nothing of it is judged."""
    ddd = [{**r, "symbol": "DDD"} for r in bars() if r["symbol"] == "BBB"]
    rows = bars() + london_bars() + ddd
    ses = sessions("XNYS", "XLON")
    expected = {BBB_SHORT, AAA_EARLY, CCC_LONDON}
    assert _reference(rows, outages(), ses, lambda key: CATALOG.get(key[0]), PER_SERIES) == expected
    db = _Db(rows, outages(), ses, CATALOG)
    schema = _module("ibis", PER_SERIES, tmp_path, "rt_per_series").BarsPerSession
    # DDD's bars are in no session, so the cadence fails them (the calendar's own clause)
    status, count, named = _runtime_short(schema, db, catalog=True, may_fail=("cadence:bar_start",))
    assert (status, count, named) == ("fail", 3, expected)
    mod = _module("pandera", PER_SERIES, tmp_path, "pa_per_series")
    assert _pandera_failed(mod, db, catalog=True) == {CID, "cadence:bar_start"}
    assert _pandera_short(mod, db, lambda key: CATALOG.get(key[0])) == expected
    # London alone, full: passes in both (its sessions are longer than New York's 390 minutes)
    full = _Db(london_bars(short=False), [], ses, CATALOG)
    assert _runtime_short(schema, full, catalog=True)[:2] == ("pass", 0)
    assert _pandera_failed(mod, full, catalog=True) == set()


# -- drift: the pandera and ibis artifacts say the rule, a hand edit is caught --------------
EDITS = {
    "pandera-expected": ("pandera/bars_per_session.py", "expected=390,", "expected=300,"),
    "pandera-calendar": ("pandera/bars_per_session.py",
                         "allowed_gaps=('market_halt',),\n                calendar='XNYS',",
                         "allowed_gaps=('market_halt',),\n                calendar='XLON',"),
    "pandera-share": ("pandera/bars_per_session.py", "min_pct='95',", "min_pct='90',"),
    "pandera-window": ("pandera/bars_per_session.py", "window_seconds=None,", "window_seconds=86400,"),
    "ibis-expected": ("ibis/bars_per_session.py", "expected=390,", "expected=300,"),
}


def test_the_artifacts_read_back_clean(tmp_path: Path) -> None:
    code, output = check_json(FIXTURE, render_to(FIXTURE, tmp_path))
    assert code == 0, output


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_hand_edit_of_the_rule_is_drift(case: str, tmp_path: Path) -> None:
    out = render_to(FIXTURE, tmp_path)
    rel, old, new = EDITS[case]
    path = out / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} in {rel}: {text.count(old)} times"
    path.write_text(text.replace(old, new))
    code, output = check_json(FIXTURE, out)
    assert code == 1, output
    findings = json.loads(output)["findings"]
    assert any(f.get("clause") == CID and f["code"] != "D100" for f in findings), output
# -- sample ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rows", [30, 2000])
def test_sample_breaks_completeness_per_session_alone(rows: int) -> None:
    """Clean sample bars pass the clause by the reference verdict (2000 rows: three symbols over
    whole sessions, so sessions are judged); `--violate` makes one session of one series short
    and breaks nothing else."""
    c = load(FIXTURE)
    clauses = plan(c)
    clean = sample(c, clauses, rows=rows, seed=3)
    verdict = next(v for v in check_sample(clean, clauses) if v.clause_id == CID)
    assert verdict.status == "pass", verdict
    if rows > 30:  # whole sessions of every symbol are judged, not only skipped
        comp = next(x for x in clauses if x.id == CID)
        windows = completeness_sessions(comp, clean.rows(), {})
        for symbol in set(clean.columns["symbol"]):
            times = [t for s, t in zip(clean.columns["symbol"], clean.columns["bar_start"], strict=True)
                     if s == symbol]
            first, last = min(times).timestamp() * 1000, max(times).timestamp() * 1000
            assert any(o >= first and e <= last for o, e in windows((symbol,))[0]), symbol
    assert violated_clauses(clean, clauses) == ()
    bad = sample(c, clauses, rows=rows, seed=3, violate=CID)
    assert violated_clauses(bad, clauses) == (CID,)
    failed = next(v for v in check_sample(bad, clauses) if v.clause_id == CID)
    assert failed.failures == 1, failed


@pytest.mark.engine
def test_sample_data_in_the_runtime_and_pandera(tmp_path: Path) -> None:
    """`sample` bars and their `--violate` copy through `verify` (DuckDB; the sessions relation
    generated for the data's dates, the outages relation empty): the ibis runtime and pandera
    pass the clean bars and fail the completeness clause alone on the violated ones."""
    c = load(FIXTURE)
    clauses = plan(c)
    cases = []
    for name, violate in (("clean", None), ("bad", CID)):
        data = sample(c, clauses, rows=2000, seed=3, violate=violate)
        (tmp_path / name).mkdir()
        path, _ = write(data, tmp_path / name / "bars.csv")
        cases.append(VerifyCase(c, path, None, data.now, ENGINES, FIXTURE))
    clean, bad = verify_cases(cases, "duckdb", tmp_path / "work")
    for report, want in ((clean, set()), (bad, {CID})):
        table = report.render_text()
        assert report.exit_code == (1 if want else 0), table
        assert set(report.targets) == set(ENGINES), table
        for r in report.rows:
            for target, verdict in r.verdicts.items():
                expected = "fail" if r.clause.id in want else "pass"
                assert verdict.status == expected, f"{target} {r.clause.id}\n{table}"


def _csv(path: Path, rows: list[dict[str, Any]], header: list[str]) -> Path:
    lines = [",".join(header)]
    for r in rows:
        lines.append(",".join(r[h].isoformat() if isinstance(r[h], datetime) else str(r[h])
                              for h in header))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.engine
def test_runtime_and_pandera_on_postgres(pg_server: Any, tmp_path: Path) -> None:
    """On a real PostgreSQL 15 (server zone America/New_York; the sessions file given, as
    `verify --calendar` does): the runtime and pandera give the reference's verdicts, the
    runtime its count of short sessions."""
    from tacit_gen.semantics.sessions import sessions_csv

    c = load(FIXTURE)
    names = ("short_and_early", "clean", "halt_not_excused")
    cases = []
    for name in names:
        kw, kind, _ = CASES[name]
        (tmp_path / name).mkdir()
        data = _csv(tmp_path / name / "bars.csv", bars(**kw), ["symbol", "bar_start", "close"])
        out = _csv(tmp_path / name / "outages.csv", outages(kind), ["symbol", "start", "end", "type"])
        ses = tmp_path / name / "sessions.csv"
        ses.write_text(sessions_csv(sessions("XNYS")), encoding="utf-8")
        cases.append(VerifyCase(c, data, None, NOW, ENGINES, FIXTURE, calendar=ses, outages=out))
    reports = verify_cases(cases, engine="postgres", workdir=tmp_path / "work", dsn=pg_server.dsn)
    for name, report in zip(names, reports, strict=True):
        expected = CASES[name][2]
        table = f"case {name}\n{report.render_text()}"
        for r in report.rows:
            for target, verdict in r.verdicts.items():
                want = "fail" if r.clause.id == CID and expected else "pass"
                assert verdict.status == want, f"{target} {r.clause.id}\n{table}"
        row = next(r for r in report.rows if r.clause.id == CID)
        assert set(row.verdicts) == set(ENGINES), table
        if expected:
            assert row.verdicts["ibis"].failures == len(expected), table
