"""The catalog unit's dimension (issue 13), end to end in every real engine.

A pressure feed whose unit comes per series from the catalog, under `dimension: pressure`. The
data's `unit` column always equals the catalog's, so `catalog_unit` holds and only
`catalog_dimension:value` can fail: a series whose catalog unit is `kg` (another dimension), the
issue's `kPa` under `dimension: temperature`, and a NULL catalog unit. Every engine must agree,
on DuckDB, and on a real PostgreSQL 15 (a clean case and the kPa one; the `pg_server` fixture).
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import VerifyCase, verify_cases
from tests.conftest import ROOT, value_targets

pytestmark = pytest.mark.engine

FIXTURE = ROOT / "tests" / "fixtures" / "series" / "catalog_dimension.yaml"
NOW = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
ENGINES = value_targets()
DIM = "catalog_dimension:value"

# label -> (dimension, catalog units of s1 and s2 (None: NULL), failing clauses)
CASES = {
    "bar and kPa under pressure": ("pressure", ("bar", "kPa"), set()),
    "psi and hPa under pressure": ("pressure", ("psi", "hPa"), set()),
    "a kg series under pressure": ("pressure", ("bar", "kg"), {DIM}),
    "kPa under temperature": ("temperature", ("degC", "kPa"), {DIM}),
    "degF and K under temperature": ("temperature", ("degF", "K"), set()),
    "a NULL catalog unit": ("pressure", ("bar", None), {DIM}),
    "a unit spelled in the wrong case": ("pressure", ("bar", "KPA"), {DIM}),
}


def _case(root: Path, label: str) -> VerifyCase:
    dimension, units, _ = CASES[label]
    d = root / label.replace(" ", "_")
    d.mkdir()
    src = d / "contract.yaml"
    src.write_text(FIXTURE.read_text().replace("dimension: pressure", f"dimension: {dimension}"))
    with (d / "data.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(("series_id", "event_ts", "value", "unit"))
        for sid, unit in zip(("s1", "s2"), units, strict=True):
            for i in range(3):
                t = NOW - timedelta(minutes=10 - i)
                w.writerow((sid, t.isoformat(timespec="milliseconds"), f"{5 + i}.25", unit or ""))
    cat = d / "catalog.csv"
    cat.write_text("series_id,unit,hard_min,hard_max\n"
                   + "".join(f"{sid},{unit or ''},0,400\n" for sid, unit in zip(("s1", "s2"), units, strict=True)))
    return VerifyCase(load(src), d / "data.csv", cat, NOW, ENGINES, src)


def test_every_engine_checks_the_catalog_units_dimension(tmp_path: Path) -> None:
    labels = sorted(CASES)
    reports = verify_cases([_case(tmp_path, label) for label in labels], "duckdb",
                           tmp_path / "work")
    for label, report in zip(labels, reports, strict=True):
        expected = CASES[label][2]
        table = report.render_text()
        assert report.exit_code == (1 if expected else 0), f"{label}\n{table}"
        for engine in ENGINES:
            failed = {r.clause.id for r in report.rows if r.verdicts[engine].status == "fail"}
            assert failed == expected, f"{label}: {engine} flagged {sorted(failed)}\n{table}"
            row = next(r for r in report.rows if r.clause.id == DIM)
            assert row.verdicts[engine].status in ("pass", "fail"), f"{label}: {engine}\n{table}"


def test_every_engine_checks_the_catalog_units_dimension_on_postgres(pg_server: Server,
                                                                      tmp_path: Path) -> None:
    labels = ["bar and kPa under pressure", "kPa under temperature"]
    reports = verify_cases([_case(tmp_path, label) for label in labels], "postgres",
                           tmp_path / "work", dsn=pg_server.dsn)
    for label, report in zip(labels, reports, strict=True):
        expected = CASES[label][2]
        table = report.render_text()
        assert report.exit_code == (1 if expected else 0), f"{label}\n{table}"
        assert set(report.targets) == set(ENGINES), f"{label}\n{table}"
        row = next(r for r in report.rows if r.clause.id == DIM)
        for engine in ENGINES:
            failed = {r.clause.id for r in report.rows if r.verdicts[engine].status == "fail"}
            assert failed == expected, f"{label}: {engine} flagged {sorted(failed)}\n{table}"
            want = "fail" if expected else "pass"
            assert row.verdicts[engine].status == want, f"{label}: {engine}\n{table}"
