"""The runtime names each short completeness window by its series, `window_start` and
`readings`; a series column that already has one of those names keeps it, and the window's
fields take a trailing `_` (before, the sample query failed on the duplicate name and the error
named no window). Through ibis on DuckDB and on a real PostgreSQL 15 (a throwaway server whose
zone is America/New_York): one series of hourly readings over three days, the middle day
holding 5 of 24."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import load_module
from tacit_gen.render import render_contract
from tacit_gen.runtime.evaluate import evaluate
from tacit_gen.targets.base import RenderOptions

CID = "completeness:event_ts"
TEXT = """contract: short_windows
version: 1.0.0
owner: plant-telemetry@example
key: [{series}, event_ts]
time:
  column: event_ts
  precision: ms
  completeness: 24 per 1d per series; at least 90%
fields:
  {series}: {{type: string}}
  event_ts: {{type: timestamp_ms_utc}}
  value: {{type: decimal(12,4), unit: kPa}}
"""
DAY = datetime(2024, 3, 4, tzinfo=UTC)


@pytest.fixture(params=["duckdb", "postgres"])
def backend(request: pytest.FixtureRequest) -> Any:
    if request.param == "duckdb":
        return ibis.duckdb.connect()
    return ibis.connect(request.getfixturevalue("pg_server").dsn)


def _short(backend: Any, tmp_path: Path, series: str) -> list[dict[str, object]]:
    src = tmp_path / f"{series}.yaml"
    src.write_text(TEXT.format(series=series), encoding="utf-8")
    arts, _ = render_contract(load(str(src)), ("ibis",), RenderOptions())
    module = tmp_path / f"short_{series}.py"
    module.write_text(arts[0].content, encoding="utf-8")
    schema = load_module(module, f"short_{series}").ShortWindows
    hours = [*range(24), *range(24, 29), *range(48, 72)]  # day 2: 5 readings of 24
    table = backend.create_table(f"short_windows_{series}", overwrite=True, obj=ibis.memtable({
        series: ["AB-001"] * len(hours),
        "event_ts": [DAY + timedelta(hours=h) for h in hours],
        "value": [1.0] * len(hours)}))
    report = evaluate(schema, table, now=DAY + timedelta(days=4))
    others = [(r.clause.id, r.status) for r in report.results
              if r.clause.id != CID and r.status != "pass"]
    assert others == []
    [result] = [r for r in report.results if r.clause.id == CID]
    assert result.status == "fail" and result.count == 1
    return [dict(row) for row in result.rows]


def test_a_short_window_is_named(backend: Any, tmp_path: Path) -> None:
    [row] = _short(backend, tmp_path, "series_id")
    assert row == {"series_id": "AB-001", "window_start": DAY + timedelta(days=1), "readings": 5}


def test_a_series_column_named_readings_keeps_its_name(backend: Any, tmp_path: Path) -> None:
    [row] = _short(backend, tmp_path, "readings")
    assert row == {"readings": "AB-001", "window_start": DAY + timedelta(days=1), "readings_": 5}


def test_a_series_column_named_window_start_keeps_its_name(backend: Any,
                                                              tmp_path: Path) -> None:
    [row] = _short(backend, tmp_path, "window_start")
    assert row == {"window_start": "AB-001", "window_start_": DAY + timedelta(days=1),
                   "readings": 5}
