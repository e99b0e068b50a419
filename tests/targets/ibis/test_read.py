"""ibis reader: a rendered module reads back to the plan (ast only); each hand edit is found."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.drift import base as d
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.ibis import TARGET
from tacit_gen.targets.ibis.read import read_module

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))


def rendered(name: str) -> tuple[Any, tuple[Any, ...], str]:
    contract = load(str(ROOT / "contracts" / f"{name}.yaml"))
    clauses = plan(contract)
    return contract, clauses, TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content


def findings(name: str, text: str) -> list[d.Finding]:
    contract, clauses, _ = rendered(name)
    result = read_module(Path(f"ibis/{name}.py"), text)
    return [*result.findings, *compare(contract, clauses, result, f"ibis/{name}.py", "ibis")]


def codes(found: list[d.Finding]) -> set[tuple[str, str | None]]:
    return {(f.code, f.clause_id) for f in found}


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def drop_entry(text: str, clause_id: str) -> str:
    """`text` without the ``clause(...)`` entry of `clause_id` (one line or several)."""
    start = text.index(f"        clause(id={clause_id!r}") if f"clause(id={clause_id!r}" in text \
        else text.index(f"        clause(\n            id={clause_id!r}")
    one_line = text[start:text.index("\n", start)].endswith("),")
    end = text.index("\n", start) + 1 if one_line else text.index("\n        ),\n", start) + 12
    return text[:start] + text[end:]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_rendered_module_reads_back_to_the_plan(path: Path) -> None:
    contract, clauses, text = rendered(path.stem)
    result = read_module(Path(f"ibis/{path.stem}.py"), text)
    assert result.findings == ()
    # a column clause also says whether it is the module's __time__ (the contract's time column)
    time = {c.param("column") for c in result.clauses if c.kind == "column" and c.param("time")}
    assert time == ({contract.time.column} if contract.time and contract.time.column else set())
    assert set(map(_without_time, result.clauses)) == set(clauses)
    assert (result.header_contract, result.header_version) == (contract.name, contract.version)
    assert findings(path.stem, text) == []


def _without_time(c: Any) -> Any:
    from dataclasses import replace

    return replace(c, params=tuple(p for p in c.params if p[0] != "time")) if c.kind == "column" else c


def test_the_time_column_is_read_back() -> None:
    """``__time__`` names the contract's time column (what ``since=`` selects on): a module
    without it, or naming another column, is drift."""
    _, _, text = rendered("ohlcv_1m")
    line = "    __time__ = 'bar_start'\n"
    assert line in text
    assert codes(findings("ohlcv_1m", edit(text, line, ""))) == {
        (d.PARAM_CHANGED, "column:bar_start")}
    assert codes(findings("ohlcv_1m", edit(text, line, "    __time__ = 'symbol'\n"))) == {
        (d.PARAM_CHANGED, "column:bar_start"), (d.PARAM_CHANGED, "column:symbol")}


def test_the_module_sets_the_schemas_time_column(tmp_path: Path) -> None:
    """The rendered module's Schema knows its time column without inferring it."""
    import importlib.util

    _, _, text = rendered("fct_sensor_readings")
    path = tmp_path / "fct_sensor_readings.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("tacit_time_probe", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    schema = getattr(module, module.__all__[0])
    assert schema.__time__ == "event_ts"
    assert schema.time_column() == "event_ts"


def test_reader_never_imports_the_module() -> None:
    _, _, text = rendered("ohlcv_1m")
    bomb = text + "\nraise SystemExit('imported!')\n"
    before = set(sys.modules)
    result = read_module(Path("ibis/ohlcv_1m.py"), bomb)
    assert result.clauses and set(sys.modules) - before <= {"tacit_gen.targets.ibis.read"}


def test_changed_type_in_annotation_is_drift() -> None:
    _, _, text = rendered("ohlcv_1m")
    text = edit(text, "    open: Annotated[Decimal, Column(\n        type='decimal(18,8)',",
                "    open: Annotated[Decimal, Column(\n        type='decimal(18,6)',")
    found = codes(findings("ohlcv_1m", text))
    assert (d.PARAM_CHANGED, "column:open") in found


def test_changed_bound_and_removed_clause_are_drift() -> None:
    _, _, text = rendered("fct_sensor_readings")
    text = edit(text, "max='150'", "max='1500'")
    text = drop_entry(text, "freshness:event_ts")
    found = codes(findings("fct_sensor_readings", text))
    assert (d.PARAM_CHANGED, "range:value_degc") in found
    assert (d.MISSING_CLAUSE, "freshness:event_ts") in found


def test_a_parameter_left_to_its_default_is_drift() -> None:
    """``clause()`` leaves defaults out: deleting a bound makes it the default, which differs."""
    _, _, text = rendered("fct_sensor_readings")
    text = edit(text, "id='range:revision', column='revision', min='0',",
                "id='range:revision', column='revision',")
    assert codes(findings("fct_sensor_readings", text)) == {(d.PARAM_CHANGED, "range:revision")}
    _, _, text = rendered("ohlcv_1m")
    text = edit(text, "sessions_close='close',", "sessions_close='close', gaps_allowed=True,")
    assert codes(findings("ohlcv_1m", text)) == {(d.PARAM_CHANGED, "cadence:bar_start")}


def test_nullable_edit_and_non_strict_are_drift() -> None:
    _, _, text = rendered("ohlcv_1m")
    # no __clauses__ entry: the runtime derives not_null:symbol from nullable=False
    assert "not_null:symbol" not in text
    assert (d.MISSING_CLAUSE, "not_null:symbol") not in codes(findings("ohlcv_1m", text))
    text = edit(text, "    symbol: Annotated[str, Column(\n        type='string', nullable=False,",
                "    symbol: Annotated[str, Column(\n        type='string', nullable=True,")
    assert (d.MISSING_CLAUSE, "not_null:symbol") in codes(findings("ohlcv_1m", text))
    loose = edit(text, "    __contract__ = 'ohlcv_1m'", "    __strict__ = False\n    __contract__ = 'ohlcv_1m'")
    assert (d.MISSING_CLAUSE, "no_unknown_columns") in codes(findings("ohlcv_1m", loose))


def test_self_contradicting_module_and_garbage_are_reported() -> None:
    _, _, text = rendered("ohlcv_1m")
    # a full Clause(...) literal of the column, contradicting its annotation
    bad = edit(text, "    __clauses__ = (\n", "    __clauses__ = (\n        Clause(id='column:open', "
               "kind='column', columns=('open',), params=(('column', 'open'), ('dimension', None), "
               "('type', 'decimal(18,2)'), ('unit', 'quote_currency')), text='open', line=14),\n")
    result = read_module(Path("ibis/ohlcv_1m.py"), bad)
    assert [(f.code, f.clause_id) for f in result.findings] == [(d.PARAM_CHANGED, "column:open")]
    broken = read_module(Path("ibis/ohlcv_1m.py"), text.replace("class Ohlcv1m", "class Ohlcv1m("))
    assert [f.code for f in broken.findings] == [d.UNREADABLE]
    computed = read_module(Path("ibis/ohlcv_1m.py"),
                           text.replace("line=23,", "line=int('23'),"))
    assert [f.code for f in computed.findings] == [d.UNREADABLE]


def test_no_time_column_no_time_attribute(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("contract: plain\nversion: 1.0.0\nowner: a@example\n"
                    "fields:\n  v: {type: int64}\n", encoding="utf-8")
    contract = load(str(path))
    clauses = plan(contract)
    text = TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content
    assert "__time__" not in text
    result = read_module(Path("ibis/plain.py"), text)
    assert compare(contract, clauses, result, "ibis/plain.py", "ibis") == []
