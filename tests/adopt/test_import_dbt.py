"""`tacit-gen import dbt`: dbt properties to contracts, every test either a clause or listed.

The seed's `fct_sensor_readings` model round-trips through the dbt render; the test forms dbt
accepts (`tests` / `data_tests`, `arguments:` / inline, `test_name:`) map alike; what has no home
is listed, kept under x-dbt-*, and exits 1; bad input is exit 2 naming the file and line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from tacit_gen.cli import main
from tacit_gen.contract.loader import load, load_report
from tacit_gen.plan import plan
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.dbt import TARGET
from tacit_gen.targets.dbt.read import canonical_type
from tacit_gen.targets.dbt.render import DbtOptions

# Seed 001's dbt example, verbatim (the "dbt (model contracts and tests)" section).
SEED = """\
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
      - name: revision
        data_type: integer
        constraints: [{type: not_null}]
    tests:
      - dbt_utils.unique_combination_of_columns:
          combination_of_columns: [series_id, event_ts, revision]
      - dbt_utils.expression_is_true:
          expression: "value_degc is not null or quality = 'bad'"
"""


def run(*args: str, cwd: Path) -> Result:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)


def lint_clean(path: Path) -> None:
    _, diags = load_report(path)
    assert [d.render() for d in diags if d.severity != "note"] == []


def test_the_seed_model_renders_back_to_the_same_columns_types_and_tests(tmp_path: Path) -> None:
    (tmp_path / "schema.yml").write_text(SEED, encoding="utf-8")
    res = run("import", "dbt", "schema.yml", "--adapter", "postgres", "--out", "c", cwd=tmp_path)
    # quality is not a column of the model (its enforced contract lists four): that test of the
    # seed cannot be an invariant, so it is named, kept as SQL, and the import exits 1
    assert res.exit_code == 1, res.output
    assert "not mapped" in res.output and "unknown column 'quality'" in res.output
    path = tmp_path / "c" / "fct_sensor_readings.yaml"
    lint_clean(path)
    contract = load(path)
    assert dict(contract.meta)["x-dbt-tests"] == [
        {"dbt_utils.expression_is_true": {"expression": "value_degc is not null or quality = 'bad'"}}]
    seed = yaml.safe_load(SEED)["models"][0]
    art = TARGET.render(contract, plan(contract),
                        RenderOptions(targets=(DbtOptions(adapter="postgres"),))).artifacts[0]
    model = yaml.safe_load(art.content)["models"][0]
    assert model["config"]["contract"]["enforced"] is True
    assert [c["name"] for c in model["columns"]] == [c["name"] for c in seed["columns"]]
    for ours, theirs in zip(model["columns"], seed["columns"], strict=True):
        assert canonical_type(ours["data_type"], None, "postgres") == \
            canonical_type(theirs["data_type"], None, "postgres"), ours["name"]
        assert [c["type"] for c in ours.get("constraints", [])] == \
            [c["type"] for c in theirs.get("constraints", [])], ours["name"]
    rng = model["columns"][2]["data_tests"][0]["dbt_utils.accepted_range"]["arguments"]
    assert (rng["min_value"], rng["max_value"], rng["inclusive"]) == (-40, 150, True)
    (combo,) = [t["dbt_utils.unique_combination_of_columns"] for t in model["data_tests"]
                if "dbt_utils.unique_combination_of_columns" in t]
    assert combo["arguments"]["combination_of_columns"] == ["series_id", "event_ts", "revision"]


FORMS = """\
version: 2
models:
  - name: orders
    description: One row per order.
    meta: {owner: shop@example}
    config: {materialized: table, tags: [daily]}
    data_tests:
      - dbt_utils.expression_is_true:
          arguments: {expression: "order_total = subtotal + tax_paid"}
      - dbt_utils.expression_is_true:
          expression: "subtotal >= {{ var('floor') }}"
    columns:
      - name: order_id
        data_type: bigint
        data_tests: [not_null, unique]
      - name: status
        data_type: varchar(20)
        tests:
          - accepted_values:
              arguments: {values: [placed, shipped]}
      - name: store_no
        data_type: integer
        tests:
          - name: store_range
            test_name: accepted_values
            values: [1, 2, 3]
      - name: subtotal
        data_type: numeric(12,2)
        data_tests:
          - dbt_utils.accepted_range:
              min_value: 0
              config: {severity: warn}
          - not_null:
              config: {where: "status = 'placed'"}
      - name: tax_paid
        data_type: numeric(12,2)
        tests:
          - dbt_utils.accepted_range: {min_value: 0, inclusive: false}
      - name: order_total
        data_type: numeric(12,2)
        data_tests:
          - not_null: {config: {severity: warn}}
      - name: customer_id
        data_type: bigint
        data_tests:
          - unique
          - relationships: {to: "ref('customers')", field: id}
          - dbt_expectations.expect_column_values_to_be_of_type: {column_type: bigint}
      - name: ordered_at
      - name: payload
        data_type: json
"""


def test_every_form_of_test_and_what_has_no_home(tmp_path: Path) -> None:
    (tmp_path / "m.yml").write_text(FORMS, encoding="utf-8")
    res = run("import", "dbt", "m.yml", "--out", "c", "--format", "json", cwd=tmp_path)
    assert res.exit_code == 1, res.output
    import json

    report = json.loads(res.output)
    (c,) = report["contracts"]
    assert c["untyped"] == ["ordered_at", "payload"]  # no type anywhere / json: named, not guessed
    path = tmp_path / "c" / "orders.yaml"
    lint_clean(path)
    contract = load(path)
    ids = {cl.id for cl in plan(contract)}
    assert {"not_null:order_id", "unique:order_id", "accepted_values:status",
            "invariant:store_no in (1, 2, 3)", "range:tax_paid",
            "invariant:order_total = subtotal + tax_paid"} <= ids
    assert contract.owner == "shop@example"
    assert str(contract.field("status").type) == "enum[placed, shipped]"  # type: ignore[union-attr]
    assert contract.field("tax_paid").unit is None  # type: ignore[union-attr]
    # a warn-only test is a clause that warns (severity.warn); a where-filtered one is weaker than
    # any clause: not mapped
    assert "range:subtotal" in ids and contract.severity_of("range:subtotal") == "warn"
    assert "not_null:subtotal" not in ids
    assert contract.severity_of("range:tax_paid") == "error"
    assert contract.severity_of("not_null:order_total") == "warn"
    assert contract.severity_of("not_null:order_id") == "error"
    not_mapped = {(i["where"], i["what"]) for i in c["items"] if i["status"] == "not_mapped"}
    assert ("orders.subtotal", "test not_null") in not_mapped
    assert ("orders.customer_id", "test dbt_expectations.expect_column_values_to_be_of_type") \
        in not_mapped
    assert ("orders", "test dbt_utils.expression_is_true") in not_mapped  # the Jinja one
    # customer_id may be null: its unique test cannot be the key (a key is never null)
    assert ("orders", "test unique") in not_mapped
    meta = dict(contract.meta)
    assert meta["x-dbt-config"] == {"materialized": "table", "tags": ["daily"]}
    cust = dict(contract.field("customer_id").meta)  # type: ignore[union-attr]
    assert "x-dbt-relationships" not in cust  # a foreign key now: references: customers.id
    assert contract.field("customer_id").references == ("customers", "id")  # type: ignore[union-attr]
    assert "references:customer_id" in ids
    assert [c["name"] for c in meta["x-dbt-columns"]] == ["ordered_at", "payload"]
    assert "subtotal >= {{ var('floor') }}" in str(meta["x-dbt-tests"])
    # deterministic: the same input gives the same bytes, and an unchanged file is left alone
    first = path.read_bytes()
    again = run("import", "dbt", "m.yml", "--out", "c", cwd=tmp_path)
    assert again.exit_code == 1 and path.read_bytes() == first and "unchanged" in again.output


def test_an_edited_contract_is_not_overwritten_without_force(tmp_path: Path) -> None:
    (tmp_path / "m.yml").write_text(
        "models:\n  - name: t\n    columns:\n      - {name: id, data_type: integer, "
        "data_tests: [unique, not_null]}\n", encoding="utf-8")
    assert run("import", "dbt", "m.yml", "--out", "c", cwd=tmp_path).exit_code == 0
    path = tmp_path / "c" / "t.yaml"
    path.write_text(path.read_text() + "# mine\n", encoding="utf-8")
    res = run("import", "dbt", "m.yml", "--out", "c", cwd=tmp_path)
    assert res.exit_code == 1 and "not overwritten" in res.output
    assert path.read_text().endswith("# mine\n")
    assert run("import", "dbt", "m.yml", "--out", "c", "--force", cwd=tmp_path).exit_code == 0
    assert not path.read_text().endswith("# mine\n")


def test_bad_input_is_exit_2_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yml").write_text("models:\n  - name: x\n    columns: [\n", encoding="utf-8")
    res = run("import", "dbt", "bad.yml", cwd=tmp_path)
    assert res.exit_code == 2 and "bad.yml:4:1" in res.output and "Traceback" not in res.output
    (tmp_path / "ok.yml").write_text("models:\n  - name: x\n", encoding="utf-8")
    res = run("import", "dbt", "ok.yml", "--model", "nope", cwd=tmp_path)
    assert res.exit_code == 2 and "no model named nope" in res.output
    res = run("import", "dbt", cwd=tmp_path)
    assert res.exit_code == 2


@pytest.mark.parametrize("bundled", ["fct_sensor_readings", "ohlcv_1m", "plant_sensor_reading"])
def test_tacit_gens_own_dbt_render_imports_to_the_same_structure(tmp_path: Path,
                                                                bundled: str) -> None:
    """The dbt YAML tacit-gen renders carries the exact types in meta: importing it gives the
    same columns, types, nullability and key back."""
    from tests.conftest import CONTRACTS

    original = load(CONTRACTS / f"{bundled}.yaml")
    art = TARGET.render(original, plan(original), RenderOptions()).artifacts[0]
    (tmp_path / "m.yml").write_text(art.content, encoding="utf-8")
    run("import", "dbt", "m.yml", "--out", "c", cwd=tmp_path)
    back = load(tmp_path / "c" / f"{bundled}.yaml")
    kinds = ("column", "not_null", "unique", "accepted_values", "fixed_value", "no_unknown_columns")
    def structure(c: object) -> set[tuple[str, str, tuple[object, ...]]]:
        return {(cl.id, cl.kind, cl.params) for cl in plan(c) if cl.kind in kinds}  # type: ignore[arg-type]

    assert structure(back) == structure(original)
