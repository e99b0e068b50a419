"""`tacit-gen sample` on a per-series calendar (issue 13), checked by the real engines.

The contract takes each series' exchange calendar from the catalog (`calendar: per series from
catalog`). `sample` writes a catalog putting the series on XNYS and XLON in turn and places each
series' minute bars on its own calendar's sessions (London's bars from 08:00 UTC, New York's from
14:30 UTC, each crossing a night); the sessions are generated from exchange_calendars for the data's
dates by `verify`. Clean data passes in every engine; data breaking `cadence:` or `revision_window`
fails that clause alone in every engine; and the clean bars fail `cadence:` once the catalog swaps
the two calendars (each series' bars are then outside the other exchange's hours), so the engines
do read each series' own code. Then the clean data and the swapped catalog on PostgreSQL 15.

The bundled `contracts/ohlcv_1m.yaml` (calendar XLON) passes clean minute bars spanning two
sessions and the step over the night between them (Friday 2023-12-29, London's 12:30 UTC early
close, to Tuesday 2024-01-02 08:00, over a weekend and New Year's Day) in every engine, on DuckDB
and on PostgreSQL 15.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sample import SampleData, sample, write
from tacit_gen.verify import VerifyCase, VerifyReport, verify_cases
from tests.calendar.data import MINUTE
from tests.conftest import CONTRACTS
from tests.parity.harness import ENGINES as PARITY_ENGINES
from tests.parity.harness import failed_by_engine, unsupported
from tests.parity.postgres_harness import PG_ENGINES

pytestmark = pytest.mark.engine

ENGINES = (*PG_ENGINES, "soda4")  # dbt, soda, gx, pandera, ibis, soda4
CADENCE = "cadence:bar_start"
ROWS = 1600  # ~440 bars a series: more than London's 420 of 2024-01-02 before 15:00 UTC
PER_SERIES = MINUTE.replace("  calendar: XNYS\n", "  calendar: per series from catalog\n") + (
    "catalog: {relation: instruments, key: symbol, calendar: venue}\n")


def _contract(tmp: Path) -> tuple[Contract, Path]:
    src = tmp / "bars_ps.yaml"
    src.write_text(PER_SERIES, encoding="utf-8")
    return load(str(src)), src


def _case(tmp: Path, name: str, violate: str | None, targets: tuple[str, ...],
          swap: bool = False) -> tuple[VerifyCase, SampleData]:
    contract, src = _contract(tmp)
    data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=violate)
    (tmp / name).mkdir()
    data_path, catalog_path = write(data, tmp / name / "bars.csv")
    assert catalog_path is not None
    if swap:  # the same bars, each series on the other exchange
        text = catalog_path.read_text(encoding="utf-8")
        catalog_path.write_text(text.replace("XNYS", "@").replace("XLON", "XNYS").replace("@", "XLON"),
                                encoding="utf-8")
    return VerifyCase(contract, data_path, catalog_path, data.now, targets, src), data


def _venues(data: SampleData) -> dict[str, str]:
    assert data.catalog is not None
    return {str(r[0]): str(r[1]) for r in data.catalog.rows}


def _check_bars(data: SampleData) -> None:
    """The data is what the test claims: two calendars, each series on its own hours, nights."""
    venues = _venues(data)
    assert sorted(set(venues.values())) == ["XLON", "XNYS"], venues
    for symbol, venue in venues.items():
        times = [t for s, t in zip(data.columns["symbol"], data.columns["bar_start"], strict=True)
                 if s == symbol]
        assert len({t.date() for t in times}) >= 2, f"{symbol} crosses no night"
        first_hour = min(t.astimezone(UTC).hour for t in times)
        assert first_hour == (8 if venue == "XLON" else 14), (symbol, venue, first_hour)


def _assert_failed(report: VerifyReport, want: set[str], targets: tuple[str, ...]) -> None:
    table = report.render_text()
    assert report.exit_code == (1 if want else 0), table
    assert set(report.targets) == set(targets), table
    for target, failed in failed_by_engine(report).items():
        assert failed == want, f"{target}: {sorted(failed)}\n{table}"
    if not want:
        for r in report.rows:
            for t, v in r.verdicts.items():
                assert v.status == "pass", f"{t} {r.clause.id}: {v.status}\n{table}"


SPECS = [("clean", None, False, set()), ("cadence", CADENCE, False, {CADENCE}),
         ("window", "revision_window", False, {"revision_window"}),
         ("swapped", None, True, {CADENCE})]


@pytest.fixture(scope="module")
def duckdb_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """The four per-series calendar cases and the bundled ohlcv_1m case verified on DuckDB in
    ONE run (`verify_cases`: each engine once, one dbt build); each case's data is checked to
    be what its test claims first."""
    tmp = tmp_path_factory.mktemp("calendar_sample")
    built = [_case(tmp, name, v, ENGINES, swap) for name, v, swap, _ in SPECS]
    _check_bars(built[0][1])
    for (name, violate, _, _), (_, data) in zip(SPECS, built, strict=True):
        assert data.violated == ((violate,) if violate else ()), f"{name}: {data.violated}"
    ohlcv = _ohlcv_case(tmp, OHLCV_TARGETS)
    reports = verify_cases([case for case, _ in built] + [ohlcv], "duckdb", tmp / "work")
    return dict(zip([name for name, *_ in SPECS] + ["ohlcv_1m"], reports, strict=True))


def test_sample_per_series_calendars_in_every_engine(duckdb_reports: dict[str, VerifyReport]) -> None:
    for name, _, _, want in SPECS:
        try:
            _assert_failed(duckdb_reports[name], want, ENGINES)
        except AssertionError as e:
            raise AssertionError(f"case {name}: {e}") from None


def test_sample_per_series_calendars_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    built = [_case(tmp_path, "clean", None, ENGINES), _case(tmp_path, "swapped", None, ENGINES, True)]
    ohlcv = _ohlcv_case(tmp_path, ENGINES)
    reports = verify_cases([c for c, _ in built] + [ohlcv], "postgres", tmp_path / "work",
                           dsn=pg_server.dsn)
    _assert_failed(reports[0], set(), ENGINES)
    _assert_failed(reports[1], {CADENCE}, ENGINES)
    _assert_clean_ohlcv(reports[2], ENGINES)


OHLCV_NOW = datetime(2024, 1, 2, 8, 3, tzinfo=UTC)  # London's fourth bar after the holidays


def _ohlcv_case(tmp: Path, targets: tuple[str, ...]) -> VerifyCase:
    src = CONTRACTS / "ohlcv_1m.yaml"
    contract = load(str(src))
    assert contract.time is not None and contract.time.calendar == "XLON"
    data = sample(contract, plan(contract), rows=24, seed=7, now=OHLCV_NOW)
    assert data.violated == ()
    for symbol in sorted(set(data.columns["symbol"])):
        days = {t.date() for s, t in zip(data.columns["symbol"], data.columns["bar_start"], strict=True)
                if s == symbol}
        assert days == {date(2023, 12, 29), date(2024, 1, 2)}, (symbol, days)  # two sessions
    (tmp / "ohlcv").mkdir()
    data_path, catalog_path = write(data, tmp / "ohlcv" / "ohlcv_1m.csv")
    return VerifyCase(contract, data_path, catalog_path, data.now, targets, src)


def _assert_clean_ohlcv(report: VerifyReport, targets: tuple[str, ...]) -> None:
    table = report.render_text()
    assert report.exit_code == 0, table
    assert set(report.targets) == set(targets), table
    skip = unsupported("ohlcv_1m", targets)
    assert "cadence:bar_start" not in set().union(*(skip[t] for t in targets if t in ENGINES)), skip
    for r in report.rows:
        for t, v in r.verdicts.items():
            want = "n/a" if r.clause.id in skip[t] else "pass"
            assert v.status == want, f"{t} {r.clause.id}: {v.status}\n{table}"


OHLCV_TARGETS = (*PARITY_ENGINES, "soda4")


def test_bundled_ohlcv_1m_bars_over_a_night_pass_in_every_engine(
        duckdb_reports: dict[str, VerifyReport]) -> None:
    _assert_clean_ohlcv(duckdb_reports["ohlcv_1m"], OHLCV_TARGETS)

