"""The change codes and their classification: seed 001's evolution table as the tool applies it.

One entry per change code: its class (compatible, compatible-with-notice, breaking), the least
version bump it needs, the required action, and the row of the seed's table it applies. The diff,
the docs table (docs/evolution.md) and the tests all read this table.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPATIBLE = "compatible"
NOTICE = "compatible-with-notice"
BREAKING = "breaking"
CLASSES = (COMPATIBLE, NOTICE, BREAKING)
CLASS_RANK = {"none": 0, COMPATIBLE: 1, NOTICE: 2, BREAKING: 3}

BUMPS = ("none", "patch", "minor", "major")
BUMP_RANK = {b: i for i, b in enumerate(BUMPS)}


@dataclass(frozen=True)
class Rule:
    """How one kind of change is classified."""

    cls: str
    bump: str
    action: str
    seed: str  # the row of seed 001's table, or the reasoning when the table has no row
    title: str


# The action texts name the notice period as `{notice}`; the diff fills it from the new
# contract's `evolution.notice_period`: "a notice period of 30 days", or "a notice period
# (declare evolution.notice_period)" when none is declared.
RULES: dict[str, Rule] = {
    # identity
    "contract.renamed": Rule(BREAKING, "major", "new dataset: publish under the new name beside the old one",
                             "Change the natural key: new dataset", "contract renamed"),
    "key.changed": Rule(BREAKING, "major", "new dataset: a new contract name, both written during a migration",
                        "Change the natural key: No, new dataset", "natural key changed"),
    "key.reordered": Rule(COMPATIBLE, "patch", "changelog entry",
                          "same key columns, same uniqueness", "key columns reordered"),
    # fields
    "field.added": Rule(COMPATIBLE, "minor", "minor version, changelog entry",
                        "Add nullable field: Yes, minor version, changelog entry", "nullable field added"),
    "field.added_required": Rule(BREAKING, "major",
                                 "major version; or add it nullable first and tighten it in a major version",
                                 "Tighten nullability: No, existing data has no such column",
                                 "required field added"),
    "field.added_reserved": Rule(BREAKING, "major", "pick a new field name; a reserved name is never reused",
                                 "Never reuse a removed field number/name (mark it reserved)",
                                 "reserved field name reused"),
    "field.removed": Rule(BREAKING, "major",
                          "major version; dual-write period, then list the name in evolution.reserved",
                          "Compatible changes are additive; everything else is a major version",
                          "field removed"),
    "field.renamed": Rule(BREAKING, "major",
                          "major version; keep 'aliases' for an alias period (new readers resolve old data "
                          "through it) or dual-write both names",
                          "Rename a field: No, major version, alias or dual-write period",
                          "field renamed (declared by aliases)"),
    "field.renamed_possible": Rule(BREAKING, "major",
                                   "major version; if it is a rename declare 'aliases: [old]' on the new field "
                                   "and dual-write both names for {notice}",
                                   "Rename a field: No, major version, alias or dual-write period",
                                   "possible rename (removed + added, same type and unit)"),
    "field.moved": Rule(COMPATIBLE, "patch", "changelog entry",
                        "columns are read by name", "field order changed"),
    "field.type_promoted": Rule(COMPATIBLE, "minor", "minor version, changelog entry",
                                "Avro type promotion (int to long, int to double, widening decimal)",
                                "type widened losslessly"),
    "field.type_relaxed": Rule(NOTICE, "minor", "minor version, {notice}",
                               "Widen a range: Yes with notice (an enum became a string: values no longer checked)",
                               "enum widened to string"),
    "field.type_narrowed": Rule(BREAKING, "major", "major version; existing data may not fit",
                                "Avro: narrowing is breaking", "type narrowed"),
    "field.type_changed": Rule(BREAKING, "major", "major version, new field name beside the old one",
                               "Changing a field's type is breaking", "type changed"),
    "field.precision_down": Rule(BREAKING, "major", "major version",
                                 "Change precision downward: No, major version", "precision lowered"),
    "field.unit_changed": Rule(BREAKING, "major",
                               "new field name beside the old one (a unit change is never a version bump on "
                               "the same field); major version if the old field is dropped",
                               "Change unit or scale: No, major version, new field name",
                               "unit or scale changed"),
    "field.unit_respelled": Rule(COMPATIBLE, "patch", "changelog entry",
                                 "the same unit (pint says equal)", "unit spelled differently"),
    "field.dimension_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                    "documentation of the unit; the unit itself is unchanged",
                                    "dimension text changed"),
    "field.nullability_relaxed": Rule(NOTICE, "minor", "minor version, {notice}",
                                      "Relax nullability: Yes with notice, minor version, notice period",
                                      "nullability relaxed"),
    "field.nullability_tightened": Rule(BREAKING, "major", "major version; existing data may fail",
                                        "Tighten nullability: No, major version", "nullability tightened"),
    "field.enum_values_added": Rule(NOTICE, "minor", "minor version, {notice}",
                                    "Widen a range: Yes with notice", "enum values added"),
    "field.enum_values_removed": Rule(BREAKING, "major", "major version; existing data may fail",
                                      "Tighten a range: No, major version", "enum values removed"),
    "field.enum_reordered": Rule(COMPATIBLE, "patch", "changelog entry",
                                 "same set of values", "enum values reordered"),
    "field.fixed_value_changed": Rule(BREAKING, "major", "new dataset (or a major version): every row changes",
                                      "Tighten a range: No (the one allowed value moved)",
                                      "fixed value changed"),
    "field.fixed_value_added": Rule(BREAKING, "major", "major version; existing data may fail",
                                    "Tighten a range: No, major version", "fixed value added"),
    "field.fixed_value_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                      "Widen a range: Yes with notice", "fixed value removed"),
    "field.pattern_added": Rule(BREAKING, "major", "major version; existing data may fail",
                                "Tighten a range: No, major version", "pattern added"),
    "field.pattern_tightened": Rule(BREAKING, "major", "major version; existing data may fail",
                                    "Tighten a range: No (fewer values match, or not provably more)",
                                    "pattern tightened or changed"),
    "field.pattern_widened": Rule(NOTICE, "minor", "minor version, {notice}",
                                  "Widen a range: Yes with notice (every old value still matches)",
                                  "pattern widened"),
    "field.pattern_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                  "Widen a range: Yes with notice", "pattern removed"),
    "field.pattern_respelled": Rule(COMPATIBLE, "patch", "changelog entry",
                                    "the same set of values matches", "pattern respelled"),
    "field.plausible_added": Rule(NOTICE, "minor", "minor version, {notice}",
                                  "a warning only: plausible never fails a build",
                                  "plausibility warning added"),
    "field.plausible_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                    "a warning only: plausible never fails a build",
                                    "plausibility warning removed"),
    "field.references_added": Rule(BREAKING, "major", "major version; existing data may fail",
                                   "Tighten a range: No, major version (a value absent from the "
                                   "referenced relation now fails)", "foreign key added"),
    "field.references_changed": Rule(BREAKING, "major", "major version; existing data may fail",
                                     "Tighten a range: No (another relation or column: not provably "
                                     "a superset)", "foreign key changed"),
    "field.references_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                     "Widen a range: Yes with notice", "foreign key removed"),
    "field.aliases_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                  "aliases only matter to a rename", "aliases changed"),
    "field.doc_changed": Rule(COMPATIBLE, "patch", "changelog entry", "documentation only",
                              "description or note changed"),
    # ranges, invariants, catalog checks
    "range.widened": Rule(NOTICE, "minor", "minor version, {notice}",
                          "Widen a range: Yes with notice, minor version, notice period", "range widened"),
    "range.removed": Rule(NOTICE, "minor", "minor version, {notice}",
                          "Widen a range: Yes with notice", "range removed"),
    "range.tightened": Rule(BREAKING, "major", "major version; existing data may fail",
                            "Tighten a range: No, major version; existing data may fail", "range tightened"),
    "range.added": Rule(BREAKING, "major", "major version; existing data may fail",
                        "Tighten a range: No, major version; existing data may fail", "range added"),
    "invariant.added": Rule(BREAKING, "major", "major version; existing data may fail",
                            "Tighten a range: No, major version", "invariant added"),
    "invariant.removed": Rule(NOTICE, "minor", "minor version, {notice}",
                              "Widen a range: Yes with notice", "invariant removed"),
    "invariant.reworded": Rule(COMPATIBLE, "patch", "changelog entry (the clause id changes with the text)",
                               "same expression", "invariant reworded"),
    "catalog_check.added": Rule(BREAKING, "major", "major version; existing data may fail",
                                "Tighten a range: No, major version", "catalog check added"),
    "catalog_check.removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                  "Widen a range: Yes with notice", "catalog check removed"),
    # time
    "time.column_changed": Rule(BREAKING, "major", "new dataset or major version",
                                "Change the natural key: new dataset", "time column changed"),
    "time.precision_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                   "declared precision; the column type carries the change",
                                   "declared time precision changed"),
    "time.timezone_changed": Rule(BREAKING, "major", "major version; usually a sign the original was wrong",
                                  "Change timezone convention: No, major version", "timezone convention changed"),
    "time.cadence_changed": Rule(BREAKING, "major", "major version or a new series id",
                                 "Change cadence: No, major version or a new series id", "cadence changed"),
    "time.cadence_added": Rule(BREAKING, "major", "major version; existing data may fail",
                               "Tighten a range: No, major version", "cadence added"),
    "time.cadence_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                 "Widen a range: Yes with notice", "cadence removed"),
    "time.cadence_relaxed": Rule(NOTICE, "minor", "minor version, {notice}",
                                 "Widen a range: Yes with notice (tolerance wider or gaps allowed)",
                                 "cadence tolerance widened"),
    "time.cadence_tightened": Rule(BREAKING, "major", "major version; existing data may fail",
                                   "Tighten a range: No (tolerance narrower or gaps forbidden)",
                                   "cadence tolerance tightened"),
    "time.cadence_note_changed": Rule(COMPATIBLE, "patch", "changelog entry", "documentation only",
                                      "cadence note changed"),
    "time.completeness_added": Rule(BREAKING, "major", "major version; existing data may fail",
                                    "Tighten a range: No, major version", "completeness added"),
    "time.completeness_changed": Rule(BREAKING, "major", "major version; existing data may fail",
                                      "Change cadence: No (the windows counted changed)",
                                      "completeness window changed"),
    "time.completeness_relaxed": Rule(NOTICE, "minor", "minor version, {notice}",
                                      "Widen a range: Yes with notice (fewer readings expected, "
                                      "or more gap types allowed)", "completeness loosened"),
    "time.completeness_removed": Rule(NOTICE, "minor", "minor version, {notice}",
                                      "Widen a range: Yes with notice", "completeness removed"),
    "time.completeness_tightened": Rule(BREAKING, "major", "major version; existing data may fail",
                                        "Tighten a range: No (more readings expected, or fewer "
                                        "gap types allowed)", "completeness tightened"),
    "time.calendar_changed": Rule(BREAKING, "major", "major version; existing data may fail",
                                  "Change cadence: No (the sessions that bound bars and count trading "
                                  "days changed)", "exchange calendar or session cadence changed"),
    "time.freshness_tightened": Rule(COMPATIBLE, "minor", "minor version, changelog entry",
                                     "a stronger promise to consumers; stored data is unaffected",
                                     "freshness tightened or added"),
    "time.freshness_loosened": Rule(NOTICE, "minor", "minor version, {notice}",
                                    "a weaker promise to consumers: with notice", "freshness loosened or removed"),
    "severity.loosened": Rule(NOTICE, "minor", "minor version, {notice}",
                              "a weaker promise: violations are reported, no longer enforced",
                              "a clause made severity: warn"),
    "severity.tightened": Rule(BREAKING, "major", "major version; data that only warned now fails",
                               "Tighten a range: No (a warning becomes a failure)",
                               "a severity: warn clause made an error"),
    "time.ingest_column_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                       "the revision window's enforcement is classified under revision.*",
                                       "ingest column changed"),
    # revision policy
    "revision.relaxed": Rule(NOTICE, "minor", "minor version, {notice}; tell consumers how "
                             "restatements are announced",
                             "Widen a range: Yes with notice (revisions allowed, longer window, more reasons)",
                             "revision policy relaxed"),
    "revision.tightened": Rule(BREAKING, "major", "major version; existing restatements may fail",
                               "Tighten a range: No, major version", "revision policy tightened"),
    "revision.notification_changed": Rule(NOTICE, "minor", "minor version, {notice}",
                                          "consumers must follow the new channel", "revision notification changed"),
    "revision.doc_changed": Rule(COMPATIBLE, "patch", "changelog entry", "documentation only",
                                 "revision policy note or owner changed"),
    # catalog, evolution, targets, documentation
    "catalog.changed": Rule(NOTICE, "minor", "minor version, {notice}; catalog entry",
                            "Add series to a dataset: minor version, catalog entry", "catalog relation changed"),
    "calendar.changed": Rule(COMPATIBLE, "patch", "changelog entry; load the sessions under the new name",
                             "where the sessions live; the calendar itself is time.calendar",
                             "sessions relation changed"),
    "evolution.compatibility_changed": Rule(NOTICE, "minor", "minor version, {notice}",
                                            "the registry mode is a promise to consumers",
                                            "compatibility mode changed"),
    "evolution.compatibility_strengthened": Rule(COMPATIBLE, "minor", "minor version, changelog entry",
                                                 "a stronger promise to consumers",
                                                 "compatibility mode strengthened"),
    "evolution.notice_period_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                            "a longer notice period is a stronger promise",
                                            "notice period lengthened"),
    "evolution.notice_period_shortened": Rule(NOTICE, "minor", "minor version, notice period (the old one)",
                                              "a weaker promise to consumers: with notice",
                                              "notice period shortened or removed"),
    "evolution.reserved_changed": Rule(COMPATIBLE, "patch", "changelog entry",
                                       "reserving a name is additive", "reserved names added"),
    "evolution.unreserved": Rule(NOTICE, "minor", "minor version, {notice}",
                                 "Never reuse a removed name; un-reserving allows it", "reserved names removed"),
    "provenance.changed": Rule(COMPATIBLE, "patch", "changelog entry",
                               "column effects are reported on the fields", "provenance list changed"),
    "targets.renamed": Rule(BREAKING, "major", "major version; alias or dual-write period for the artifact",
                            "Rename: No, major version, alias or dual-write period",
                            "generated model/dataset/suite/class renamed"),
    "targets.changed": Rule(COMPATIBLE, "patch", "changelog entry", "rendering options only",
                            "target options changed"),
    "doc.changed": Rule(COMPATIBLE, "patch", "changelog entry", "documentation only",
                        "owner, description or x-* metadata changed"),
    "contract.unclassified": Rule(BREAKING, "major", "review by hand; report this as a tacit-gen bug",
                                  "a clause changed that no rule classifies: assume the worst",
                                  "unclassified clause change"),
}


def worst_class(classes: list[str]) -> str:
    """The most severe class of a list ("none" for no changes)."""
    return max(classes, key=CLASS_RANK.__getitem__, default="none")


def max_bump(bumps: list[str]) -> str:
    """The largest bump of a list ("none" for no changes)."""
    return max(bumps, key=BUMP_RANK.__getitem__, default="none")


def rules_table() -> str:
    """The rules as a Markdown table (docs/evolution.md embeds it; a test keeps them equal)."""
    rows = ["| code | change | class | least bump | required action | seed 001 rule |",
            "|---|---|---|---|---|---|"]
    for code, r in RULES.items():
        action = r.action.replace("{notice}", "a notice period").replace("|", "\\|")
        rows.append(f"| `{code}` | {r.title} | {r.cls} | {r.bump} | {action} | {r.seed} |")
    return "\n".join(rows) + "\n"
