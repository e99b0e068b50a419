"""Compatibility modes: reader/writer checks between two versions, table-driven."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.evolution import compat
from tacit_gen.evolution.compat import CODES, can_read
from tests.evolution.test_diff import BASE, SITE, edit

REQUIRED_SITE = "  site: {type: string, description: plant site code, nullable: false}\n"


@dataclass(frozen=True)
class Scenario:
    name: str
    new: tuple[tuple[str, str], ...]
    backward: tuple[str, ...]  # codes when the new version reads old data (empty: compatible)
    forward: tuple[str, ...]  # codes when the old version reads new data
    old: tuple[tuple[str, str], ...] = ()


SCENARIOS = [
    Scenario("add nullable field", ((SITE, SITE + "  comment: {type: string}\n"),), (), ()),
    Scenario("add required field", ((SITE, SITE + "  comment: {type: string, nullable: false}\n"),),
             ("compat.column_missing",), ()),
    Scenario("remove nullable field", ((SITE, ""),), (), ()),
    Scenario("remove required field", ((REQUIRED_SITE, ""),), (), ("compat.column_missing",),
             old=((SITE, REQUIRED_SITE),)),
    Scenario("rename with aliases (required)",
             ((REQUIRED_SITE, "  site_code: {type: string, nullable: false, aliases: [site]}\n"),),
             (), ("compat.column_missing",), old=((SITE, REQUIRED_SITE),)),
    Scenario("rename without aliases (required)",
             ((REQUIRED_SITE, "  site_code: {type: string, nullable: false}\n"),),
             ("compat.column_missing",), ("compat.column_missing",), old=((SITE, REQUIRED_SITE),)),
    Scenario("type promotion", (("samples: {type: int32}", "samples: {type: int64}"),), (), ("compat.type",)),
    Scenario("enum values added", (("enum[good, bad]", "enum[good, suspect, bad]"),), (), ("compat.enum",)),
    Scenario("range widened", (("  - pressure >= 0\n", "  - pressure >= -1\n"),), (), ("compat.range",)),
    Scenario("range tightened", (("  - pressure >= 0\n", "  - 0 <= pressure <= 400\n"),),
             ("compat.range",), ()),
    Scenario("nullability relaxed", ((REQUIRED_SITE, SITE),), (), ("compat.nullability",),
             old=((SITE, REQUIRED_SITE),)),
    Scenario("nullability tightened", ((SITE, REQUIRED_SITE),), ("compat.nullability",), ()),
    Scenario("unit changed", (("unit: bar", "unit: kPa"),), ("compat.unit",), ("compat.unit",)),
    Scenario("unit respelled", (("unit: bar", "unit: bars"),), (), ()),
    Scenario("key changed", (("key: [series_id, event_ts, revision]", "key: [site, event_ts, revision]"),),
             ("compat.key", "compat.nullability"), ("compat.key", "compat.nullability")),
    Scenario("invariant added", (("  - pressure is null only when quality = bad\n",
                                  "  - pressure is null only when quality = bad\n"
                                  "  - samples is null only when quality = bad\n"),),
             ("compat.invariant",), ()),
    Scenario("cadence changed", (("cadence: 60s;", "cadence: 5m;"),), ("compat.cadence",), ("compat.cadence",)),
    Scenario("timezone changed", (("timezone: UTC instant", "timezone: UTC instant; wall clock"),),
             ("compat.timezone",), ("compat.timezone",)),
    Scenario("revisions disallowed", (("allowed: true", "allowed: false"),), ("compat.revision",), ()),
    Scenario("fixed value changed", (("value: false", "value: true"),), ("compat.fixed_value",),
             ("compat.fixed_value",)),
    Scenario("documentation only", (("plant site code", "site code"),), (), ()),
]


@pytest.mark.parametrize("s", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_reader_writer(s: Scenario) -> None:
    old = load("old.yaml", text=edit(BASE, *s.old))
    new = load("new.yaml", text=edit(BASE, *s.old, *s.new).replace("version: 1.0.0", "version: 2.0.0"))
    backward = sorted(f.code for f in can_read(new, old, "backward"))
    forward = sorted(f.code for f in can_read(old, new, "forward"))
    assert (backward, forward) == (sorted(s.backward), sorted(s.forward))
    for code in (*backward, *forward):
        assert code in CODES
    report = compat([old, new], "FULL")
    assert report.ok == (not s.backward and not s.forward)
    assert compat([old, new], "BACKWARD").ok == (not s.backward)
    assert compat([old, new], "FORWARD").ok == (not s.forward)


def test_finding_names_versions_path_and_lines() -> None:
    old = load("old.yaml", text=BASE)
    new = load("new.yaml", text=edit(BASE, ("  - pressure >= 0\n", "  - 0 <= pressure <= 400\n"),
                                     ("version: 1.0.0", "version: 2.0.0")))
    (f,) = compat([old, new], "BACKWARD").findings
    assert f.as_json() == {
        "code": "compat.range", "direction": "backward", "reader_version": "2.0.0", "writer_version": "1.0.0",
        "path": "invariants[0]", "reader_line": 21, "writer_line": 21,
        "message": "the reader's range 0 <= pressure <= 400 is tighter than the writer's (pressure >= 0)",
    }


def test_single_version_and_none_mode_are_trivially_ok() -> None:
    c = load("c.yaml", text=BASE)
    assert compat([c], "FULL_TRANSITIVE").ok and compat([c], "FULL_TRANSITIVE").checked == ()
    assert "no earlier version" in compat([c], "BACKWARD").render_text()


def test_same_version_appended_replaces_the_committed_one() -> None:
    committed = load("c.yaml", text=BASE)
    working = load("c.yaml", text=edit(BASE, ("unit: bar", "unit: kPa")))
    report = compat([committed, working], "FULL")  # same version: nothing earlier to compare with
    assert report.checked == ()


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown compatibility mode"):
        compat([load("c.yaml", text=BASE)], "SIDEWAYS")


def test_bundled_contracts_read_themselves() -> None:
    from tests.conftest import BUNDLED

    for path in BUNDLED:
        c = load(path)
        assert can_read(c, c) == []
