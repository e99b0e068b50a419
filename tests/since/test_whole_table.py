"""`verify --since` on the clauses that relate the increment to the rest of the table: a key
without the time column, a reference, a revision window (reading.yaml) and completeness
(samples.yaml). Each engine's verdict is the runtime's: the violations wholly before `since` are
not reported, those that involve a row at or after it are (docs/increments.md).

reading.yaml, series a and b one reading a minute from 09:00 to 09:19, `since` 09:10. Before it:
a repeated key (b 09:03 and 09:04), a revision ingested 3 h late (b 09:02), an unknown station
(b 09:05). After it (`across` only): a 09:14 repeats the key of a 09:07, a 09:16 is a revision
ingested 1 h 44 late, a 09:18 names an unknown station.

samples.yaml, 5 readings per 5-minute window, `since` 09:12. Before it: a's window 09:00-09:05
and b's 09:05-09:10 (which ends before `since`) hold 2. Across (`across` only): b's window
09:10-09:15, which holds `since`, misses 09:10 and 09:11 (before it) and holds 3."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main

pytestmark = pytest.mark.engine

HERE = Path(__file__).parent
NOW = "2024-03-04T09:20:00Z"
TARGETS = ("ibis", "dbt", "soda", "soda4", "pandera", "gx")
CASES = {  # contract: (since, the clauses it plants violations of)
    "reading": ("2024-03-04T09:10:00Z",
                ("unique:reading_id,revision", "references:station_id", "revision_window")),
    "samples": ("2024-03-04T09:12:00Z", ("completeness:ts",)),
}


def _ts(m: int) -> str:
    return f"2024-03-04T09:{m:02d}:00Z"


def _reading(across: bool) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for s in "ab":
        for m in range(20):
            rows.append({"reading_id": len(rows) + 1, "series_id": s, "ts": _ts(m),
                         "station_id": "s1" if s == "a" else "s2", "revision": 0,
                         "ingested_at": _ts(m)})

    def at(s: str, m: int) -> dict[str, object]:
        return next(r for r in rows if r["series_id"] == s and r["ts"] == _ts(m))

    at("b", 4)["reading_id"] = at("b", 3)["reading_id"]
    at("b", 2).update(revision=1, ingested_at="2024-03-04T12:02:00Z")
    at("b", 5)["station_id"] = "s9"
    if across:
        at("a", 14)["reading_id"] = at("a", 7)["reading_id"]
        at("a", 16).update(revision=1, ingested_at="2024-03-04T11:00:00Z")
        at("a", 18)["station_id"] = "s8"
    return rows


def _samples(across: bool) -> list[dict[str, object]]:
    missing = {("a", 1), ("a", 2), ("a", 3), ("b", 6), ("b", 7), ("b", 8)}
    if across:
        missing |= {("b", 10), ("b", 11)}
    return [{"series_id": s, "ts": _ts(m), "v": 1} for s in "ab" for m in range(20)
            if (s, m) not in missing]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    out = {}
    for across in (False, True):
        folder = tmp_path_factory.mktemp("across" if across else "history")
        (folder / "stations.csv").write_text("station_id\ns1\ns2\n", encoding="utf-8")
        for name, make in (("reading", _reading), ("samples", _samples)):
            rows = make(across)
            path = folder / f"{name}.csv"
            with path.open("w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, list(rows[0]))
                w.writeheader()
                w.writerows(rows)
            out[(name, across)] = path
    return out


def _verify(contract: str, data: Path, *extra: str) -> tuple[int, dict[str, dict[str, str]], str]:
    res = CliRunner().invoke(main, ["verify", str(HERE / f"{contract}.yaml"), "--data", str(data),
                                    "--now", NOW, "--target", ",".join(TARGETS),
                                    "--format", "json", *extra])
    assert res.exit_code in (0, 1), res.output
    doc = json.loads(res.output)
    verdicts = {row["id"]: {t: v["status"] for t, v in row["verdicts"].items()}
                for row in doc["clauses"]}
    return res.exit_code, verdicts, res.output


@pytest.mark.parametrize("contract", sorted(CASES))
def test_violations_wholly_before_since_are_not_reported(files, contract: str) -> None:  # type: ignore[no-untyped-def]
    since, clauses = CASES[contract]
    code, verdicts, out = _verify(contract, files[(contract, False)], "--since", since)
    assert code == 0, out
    code, verdicts, out = _verify(contract, files[(contract, False)])  # in full: reported
    assert code == 1
    for clause in clauses:
        assert verdicts[clause] == dict.fromkeys(TARGETS, "fail"), (clause, out)


@pytest.mark.parametrize("contract", sorted(CASES))
def test_violations_involving_the_increment_are_reported(files, contract: str) -> None:  # type: ignore[no-untyped-def]
    since, clauses = CASES[contract]
    code, verdicts, out = _verify(contract, files[(contract, True)], "--since", since)
    assert code == 1
    for clause in clauses:
        assert verdicts[clause] == dict.fromkeys(TARGETS, "fail"), (clause, out)


@pytest.mark.parametrize("contract", sorted(CASES))
def test_the_same_on_postgres(files, pg_server, contract: str) -> None:  # type: ignore[no-untyped-def]
    dsn = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    since, clauses = CASES[contract]
    pg = ("--engine", "postgres", "--dsn", dsn)
    code, _verdicts, out = _verify(contract, files[(contract, False)], "--since", since, *pg)
    assert code == 0, out
    code, verdicts, out = _verify(contract, files[(contract, True)], "--since", since, *pg)
    assert code == 1
    for clause in clauses:
        assert verdicts[clause] == dict.fromkeys(TARGETS, "fail"), (clause, out)


def test_session_cadence_before_since_is_not_reported(tmp_path: Path) -> None:
    """ohlcv_1m (60s within XLON sessions): `sample` moves one bar off the grid at 13:10. From
    13:05 every engine reports it; from 13:30 none does."""
    contract = HERE.parent.parent / "contracts" / "ohlcv_1m.yaml"
    data = tmp_path / "ohlcv_1m.csv"
    res = CliRunner().invoke(main, ["sample", str(contract), "--rows", "400", "--violate",
                                    "cadence:bar_start", "--out", str(data)])
    assert res.exit_code == 0, res.output
    assert "13:10:00" in res.output
    now = "2024-01-02T15:00:00Z"
    for since, want in (("2024-01-02T13:05:00Z", "fail"), ("2024-01-02T13:30:00Z", "pass")):
        out = CliRunner().invoke(main, ["verify", str(contract), "--data", str(data), "--now", now,
                                        "--target", ",".join(TARGETS), "--format", "json",
                                        "--since", since])
        assert out.exit_code == (1 if want == "fail" else 0), out.output
        row = next(r for r in json.loads(out.output)["clauses"] if r["id"] == "cadence:bar_start")
        assert {t: v["status"] for t, v in row["verdicts"].items()} == dict.fromkeys(TARGETS, want)
