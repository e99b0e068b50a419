"""Parity on Spark local: every clause of every bundled contract, in every target, on Spark.

The same cases as the DuckDB parity suite (clean data, and data breaking exactly one clause, from
`tacit-gen sample`), verified with ``engine="spark"``: ONE worker process and ONE Spark session
run all five targets on every case (dbt-spark session, soda-core-spark-df, GX on a Spark
dataframe, pandera through Arrow, the ibis runtime on pyspark). The batch runs once per session
(a module fixture); each test then reads its case's report. Select with ``-m spark``.

Beside the bundled contracts, the tiers `kinds` and `full` carry the clause kinds no bundled
contract has yet, on the fixtures of the DuckDB parity suite and of tests/references and
tests/targets (`plausible:` warns, `catalog_bounds:`, `catalog_dimension:`, `pattern:`,
`revision_by:`, `references:`, completeness per session on one calendar and per series), and
the hand-made `completeness:` cases of tests/targets/test_completeness_engines.py (a short day,
an empty day, an outage of an allowed type that excuses the short day, one of another type that
does not).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyCase, VerifyReport
from tests.conftest import value_targets
from tests.hardening import test_verify_before_1900 as before_1900
from tests.hardening import test_verify_before_1970 as before_1970
from tests.hardening import test_verify_double_bounds as double_bounds
from tests.hardening import test_verify_exact_arithmetic as exact_arith
from tests.hardening import test_verify_fixed_numbers as fixed_numbers
from tests.hardening import test_verify_float32 as float32
from tests.hardening import test_verify_float32_catalog as float32_catalog
from tests.hardening import test_verify_nan_division as nan_div
from tests.hardening import test_verify_pattern_newline as pattern_newline
from tests.hardening.batch import HARDENING
from tests.parity.harness import (
    ENGINES,
    ROWS,
    check_violation,
    clause_ids,
    contract_path,
    unsupported,
    verdict_table,
)
from tests.spark_batch import SparkCases
from tests.targets import test_completeness_engines as completeness
from tests.timeseries import session_bars_verify as session_bars
from tests.timeseries.test_completeness_session_engines import CHECKING

pytestmark = [pytest.mark.spark, pytest.mark.engine]

NAMES = ("fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading")
# TACIT_SPARK_PARITY=smoke (default; what the README's test command and CI run): the clean data
# of each contract, the naive-timestamp case and one violation per contract. =kinds: the clean
# data, the naive case and one violation per clause kind per contract (the first clause of each
# kind). =full: every clause of every contract. Costs: docs/engines/spark.md.
SMOKE = (("fct_sensor_readings", "freshness:event_ts"), ("ohlcv_1m", "not_null:symbol"),
         ("plant_sensor_reading", "catalog_unit:unit"))


# Fixture contracts (the clause kinds no bundled contract has): the clauses each one breaks.
ONLY = {"line_pressure": ("plausible:value", "catalog_bounds:value"),
        "pressure_by_catalog_unit": ("catalog_dimension:value",),
        "series_clauses": ("pattern:series_id", "revision_by:revised_by"),
        "orders": ("references:customer_id",),
        "bars_per_session": ("completeness:bar_start",),
        "bars_per_venue_session": ("completeness:bar_start",)}
def _first_of_each_kind(name: str) -> list[str]:
    seen: dict[str, str] = {}
    for c in clause_ids(name):
        seen.setdefault(c.split(":", 1)[0], c)
    return list(seen.values())


PARITY = os.environ.get("TACIT_SPARK_PARITY", "smoke")
if PARITY == "smoke":
    CASES: list[tuple[str, str | None]] = [(name, None) for name in NAMES] + list(SMOKE)
elif PARITY == "kinds":
    CASES = [(name, None) for name in NAMES] + [(name, c) for name in NAMES
                                                for c in _first_of_each_kind(name)]
elif PARITY == "full":
    CASES = [(name, None) for name in NAMES] + [(name, c) for name in NAMES for c in clause_ids(name)]
else:
    raise ValueError(f"TACIT_SPARK_PARITY={PARITY!r}: expected smoke, kinds or full")
# the hand-made completeness cases (allowed_outage, clean, empty_day, other_outage, short); the
# smoke tier keeps the one that passes only when the outages relation reaches every target
OUTAGE_CASES: list[str] = ["allowed_outage"] if PARITY == "smoke" else sorted(completeness.CASES)
if PARITY != "smoke":  # the fixtures' clean data and each of their clauses
    CASES += [(name, None) for name in ONLY]
    CASES += [(name, c) for name, cs in ONLY.items() for c in cs]
NAIVE = ("fct_sensor_readings", "naive event_ts")  # clean data whose instants lost their offset
# completeness per session, failures known by hand (tests/timeseries/session_bars_verify.py): a
# calendar for the contract and one per series, each short (two sessions) and whole; the smoke
# tier keeps the per-series calendar's short case
SESSION_CASES: list[tuple[bool, bool]] = ([(True, False)] if PARITY == "smoke" else
                                          [(v, w) for v in (False, True) for w in (False, True)])


def _session_id(venue: bool, whole: bool) -> str:
    return f"session-{'per_series' if venue else 'XNYS'}-{'whole' if whole else 'short'}"


def _case_id(case: tuple[str, str | None]) -> str:
    return f"{case[0]}-{case[1] or 'clean'}"


def spark_cases(root: Path) -> SparkCases:
    """Every case of this module (tests/spark_batch.py): case id -> the clauses sample broke."""
    out: SparkCases = []
    for name, clause in CASES:
        path = contract_path(name)
        contract = load(path)
        data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=clause)
        data_path, catalog_path = write(data, root / f"data{len(out)}" / f"{name}.csv")
        out.append((_case_id((name, clause)),
                    VerifyCase(contract, data_path, catalog_path, data.now, ENGINES, path), data.violated))
    # The naive case: the clean fct data with every event_ts offset removed. DuckDB loads it as a
    # naive TIMESTAMP, Parquet keeps it naive, Spark reads TimestampNTZType.
    name = NAIVE[0]
    contract = load(contract_path(name))
    data = sample(contract, plan(contract), rows=ROWS, seed=7)
    data_path, _ = write(data, root / "naive" / f"{name}.csv")
    text = data_path.read_text(encoding="utf-8")
    data_path.write_text(re.sub(r"(T[0-9:.]+)\+00:00", r"\1", text), encoding="utf-8")
    out.append((_case_id(NAIVE), VerifyCase(contract, data_path, None, data.now, ENGINES,
                                            contract_path(name)), ()))
    for case in OUTAGE_CASES:
        data_path, outages = completeness._files(case, root / "completeness" / case)
        out.append((f"completeness-{case}",
                    VerifyCase(load(completeness.CONTRACT), data_path, None, completeness.NOW,
                               ENGINES, completeness.CONTRACT, outages=outages), ()))
    for venue, whole in SESSION_CASES:
        path = session_bars.VENUE if venue else session_bars.LITERAL
        files = session_bars.write(root / _session_id(venue, whole), venue, whole)
        out.append((_session_id(venue, whole),
                    VerifyCase(load(str(path)), files["data"], files.get("catalog"), session_bars.NOW,
                               ENGINES, path, outages=files["outages"]), ()))
    # The hand-made hardening cases (tests/hardening/test_verify_*.py), each the contract, data and
    # catalog its module writes:
    # - nan_div: Spark orders NaN as DuckDB and PostgreSQL do, and must divide by NULLIF(b, 0);
    # - exact_arith: Spark wrapped int64 sums (dbt-spark turns ANSI mode off) and rounded
    #   CAST(price AS DECIMAL);
    # - double_bounds: Soda's and GX's float bounds, Spark's reading of a literal past int64 (a
    #   DECIMAL) and dbt's text bound;
    # - pattern_newline: Java's `$` matches before a final newline, Spark's patterns end with `\z`;
    # - wide_decimals: decimals whose common type passes 38 digits (Spark rounds the comparison);
    # - before_1970: Spark's integer division truncates toward zero, as every SQL engine's does;
    # - before_1900: trading days counted from 0001-01-01 (Spark's dates and timestamps of year 1);
    # - float32: float32 columns widened to double (Spark's FloatType plus an int adds in float32);
    # - fixed_numbers: a fixed float value a number in GX's value set, not its text;
    # - float32_catalog: a float32 subject against a Parquet catalog's DECIMAL bounds, widened.
    for name, module in HARDENING:
        contract, data, *catalog = module.write_case(root / name)
        out.append((name, VerifyCase(load(str(contract)), data, catalog[0] if catalog else None,
                                     module.NOW, ENGINES, contract), ()))
    return out


@pytest.fixture(scope="module")
def spark_reports(spark_batch: dict[str, Any]) -> dict[str, tuple[VerifyReport, Any]]:
    """This module's cases, verified on Spark in the run's one batch (tests/spark_batch.py):
    case id -> (report, the clauses sample broke)."""
    return spark_batch[__name__]


@pytest.mark.parametrize("name", [name for name, c in CASES if c is None])
def test_clean_data_passes_on_spark_in_every_target(name: str, spark_reports: dict[str, Any]) -> None:
    report, violated = spark_reports[_case_id((name, None))]
    assert violated == ()
    table = verdict_table(report)
    assert report.exit_code == 0, table
    assert set(report.targets) == set(ENGINES)
    skip = unsupported(name)
    for r in report.rows:
        assert set(r.verdicts) == set(ENGINES), table  # every target gave a verdict
        for t, v in r.verdicts.items():
            want = "n/a" if r.clause.id in skip[t] else "pass"
            assert v.status == want, f"{t} {r.clause.id}: {v.status}\n{table}"


@pytest.mark.parametrize("case", [c for c in CASES if c[1]], ids=_case_id)
def test_one_violation_is_flagged_on_spark_by_every_target(case: tuple[str, str],
                                                            spark_reports: dict[str, Any]) -> None:
    report, violated = spark_reports[_case_id(case)]
    check_violation(case[0], case[1], report, violated)


@pytest.mark.parametrize("case", OUTAGE_CASES)
def test_completeness_per_window_and_outages_on_spark(case: str, spark_reports: dict[str, Any]) -> None:
    """The hand-made completeness cases: the Spark verdict of every target is the reference's."""
    report, _ = spark_reports[f"completeness-{case}"]
    completeness._check(case, ENGINES, report)


@pytest.mark.parametrize(("venue", "whole"), SESSION_CASES,
                         ids=[_session_id(v, w) for v, w in SESSION_CASES])
def test_completeness_per_session_on_spark(venue: bool, whole: bool, spark_reports: dict[str, Any]) -> None:
    """The two short sessions fail `completeness:bar_start` alone in every target (two failures
    where the engine counts them); the whole sessions pass."""
    report, _ = spark_reports[_session_id(venue, whole)]
    table = verdict_table(report)
    if whole:
        assert report.exit_code == 0, table
        return
    assert report.exit_code == 1, table
    row = next(r for r in report.rows if r.clause.id == session_bars.CLAUSE)
    for r in report.rows:
        for t in CHECKING:
            want = "fail" if r.clause.id == session_bars.CLAUSE else "pass"
            assert r.verdicts[t].status == want, f"{t} {r.clause.id}\n{table}"
    assert all(row.verdicts[t].failures in (None, 2) for t in CHECKING), table


def test_a_naive_timestamp_is_no_instant_on_spark(spark_reports: dict[str, Any]) -> None:
    """Spark's TimestampType is an instant (the session is UTC); a naive value is TimestampNTZType
    and fails column: in every SQL and dataframe target (the runtime does not re-type it)."""
    report, _ = spark_reports[_case_id(NAIVE)]
    table = verdict_table(report)
    row = next(r for r in report.rows if r.clause.id == "column:event_ts")
    for t in value_targets("spark"):
        assert row.verdicts[t].status == "fail", f"{t}: {row.verdicts[t]}\n{table}"
    assert report.exit_code == 1, table


def test_nan_and_division_by_zero_on_spark(spark_reports: dict[str, Any]) -> None:
    """The hand-computed verdicts of the NaN and division-by-zero rows, in every Spark engine."""
    report, _ = spark_reports["nan_div"]
    checking = tuple(t for t in nan_div.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    nan_div.check_report(report.as_json(), verdict_table(report), checking)


def test_exact_integer_arithmetic_on_spark(spark_reports: dict[str, Any]) -> None:
    """int32 and int64 sums and products past their width, negation and division: the
    hand-computed verdicts in every Spark engine (dbt-spark runs with ANSI mode off, the others
    with Spark 4's default, on)."""
    report, _ = spark_reports["exact_arith"]
    checking = tuple(t for t in exact_arith.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    exact_arith.check_report(report.as_json(), verdict_table(report), checking)


def test_bounds_a_double_does_not_keep_on_spark(spark_reports: dict[str, Any]) -> None:
    """Range and invariant bounds past 2^53, past int64, of 21 digits and in exponent form:
    the hand-computed verdicts in every Spark engine."""
    report, _ = spark_reports["double_bounds"]
    checking = tuple(t for t in double_bounds.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    double_bounds.check_report(report.as_json(), verdict_table(report), checking)


def test_a_final_newline_fails_the_pattern_on_spark(spark_reports: dict[str, Any]) -> None:
    """A final newline, a newline inside, a non-ASCII letter: the hand-counted failing rows of
    each pattern in every Spark engine."""
    report, _ = spark_reports["pattern_newline"]
    checking = tuple(t for t in pattern_newline.ENGINES if t in ENGINES)
    assert checking == (*value_targets("spark"), "jsonschema")
    pattern_newline.check_report(report.as_json(), verdict_table(report), checking)


def test_wide_decimals_on_spark(spark_reports: dict[str, Any]) -> None:
    """decimal(38,20) against decimal(38,10): pandera compares them exactly on Spark too. Spark
    SQL does not: the exact common type needs 48 digits, and Spark compares at DECIMAL(38,10),
    so 0.30000000000000000001 <= 0.3 is TRUE there (docs/engines/spark.md). Measured: the SQL
    engines miss row 1 of the catalog bounds; verify reports the disagreement, as it must."""
    report, _ = spark_reports["wide_decimals"]
    rows = {r["id"]: r for r in report.as_json()["clauses"]}
    sql_engines = ("dbt", "soda", "gx", "ibis")
    bounds = rows["catalog_bounds:value"]["verdicts"]
    assert {t: (bounds[t]["status"], bounds[t]["failures"]) for t in sql_engines} == \
        dict.fromkeys(sql_engines, ("fail", 1)), verdict_table(report)
    assert bounds["pandera"]["status"] == "fail", verdict_table(report)
    assert "failing rows differ" in (rows["catalog_bounds:value"]["disagreement"] or ""), verdict_table(report)
    # the invariant's rows differ at the 10th decimal, which DECIMAL(38,10) keeps: exact everywhere
    inv = rows["invariant:a <= value"]
    assert inv["disagreement"] is None, verdict_table(report)
    assert {t: inv["verdicts"][t]["status"] for t in (*sql_engines, "pandera")} == \
        dict.fromkeys((*sql_engines, "pandera"), "fail")


def test_trading_days_before_1900_on_spark(spark_reports: dict[str, Any]) -> None:
    """A revision window in trading days and a `1 trading day` cadence across 1900: the
    reference's verdicts in every Spark engine."""
    report, _ = spark_reports["before_1900"]
    checking = tuple(t for t in before_1900.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    before_1900.check_report(report.as_json(), verdict_table(report), checking)


def test_float32_widened_on_spark(spark_reports: dict[str, Any]) -> None:
    """float32 columns compared and added as the doubles they hold (Spark widens a FloatType
    compared with a decimal itself; the casts keep it so): the hand counts in every Spark engine."""
    report, _ = spark_reports["float32"]
    checking = tuple(t for t in float32.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    float32.check_report(report.as_json(), verdict_table(report), checking)


def test_fixed_numbers_on_spark(spark_reports: dict[str, Any]) -> None:
    """A fixed float, decimal and integer value: the row that differs fails in every Spark engine."""
    report, _ = spark_reports["fixed_numbers"]
    checking = tuple(t for t in fixed_numbers.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    fixed_numbers.check_report(report.as_json(), verdict_table(report), checking)


def test_float32_against_decimal_catalog_bounds_on_spark(spark_reports: dict[str, Any]) -> None:
    """A float32 subject against a catalog's DECIMAL bounds: the stored 0.1 above 0.1 in every
    Spark engine, hard bounds and plausible ones."""
    report, _ = spark_reports["float32_catalog"]
    checking = tuple(t for t in float32_catalog.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    float32_catalog.check_report(report.as_json(), verdict_table(report), checking)


def test_completeness_windows_before_1970_on_spark(spark_reports: dict[str, Any]) -> None:
    """The short hours around the epoch: the reference's windows in every Spark engine."""
    report, _ = spark_reports["before_1970"]
    checking = tuple(t for t in before_1970.SQL_AND_FRAMES if t in ENGINES)
    assert checking == value_targets("spark")
    before_1970.check_report(report.as_json(), 2, verdict_table(report), checking)
