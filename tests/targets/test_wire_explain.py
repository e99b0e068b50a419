"""`explain --targets` shows what the wire schemas cannot say, with the reason, per clause."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import record_targets

ROOT = Path(__file__).resolve().parents[2]


def test_wire_targets_declare_non_structural_clauses_unsupported() -> None:
    res = CliRunner().invoke(main, ["explain", str(ROOT / "contracts" / "ohlcv_1m.yaml"), "--targets",
                                    "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in json.loads(res.output)["clauses"]}
    for t in record_targets():
        assert rows["column:open"][t] == "yes"
        assert rows["no_unknown_columns"][t] == "yes"
        assert rows["invariant:low <= open <= high"][t].startswith("unsupported: ")
    assert rows["range:volume"]["avro"].startswith("unsupported: ")
    # protovalidate states a range on one field (a decimal's sign bound as a CEL pattern rule)
    assert rows["range:volume"]["protobuf"] == "yes"
    assert rows["range:trade_count"]["protobuf"] == "yes"
    assert rows["fixed_value:adjusted"]["protobuf"] == "yes"
    # CEL has no decimal type: two decimal(18,8) are compared by the SQL and dataframe targets
    assert "more digits than a double keeps" in rows["invariant:low <= open <= high"]["protobuf"]
    # JSON Schema states a range on one field (a decimal's sign bound as a pattern), never a
    # comparison of two fields
    assert rows["range:volume"]["jsonschema"] == "yes"
    assert rows["range:trade_count"]["jsonschema"] == "yes"
    assert "not with other fields" in rows["invariant:low <= open <= high"]["jsonschema"]
    assert rows["fixed_value:adjusted"]["jsonschema"] == "yes"
    assert rows["fixed_value:adjusted"]["avro"].startswith("unsupported: ")
    assert rows["not_null:open"]["protobuf"] == "yes"  # presence, and protovalidate's required
    assert rows["not_null:open"]["avro"] == "yes"
    text = CliRunner().invoke(main, ["explain", str(ROOT / "contracts" / "ohlcv_1m.yaml"), "--targets"]).output
    assert "protobuf / invariant:low <= open <= high: unsupported" in text
