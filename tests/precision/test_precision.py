"""`time.precision` is checked on values (`precision:<time column>`): an instant with digits
finer than the precision fails in every engine that checks values (dbt, Soda v3, Soda 4, GX,
pandera, the ibis runtime), on DuckDB and on PostgreSQL 15, and `verify` shows them agree. The
wire schemas state it in their types or not at all: `explain --targets` lists the clause as not
checked there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.calendar.data import utc
from tests.conftest import value_targets
from tests.parity.harness import failed_by_engine
from tests.parity.postgres_harness import PG_ENGINES

pytestmark = pytest.mark.engine
CID = "precision:ts"
NOW = utc(2024, 1, 3)
ENGINES = value_targets("duckdb")  # dbt, soda, soda4, gx, pandera, ibis
CONTRACT = """\
contract: ticks
version: 1.0.0
key: [sensor, ts]
time:
  column: ts
  precision: {unit}
fields:
  sensor: {{type: string}}
  ts: {{type: timestamp_{unit}_utc}}
  value: {{type: int64}}
"""
CLEAN = ["2024-01-02T10:00:00.000Z", "2024-01-02T10:00:01.250Z", "2024-01-02T10:00:02.000Z"]
# name -> (precision, instants, failing rows)
CASES = {
    "ms_clean": ("ms", CLEAN, 0),
    "ms_micro": ("ms", [*CLEAN, "2024-01-02T10:00:03.000123Z"], 1),
    "ms_micro_before_1970": ("ms", [*CLEAN, "1969-12-31T23:59:59.999001Z"], 1),
    "s_clean": ("s", ["2024-01-02T10:00:00Z", "2024-01-02T10:00:05Z"], 0),
    "s_milli": ("s", ["2024-01-02T10:00:00Z", "2024-01-02T10:00:05.001Z", "2024-01-02T10:00:06.5Z"], 2),
}


def _case(tmp: Path, name: str) -> VerifyCase:
    unit, instants, _ = CASES[name]
    path = tmp / f"{name}.yaml"
    path.write_text(CONTRACT.format(unit=unit), encoding="utf-8")
    data = tmp / f"{name}.csv"
    data.write_text("sensor,ts,value\n" + "".join(f"s1,{t},1\n" for t in instants), encoding="utf-8")
    return VerifyCase(load(str(path)), data, None, NOW, ENGINES, source=path)


def _agree(report: VerifyReport, bad: int, targets: tuple[str, ...]) -> None:
    table = report.render_text()
    assert set(report.targets) == set(targets), table
    expected = {CID} if bad else set()
    for target, failed in failed_by_engine(report).items():
        assert failed == expected, f"{target}: {failed}\n{table}"
    assert not any(failed_by_engine(report, "error").values()), table
    row = next(r for r in report.rows if r.clause.id == CID)
    counts = {t: v.failures for t, v in row.verdicts.items() if v.failures is not None}
    if bad:
        assert counts and set(counts.values()) == {bad}, f"{counts}\n{table}"
    assert report.exit_code == (1 if bad else 0), table


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    tmp = tmp_path_factory.mktemp("precision")
    got = verify_cases([_case(tmp, n) for n in CASES], engine="duckdb", workdir=tmp / "work")
    return dict(zip(CASES, got, strict=True))


@pytest.mark.parametrize("name", list(CASES))
def test_precision_in_every_engine(reports: dict[str, VerifyReport], name: str) -> None:
    _agree(reports[name], CASES[name][2], ENGINES)


def test_microseconds_fail_on_postgres(pg_server: Server, tmp_path: Path) -> None:
    case = _case(tmp_path, "ms_micro")
    report = run_verify(case.contract, case.data, None, PG_ENGINES, NOW, keep=tmp_path / "w",
                        engine="postgres", dsn=pg_server.dsn)
    _agree(report, 1, PG_ENGINES)


def test_plan_and_explain_name_the_clause(tmp_path: Path) -> None:
    """One clause on the time column; the wire schemas list it as not checked, with why."""
    from click.testing import CliRunner

    from tacit_gen.cli import main

    case = _case(tmp_path, "ms_clean")
    found = [c for c in plan(case.contract) if c.kind == "precision"]
    assert [(c.id, c.param("precision")) for c in found] == [(CID, "ms")]
    out = CliRunner().invoke(main, ["explain", str(case.source), "--targets"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    head = lines[0].split()
    row = next(ln.split() for ln in lines if ln.startswith(CID + " "))
    marks = dict(zip(head[1:], row[1:], strict=True))
    assert marks == {"dbt": "yes", "soda": "yes", "soda4": "yes", "gx": "yes", "pandera": "yes",
                     "ibis": "yes", "avro": "NO", "protobuf": "NO", "jsonschema": "NO"}, out.output
    for wire in ("avro", "protobuf", "jsonschema"):
        assert any(ln.strip().startswith(f"{wire} / {CID}: unsupported") for ln in lines), out.output


def test_sample_violates_precision(tmp_path: Path) -> None:
    """`sample --violate precision:<c>` writes one instant 1 us late, and only precision fails."""
    from tacit_gen.sample import sample, write

    case = _case(tmp_path, "ms_clean")
    data = sample(case.contract, plan(case.contract), rows=20, seed=3, now=NOW, violate=CID)
    assert data.violated == (CID,), data.violated
    out = tmp_path / "bad.csv"
    write(data, out)
    text = out.read_text(encoding="utf-8")
    assert any(len(cell) == len("2024-01-02T10:00:03.000123+00:00") and cell.count(".") == 1
               for line in text.splitlines()[1:] for cell in line.split(",")
               if cell[:4].isdigit() and ":" in cell), text
