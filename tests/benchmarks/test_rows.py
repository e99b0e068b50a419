"""The bench row: how a ratio reads against its goal, and the JSON file `--json FILE` writes.

No timing is asserted here (benchmarks are never timed tests): the rows are built by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.rows import ENV, Row, emit


def test_slower_ratio_is_measure_over_baseline() -> None:
    row = Row("runtime", "parse()", 2.2, "hand query", 2.0, "slower", 1.10)
    assert row.ratio == pytest.approx(1.1)
    assert row.met is True
    assert Row("runtime", "parse()", 2.4, "hand query", 2.0, "slower", 1.10).met is False


def test_faster_ratio_is_baseline_over_measure() -> None:
    row = Row("runtime", "parse() vs pandera", 1.0, "pandera", 1.2, "faster", 1.3)
    assert row.ratio == pytest.approx(1.2)
    assert row.met is False
    assert "NOT met" in row.line() and "1.20x faster" in row.line()


def test_wall_rows_have_no_ratio() -> None:
    row = Row("verify", "verify one file", 7.5, kind="wall", goal=8.0)
    assert row.ratio is None and row.met is True
    assert Row("verify", "no goal", 7.5, kind="wall").met is None


def test_emit_appends_every_row_to_the_json_file(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "bench.json"
    monkeypatch.setenv(ENV, str(target))
    emit(Row("render", "render", 3.0, "CSafe", 1.0, "slower", 6.0, 3))
    emit(Row("runtime", "parse()", 1.0, "pandera", 2.0, "faster", 1.3, 5, note="n"))
    rows = json.loads(target.read_text())
    assert [r["bench"] for r in rows] == ["render", "runtime"]
    assert rows[0]["ratio"] == pytest.approx(3.0) and rows[0]["met"] is True
    assert rows[1]["ratio"] == pytest.approx(2.0) and rows[1]["repeat"] == 5
    assert {"at", "load_average", "cpus", "python", "baseline_seconds", "goal"} <= set(rows[1])


def test_no_json_file_without_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    emit(Row("render", "render", 3.0, "CSafe", 1.0, "slower", 6.0))
    assert list(tmp_path.iterdir()) == []
    assert "[render] render: 3.000 s" in capsys.readouterr().out


def test_row_count_reads_exponent_form() -> None:
    from tests.benchmarks.rows import row_count

    assert row_count("1e7") == 10_000_000
    assert row_count("2000000") == 2_000_000
    assert row_count("2.5e6") == 2_500_000
    for bad in ("1.5", "0", "-1e3", "many"):
        with pytest.raises(ValueError):
            row_count(bad)
