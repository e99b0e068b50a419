"""pandera reader: a rendered module reads back to the plan; each kind of hand edit is found."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.compare import compare
from tacit_gen.contract.loader import load
from tacit_gen.drift import base as d
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.pandera import TARGET
from tacit_gen.targets.pandera.read import read

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))
HOSTILE = ROOT / "tests" / "fixtures" / "pandera" / "hostile.yaml"


def rendered(name: str) -> tuple[object, tuple, str]:
    path = ROOT / "contracts" / f"{name}.yaml" if name != "hostile" else HOSTILE
    contract = load(path)
    clauses = plan(contract)
    return contract, clauses, TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content


def findings(name: str, text: str) -> list[d.Finding]:
    contract, clauses, _ = rendered(name)
    result = read(Path(f"pandera/{name}.py"), text)
    return compare(contract, clauses, result, f"pandera/{name}.py", "pandera")  # type: ignore[arg-type]


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


@pytest.mark.parametrize("path", [*BUNDLED, HOSTILE], ids=lambda p: p.stem)
def test_round_trip_is_clean(path: Path) -> None:
    contract, clauses, text = rendered(path.stem)
    result = read(Path("x.py"), text)
    assert result.findings == ()
    assert {c.id: c.params for c in result.clauses} == {c.id: c.params for c in clauses}
    assert (result.header_contract, result.header_version) == (contract.name, contract.version)  # type: ignore[attr-defined]
    assert findings(path.stem, text) == []


def test_invariant_expr_is_decompiled_from_code() -> None:
    _, _, text = rendered("ohlcv_1m")
    # the error text stays, the code changes: the reader reports the code
    low, op, high = (f"col(df, '{c}', 'decimal(18,8)')" for c in ("low", "open", "high"))
    changed = edit(text, f"cmp({low}, '<=', {op}, '<=', {high})", f"cmp({low}, '<', {op}, '<=', {high})")
    got = findings("ohlcv_1m", changed)
    assert [(f.code, f.clause_id, f.found) for f in got] == [
        (d.PARAM_CHANGED, "invariant:low <= open <= high", "low < open <= high")
    ]


def test_deleted_check() -> None:
    _, _, text = rendered("ohlcv_1m")
    changed = edit(text, "                    pa.Check(lambda s: in_range(s, 0, None, True, True, 'decimal(24,4)'), "
                   "name='range:volume', error='volume >= 0', ignore_na=False),\n", "")
    got = findings("ohlcv_1m", changed)
    assert [(f.code, f.clause_id) for f in got] == [(d.MISSING_CLAUSE, "range:volume")]


def test_deleted_dataframe_check() -> None:
    _, _, text = rendered("plant_sensor_reading")
    start = text.index("            catalog_unit_check(")
    end = text.index("            ),\n", start) + len("            ),\n")
    got = findings("plant_sensor_reading", text[:start] + text[end:])
    assert [(f.code, f.clause_id) for f in got] == [(d.MISSING_CLAUSE, "catalog_unit:unit")]


def test_changed_bound() -> None:
    _, _, text = rendered("fct_sensor_readings")
    changed = edit(text, "in_range(s, -40, 150,", "in_range(s, -40, Decimal('200'),")
    got = findings("fct_sensor_readings", changed)
    assert [(f.code, f.clause_id, f.expected, f.found) for f in got] == [
        (d.PARAM_CHANGED, "range:value_degc", "150", "200")
    ]


def test_changed_inclusivity() -> None:
    _, _, text = rendered("ohlcv_1m")
    changed = edit(text, "in_range(s, 0, None, True, True, 'decimal(24,4)')", "in_range(s, 0, None, False, True, 'decimal(24,4)')")
    got = findings("ohlcv_1m", changed)
    assert [(f.code, f.clause_id, f.found) for f in got] == [(d.PARAM_CHANGED, "range:volume", "false")]


def test_changed_dtype() -> None:
    _, _, text = rendered("ohlcv_1m")
    changed = edit(text, "nullable: false}', 'decimal(24,4)')", "nullable: false}', 'decimal(24,2)')")
    got = findings("ohlcv_1m", changed)
    assert [(f.code, f.clause_id, f.expected, f.found) for f in got] == [
        (d.PARAM_CHANGED, "column:volume", "decimal(24,4)", "decimal(24,2)")
    ]
    loose = edit(text, "nullable: false}', 'decimal(24,4)')", "nullable: false}', 'float64')")
    got = findings("ohlcv_1m", loose)
    assert [(f.code, f.clause_id, f.found) for f in got] == [(d.PARAM_CHANGED, "column:volume", "float64")]


def test_nullable_loosened() -> None:
    _, _, text = rendered("ohlcv_1m")
    block = text.index("'close': pa.Column(")
    at = text.index("nullable=False", block)
    changed = text[:at] + "nullable=True" + text[at + len("nullable=False"):]
    got = findings("ohlcv_1m", changed)
    assert [(f.code, f.clause_id) for f in got] == [(d.MISSING_CLAUSE, "not_null:close")]


def test_strict_false() -> None:
    _, _, text = rendered("ohlcv_1m")
    got = findings("ohlcv_1m", edit(text, "strict=True,", "strict=False,"))
    assert sorted((f.code, f.clause_id) for f in got) == [
        (d.MISSING_CLAUSE, "no_unknown_columns"),
        (d.SEVERITY_WEAKENED, "no_unknown_columns"),
    ]


def test_raise_warning_and_coerce() -> None:
    _, _, text = rendered("ohlcv_1m")
    changed = edit(text, "name='range:volume', error='volume >= 0', ignore_na=False)",
                   "name='range:volume', error='volume >= 0', ignore_na=False, raise_warning=True)")
    changed = edit(changed, "coerce=False,", "coerce=True,")
    got = findings("ohlcv_1m", changed)
    assert sorted((f.code, f.clause_id or "") for f in got) == [
        (d.SEVERITY_WEAKENED, ""),
        (d.SEVERITY_WEAKENED, "range:volume"),
    ]


def test_unique_changed_and_unknown_check() -> None:
    _, _, text = rendered("ohlcv_1m")
    changed = text.replace("['symbol', 'bar_start', 'revision']", "['symbol', 'bar_start']")
    changed = edit(changed, "name='unique:symbol,bar_start,revision'", "name='unique:symbol,bar_start'")
    changed = edit(changed, "        checks=[\n            pa.Check(",
                   "        checks=[\n            pa.Check(lambda df: True),\n            pa.Check(")
    got = findings("ohlcv_1m", changed)
    codes = sorted((f.code, f.clause_id or "") for f in got)
    assert codes == [
        (d.MISSING_CLAUSE, "unique:symbol,bar_start,revision"),
        (d.EXTRA_CLAUSE, "unique:symbol,bar_start"),
        (d.UNKNOWN_CHECK, ""),
    ]


def test_unreadable() -> None:
    got = read(Path("pandera/x.py"), "def schema(:\n")
    assert [f.code for f in got.findings] == [d.UNREADABLE]
    got = read(Path("pandera/x.py"), "x = 1\n")
    assert [f.code for f in got.findings] == [d.UNREADABLE]


FLOATS = """\
contract: floats
version: 1.0.0
fields:
  x: {type: float64, unit: m}
  y: {type: float32, unit: m}
  z: {type: float64, unit: m}
invariants:
  - x >= 0
  - y between 0 and 500
  - z < 10.5
"""


def _floats(tmp_path: Path) -> tuple[object, tuple, str]:
    path = tmp_path / "floats.yaml"
    path.write_text(FLOATS, encoding="utf-8")
    contract = load(path)
    clauses = plan(contract)
    return contract, clauses, TARGET.render(contract, clauses, RenderOptions()).artifacts[0].content


def test_float_ranges_are_sql_ordered_and_read_back(tmp_path: Path) -> None:
    """A range on a float column is the module's `in_range` (NaN above every number), not
    pandera's IEEE `ge`/`in_range`; it reads back to the same clause, and an edit is drift."""
    contract, clauses, text = _floats(tmp_path)
    assert "pa.Check(lambda s: in_range(s, 0, None, True, True), name='range:x'" in text
    assert "in_range(s, 0, 500, True, True), name='range:y'" in text
    assert "in_range(s, None, Decimal('10.5'), True, False), name='range:z'" in text
    assert "pa.Check.ge(" not in text and "pa.Check.in_range(" not in text
    result = read(Path("floats.py"), text)
    assert result.findings == ()
    assert {c.id: c.params for c in result.clauses} == {c.id: c.params for c in clauses}

    def drift(old: str, new: str) -> list[tuple[str, str | None, object]]:
        got = compare(contract, clauses, read(Path("floats.py"), edit(text, old, new)),  # type: ignore[arg-type]
                      "pandera/floats.py", "pandera")
        return [(f.code, f.clause_id, f.found) for f in got]

    assert drift("in_range(s, 0, 500,", "in_range(s, 0, 400,") == [
        (d.PARAM_CHANGED, "range:y", "400")]
    assert drift("in_range(s, 0, None, True, True)", "in_range(s, 0, None, False, True)") == [
        (d.PARAM_CHANGED, "range:x", "false")]


def test_every_clause_kind_is_read_back() -> None:
    """Each kind of `plan_types.KINDS` is read back (the reader's `FormTable`), and every
    dataframe check it names is one the checks module has."""
    from tacit_gen import pandera_checks
    from tacit_gen.plan_types import KINDS
    from tacit_gen.targets.pandera.read import READ, TIME_HELPERS

    assert READ.uncovered(KINDS) == ()
    assert set(TIME_HELPERS) <= set(pandera_checks.__all__)
    assert {"in_range", "equals", "matches"} <= set(pandera_checks.__all__)
