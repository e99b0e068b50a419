"""`column_infos` keeps its last answer for the next invariant of the same contract: another
contract (or the same fields with other broken ones) gets its own answer, never the kept one."""

from __future__ import annotations

import dataclasses

from tacit_gen.contract.loader import load
from tacit_gen.contract.semantics import column_infos
from tests.conftest import ROOT


def test_each_contract_gets_its_own_infos() -> None:
    ohlcv = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    plant = load(ROOT / "contracts" / "plant_sensor_reading.yaml")
    first = column_infos(ohlcv)
    assert column_infos(ohlcv) is first  # kept for the next invariant
    other = column_infos(plant)
    assert set(other) == {f.name for f in plant.fields} != set(first)
    assert column_infos(ohlcv) == first and set(column_infos(ohlcv)) == {f.name for f in ohlcv.fields}
    broken = column_infos(ohlcv, ["gone"])
    assert "gone" in broken and broken["gone"].family == "any" and "gone" not in column_infos(ohlcv)
    # a contract with other fields (a new tuple) is never served the kept answer
    fewer = dataclasses.replace(ohlcv, fields=ohlcv.fields[:2])
    assert set(column_infos(fewer)) == {f.name for f in ohlcv.fields[:2]}
