"""Table-driven: one case per change kind of seed 001's evolution table (and the rest of the rules).

Each case edits a base contract into an old and a new version and states the expected change code,
its class, the least bump of the whole diff, a fragment of the message, and the change's line in
the old and the new file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.evolution import RULES, changelog, diff, suggest_field_name
from tacit_gen.evolution.report import DiffReport

# line numbers:  1..30, referenced by the cases below
BASE = """\
contract: sensor
version: 1.0.0
owner: plant@example
description: Pressure readings per series.
key: [series_id, event_ts, revision]
time:
  column: event_ts
  precision: ms
  timezone: UTC instant
  cadence: 60s; tolerance +/-10% of interval
  freshness: 15m
fields:
  series_id: {type: string}
  event_ts: {type: timestamp_ms_utc}
  pressure: {type: decimal(9,3), unit: bar, nullable: true}
  samples: {type: int32}
  quality: {type: enum[good, bad]}
  adjusted: {type: bool, value: false}
  site: {type: string, description: plant site code}
invariants:
  - pressure >= 0
  - samples is null or samples >= 0
  - pressure is null only when quality = bad
revision_policy:
  allowed: true
  window: 2 days
  reasons: [recalibration]
provenance_required: [revision]
evolution:
  notice_period: 30 days
"""

SITE = "  site: {type: string, description: plant site code}\n"


def edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@dataclass(frozen=True)
class Case:
    name: str
    new: tuple[tuple[str, str], ...]  # edits of BASE into the new version
    version: str  # the new version declared (the least one that suffices)
    code: str
    cls: str
    bump: str  # least bump of the whole diff
    fragment: str
    old_line: int | None
    new_line: int | None
    old: tuple[tuple[str, str], ...] = ()  # edits of BASE into the old version
    codes: tuple[str, ...] = ()  # every code expected (default: just `code`)


WARN_PRESSURE = ("provenance_required: [revision]\n",
                 "provenance_required: [revision]\nseverity:\n  warn: [range:pressure]\n")

CASES = [
    Case("severity error -> warn: loosened, with notice", (WARN_PRESSURE,), "1.1.0",
         "severity.loosened", "compatible-with-notice", "minor",
         "range:pressure made severity: warn", 21, 30),
    Case("severity warn -> error: breaking", (), "2.0.0", "severity.tightened", "breaking", "major",
         "range:pressure is an error again (was severity: warn)", 30, 21, old=(WARN_PRESSURE,)),
    Case("added nullable field", ((SITE, SITE + "  comment: {type: string}\n"),), "1.1.0",
         "field.added", "compatible", "minor", "nullable field 'comment' (string) added", None, 20),
    Case("added required field", ((SITE, SITE + "  comment: {type: string, nullable: false}\n"),),
         "2.0.0", "field.added_required", "breaking", "major",
         "required field 'comment' (string) added (nullable: false)", None, 20),
    Case("added field reusing a reserved name",
         ((SITE, SITE + "  legacy: {type: string}\n"),
          ("  notice_period: 30 days\n", "  notice_period: 30 days\n  reserved: [legacy]\n")), "2.0.0",
         "field.added_reserved", "breaking", "major", "the name is reserved", None, 20,
         old=(("  notice_period: 30 days\n", "  notice_period: 30 days\n  reserved: [legacy]\n"),)),
    Case("removed field", ((SITE, ""),), "2.0.0", "field.removed", "breaking", "major",
         "field 'site' (string) removed", 19, None),
    Case("rename declared by aliases",
         ((SITE, "  site_code: {type: string, description: plant site code, aliases: [site]}\n"),),
         "2.0.0", "field.renamed", "breaking", "major",
         "field 'site' renamed to 'site_code' (declared by aliases: [site])", 19, 19),
    Case("possible rename (same type and unit)",
         ((SITE, "  plant: {type: string, description: plant site code}\n"),),
         "2.0.0", "field.renamed_possible", "breaking", "major",
         "field 'site' removed and 'plant' added with the same type (string)", 19, 19),
    Case("type change", ((SITE, "  site: {type: int64, description: plant site code}\n"),), "2.0.0",
         "field.type_changed", "breaking", "major", "type of 'site' changed: string -> int64", 19, 19),
    Case("type promotion int32 -> int64", (("samples: {type: int32}", "samples: {type: int64}"),),
         "1.1.0", "field.type_promoted", "compatible", "minor",
         "int32 -> int64: every old value is exact in the new type", 16, 16),
    Case("type promotion decimal precision up, same scale",
         (("decimal(9,3), unit: bar", "decimal(12,3), unit: bar"),), "1.1.0", "field.type_promoted",
         "compatible", "minor", "decimal(9,3) -> decimal(12,3)", 15, 15),
    Case("type narrowed: fewer integer digits",
         (("decimal(9,3), unit: bar", "decimal(6,3), unit: bar"),), "2.0.0", "field.type_narrowed",
         "breaking", "major", "integer digits 6 -> 3", 15, 15),
    Case("type narrowed: int64 -> int32", (("samples: {type: int32}", "samples: {type: int32}"),),
         "2.0.0", "field.type_narrowed", "breaking", "major", "int64 -> int32", 16, 16,
         old=(("samples: {type: int32}", "samples: {type: int64}"),)),
    Case("unit change (same dimension): propose a new field",
         (("unit: bar", "unit: kPa"),), "2.0.0", "field.unit_changed", "breaking", "major",
         "unit of 'pressure' changed from bar to kPa (same dimension, 1 bar = 100 kPa: every value "
         "changes scale); a unit change is never a version bump on the same field: add 'pressure_kpa' "
         "beside 'pressure'", 15, 15),
    Case("scale change: shares to lots (the seed's volume incident)",
         ((SITE, SITE + "  volume: {type: decimal(18,2), unit: lot}\n"),), "2.0.0", "field.unit_changed",
         "breaking", "major", "from share to lot; a unit change is never a version bump on the same "
         "field: add 'volume_lot' beside 'volume'", 20, 20,
         old=((SITE, SITE + "  volume: {type: decimal(18,2), unit: share}\n"),)),
    Case("unit respelled (pint: the same unit)", (("unit: bar", "unit: bars"),), "1.0.1",
         "field.unit_respelled", "compatible", "patch", "unit of 'pressure' respelled: bar -> bars", 15, 15),
    Case("precision down: decimal scale", (("decimal(9,3), unit: bar", "decimal(9,1), unit: bar"),),
         "2.0.0", "field.precision_down", "breaking", "major", "fraction digits 3 -> 1", 15, 15),
    Case("precision down: timestamp ms -> s",
         (("event_ts: {type: timestamp_ms_utc}", "event_ts: {type: timestamp_s_utc}"),
          ("precision: ms", "precision: s")),
         "2.0.0", "field.precision_down", "breaking", "major",
         "timestamp_ms_utc -> timestamp_s_utc: sub-s digits of existing instants are lost", 14, 14),
    Case("cadence change", (("cadence: 60s;", "cadence: 5m;"),), "2.0.0", "time.cadence_changed",
         "breaking", "major", "cadence changed: 60s -> 5m", 10, 10),
    Case("cadence tolerance widened", (("+/-10%", "+/-20%"),), "1.1.0", "time.cadence_relaxed",
         "compatible-with-notice", "minor", "+/-10% -> +/-20%", 10, 10),
    Case("timezone convention change",
         (("timezone: UTC instant", "timezone: UTC instant; device wall clock converted at ingest"),),
         "2.0.0", "time.timezone_changed", "breaking", "major",
         "'UTC instant' -> 'UTC instant; device wall clock converted at ingest'", 9, 9),
    Case("range widened", (("  - pressure >= 0\n", "  - pressure >= -1\n"),), "1.1.0", "range.widened",
         "compatible-with-notice", "minor", "range of 'pressure' widened: pressure >= 0 -> pressure >= -1",
         21, 21),
    Case("range tightened", (("  - pressure >= 0\n", "  - 0 <= pressure <= 400\n"),), "2.0.0",
         "range.tightened", "breaking", "major",
         "range of 'pressure' tightened: pressure >= 0 -> 0 <= pressure <= 400", 21, 21),
    Case("range added", (), "2.0.0", "range.added", "breaking", "major",
         "range of 'pressure' tightened: unbounded -> pressure >= 0", None, 21,
         old=(("  - pressure >= 0\n", ""),)),
    Case("range removed", (("  - samples is null or samples >= 0\n", ""),), "1.1.0", "range.removed",
         "compatible-with-notice", "minor", "range of 'samples' widened: samples >= 0 -> unbounded", 22, None),
    Case("nullability relaxed", ((SITE, "  site: {type: string, description: plant site code}\n"),),
         "1.1.0", "field.nullability_relaxed", "compatible-with-notice", "minor",
         "'site' may now be null", 19, 19,
         old=((SITE, "  site: {type: string, description: plant site code, nullable: false}\n"),)),
    Case("nullability tightened", (("unit: bar, nullable: true", "unit: bar, nullable: false"),), "2.0.0",
         "field.nullability_tightened", "breaking", "major",
         "'pressure' is no longer nullable (nullable: false); existing null rows fail", 15, 15),
    Case("enum values added", (("enum[good, bad]", "enum[good, suspect, bad]"),), "1.1.0",
         "field.enum_values_added", "compatible-with-notice", "minor", "values added: suspect", 17, 17),
    Case("enum values removed", (("enum[good, bad]", "enum[good, bad]"),), "2.0.0",
         "field.enum_values_removed", "breaking", "major", "values removed: suspect", 17, 17,
         old=(("enum[good, bad]", "enum[good, suspect, bad]"),)),
    Case("enum to string", (("quality: {type: enum[good, bad]}", "quality: {type: string}"),
                            ("quality = bad", "quality = 'bad'")),
         "1.1.0", "field.type_relaxed", "compatible-with-notice", "minor",
         "enum[good, bad] -> string: every old value is a string", 17, 17,
         codes=("field.type_relaxed", "invariant.reworded")),
    Case("required field becomes a fixed value", (("  site: {type: string,", "  site: {type: string, value: x,"),),
         "2.0.0", "field.fixed_value_added", "breaking", "major",
         "'site' now has the fixed value 'x'; existing rows with other values fail", 19, 19),
    Case("key change: a new dataset", (("key: [series_id, event_ts, revision]", "key: [site, event_ts, revision]"),),
         "2.0.0", "key.changed", "breaking", "major",
         "natural key changed: [series_id, event_ts, revision] -> [site, event_ts, revision]", 5, 5,
         codes=("field.nullability_tightened", "field.nullability_relaxed", "key.changed")),
    Case("fixed value change", (("value: false", "value: true"),), "2.0.0", "field.fixed_value_changed",
         "breaking", "major", "fixed value of 'adjusted' changed: False -> True", 18, 18),
    Case("fixed value removed", (("{type: bool, value: false}", "{type: bool}"),), "1.1.0",
         "field.fixed_value_removed", "compatible-with-notice", "minor",
         "'adjusted' no longer has a fixed value (was False)", 18, 18,
         codes=("field.fixed_value_removed", "field.nullability_relaxed")),
    Case("invariant added", (("  - pressure is null only when quality = bad\n",
                              "  - pressure is null only when quality = bad\n  - samples is null only when quality = bad\n"),),
         "2.0.0", "invariant.added", "breaking", "major",
         "invariant added: 'samples is null only when quality = bad'", None, 24),
    Case("invariant removed", (("  - pressure is null only when quality = bad\n", ""),), "1.1.0",
         "invariant.removed", "compatible-with-notice", "minor",
         "invariant removed: 'pressure is null only when quality = bad'", 23, None),
    Case("invariant reworded", (("pressure is null only when quality = bad",
                                 "pressure is null   only when quality = bad"),), "1.0.1",
         "invariant.reworded", "compatible", "patch", "invariant reworded", 23, 23),
    Case("freshness loosened", (("freshness: 15m", "freshness: 1h"),), "1.1.0", "time.freshness_loosened",
         "compatible-with-notice", "minor", "freshness loosened: 15m -> 1h", 11, 11),
    Case("freshness tightened", (("freshness: 15m", "freshness: 5m"),), "1.1.0", "time.freshness_tightened",
         "compatible", "minor", "freshness tightened: 15m -> 5m", 11, 11),
    Case("revision window lengthened", (("window: 2 days", "window: 5 days"),), "1.1.0", "revision.relaxed",
         "compatible-with-notice", "minor", "revision window lengthened: 2 days -> 5 days", 26, 26),
    Case("revisions no longer allowed", (("allowed: true", "allowed: false"),), "2.0.0",
         "revision.tightened", "breaking", "major", "revisions are no longer allowed", 25, 25),
    Case("revision reasons removed", (("reasons: [recalibration]", "reasons: []"),), "2.0.0",
         "revision.tightened", "breaking", "major", "revision reasons removed: recalibration", 27, 27),
    Case("documentation only: description", (("Pressure readings per series.", "Pressure, per series."),),
         "1.0.1", "doc.changed", "compatible", "patch", "description changed", 4, 4),
    Case("documentation only: field description", (("plant site code", "the plant's site code"),), "1.0.1",
         "field.doc_changed", "compatible", "patch", "description of 'site' changed", 19, 19),
    Case("documentation only: owner", (("owner: plant@example", "owner: telemetry@example"),), "1.0.1",
         "doc.changed", "compatible", "patch", "owner changed", 3, 3),
    Case("contract renamed", (("contract: sensor", "contract: sensor_readings"),), "2.0.0",
         "contract.renamed", "breaking", "major", "contract renamed from 'sensor' to 'sensor_readings'", 1, 1),
    Case("notice period shortened", (("notice_period: 30 days", "notice_period: 7 days"),), "1.1.0",
         "evolution.notice_period_shortened", "compatible-with-notice", "minor",
         "notice period shortened: 30 days -> 7 days", 30, 30),
]


def _versions(case: Case) -> tuple[str, str]:
    old = edit(BASE, *case.old)
    new = edit(BASE, *case.new).replace("version: 1.0.0", f"version: {case.version}")
    return old, new


def _diff(old_text: str, new_text: str) -> DiffReport:
    return diff(load("old.yaml", text=old_text), load("new.yaml", text=new_text))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_change_kind(case: Case) -> None:
    old_text, new_text = _versions(case)
    report = _diff(old_text, new_text)
    codes = [c.code for c in report.changes]
    assert sorted(codes) == sorted(case.codes or (case.code,)), report.render_text()
    change = next(c for c in report.changes if c.code == case.code)
    assert change.cls == case.cls
    assert change.cls == RULES[case.code].cls
    assert report.least_bump == case.bump
    assert case.fragment in change.message, change.message
    assert (change.old_line, change.new_line) == (case.old_line, case.new_line)
    assert report.ok, report.problems  # the declared version is the least one that suffices
    assert report.suggested_version == case.version


@pytest.mark.parametrize(("name", "unit", "expected"), [
    ("pressure_bar", "kPa", "pressure_kpa"),
    ("pressure", "kPa", "pressure_kpa"),
    ("value_degc", "degF", "value_degf"),
    ("volume", "lot", "volume_lot"),
    ("price", "USD", "price_usd"),
    ("speed", "m/s", "speed_m_s"),
    ("value", "per series from catalog", "value_v2"),
])
def test_suggested_field_name(name: str, unit: str, expected: str) -> None:
    assert suggest_field_name(name, unit) == expected


def test_unit_change_action_names_the_new_field_and_notice_period() -> None:
    report = _diff(BASE, edit(BASE, ("unit: bar", "unit: kPa"), ("version: 1.0.0", "version: 2.0.0")))
    (change,) = report.changes
    assert change.path == "fields.pressure.unit"
    assert "add 'pressure_kpa' (kPa) beside 'pressure' (bar)" in change.action
    assert "a notice period of 30 days" in change.action


def test_no_change_when_only_formatting_differs() -> None:
    block = edit(BASE, ("  samples: {type: int32}\n", "  samples:\n    type: int32\n"),
                 ("key: [series_id, event_ts, revision]", "key:\n  - series_id\n  - event_ts\n  - revision"))
    report = _diff(BASE, block)
    assert report.changes == ()
    assert (report.least_bump, report.cls, report.ok) == ("none", "none", True)


def test_block_style_field_attribute_lines() -> None:
    old = edit(BASE, ("  samples: {type: int32}\n", "  samples:\n    type: int32\n    description: n\n"))
    new = edit(old, ("    type: int32\n", "    type: int64\n"), ("version: 1.0.0", "version: 1.1.0"))
    (change,) = _diff(old, new).changes
    assert (change.code, change.old_line, change.new_line) == ("field.type_promoted", 17, 17)


def test_declared_bump_too_small_is_not_ok() -> None:
    report = _diff(BASE, edit(BASE, ("unit: bar", "unit: kPa"), ("version: 1.0.0", "version: 1.1.0")))
    assert report.least_bump == "major" and report.declared_bump == "minor"
    assert not report.sufficient and not report.ok
    assert report.problems == ("the declared bump (minor) is smaller than the least bump (major); "
                               "declare at least 2.0.0",)


def test_version_backwards_is_not_ok_even_without_changes() -> None:
    report = _diff(edit(BASE, ("version: 1.0.0", "version: 1.2.0")), BASE)
    assert report.declared_bump == "backwards" and not report.ok
    assert "went backwards: 1.2.0 -> 1.0.0" in report.problems[0]


def test_same_version_with_changes_is_not_ok() -> None:
    report = _diff(BASE, edit(BASE, ("owner: plant@example", "owner: x@example")))
    assert report.declared_bump == "none" and report.least_bump == "patch" and not report.ok
    assert "stayed 1.0.0" in report.problems[0]


def test_same_version_without_changes_is_ok() -> None:
    assert _diff(BASE, BASE + "# a comment\n").ok


def test_prerelease_accepts_any_change() -> None:
    old = edit(BASE, ("version: 1.0.0", "version: 2.0.0-rc.1"))
    new = edit(BASE, ("version: 1.0.0", "version: 2.0.0"), ("unit: bar", "unit: kPa"))
    report = _diff(old, new)
    assert report.declared_bump == "prerelease" and report.ok


def test_bigger_bump_than_needed_is_ok() -> None:
    report = _diff(BASE, edit(BASE, ("version: 1.0.0", "version: 2.0.0"), ("owner: plant@example", "owner: x@y")))
    assert report.least_bump == "patch" and report.declared_bump == "major" and report.ok


def test_json_output_is_stable_and_complete() -> None:
    report = _diff(BASE, edit(BASE, ("unit: bar", "unit: kPa"), ("enum[good, bad]", "enum[good, suspect, bad]"),
                              ("version: 1.0.0", "version: 1.1.0")))
    data = report.as_json()
    assert json.loads(json.dumps(data)) == data
    assert {k: data[k] for k in ("class", "least_bump", "declared_bump", "sufficient", "ok",
                                 "old_version", "new_version")} == {
        "class": "breaking", "least_bump": "major", "declared_bump": "minor", "sufficient": False,
        "ok": False, "old_version": "1.0.0", "new_version": "1.1.0"}
    assert [c["code"] for c in data["changes"]] == ["field.unit_changed", "field.enum_values_added"]
    assert set(data["changes"][0]) == {"code", "class", "bump", "path", "message", "action", "old_line",
                                       "new_line"}
    assert data == _diff(BASE, edit(BASE, ("unit: bar", "unit: kPa"),
                                    ("enum[good, bad]", "enum[good, suspect, bad]"),
                                    ("version: 1.0.0", "version: 1.1.0"))).as_json()


def test_render_text_and_changelog() -> None:
    report = _diff(BASE, edit(BASE, ("unit: bar", "unit: kPa"), (SITE, SITE + "  comment: {type: string}\n"),
                              ("version: 1.0.0", "version: 2.0.0")))
    text = report.render_text()
    assert "breaking               major fields.pressure.unit  [field.unit_changed]  line 15 -> 15" in text
    assert text.rstrip().endswith("declared: major: ok")
    md = changelog(report)
    assert md.startswith("## sensor 2.0.0 (major)\n")
    assert "### Breaking\n\n- unit of `pressure` changed from bar to kPa" in md
    assert "### Compatible\n\n- nullable field `comment` (string) added (`fields.comment`)" in md
    assert md.index("### Breaking") < md.index("### Compatible")


def test_changelog_escapes_markdown_in_contract_text() -> None:
    new = edit(BASE, ("  - pressure is null only when quality = bad\n",
                      "  - pressure is null only when quality = bad\n  - samples * 2 <= 10 or site = '<b>`x`'\n"),
               ("version: 1.0.0", "version: 2.0.0"))
    md = changelog(_diff(BASE, new))
    import re

    assert not re.search(r"(?<!\\)<b>", md)  # no raw HTML: every '<' outside code spans is escaped
    assert "\\<b>\\`x\\`" in md
    assert "`samples * 2 <= 10 or site = `" in md  # quoted text is a code span: literal


def test_bundled_contracts_unchanged_against_themselves() -> None:
    from tests.conftest import BUNDLED

    for path in BUNDLED:
        c = load(path)
        report = diff(c, c)
        assert report.changes == () and report.ok


def test_every_rule_is_documented() -> None:
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "evolution.md").read_text(encoding="utf-8")
    for code in RULES:
        assert f"`{code}`" in doc, code


def test_docs_embed_the_generated_tables() -> None:
    from tacit_gen.evolution.compat import codes_table
    from tacit_gen.evolution.rules import rules_table
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "evolution.md").read_text(encoding="utf-8")
    assert rules_table() in doc
    assert codes_table() in doc


def test_ambiguous_removal_and_additions_are_not_a_rename() -> None:
    new = edit(BASE, (SITE, "  comment: {type: string}\n  label: {type: string}\n"),
               ("version: 1.0.0", "version: 2.0.0"))
    codes = [c.code for c in _diff(BASE, new).changes]
    assert codes == ["field.removed", "field.added", "field.added"]


def test_renamed_key_column_is_one_change_not_a_key_change() -> None:
    new = edit(BASE, ("  series_id: {type: string}\n", "  sensor_id: {type: string, aliases: [series_id]}\n"),
               ("key: [series_id, event_ts, revision]", "key: [sensor_id, event_ts, revision]"),
               ("version: 1.0.0", "version: 2.0.0"))
    report = _diff(BASE, new)
    assert [(c.code, c.path, c.old_line, c.new_line) for c in report.changes] == [
        ("field.renamed", "fields.sensor_id", 13, 13)]


def test_catalog_checks_added_and_removed() -> None:
    from tests.conftest import CONTRACTS

    text = (CONTRACTS / "plant_sensor_reading.yaml").read_text(encoding="utf-8")
    major = int(text.split("\nversion: ", 1)[1].split(".", 1)[0])
    version = f"version: {major}.0.0"
    line = text.splitlines().index("  - value within catalog hard_bounds for series_id") + 1
    without = edit(text, ("  - value within catalog hard_bounds for series_id\n", ""))
    report = _diff(without, edit(text, (version, f"version: {major + 1}.0.0")))
    (change,) = report.changes
    assert (change.code, change.cls, change.path, change.old_line, change.new_line) == (
        "catalog_check.added", "breaking", "invariants[1]", None, line)
    back = _diff(text, edit(without, (version, f"version: {major}.1.0")))
    assert [c.code for c in back.changes] == ["catalog_check.removed"] and back.ok
