"""`verify --since`: every engine that takes an increment checks the rows at or after `since` and
the boundary rows they need (docs/increments.md), and agrees with the runtime, on DuckDB.

The data plants each violation before, at and after `since` (09:06): a range violation at 09:01
(before: not reported), 09:06 (at) and 09:08 (after); a gap wholly before (series a, 09:03 ->
09:05: not reported) and one straddling `since` (series b, 09:04 -> 09:07: reported); a duplicated
key before (b 09:04: not reported) and after (b 09:08: reported); an unknown enum value before
only (c 09:02: not reported)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main

pytestmark = pytest.mark.engine

HERE = Path(__file__).parent
CONTRACT = HERE / "meter.yaml"
NOW = "2024-03-04T09:10:00Z"
SINCE = "2024-03-04T09:06:00Z"
TARGETS = "ibis,dbt,soda,soda4,pandera,gx"


def _rows() -> list[tuple[str, str, int, str]]:
    rows = []
    for m in (0, 1, 2, 3, 5, 6, 7, 8, 9):  # gap 03 -> 05 before since
        rows.append(("a", f"2024-03-04T09:{m:02d}:00Z", 200 if m in (1, 6, 8) else 5, "good"))
    for m in (0, 1, 2, 3, 4, 4, 7, 8, 8):  # key 04 twice (before), 08 twice (after); gap 04 -> 07
        rows.append(("b", f"2024-03-04T09:{m:02d}:00Z", 5, "good"))
    for m in range(10):
        rows.append(("c", f"2024-03-04T09:{m:02d}:00Z", 5, "meh" if m == 2 else "good"))
    return rows


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("since") / "meter.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["series_id", "ts", "v", "quality"])
        w.writerows(_rows())
    return path


def _verify(data: Path, *extra: str) -> tuple[int, dict[str, dict[str, str]]]:
    res = CliRunner().invoke(main, ["verify", str(CONTRACT), "--data", str(data), "--now", NOW,
                                    "--target", TARGETS, "--format", "json", *extra])
    assert res.exit_code in (0, 1, 3), res.output
    doc = json.loads(res.output)
    verdicts = {row["id"]: {t: v["status"] for t, v in row["verdicts"].items()}
                for row in doc["clauses"]}
    return res.exit_code, verdicts


@pytest.fixture(scope="module")
def with_since(data: Path) -> tuple[int, dict[str, dict[str, str]]]:
    return _verify(data, "--since", SINCE)


@pytest.fixture(scope="module")
def without_since(data: Path) -> tuple[int, dict[str, dict[str, str]]]:
    return _verify(data)


def _status(verdicts: dict[str, dict[str, str]], clause: str) -> dict[str, str]:
    return verdicts[clause]


def test_every_engine_agrees_on_the_increment(with_since) -> None:  # type: ignore[no-untyped-def]
    code, verdicts = with_since
    assert code == 1  # violations, all engines agree
    both = dict.fromkeys(TARGETS.split(","), "fail")
    assert _status(verdicts, "range:v") == both  # at and after since
    assert _status(verdicts, "cadence:ts") == both  # the gap straddling since, the duplicate after
    assert _status(verdicts, "unique:series_id,ts") == both  # the key repeated after since
    # the unknown enum value lies before since: not the increment's violation
    assert _status(verdicts, "accepted_values:quality") == dict.fromkeys(TARGETS.split(","), "pass")


def test_without_since_the_whole_relation_is_checked(without_since) -> None:  # type: ignore[no-untyped-def]
    code, verdicts = without_since
    assert code == 1
    assert set(_status(verdicts, "accepted_values:quality").values()) == {"fail"}
    assert len(_status(verdicts, "accepted_values:quality")) == len(TARGETS.split(","))


def test_violations_wholly_before_since_are_not_reported(data: Path, tmp_path: Path) -> None:
    """Keep only the violations before since: every engine passes the increment."""
    clean = tmp_path / "meter.csv"
    rows = [(s, t, 5 if t >= "2024-03-04T09:06" else v, q) for s, t, v, q in _rows()]
    rows = [r for r in rows if r[0] != "b" or r[1] < "2024-03-04T09:05"]  # b ends before since
    rows += [("b", f"2024-03-04T09:{m:02d}:00Z", 5, "good") for m in (5, 6, 7, 8, 9)]
    with clean.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["series_id", "ts", "v", "quality"])
        w.writerows(rows)
    code, verdicts = _verify(clean, "--since", SINCE)
    assert code == 0, {c: v for c, v in verdicts.items() if "pass" not in v.values()}
    code, verdicts = _verify(clean)  # the same data in full: the history's violations
    assert code == 1
    for clause in ("range:v", "cadence:ts", "unique:series_id,ts", "accepted_values:quality"):
        assert set(_status(verdicts, clause).values()) == {"fail"}, clause


@pytest.mark.parametrize(("since", "why"), [
    ("2024-03-04T09:06:00", "has no time zone"),
    ("2024-03-05T09:06:00Z", "is later than now"),
    ("yesterday", "is not an ISO-8601 instant"),
])
def test_a_bad_since_is_a_usage_error_saying_why(data: Path, since: str, why: str) -> None:
    res = CliRunner().invoke(main, ["verify", str(CONTRACT), "--data", str(data), "--now", NOW,
                                    "--since", since])
    assert res.exit_code == 2
    assert why in res.output


def test_since_on_a_contract_without_a_time_column_is_a_usage_error(tmp_path: Path) -> None:
    contract = tmp_path / "plain.yaml"
    contract.write_text("contract: plain\nversion: 1.0.0\nowner: a@example\n"
                        "fields:\n  v: {type: int64}\n", encoding="utf-8")
    data = tmp_path / "plain.csv"
    data.write_text("v\n1\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["verify", str(contract), "--data", str(data), "--now", NOW,
                                    "--since", SINCE])
    assert res.exit_code == 2
    assert "contract plain has no time column" in res.output


def test_a_target_that_cannot_take_since_is_named(data: Path) -> None:
    res = CliRunner().invoke(main, ["verify", str(CONTRACT), "--data", str(data), "--now", NOW,
                                    "--since", SINCE, "--target", "avro"])
    assert res.exit_code == 2
    assert "avro" in res.output and "do not check an increment" in res.output


def test_every_engine_agrees_on_the_increment_on_postgres(data: Path, pg_server) -> None:  # type: ignore[no-untyped-def]
    dsn = f"postgresql://postgres@{pg_server.host}:{pg_server.port}/postgres"
    code, verdicts = _verify(data, "--since", SINCE, "--engine", "postgres", "--dsn", dsn)
    assert code == 1
    every = tuple(TARGETS.split(","))
    for clause in ("range:v", "cadence:ts", "unique:series_id,ts"):
        assert _status(verdicts, clause) == dict.fromkeys(every, "fail"), clause
    assert _status(verdicts, "accepted_values:quality") == dict.fromkeys(every, "pass")
