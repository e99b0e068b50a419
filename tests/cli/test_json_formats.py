"""`--format json` on the commands that write files: what they did, as data on stdout (the
notes stay on stderr), parsed here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import ROOT

OHLCV = ROOT / "contracts" / "ohlcv_1m.yaml"
SERIES = ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml"


def run_json(*args: str, code: int = 0) -> dict:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == code, res.output
    return json.loads(res.stdout)


def test_fmt_json_lists_the_files_and_those_reformatted(tmp_path: Path) -> None:
    clean = tmp_path / "clean.yaml"
    shutil.copy(OHLCV, clean)
    assert CliRunner().invoke(main, ["fmt", str(clean)]).exit_code == 0  # canonical now
    messy = tmp_path / "messy.yaml"
    messy.write_text(clean.read_text(encoding="utf-8").replace("version: ", "version:   ", 1)
                     .replace("\n", "\n\n", 1), encoding="utf-8")
    before = messy.read_text(encoding="utf-8")
    got = run_json("fmt", str(tmp_path), "--check", "--format", "json", code=1)
    assert got == {"check": True, "files": [str(clean), str(messy)], "unformatted": [str(messy)]}
    assert messy.read_text(encoding="utf-8") == before  # --check writes nothing
    got = run_json("fmt", str(tmp_path), "--format", "json")
    assert got == {"check": False, "files": [str(clean), str(messy)], "reformatted": [str(messy)]}
    assert run_json("fmt", str(tmp_path), "--check", "--format", "json")["unformatted"] == []


def test_sample_json_says_what_it_wrote_and_what_the_data_breaks(tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    got = run_json("sample", str(OHLCV), "--rows", "20", "--seed", "3", "--violate",
                   "range:volume", "--out", str(out), "--format", "json")
    assert got["contract"] == "ohlcv_1m" and got["rows"] == 20 and got["seed"] == 3
    assert got["violate"] == "range:volume" and got["violated"] == ["range:volume"]
    assert "volume" in got["description"]
    assert got["data"] == out.as_posix() and got["written"][0] == out.as_posix()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 21  # the header and 20 rows
    assert got["now"].startswith("20")
    # without --out stdout is the CSV: json has nothing to describe
    res = CliRunner().invoke(main, ["sample", str(OHLCV), "--format", "json"])
    assert res.exit_code == 2 and "give --out FILE" in res.output


def test_profile_json_has_each_series_bounds(tmp_path: Path) -> None:
    from tests.test_profile import _history

    data, out = tmp_path / "h.csv", tmp_path / "catalog.csv"
    _history(data)
    got = run_json("profile", str(SERIES), "--data", str(data), "--out", str(out),
                   "--format", "json")
    assert got["catalog"] == out.as_posix() and got["column"] == "value"
    assert got["key"] == "series_id" and got["bounded"] == 1
    assert got["method"].startswith("p1/p99")
    assert got["series"] == [
        {"series": "AB-001", "count": 100, "plausible_min": "1.9900", "plausible_max": "99.0100"},
        {"series": "CD-002", "count": 5, "plausible_min": None, "plausible_max": None},
    ]
    assert out.read_text().splitlines()[1] == "AB-001,1.9900,99.0100"


def test_export_odcs_json_names_the_file_or_carries_the_document(tmp_path: Path) -> None:
    out = tmp_path / "o.yaml"
    got = run_json("export", "odcs", str(OHLCV), "--out", str(out), "--format", "json")
    assert got == {"contract": "ohlcv_1m", "version": got["version"], "written": out.as_posix()}
    got2 = run_json("export", "odcs", str(OHLCV), "--format", "json")
    assert got2["written"] is None and got2["document"] == out.read_text(encoding="utf-8")
    assert "kind: DataContract" in got2["document"]
