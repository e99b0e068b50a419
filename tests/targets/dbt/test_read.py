"""dbt reader: rendered files read back to the plan; each kind of hand edit is seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tacit_gen.contract.loader import load
from tacit_gen.drift.base import SEVERITY_WEAKENED, UNKNOWN_CHECK, UNREADABLE
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.sql import to_sql
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.read import read
from tacit_gen.targets.dbt.render import DbtOptions

ROOT = Path(__file__).resolve().parents[3]
CONTRACTS = sorted((ROOT / "contracts").glob("*.yaml"))


@pytest.fixture(autouse=True)
def _cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _expected(cl: Clause, adapter: str) -> Clause:
    """The plan clause as the reader sees it: invariants compare by their compiled SQL."""
    if cl.kind == "invariant":
        assert cl.expr is not None
        return Clause(
            cl.id, cl.kind, cl.columns, make_params(sql=to_sql(cl.expr, adapter)), cl.text
        )
    if cl.kind == "completeness":  # the test carries the query of short windows, per dialect
        from tacit_gen.sql import ADAPTER_DIALECT
        from tacit_gen.targets.dbt.render import completeness_sql

        return Clause(cl.id, cl.kind, (), make_params(sql=completeness_sql(
            cl, ADAPTER_DIALECT.get(adapter, adapter))), cl.text)
    return cl


def _rendered(name: str = "ohlcv_1m", **opts: str) -> tuple[Any, str]:
    c = load(f"contracts/{name}.yaml")
    return c, TARGET.render(c, plan(c), RenderOptions(targets=(DbtOptions(**opts),))).artifacts[0].content


def _edit(text: str, fn) -> str:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(text)
    fn(doc["models"][0])
    return yaml.safe_dump(doc, sort_keys=False)


def _col(model: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in model["columns"] if c["name"] == name)


def _by_id(text: str) -> tuple[dict[str, Clause], Any]:
    res = read(Path("dbt/x.yml"), text)
    return {c.id: c for c in res.clauses}, res


@pytest.mark.parametrize("tests", ["dbt_utils", "native"])
@pytest.mark.parametrize("adapter", ["duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark"])
@pytest.mark.parametrize("path", CONTRACTS, ids=lambda p: p.stem)
def test_round_trip_equals_plan(path: Path, adapter: str, tests: str) -> None:
    c = load(str(path.relative_to(ROOT)))
    clauses = plan(c)
    art = TARGET.render(c, clauses, RenderOptions(targets=(DbtOptions(adapter, tests),))).artifacts[
        0
    ]
    res = TARGET.read(Path(art.path), art.content)
    assert res.findings == ()
    assert (res.header_contract, res.header_version) == (c.name, c.version)
    assert set(res.clauses) == {_expected(cl, adapter) for cl in clauses}
    assert {cl.id: cl.text for cl in res.clauses} == {cl.id: cl.text for cl in clauses}


def test_split_range_round_trips() -> None:
    c = load("contracts/fct_sensor_readings.yaml")
    half_open = Clause(
        "range:value_degc",
        "range",
        ("value_degc",),
        make_params(
            column="value_degc", min="-40", max="150.5", min_inclusive=False, max_inclusive=True
        ),
        "-40 < value_degc <= 150.5",
    )
    clauses = tuple(half_open if cl.id == "range:value_degc" else cl for cl in plan(c))
    art = TARGET.render(c, clauses, RenderOptions()).artifacts[0]
    got, _res = _by_id(art.content)
    assert got["range:value_degc"] == half_open
    assert art.content.count("tacit_clause: range:value_degc") == 2


def test_deleted_test_is_missing() -> None:
    _, text = _rendered()
    edited = _edit(text, lambda m: m["data_tests"].pop(1))  # the first invariant
    got, _ = _by_id(edited)
    assert "invariant:low <= open <= high" not in got
    assert "invariant:low <= close <= high" in got


def test_changed_bound() -> None:
    _, text = _rendered("fct_sensor_readings")

    def fn(m: dict[str, Any]) -> None:
        _col(m, "value_degc")["data_tests"][0]["dbt_utils.accepted_range"]["arguments"][
            "max_value"
        ] = 200

    got, _ = _by_id(_edit(text, fn))
    assert got["range:value_degc"].param("max") == "200"
    assert got["range:value_degc"].param("min") == "-40"


def test_changed_type() -> None:
    _, text = _rendered()

    def fn(m: dict[str, Any]) -> None:
        _col(m, "open")["data_type"] = "decimal(18,6)"
        _col(m, "bar_start")["data_type"] = "timestamp"  # naive on duckdb

    got, _ = _by_id(_edit(text, fn))
    assert got["column:open"].param("type") == "decimal(18,6)"
    assert got["column:bar_start"].param("type") == "timestamp"


def test_removed_not_null_constraint() -> None:
    _, text = _rendered()
    got, _ = _by_id(_edit(text, lambda m: _col(m, "close").pop("constraints")))
    assert "not_null:close" in got  # the not_null test still checks it (on views too)

    def both(m: dict[str, Any]) -> None:
        col = _col(m, "close")
        col.pop("constraints")
        col["data_tests"] = [t for t in col["data_tests"] if "not_null" not in t]

    got, _ = _by_id(_edit(text, both))
    assert "not_null:close" not in got
    assert "not_null:open" in got


def test_added_severity_warn() -> None:
    _, text = _rendered()

    def fn(m: dict[str, Any]) -> None:
        m["data_tests"][0]["dbt_utils.unique_combination_of_columns"]["config"]["severity"] = "warn"
        rng = next(t for t in _col(m, "volume")["data_tests"] if "dbt_utils.accepted_range" in t)
        rng["dbt_utils.accepted_range"]["config"]["warn_if"] = ">10"

    got, res = _by_id(_edit(text, fn))
    weakened = {f.clause_id: f for f in res.findings if f.code == SEVERITY_WEAKENED}
    assert set(weakened) == {"range:volume"}  # warn_if: a weakening the plan cannot say
    # `severity: warn` is the clause's severity: compare (check) holds it against the contract's
    assert got["unique:symbol,bar_start,revision"].severity == "warn"
    assert got["range:volume"].severity == "error"


def test_removed_column() -> None:
    c, text = _rendered()
    got, _ = _by_id(_edit(text, lambda m: m["columns"].remove(_col(m, "trade_count"))))
    assert "column:trade_count" not in got and "range:trade_count" not in got
    cols = got["no_unknown_columns"].param("columns")
    assert cols == tuple(f.name for f in c.fields if f.name != "trade_count")


def test_contract_not_enforced() -> None:
    _, text = _rendered()
    got, res = _by_id(_edit(text, lambda m: m["config"]["contract"].update(enforced=False)))
    assert not any(cid.startswith("column:") for cid in got) and "no_unknown_columns" not in got
    assert [f.clause_id for f in res.findings if f.code == SEVERITY_WEAKENED] == [
        "no_unknown_columns"
    ]


def test_unknown_and_disabled_tests() -> None:
    _, text = _rendered()

    def fn(m: dict[str, Any]) -> None:
        _col(m, "symbol")["data_tests"] = [
            {"dbt_expectations.expect_column_values_to_be_of_type": {"arguments": {"column_type": "x"}}}
        ]
        m["data_tests"][1]["dbt_utils.expression_is_true"]["config"]["enabled"] = False

    got, res = _by_id(_edit(text, fn))
    assert [f.code for f in res.findings if f.code == UNKNOWN_CHECK] == [UNKNOWN_CHECK]
    assert "invariant:low <= open <= high" not in got
    assert any(f.code == SEVERITY_WEAKENED and f.found == "enabled: false" for f in res.findings)


def test_a_relationships_test_reads_as_a_foreign_key() -> None:
    _, text = _rendered()

    def fn(m: dict[str, Any]) -> None:
        _col(m, "symbol")["data_tests"] = [
            {"relationships": {"arguments": {"to": "ref('symbols')", "field": "code"}}}]

    got, res = _by_id(_edit(text, fn))
    assert got["references:symbol"].params_dict == {"column": "symbol", "to_relation": "symbols",
                                                    "to_column": "code"}
    assert [f for f in res.findings if f.code == UNKNOWN_CHECK] == []


def test_unreadable() -> None:
    res = read(Path("dbt/x.yml"), "models: [\n")
    assert [f.code for f in res.findings] == [UNREADABLE]


HAND_WRITTEN = """
models:
  - name: fct_sensor_readings
    config:
      contract:
        enforced: true
    columns:
      - name: series_id
        data_type: text
        constraints: [{type: not_null}]
      - name: event_ts
        data_type: timestamptz
        constraints: [{type: not_null}]
      - name: value_degc
        data_type: numeric(9,3)
        tests:
          - dbt_utils.accepted_range: {min_value: -40, max_value: 150, inclusive: true}
      - name: quality
        data_type: text
        data_tests:
          - accepted_values:
              arguments: {values: [good, suspect, bad]}
          - not_null
      - name: revision
        data_type: integer
        constraints: [{type: not_null}]
    tests:
      - dbt_utils.unique_combination_of_columns:
          combination_of_columns: [series_id, event_ts, revision]
      - dbt_utils.expression_is_true:
          expression: "value_degc is not null or quality = 'bad'"
          severity: warn
"""


def test_hand_written_seed_example() -> None:
    got, res = _by_id(HAND_WRITTEN)
    assert got["column:event_ts"].param("type") == "timestamp_us_utc"
    assert got["column:value_degc"].param("type") == "decimal(9,3)"
    assert got["column:revision"].param("type") == "int32"
    assert got["range:value_degc"].params_dict == {
        "column": "value_degc",
        "min": "-40",
        "max": "150",
        "min_inclusive": True,
        "max_inclusive": True,
    }
    assert got["accepted_values:quality"].param("values") == ("good", "suspect", "bad")
    assert got["unique:series_id,event_ts,revision"].param("columns") == (
        "series_id",
        "event_ts",
        "revision",
    )
    assert {
        "not_null:series_id",
        "not_null:event_ts",
        "not_null:revision",
        "not_null:quality",
    } <= set(got)
    inv = "invariant:value_degc is not null or quality = 'bad'"
    assert got[inv].param("sql") == "value_degc is not null or quality = 'bad'"
    assert got[inv].columns == ("value_degc", "quality")
    # the seed's `severity: warn` is read as the clause's severity (check compares it)
    assert got[inv].severity == "warn" and res.findings == ()
    assert res.header_contract is None


def test_macros_file_has_no_clauses() -> None:
    c = load("contracts/ohlcv_1m.yaml")
    art = TARGET.render(c, plan(c), RenderOptions()).artifacts[1]
    res = TARGET.read(Path(art.path), art.content)
    assert res.clauses == () and res.findings == ()
