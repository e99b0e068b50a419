"""One test per lint rule (TG2xx) that fires it at the right line, and the rules doc in sync."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract import lint
from tacit_gen.contract.errors import CODES
from tacit_gen.contract.loader import load_report

ROOT = Path(__file__).resolve().parents[1]

HEAD = "contract: x\nversion: 1.0.0\n"
# Each case: the contract text, with `# <-` on the line the finding must point at.
CASES: dict[str, str] = {
    "TG201": HEAD + "fields:\n  price: {type: float64, unit: USD}  # <-\n",
    "TG202": HEAD + "fields:\n  reading: {type: decimal(9,3)}  # <-\n",
    "TG203": HEAD + "fields:\n  volume: {type: decimal(9,3), unit: widgets_per_pallet}  # <-\n",
    "TG204": HEAD + "fields:\n  p: {type: decimal(9,3), unit: kPa, dimension: length}  # <-\n",
    "TG205": HEAD + "fields:\n  pressure_kpa: {type: decimal(9,3), unit: bar}  # <-\n",
    "TG206": HEAD + "key: [ts]\ntime: {column: ts}\nfields:\n  ts: {type: string}  # <-\n",
    "TG207": HEAD + "key: [id]\nfields:\n  id: {type: string}\nrevision_policy:  # <-\n  allowed: true\n",
    "TG208": HEAD + "fields:\n  id: {type: string}\nprovenance_required: [source_id]  # <-\n",
    "TG209": HEAD + "key: [id, revision]\nfields:\n  id: {type: string}\n  revision: {type: int64}\n"
    "revision_policy:  # <-\n  allowed: true\n  window: 2 days\n",
    "TG210": HEAD + "fields:\n  v: {type: decimal(9,3), unit: kPa}\n  s: {type: string}\ninvariants:\n"
    "  - v within catalog hard_bounds for s  # <-\n",
    "TG211": HEAD + "fields:\n  name: {type: string, unit: kPa}  # <-\n",
    "TG212": HEAD + "key: [k]\nfields:\n  k: {type: decimal(9,3), unit: m}  # <-\n",
    "TG213": HEAD + "key: [ts]\ntime: {column: ts, ingest_column: ingested}\nfields:\n"
    "  ts: {type: timestamp_ms_utc}\n  ingested: {type: date}  # <-\n",
    "TG214": HEAD + "key: [id, revision]\nfields:\n  id: {type: string}\n  revision: {type: int64}\n"
    "revision_policy:  # <-\n  allowed: true\n  reasons: [late]\n",
    "TG215": HEAD + "fields:\n  v: {type: decimal(9,3), unit: per series from catalog, dimension: wobble}  # <-\n",
    "TG216": HEAD + "fields:\n  id: {type: string}\ntargets:\n  dbt: {enabled: false}  # <-\n",
    "TG217": HEAD + "fields:\n  id: {type: string}\nevolution:\n  compatibility: NONE  # <-\n",
    "TG218": HEAD + "fields:\n  total_price: {type: float64, unit: dimensionless}  # <-\n",
    "TG219": HEAD + "key: [id, ts, revision]\ntime: {column: ts, ingest_column: ing}\nfields:\n"
    "  id: {type: string}\n  ts: {type: timestamp_ms_utc}\n  ing: {type: timestamp_ms_utc}\n"
    "  revision: {type: int64}\nrevision_policy:\n  allowed: true\n  window: 5 trading days  # <-\n",
    "TG221": HEAD + "key: [ts]\ntime:\n  column: ts\n  cadence: 60s within session  # <-\nfields:\n"
    "  ts: {type: timestamp_ms_utc}\n",
    "TG220": HEAD + "key: [ts]\ntime:\n  column: ts\n  calendar: XNYS  # <-\nfields:\n"
    "  ts: {type: timestamp_ms_utc}\n",
    # a self reference (the contract itself is the relation): a field it does not have
    "TG222": HEAD + "fields:\n  id: {type: int64}\n  parent_id: {type: int64, references: x.uid}  # <-\n",
    "TG223": HEAD + "key: [id, revision]\nprovenance_required: [revision]\nfields:\n  id: {type: int64}\n  revision: {type: string}  # <-\n",
    "TG224": HEAD + "fields:\n  a: {type: int64}\ninvariants:\n  - 1 = 1  # <-\n",
    "TG225": HEAD + "fields:\n  x: {type: float32, unit: m}\ninvariants:\n  - x <= 0.1  # <-\n",
    "TG226": HEAD + "fields:\n  x: {type: int64}\ninvariants:\n  - x > 5\n  - x < 3  # <-\n",
}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(lint.RULES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_fires(code: str) -> None:
    text = CASES[code]
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.endswith("# <-"))
    contract, diags = load_report("rule.yaml", text)
    found = [d for d in diags if d.code == code]
    assert found, [d.render() for d in diags]
    d = found[0]
    severity = lint.RULES[code][0]
    assert d.severity == severity
    assert d.line == line and d.col >= 1
    assert d.word and d.word in d.message
    # errors stop the load; warnings and notes do not
    assert (contract is None) == (severity == "error" or any(x.severity == "error" for x in diags))
    # nothing else in the case is an error unless the rule itself is one
    assert [x.code for x in diags if x.severity == "error"] in ([], [code])


@pytest.mark.parametrize("path", sorted((ROOT / "contracts").glob("*.yaml")), ids=lambda p: p.stem)
def test_bundled_contracts_lint_clean_of_errors(path: Path) -> None:
    contract, diags = load_report(path)
    assert contract is not None
    assert [d.render() for d in diags if d.severity == "error"] == []


def test_time_precision_disagreement() -> None:
    text = HEAD + "key: [ts]\ntime: {column: ts, precision: us}\nfields:\n  ts: {type: timestamp_ms_utc}\n"
    _, diags = load_report("p.yaml", text)
    (d,) = [d for d in diags if d.code == "TG206"]
    assert (d.line, d.col, d.word) == (6, 14, "timestamp_ms_utc")
    assert "time.precision says us" in d.message


def test_suffix_without_unit() -> None:
    _, diags = load_report("s.yaml", HEAD + "fields:\n  value_degc: {type: decimal(9,3)}\n")
    assert any(d.code == "TG205" and "add unit: degC" in d.message for d in diags)


def test_rules_doc_in_sync() -> None:
    committed = (ROOT / "docs" / "lint-rules.md").read_text(encoding="utf-8")
    assert committed == lint.rules_doc(), "regenerate: python -m tacit_gen.contract.lint > docs/lint-rules.md"
    for code in [*CODES, *lint.RULES]:
        assert f"| {code} |" in committed
    assert set(lint.LOADER_RATIONALE) == set(CODES)


def test_float32_literals_it_cannot_hold() -> None:
    """TG225 names each number a float32 column is compared with that float32 cannot hold (and
    only those: 0.5, 100 and -2.25 are float32 values), in comparisons, between and in lists."""
    text = (HEAD + "fields:\n  x: {type: float32, unit: m}\n  y: {type: float64, unit: m}\n"
            "invariants:\n  - x <= 0.5\n  - 100 >= x\n  - x between -2.25 and 99.9\n"
            "  - x in (1, 0.3)\n  - y <= 0.1\n  - x * 3 >= 0.3\n  - -0.7 < x\n  - x != 1e40\n")
    _, diags = load_report("x.yaml", text)
    got = [(d.line, d.word) for d in diags if d.code == "TG225"]
    assert got == [(9, "99.9"), (10, "0.3"), (13, "-0.7"), (14, "1e40")], [d.render() for d in diags]
    waived = text.replace("{type: float32, unit: m}",
                          "{type: float32, unit: m, lint: {allow: [TG225], reason: sensor stores REAL}}")
    assert [d.severity for d in load_report("x.yaml", waived)[1] if d.code == "TG225"] == ["note"] * 4


def test_bounds_that_leave_a_column_no_value() -> None:
    """TG226 at the invariant whose bound empties its column's bounds together with those before
    it, and nowhere else: a single point is a value, and a revision under provenance is >= 0."""
    text = (HEAD + "key: [id, revision]\nprovenance_required: [revision]\nfields:\n"
            "  id: {type: int64}\n  revision: {type: int64}\n  x: {type: int64}\n"
            "  y: {type: float64, unit: m}\n  z: {type: decimal(9,3), unit: m}\ninvariants:\n"
            "  - x > 5\n  - y >= 0\n  - y <= 0\n  - z between 1.5 and 2\n"
            "  - z is null or z > 2\n  - x < 3\n  - x < 1\n  - revision < 0\n")
    _, diags = load_report("x.yaml", text)
    got = [(d.line, d.word) for d in diags if d.code == "TG226"]
    assert got == [(16, "z is null or z > 2"), (17, "x < 3"), (19, "revision < 0")], \
        [d.render() for d in diags]
    assert {d.severity for d in diags if d.code == "TG226"} == {"error"}
    msgs = [d.message for d in diags if d.code == "TG226"]
    assert msgs[0] == ("'z is null or z > 2' and the bounds before it leave z no value "
                       "(z > 2 and z <= 2): every row with one fails")
    assert msgs[1] == "'x < 3' and the bounds before it leave x no value (x > 5 and x < 3): every row with one fails"
    ok = (text.replace("  - x < 3\n  - x < 1\n", "  - x <= 50\n").replace("  - revision < 0\n", "")
          .replace("  - z is null or z > 2\n", "  - z is null or z >= 2\n"))
    assert [d.render() for d in load_report("x.yaml", ok)[1] if d.code == "TG226"] == []
