"""The dbt engine on real dbt (in process) and DuckDB: clean data passes, broken data fails the
right clause. One dbt runner for the module; each case is one engine run (one or a few builds).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.render import DbtOptions, data_type
from tests.calendar.data import add_sessions

pytestmark = pytest.mark.engine
ROOT = Path(__file__).resolve().parents[3]
NOW = datetime(2024, 1, 5, 12, 0, tzinfo=UTC)
Row = dict[str, Any]


def _t(minutes_before_now: float) -> datetime:
    return NOW - timedelta(minutes=minutes_before_now)


def _fct_rows() -> list[Row]:
    return [
        {
            "series_id": "a",
            "event_ts": _t(10 - i),
            "value_degc": Decimal("20.5"),
            "unit": "degC",
            "quality": "good",
            "source_id": "s1",
            "revision": 0,
        }
        for i in range(8)
    ]


def _ohlcv_rows() -> list[Row]:
    rows = []
    for i in range(8):
        rows.append(
            {
                "symbol": "AAA",
                "bar_start": _t(60 - i),
                "open": Decimal("10"),
                "high": Decimal("11"),
                "low": Decimal("9"),
                "close": Decimal("10"),
                "volume": Decimal("100"),
                "trade_count": 5,
                "adjusted": False,
                "source_id": "v",
                "ingest_run_id": "r1",
                "transform_version": "1",
                "revision": 0,
            }
        )
    return rows


def _plant_rows() -> list[Row]:
    rows = []
    for sid, unit, step in (("a1", "degC", 60), ("b2", "kPa", 30)):
        for i in range(5):
            rows.append(
                {
                    "series_id": sid,
                    "event_ts": NOW - timedelta(seconds=step * (10 - i)),
                    "value": Decimal("20"),
                    "unit": unit,
                    "quality": "good",
                    "calibration_id": "c1",
                    "source_id": "s",
                    "ingest_run_id": "r",
                    "transform_version": "1",
                    "revision": 0,
                }
            )
    return rows


CATALOG = [
    ("a1", "degC", Decimal("-40"), Decimal("150"), 60),
    ("b2", "kPa", Decimal("0"), Decimal("1000"), 30),
]


def _break_tests_fct(rows: list[Row]) -> list[Row]:
    rows[0]["quality"] = "weird"  # accepted_values:quality
    rows[1]["unit"] = "kPa"  # fixed_value:unit
    rows[2]["value_degc"] = Decimal("200")  # range:value_degc
    rows[3]["revision"] = -1  # range:revision
    rows[4]["value_degc"] = None  # invariant (quality stays good)
    rows.append(copy.deepcopy(rows[5]))  # unique
    rows[6]["event_ts"] += timedelta(microseconds=1)  # precision:event_ts (ms)
    for r in rows:  # freshness: everything an hour older (nothing else reads now)
        r["event_ts"] -= timedelta(hours=1)
    return rows


def _break_tests_ohlcv(rows: list[Row]) -> list[Row]:
    rows[0]["adjusted"] = True  # fixed_value:adjusted
    rows[1]["volume"] = Decimal("-1")  # range:volume
    rows[2]["trade_count"] = -1  # range:trade_count
    rows[3]["revision"] = -1  # range:revision
    rows[4]["open"] = Decimal("12")  # invariant open (close still inside)
    rows[5]["close"] = Decimal("8")  # invariant close
    rows.append(copy.deepcopy(rows[6]))  # unique (cadence keeps one row per point)
    rows[2]["bar_start"] += timedelta(microseconds=1)  # precision:bar_start (cadence fails anyway)
    gap = copy.deepcopy(rows[7])
    for k, ts in (("BBB", _t(30)), ("BBB", _t(28))):  # cadence: a 120 s gap in series BBB
        rows.append({**gap, "symbol": k, "bar_start": ts})
    return rows


def _break_tests_plant(rows: list[Row]) -> list[Row]:
    rows[0]["quality"] = "weird"  # accepted_values:quality
    rows[1]["revision"] = -1  # range:revision
    rows[2]["value"] = None  # invariant (quality good); catalog_bounds passes a null
    rows[3]["unit"] = "kPa"  # catalog_unit:unit (series a is degC)
    rows[4]["value"] = Decimal("200")  # catalog_bounds:value (a: -40..150)
    rows.append(copy.deepcopy(rows[0 + 5]))  # unique, in series b
    rows.append({**copy.deepcopy(rows[7]), "series_id": "A1"})  # pattern:series_id (upper case)
    # completeness:event_ts: a reading of series a1 at midnight two days before: that whole UTC
    # day lies between its first and last readings and holds 1 of the 1440 expected
    rows.append({**copy.deepcopy(rows[8 - 3]), "series_id": "a1", "value": Decimal("20"),
                 "quality": "good", "unit": "degC", "revision": 0,
                 "event_ts": datetime(2024, 1, 3, tzinfo=UTC)})
    for r in rows:  # cadence: series b 60 s apart, its catalog cadence is 30 s
        if r["series_id"] == "b2":
            r["event_ts"] = NOW - (NOW - r["event_ts"]) * 2
    b2 = next(r for r in rows  # not the duplicated point: unique breaks alone
              if r["series_id"] == "b2" and r["event_ts"] != rows[5]["event_ts"])
    b2["event_ts"] += timedelta(microseconds=1)  # precision:event_ts (cadence fails anyway)
    return rows


CASES = {
    "fct_sensor_readings": (_fct_rows, _break_tests_fct, ("source_id", "series_id"), "value_degc"),
    "ohlcv_1m": (_ohlcv_rows, _break_tests_ohlcv, ("open", "ingest_run_id"), "volume"),
    "plant_sensor_reading": (
        _plant_rows,
        _break_tests_plant,
        ("calibration_id", "transform_version"),
        "value",
    ),
}


def _write_db(
    path: Path,
    contract: Any,
    rows: list[Row],
    types: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    extra: str | None = None,
) -> None:
    import duckdb

    cols = [
        (f.name, (types or {}).get(f.name) or data_type(f.type, "duckdb"))
        for f in contract.fields
        if f.name not in drop
    ]
    if extra:
        cols.append((extra, "integer"))
    con = duckdb.connect(str(path))
    con.execute("set TimeZone = 'UTC'")
    con.execute("create table data (" + ", ".join(f'"{n}" {t}' for n, t in cols) + ")")
    marks = ", ".join("?" for _ in cols)
    con.executemany(
        f"insert into data values ({marks})",
        [[r.get(n, 1 if n == extra else None) for n, _ in cols] for r in rows],
    )
    con.execute(
        "create table series_catalog (series_id varchar, unit varchar, hard_min decimal(12,4), hard_max decimal(12,4), cadence_seconds integer)"
    )
    con.executemany("insert into series_catalog values (?, ?, ?, ?, ?)", CATALOG)
    con.close()


class Env:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.n = 0

    def run(
        self, name: str, rows: list[Row], tests: str = "dbt_utils", **db: Any
    ) -> dict[str, Any]:
        from tacit_gen.targets.dbt import engine

        self.n += 1
        case = self.root / f"case{self.n}"
        contract = load(f"contracts/{name}.yaml")
        clauses = plan(contract)
        for art in TARGET.render(contract, clauses, RenderOptions(targets=(DbtOptions(tests=tests),))).artifacts:
            p = case / "artifacts" / art.path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(art.content, encoding="utf-8")
        _write_db(case / "data.duckdb", contract, rows, **db)
        add_sessions(case / "data.duckdb", clauses)
        (case / "work").mkdir()
        run = engine.run(
            VerifyInput(
                contract,
                clauses,
                case / "artifacts",
                case / "data.duckdb",
                "data",
                NOW,
                case / "work",
            )
        )
        assert [v.clause_id for v in run.verdicts] == [c.id for c in clauses]
        return {v.clause_id: v for v in run.verdicts}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory):
    import os

    old = os.getcwd()
    os.chdir(ROOT)
    yield Env(tmp_path_factory.mktemp("dbt_engine"))
    os.chdir(old)


def _statuses(verdicts: dict[str, Any]) -> dict[str, str]:
    return {k: v.status for k, v in verdicts.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_clean_data_passes(env: Env, name: str) -> None:
    verdicts = env.run(name, CASES[name][0]())
    assert _statuses(verdicts) == dict.fromkeys(verdicts, "pass"), [
        v for v in verdicts.values() if v.status != "pass"
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_test_clause_fails_on_its_own_break(env: Env, name: str) -> None:
    make, brk, _, _ = CASES[name]
    verdicts = env.run(name, brk(make()))
    contract = load(f"contracts/{name}.yaml")
    tested = {
        c.id for c in plan(contract) if c.kind not in ("column", "no_unknown_columns", "not_null")
    }
    failed = {k for k, v in verdicts.items() if v.status == "fail"}
    assert failed == tested, {k: v for k, v in verdicts.items() if v.status != "pass"}
    assert all(verdicts[k].failures and verdicts[k].failures >= 1 for k in failed)
    assert all(v.status == "pass" for k, v in verdicts.items() if k not in tested)


@pytest.mark.parametrize("name", sorted(CASES))
def test_not_null_constraints_are_attributed(env: Env, name: str) -> None:
    make, _, nulls, _ = CASES[name]
    rows = make()
    rows[1][nulls[0]] = None
    rows[2][nulls[1]] = None
    verdicts = env.run(name, rows)
    bad = {k: v.status for k, v in verdicts.items() if v.status != "pass"}
    assert bad == {f"not_null:{nulls[0]}": "fail", f"not_null:{nulls[1]}": "fail"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_schema_breaks_are_attributed(env: Env, name: str) -> None:
    make, _, nulls, retype = CASES[name]
    contract = load(f"contracts/{name}.yaml")
    ts = contract.time.column if contract.time else None
    dropped = nulls[1]
    verdicts = env.run(
        name,
        make(),
        types={retype: "decimal(30,2)", ts: "timestamp"},
        drop=(dropped,),
        extra="extra_col",
    )
    bad = {k: v.status for k, v in verdicts.items() if v.status != "pass"}
    expected = {
        f"column:{retype}": "fail",
        f"column:{ts}": "fail",
        f"column:{dropped}": "fail",
        "no_unknown_columns": "fail",
    }
    expected |= {
        c.id: "n/a"
        for c in plan(contract)
        if dropped in c.columns and c.kind not in ("column", "no_unknown_columns")
    }
    assert bad == expected, bad
    assert "TIMESTAMP WITH TIME ZONE" in verdicts[f"column:{ts}"].detail


def test_native_tests_give_the_same_verdicts(env: Env) -> None:
    make, brk, _, _ = CASES["ohlcv_1m"]
    native = env.run("ohlcv_1m", brk(make()), tests="native")
    utils = env.run("ohlcv_1m", brk(make()))
    assert _statuses(native) == _statuses(utils)
    assert {k: v.failures for k, v in native.items()} == {k: v.failures for k, v in utils.items()}
