"""Nanosecond instants, and a clause the data stops in every engine: verify's verdicts.

Found by probing verify with new contracts and data (2026-12-02), each verified in every engine:

- A `timestamp_ns_utc` column on DuckDB, PostgreSQL or Spark is TIMESTAMP WITH TIME ZONE, which
  holds microseconds (dbt, Soda and GX declare it so for every precision). The runtime refused that
  type for `_ns_` ("coarser than ns"), so every ns contract was a disagreement on `column:`.
- An instant with digits beyond microseconds was loaded as text and failed `column:` everywhere
  but in the JSON Schema (which reads the text): a disagreement on values the data holds rightly.
  verify now stops (exit 2) and names the value: no engine here can hold it.
- A clause the data stops in every engine that runs it is no disagreement (exit 3, "a tacit-gen
  bug") but a clause without a verdict (exit 4). It was found with an int64 sum past 2^63
  (`qty + qty >= 0`), which is now exact and passes everywhere (2026-12-03,
  tests/hardening/test_verify_exact_arithmetic.py); a product past 38 digits (`qty * qty * qty`)
  still overflows DECIMAL(38, 0) in DuckDB's dbt, Soda, Soda 4, GX and ibis alike (pandera
  widens to decimal256 and passes, so it is left out of that run). Soda 4 computes its metrics in
  one query, so such an error left the unrelated checks NOT_EVALUATED (and the freshness FAILED):
  those now run again one by one, as Soda 3's engine does.
- A catalog with two rows for one series was read differently by each engine: verify now refuses
  the file and names the key (exit 2).

The verdicts on DuckDB (the ns instants in every engine, the product past 38 digits in the SQL
engines and the runtime) are verified in ONE batch (`verify_cases`: each engine once for both
contracts, one dbt build), the PostgreSQL one in-process too; the text report, its exit code and
verify stopping on bad data or a bad catalog are the CLI's own, so those run `tacit-gen verify`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.types import parse_type
from tacit_gen.engines.postgres_server import Server
from tacit_gen.runtime.types import structural_mismatch
from tacit_gen.verify import VerifyCase, VerifyReport, parse_now, verify_cases
from tests.conftest import engine_targets, record_targets, value_targets
from tests.hardening.helpers import cli

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: ticks_ns
version: 1.0.0
key: [sym, ts]
time:
  column: ts
  precision: ns
  timezone: UTC
  cadence: 1s
  freshness: 1h
fields:
  sym: {type: enum[a, b]}
  ts:  {type: timestamp_ns_utc}
  qty: {type: int64, unit: lots}
invariants:
  - qty + qty >= 0
"""
# the instants are whole microseconds written to the nanosecond (a steps 1 s + 1 us, off the
# 1 s cadence); b's second quantity is 2^62
DATA = """\
sym,ts,qty
a,2024-01-01T00:00:00.000000000Z,1
a,2024-01-01T00:00:01.000001000Z,2
b,2024-01-01T00:00:00Z,3
b,2024-01-01T00:00:01Z,4611686018427387904
"""
NOW = "2024-01-01T00:30:00Z"
CHECKING = value_targets()


def _write(tmp_path: Path, data: str = DATA) -> tuple[Path, Path]:
    c, d = tmp_path / "ticks_ns.yaml", tmp_path / "ticks_ns.csv"
    c.write_text(CONTRACT, encoding="utf-8")
    d.write_text(data, encoding="utf-8")
    return c, d


def test_runtime_accepts_microsecond_instants_for_ns() -> None:
    ns = parse_type("timestamp_ns_utc")
    assert structural_mismatch(ns, ibis.dtype("timestamp('UTC', 6)")) is None
    assert structural_mismatch(ns, ibis.dtype("timestamp('UTC', 9)")) is None
    coarse = structural_mismatch(ns, ibis.dtype("timestamp('UTC', 3)"))
    assert coarse is not None and "coarser" in coarse
    assert structural_mismatch(parse_type("timestamp_ms_utc"), ibis.dtype("timestamp('UTC', 0)")) is not None


def test_sub_microsecond_digits_stop_verify_with_the_value(tmp_path: Path) -> None:
    c, d = _write(tmp_path, DATA.replace("01.000001000Z", "01.000000500Z"))
    res = cli("verify", str(c), "--data", str(d), "--now", NOW, "--target", "jsonschema")
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"{d}: column 'ts' (timestamp_ns_utc) holds an instant with digits beyond microseconds " \
           "(row 2: '2024-01-01T00:00:01.000000500Z')" in res.stderr, res.stderr
    assert res.stdout == ""


PAST_38_DIGITS = "qty * qty * qty >= 0"  # (2^62)^3: past DECIMAL(38, 0)
# every SQL engine on DuckDB and the runtime (pandera widens to decimal256 and passes)
PAST_38_ENGINES = ("dbt", "soda", "soda4", "gx", "ibis")


def _case(folder: Path, contract: str, targets: tuple[str, ...]) -> VerifyCase:
    folder.mkdir(parents=True)
    c, d = _write(folder)
    c.write_text(contract, encoding="utf-8")
    return VerifyCase(load(str(c)), d, None, parse_now(NOW), targets, c)


@pytest.fixture(scope="module")
def on_duckdb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Both contracts verified on DuckDB in ONE batch: ``ns`` by every engine (what `tacit-gen
    verify` runs by default), ``past_38`` (the product past 38 digits) by `PAST_38_ENGINES`."""
    tmp = tmp_path_factory.mktemp("ns-overflow")
    cases = {"ns": _case(tmp / "ns", CONTRACT, engine_targets("duckdb")),
             "past_38": _case(tmp / "past_38", CONTRACT.replace("qty + qty >= 0", PAST_38_DIGITS),
                              PAST_38_ENGINES)}
    got = verify_cases(list(cases.values()), engine="duckdb", workdir=tmp / "work")
    for case, report in zip(cases.values(), got, strict=True):
        assert set(report.targets) == set(case.targets), report.render_text()
    return dict(zip(cases, got, strict=True))


def _check(verified: VerifyReport) -> None:
    report = verified.as_json()
    rows = {r["id"]: r for r in report["clauses"]}
    assert {k: r["disagreement"] for k, r in rows.items() if r["disagreement"]} == {}
    exact_sum = "invariant:qty + qty >= 0"
    for cid, r in rows.items():
        got = {t: r["verdicts"][t]["status"] for t in CHECKING}
        # series a steps 1 s + 1 us: off a 1 s cadence in every engine (dbt and GX measured
        # steps in milliseconds and passed it)
        # 2^62 + 2^62 is exact (it overflowed int64 before 2026-12-03)
        want = "fail" if cid == "cadence:ts" else "pass"
        assert got == dict.fromkeys(CHECKING, want), (cid, got, {t: r["verdicts"][t]["detail"] for t in CHECKING})
    assert exact_sum in rows
    # the wire schemas read the instants too
    assert {t: rows["column:ts"]["verdicts"][t]["status"] for t in record_targets()} \
        == dict.fromkeys(record_targets(), "pass")
    assert report["errored"] == []
    assert report["exit_code"] == 1 and verified.exit_code == 1


def test_ns_instants_and_an_int64_sum_on_duckdb(on_duckdb: dict[str, VerifyReport]) -> None:
    _check(on_duckdb["ns"])


def test_ns_instants_and_an_int64_sum_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    case = _case(tmp_path / "ns", CONTRACT, engine_targets("postgres"))
    (report,) = verify_cases([case], engine="postgres", workdir=tmp_path / "work", dsn=pg_server.dsn)
    assert set(report.targets) == set(case.targets), report.render_text()
    _check(report)


def test_the_text_report_says_no_verdict(tmp_path: Path) -> None:
    c, d = _write(tmp_path)
    c.write_text(CONTRACT.replace("qty + qty >= 0", PAST_38_DIGITS), encoding="utf-8")
    res = cli("verify", str(c), "--data", str(d), "--now", NOW, "--target", "dbt,soda", timeout=900)
    assert res.returncode == 4, res.stdout
    assert "<- no verdict" in res.stdout and "<- disagree" not in res.stdout
    assert f"NO VERDICT invariant:{PAST_38_DIGITS}: every engine that runs it errored on this data" in res.stdout
    assert "Overflow in multiplication of DECIMAL(38)" in res.stdout
    assert res.stdout.rstrip().endswith(
        f"1 clause(s) errored in every engine, no verdict (invariant:{PAST_38_DIGITS}); "
        "the engines agree: 1 clause(s) violated")


def test_no_verdict_in_json_and_soda4_reruns_the_other_checks(on_duckdb: dict[str, VerifyReport]) -> None:
    """Every SQL engine on DuckDB (and the runtime) errors on a product past 38 digits: the clause
    has no verdict (exit 4, `errored`); Soda 4, whose one metrics query failed, reruns its other
    checks one by one, so they keep their own verdicts."""
    report: dict[str, Any] = on_duckdb["past_38"].as_json()
    rows = {r["id"]: r for r in report["clauses"]}
    past = f"invariant:{PAST_38_DIGITS}"
    engines = PAST_38_ENGINES
    for cid, r in rows.items():
        got = {t: r["verdicts"][t]["status"] for t in engines}
        want = "error" if cid == past else "fail" if cid == "cadence:ts" else "pass"
        assert got == dict.fromkeys(engines, want), (cid, got, {t: r["verdicts"][t]["detail"] for t in engines})
    assert report["errored"] == [past]
    assert report["verdict"] == "incomplete" and report["exit_code"] == 4
    soda4 = " ".join(report["notes"].get("soda4", []))
    assert "checks rerun one by one" in soda4, report["notes"]


def test_a_catalog_with_a_duplicate_key_stops_verify(tmp_path: Path) -> None:
    """Two catalog rows for one series: each engine read its own catalog (dbt failed the cadence
    with steps of 0, dbt, Soda and GX failed the unit the runtime and pandera passed), a
    disagreement the contract did not cause. verify refuses the file and names the key."""
    from tests.conftest import ROOT

    data, catalog = tmp_path / "plant.csv", tmp_path / "plant.catalog.csv"
    contract = ROOT / "contracts" / "plant_sensor_reading.yaml"
    made = cli("sample", str(contract), "--rows", "15", "--now", "2024-01-02T15:00:00Z",
               "--out", str(data))
    assert made.returncode == 0, made.stderr
    lines = catalog.read_text(encoding="utf-8").splitlines()
    first = lines[1].split(",")
    other = next(x.split(",")[1] for x in lines[2:] if x.split(",")[1] != first[1])
    catalog.write_text("\n".join([*lines, ",".join([first[0], other, *first[2:]])]) + "\n",
                       encoding="utf-8")
    res = cli("verify", str(contract), "--data", str(data), "--catalog", str(catalog),
              "--now", "2024-01-02T15:00:00Z", "--target", "pandera")
    assert res.returncode == 2, res.stdout + res.stderr
    assert (f"{catalog}: the catalog holds 2 rows for series_id '{first[0]}' (rows 1, {len(lines)}); "
            "a catalog has one row per series") in res.stderr, res.stderr
    # the same catalog without the duplicate verifies
    catalog.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok = cli("verify", str(contract), "--data", str(data), "--catalog", str(catalog),
             "--now", "2024-01-02T15:00:00Z", "--target", "pandera")
    assert ok.returncode == 0, ok.stdout + ok.stderr
