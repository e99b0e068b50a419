"""`tacit-gen profile`: per-series plausibility bounds from history (p1/p99, or the mean -/+ K
standard deviations; over the whole history or each series' trailing window; widened to the
column's scale), written into a new catalog or merged into an existing one, the method stated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml"


def _history(path: Path) -> None:
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    rows = ["series_id,event_ts,value,revised_by,source_id,revision"]
    for i in range(100):  # AB-001: 1 .. 100 (shuffled order changes nothing)
        v = (i * 37) % 100 + 1
        rows.append(f"AB-001,{(t0 + timedelta(minutes=i)).isoformat()},{v}.0000,,h,0")
    for i in range(5):  # CD-002: too little history for bounds
        rows.append(f"CD-002,{(t0 + timedelta(minutes=i)).isoformat()},{i}.5000,,h,0")
    rows.append(f"CD-002,{(t0 + timedelta(minutes=9)).isoformat()},,,h,0")  # NULL is not history
    path.write_text("\n".join(rows) + "\n")


def test_bounds_are_the_1st_and_99th_percentile_per_series(tmp_path: Path) -> None:
    data, out = tmp_path / "h.csv", tmp_path / "catalog.csv"
    _history(data)
    res = CliRunner().invoke(main, ["profile", str(CONTRACT), "--data", str(data), "--out", str(out)])
    assert res.exit_code == 0, res.output
    # quantile_cont over 1..100: 1 + 99 * 0.01 = 1.99 and 1 + 99 * 0.99 = 99.01, at scale 4
    assert out.read_text() == ("series_id,plausible_min,plausible_max\n"
                               "AB-001,1.9900,99.0100\n"
                               "CD-002,,\n")
    assert "bounds for 1 of 2 series (p1/p99 of each series' whole history; fewer than 20" in res.output


def test_merged_into_an_existing_catalog_keeping_its_columns(tmp_path: Path) -> None:
    data, out = tmp_path / "h.csv", tmp_path / "catalog.csv"
    _history(data)
    out.write_text("series_id,unit,plausible_min,plausible_max\nZZ-999,kPa,1,2\nAB-001,kPa,0,0\n")
    res = CliRunner().invoke(main, ["profile", str(CONTRACT), "--data", str(data), "--out", str(out),
                                    "--min-count", "3"])
    assert res.exit_code == 0, res.output
    assert out.read_text() == ("series_id,unit,plausible_min,plausible_max\n"
                               "ZZ-999,kPa,1,2\n"
                               "AB-001,kPa,1.9900,99.0100\n"
                               "CD-002,,0.5400,4.4600\n")


def test_a_column_that_is_no_measurement_is_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "h.csv"
    _history(data)
    res = CliRunner().invoke(main, ["profile", str(CONTRACT), "--data", str(data), "--out",
                                    str(tmp_path / "c.csv"), "--column", "series_id"])
    assert res.exit_code == 2
    assert "--column series_id: not a numeric field" in res.output


def _run(tmp_path: Path, *args: str) -> tuple[str, str]:
    data, out = tmp_path / "h.csv", tmp_path / "catalog.csv"
    _history(data)
    res = CliRunner().invoke(main, ["profile", str(CONTRACT), "--data", str(data), "--out", str(out), *args])
    assert res.exit_code == 0, res.output
    return out.read_text(), res.output


def test_a_window_takes_each_series_last_stretch_of_history(tmp_path: Path) -> None:
    # AB-001's newest reading is at minute 99: (newest - 50m, newest] holds minutes 50..99, whose
    # values are 50 of the 100; their p1/p99 (linear interpolation) are 3.47 and 98.51
    text, said = _run(tmp_path, "--window", "50m")
    assert text == "series_id,plausible_min,plausible_max\nAB-001,3.4700,98.5100\nCD-002,,\n"
    assert "(p1/p99 of the last 50m of each series' history (to its newest reading);" in said


def test_mean_and_deviation_over_the_whole_history_or_a_window(tmp_path: Path) -> None:
    # 1..100: mean 50.5, sample standard deviation 29.0114919...; -/+ 2 of them, widened to scale 4
    text, said = _run(tmp_path, "--method", "mean-sd", "--sigmas", "2")
    assert text == "series_id,plausible_min,plausible_max\nAB-001,-7.5230,108.5230\nCD-002,,\n"
    assert "(mean +/- 2 sample standard deviations of each series' whole history;" in said
    # minutes 50..99: mean 51.5, sample standard deviation 28.7183721...
    text, _ = _run(tmp_path, "--method", "mean-sd", "--sigmas", "2", "--window", "50m")
    assert text.splitlines()[1] == "AB-001,-5.9368,108.9368"


@pytest.mark.parametrize(("args", "word"), [
    (["--window", "5 business days"], "--window 5 business days"),
    (["--window", "soon"], "--window soon"),
    (["--sigmas", "2"], "--sigmas goes with --method mean-sd"),
    (["--method", "mean-sd", "--sigmas", "-1"], "--sigmas -1: expected a positive number"),
])
def test_a_bad_method_word_is_exit_2_naming_it(tmp_path: Path, args: list[str], word: str) -> None:
    data = tmp_path / "h.csv"
    _history(data)
    res = CliRunner().invoke(main, ["profile", str(CONTRACT), "--data", str(data), "--out",
                                    str(tmp_path / "c.csv"), *args])
    assert res.exit_code == 2, res.output
    assert word in res.output
    assert not (tmp_path / "c.csv").exists()
