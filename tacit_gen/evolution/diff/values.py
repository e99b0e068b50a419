"""Value rules: ranges, invariants and the catalog clauses."""

from __future__ import annotations

from typing import Any

from tacit_gen.evolution.diff.facts import (
    Diff,
    Side,
    canonical_expr,
    range_cmp,
    range_interval,
    top_line,
)
from tacit_gen.plan_types import Clause


def compare_ranges(d: Diff) -> None:
    old_by_new = {d.new_name(c): cl for c, cl in d.old.ranges.items()}
    names = [f.name for f in d.b.fields if f.name in old_by_new or f.name in d.new.ranges]
    for col in names:
        old_col = next((o for o in d.a.column_names if d.new_name(o) == col), None)
        if old_col is None:
            continue  # a new field: nothing old to tighten
        ro, rn = old_by_new.get(col), d.new.ranges.get(col)
        if ro is not None and rn is not None and ro.params_dict == {**rn.params_dict, "column": old_col}:
            if ro.text != rn.text and old_col == col:
                d.add("invariant.reworded", d.new.invariant_path(rn.text),
                      f"range of '{col}' reworded: '{ro.text}' -> '{rn.text}'", ro.line or 0, rn.line or 0)
            continue
        tighter, looser = range_cmp(ro, rn)
        if not tighter and not looser:
            continue
        before, after = range_interval(ro, col), range_interval(rn, col)
        path = d.new.invariant_path(rn.text) if rn is not None else d.old.invariant_path(ro.text if ro else "")
        ol = ro.line if ro is not None else None
        nl = rn.line if rn is not None else None
        if tighter:
            code = "range.added" if ro is None else "range.tightened"
            d.add(code, path, f"range of '{col}' tightened: {before} -> {after}; existing data may fail",
                  ol, nl)
        else:
            code = "range.removed" if rn is None else "range.widened"
            d.add(code, path, f"range of '{col}' widened: {before} -> {after}", ol, nl)


def compare_invariants(d: Diff) -> None:
    old = [(canonical_expr(cl, d.o2n), cl) for cl in d.old.invariants]
    new = [(canonical_expr(cl), cl) for cl in d.new.invariants]
    new_exprs = {e for e, _ in new}
    old_exprs = {e for e, _ in old}
    for e, cl in old:
        if e not in new_exprs:
            d.add("invariant.removed", d.old.invariant_path(cl.text),
                  f"invariant removed: '{cl.text}'", cl.line, None)
    for e, cl in new:
        if e not in old_exprs:
            d.add("invariant.added", d.new.invariant_path(cl.text),
                  f"invariant added: '{cl.text}'; existing rows may violate it", None, cl.line)
        else:
            ocl = next(o for oe, o in old if oe == e)
            if ocl.text != cl.text and canonical_expr(ocl) == e:  # not just a renamed column
                d.add("invariant.reworded", d.new.invariant_path(cl.text),
                      f"invariant reworded: '{ocl.text}' -> '{cl.text}'", ocl.line, cl.line)


def compare_catalog(d: Diff) -> None:
    def key(cl: Clause, mapping: dict[str, str]) -> str:
        k = f"{cl.kind}:{mapping.get(str(cl.param('column')), cl.param('column'))}"
        # a catalog unit's dimension: another dimension is another check (removed, then added)
        return f"{k}:{cl.param('dimension')}" if cl.kind == "catalog_dimension" else k

    def path(side: Side, cl: Clause) -> str:
        if cl.kind == "catalog_dimension":
            return f"fields.{cl.param('column')}.dimension"
        return side.invariant_path(cl.text)

    old = {key(cl, d.o2n): cl for cl in d.old.catalog.values()}
    new = {key(cl, {}): cl for cl in d.new.catalog.values()}
    for k, cl in old.items():
        if k not in new:
            d.add("catalog_check.removed", path(d.old, cl),
                  f"catalog check removed: '{cl.text}'", cl.line, None)
    for k, cl in new.items():
        if k not in old:
            d.add("catalog_check.added", path(d.new, cl),
                  f"catalog check added: '{cl.text}'; existing rows may violate it", None, cl.line)
    ca, cb = d.a.catalog, d.b.catalog
    if ca != cb:
        def show(c: Any) -> str:
            if c is None:
                return "none (default series_catalog)"
            return (f"{c.relation} (key {c.key or 'series key'}, unit {c.unit}, bounds {c.hard_min}/"
                    f"{c.hard_max}, cadence {c.cadence}, plausible {c.plausible_min}/{c.plausible_max})")

        d.add("catalog.changed", "catalog", f"catalog changed: {show(ca)} -> {show(cb)}",
              top_line(d.a, "catalog"), top_line(d.b, "catalog"))
    if d.a.calendar != d.b.calendar:
        def cshow(c: Any) -> str:
            if c is None:
                return "none (default trading_sessions)"
            return f"{c.relation} ({c.calendar}, {c.session}, {c.open}, {c.close})"

        d.add("calendar.changed", "calendar",
              f"sessions relation changed: {cshow(d.a.calendar)} -> {cshow(d.b.calendar)}",
              top_line(d.a, "calendar"), top_line(d.b, "calendar"))
