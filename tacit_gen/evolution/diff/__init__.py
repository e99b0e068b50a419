"""`diff(old, new)`: every change between two versions of a contract, classified by seed 001's table.

The diff compares the typed model and the clause plan of both versions, never raw YAML, so a
reformatted file is not a change. Fields are matched by name, then through `aliases` (a declared
rename), then heuristically (a removed and an added field with the same type and unit: a possible
rename). Column references in keys, ranges and invariants are mapped through those renames before
comparing, so a rename is reported once, not once per clause that mentions the column.
"""

from __future__ import annotations

from tacit_gen.contract.model import Contract
from tacit_gen.evolution.diff.facts import (
    CATALOG_UNIT,
    Diff,
    Side,
    canonical_expr,
    duration_seconds,
    field_line,
    range_cmp,
    range_interval,
    rename_columns,
    same_unit,
    side_cmp,
    suggest_field_name,
    timezone_of,
    top_line,
    type_change,
    unit_factor,
    unit_suffix,
    unit_text,
)
from tacit_gen.evolution.diff.fields import compare_fields, compare_key
from tacit_gen.evolution.diff.revision import (
    compare_evolution,
    compare_revision,
    revision_policy_or_default,
)
from tacit_gen.evolution.diff.targets import compare_docs, compare_provenance, compare_targets
from tacit_gen.evolution.diff.timing import compare_time
from tacit_gen.evolution.diff.values import compare_catalog, compare_invariants, compare_ranges
from tacit_gen.evolution.report import DiffReport
from tacit_gen.evolution.semver import declared_bump
from tacit_gen.plan_types import Clause

__all__ = [
    "CATALOG_UNIT",
    "Side",
    "canonical_expr",
    "diff",
    "duration_seconds",
    "field_line",
    "range_cmp",
    "range_interval",
    "rename_columns",
    "revision_policy_or_default",
    "same_unit",
    "side_cmp",
    "suggest_field_name",
    "timezone_of",
    "top_line",
    "type_change",
    "unit_factor",
    "unit_suffix",
    "unit_text",
]


# ------------------------------------------------------------------------------------ diff
def diff(old: Contract, new: Contract) -> DiffReport:
    """Every change from `old` to `new`, classified, with the least bump and the declared one."""
    np = new.evolution.notice_period or old.evolution.notice_period
    notice = (f"a notice period of {np.text}" if np is not None
              else "a notice period (declare evolution.notice_period)")
    d = Diff(Side.of(old), Side.of(new), notice)
    _identity(d)
    compare_fields(d)
    compare_key(d)
    compare_time(d)
    compare_ranges(d)
    compare_invariants(d)
    compare_revision(d)
    compare_catalog(d)
    compare_evolution(d)
    compare_provenance(d)
    compare_targets(d)
    _severity(d)
    compare_docs(d)
    if not d.changes and _semantic(d.old.clauses) != _semantic(d.new.clauses):
        d.add("contract.unclassified", "contract", "the clause plans differ in a way no rule classifies",
              0, 0)
    return DiffReport(
        contract=new.name,
        old_version=old.version,
        new_version=new.version,
        old_path=old.path,
        new_path=new.path,
        changes=tuple(d.changes),
        declared_bump=declared_bump(old.version, new.version),
    )


def _severity(d: Diff) -> None:
    """A clause in both versions whose severity changed: error -> warn loosens (with notice),
    warn -> error is breaking (rows that only warned now fail)."""
    old = {c.id: c for c in d.old.clauses}
    where_a, where_b = dict(d.a.severity_pos), dict(d.b.severity_pos)
    for cl in d.new.clauses:
        before = old.get(cl.id)
        if before is None or before.severity == cl.severity:
            continue
        ol = where_a.get(cl.id)
        nl = where_b.get(cl.id)
        if cl.warn:
            d.add("severity.loosened", "severity.warn",
                  f"{cl.id} made severity: warn (violations are reported, no longer enforced)",
                  before.line or None, nl.line if nl else None)
        else:
            d.add("severity.tightened", "severity.warn",
                  f"{cl.id} is an error again (was severity: warn); existing data may fail",
                  ol.line if ol else None, cl.line or None)


def _semantic(clauses: tuple[Clause, ...]) -> list[str]:
    return sorted(repr((c.kind, c.columns, c.params)) for c in clauses)


def _identity(d: Diff) -> None:
    if d.a.name != d.b.name:
        d.add("contract.renamed", "contract", f"contract renamed from '{d.a.name}' to '{d.b.name}'",
              top_line(d.a, "contract"), top_line(d.b, "contract"))
