"""Soda check names say which clause they are (`<clause id>: <verbatim text>`, whitespace
normalised, never repeated) and the header's command runs as printed."""

from __future__ import annotations

import yaml

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.soda import TARGET
from tacit_gen.targets.soda.read import read
from tests.conftest import BUNDLED, ROOT


def _render(name: str) -> str:
    c = load(ROOT / "contracts" / f"{name}.yaml")
    return TARGET.render(c, plan(c), RenderOptions()).artifacts[0].content


def test_names_are_clause_id_and_text_and_never_repeat() -> None:
    for path in BUNDLED:
        text = _render(path.stem)
        checks = next(iter(yaml.safe_load(text).values()))
        names = [next(iter(c.values()))["name"] for c in checks if isinstance(c, dict)]
        assert len(names) == len(set(names)), path.stem
        assert all("  " not in n for n in names)
    text = _render("ohlcv_1m")
    assert "name: 'not_null:symbol: symbol: {type: string, nullable: false}'" in text
    assert "name: 'unique:symbol,bar_start,revision: key: [symbol, bar_start, revision]'" in text
    assert "name: invariant:low <= open <= high\n" in text


def test_names_read_back_to_the_contract_text() -> None:
    c = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    got = {cl.id: cl for cl in read(ROOT / "soda.yml", _render("ohlcv_1m")).clauses}
    assert got["not_null:symbol"].text == "symbol: {type: string, nullable: false}"
    assert {cl.id for cl in plan(c)} >= set(got)


def test_header_command_is_complete() -> None:
    ohlcv, fct = _render("ohlcv_1m"), _render("fct_sensor_readings")
    assert ("# Soda v3 (SodaCL). Run: soda scan -d <data source> -c <configuration.yml> "
            "soda/ohlcv_1m.yml\n") in ohlcv
    assert "NOW" not in ohlcv  # no freshness clause: nothing to pin
    assert ("soda scan -d <data source> -c <configuration.yml> -v NOW=<ISO-8601 UTC instant> "
            "soda/fct_sensor_readings.yml (NOW pins the clock of the freshness check)") in fct
