"""Invariants worded differently but rejecting the same rows are the same clause."""

from __future__ import annotations

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.semantics import resolve
from tacit_gen.drift.equivalence import equivalent
from tests.conftest import CONTRACTS

FCT = load(CONTRACTS / "fct_sensor_readings.yaml")
OHLCV = load(CONTRACTS / "ohlcv_1m.yaml")


def ast(contract, text):  # type: ignore[no-untyped-def]
    node, problems = resolve(contract, text)
    assert node is not None and not problems, problems
    return node


@pytest.mark.parametrize(("a", "b", "same"), [
    ("value_degc is null only when quality = bad", "value_degc is not null or quality = 'bad'", True),
    ("value_degc is null only when quality = bad", "not (value_degc is null and quality != 'bad')", True),
    ("value_degc is null only when quality = bad", "value_degc is not null or quality = 'good'", False),
    ("value_degc is null only when quality = bad", "value_degc is not null", False),
    ("-40 <= value_degc <= 150", "value_degc between -40 and 150", True),
    ("-40 <= value_degc <= 150", "value_degc >= -40 and value_degc < 150", False),
])
def test_fct(a: str, b: str, same: bool) -> None:
    assert equivalent(FCT, ast(FCT, a), ast(FCT, b)) is same


def test_chains_are_pairs() -> None:
    assert equivalent(OHLCV, ast(OHLCV, "low <= open <= high"), ast(OHLCV, "low <= open and open <= high"))
    assert not equivalent(OHLCV, ast(OHLCV, "low <= open <= high"), ast(OHLCV, "low < open and open <= high"))


def test_check_artifact_accepts_the_seeds_hand_written_dbt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from tacit_gen.cli import main

    hand = tmp_path / "fct.yml"
    hand.write_text("""models:
  - name: fct_sensor_readings
    columns:
      - name: value_degc
        data_type: numeric(9,3)
    tests:
      - dbt_utils.expression_is_true:
          expression: "value_degc is not null or quality = 'bad'"
""")
    res = CliRunner().invoke(main, ["check", str(CONTRACTS / "fct_sensor_readings.yaml"), "--artifact",
                                    str(hand), "--target", "dbt", "--format", "json"])
    import json

    found = json.loads(res.output)["findings"]
    assert not [f for f in found if (f["clause"] or "").startswith("invariant:")], found
    # the rest of what the hand-written file lacks is still reported
    assert any(f["clause"] == "range:value_degc" and f["code"] == "D200" for f in found)
