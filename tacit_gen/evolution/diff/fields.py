"""Fields and the key: added, removed, renamed (declared or likely), retyped, re-unit, nullability, patterns."""

from __future__ import annotations

import difflib

from tacit_gen.contract.model import Contract, Field
from tacit_gen.evolution.diff.facts import (
    Diff,
    field_line,
    same_unit,
    suggest_field_name,
    top_line,
    type_change,
    unit_factor,
    unit_text,
)


def _match_fields(d: Diff) -> tuple[list[Field], list[Field], list[tuple[Field, Field, str]]]:
    """(removed, added, renamed pairs (old, new, how)); renames fill `d.o2n`."""
    new_names = set(d.b.column_names)
    old_names = set(d.a.column_names)
    removed = [f for f in d.a.fields if f.name not in new_names]
    added = [f for f in d.b.fields if f.name not in old_names]
    pairs: list[tuple[Field, Field, str]] = []
    for nf in list(added):
        for alias in nf.aliases:
            of = next((f for f in removed if f.name == alias), None)
            if of is not None:
                pairs.append((of, nf, "aliases"))
                removed.remove(of)
                added.remove(nf)
                break
    # heuristic: same type and unit; best name similarity first
    def signature(f: Field) -> tuple[str, str | None]:
        return str(f.type), unit_text(f)

    candidates = []
    for of in removed:
        for nf in added:
            if signature(of) == signature(nf):
                ratio = difflib.SequenceMatcher(None, of.name, nf.name).ratio()
                candidates.append((-ratio, d.a.fields.index(of), d.b.fields.index(nf), of, nf))
    for neg_ratio, _, _, of, nf in sorted(candidates, key=lambda t: t[:3]):
        if of not in removed or nf not in added:
            continue
        same_sig_removed = [f for f in removed if signature(f) == signature(of)]
        same_sig_added = [f for f in added if signature(f) == signature(nf)]
        unique = len(same_sig_removed) == 1 and len(same_sig_added) == 1
        if unique or -neg_ratio >= 0.6:
            pairs.append((of, nf, "heuristic"))
            removed.remove(of)
            added.remove(nf)
    for of, nf, _ in pairs:
        d.o2n[of.name] = nf.name
    pairs.sort(key=lambda p: d.b.fields.index(p[1]))
    return removed, added, pairs


def compare_fields(d: Diff) -> None:
    removed, added, pairs = _match_fields(d)
    reserved = set(d.a.evolution.reserved) | set(d.b.evolution.reserved)
    for of in removed:
        if of.name in d.b.evolution.reserved:
            action = "major version; dual-write period before the removal"
        else:
            action = (f"major version; dual-write period, then list '{of.name}' in "
                      "evolution.reserved so the name is never reused")
        d.add("field.removed", f"fields.{of.name}", f"field '{of.name}' ({of.type}) removed; consumers "
              "that read it by name break", field_line(d.a, of), None, action=action)
    for of, nf, how in pairs:
        if how == "aliases":
            d.add("field.renamed", f"fields.{nf.name}",
                  f"field '{of.name}' renamed to '{nf.name}' (declared by aliases: [{', '.join(nf.aliases)}]); "
                  "new readers resolve old data through the alias, existing consumers reading "
                  f"'{of.name}' by name break", field_line(d.a, of), field_line(d.b, nf, "aliases"))
        else:
            d.add("field.renamed_possible", f"fields.{nf.name}",
                  f"field '{of.name}' removed and '{nf.name}' added with the same type ({nf.type}) and "
                  f"unit ({unit_text(nf) or 'none'}): possibly a rename, which breaks consumers reading "
                  f"'{of.name}'", field_line(d.a, of), field_line(d.b, nf),
                  action=f"major version; if it is a rename, declare 'aliases: [{of.name}]' on "
                  f"'{nf.name}' and dual-write both names for {d.notice}")
    for nf in added:
        line = field_line(d.b, nf)
        if nf.name in reserved:
            d.add("field.added_reserved", f"fields.{nf.name}",
                  f"field '{nf.name}' added, but the name is reserved (a removed field); reusing it "
                  "gives old data a new meaning", None, line)
        elif nf.nullable:
            d.add("field.added", f"fields.{nf.name}", f"nullable field '{nf.name}' ({nf.type}) added",
                  None, line)
        else:
            d.add("field.added_required", f"fields.{nf.name}",
                  f"required field '{nf.name}' ({nf.type}) added ({_never_null_reason(d.b, nf)}); "
                  "data written under the old version has no such column", None, line)
    for of in d.a.fields:
        both = d.b.field(d.new_name(of.name))
        if both is not None:
            _field_pair(d, of, both)
    # order of the fields both versions have
    old_order = [d.new_name(f.name) for f in d.a.fields if d.b.field(d.new_name(f.name))]
    new_order = [f.name for f in d.b.fields if f.name in old_order]
    if old_order != new_order:
        d.add("field.moved", "fields", "field order changed: " + ", ".join(new_order),
              top_line(d.a, "fields"), top_line(d.b, "fields"))


def _field_pair(d: Diff, of: Field, nf: Field) -> None:
    p = f"fields.{nf.name}"
    # type
    for code, why in type_change(of.type, nf.type):
        msg = f"type of '{nf.name}' changed: {why}"
        action = None
        if code == "field.type_changed":
            action = (f"major version; or add a new field (e.g. '{nf.name}_v2') beside '{nf.name}'")
        d.add(code, f"{p}.type", msg, field_line(d.a, of, "type"), field_line(d.b, nf, "type"),
              action=action)
    # unit
    uo, un = unit_text(of), unit_text(nf)
    if uo != un:
        if same_unit(uo, un):
            d.add("field.unit_respelled", f"{p}.unit", f"unit of '{nf.name}' respelled: {uo} -> {un} "
                  "(the same unit)", field_line(d.a, of, "unit"), field_line(d.b, nf, "unit"))
        else:
            suggestion = suggest_field_name(nf.name, un, d.b.column_names)
            detail = ""
            if uo is not None and un is not None:
                factor = unit_factor(uo, un)
                if factor is not None:
                    detail = f" (same dimension, {factor}: every value changes scale)"
            msg = (f"unit of '{nf.name}' changed from {uo or 'none'} to {un or 'none'}{detail}; a unit "
                   f"change is never a version bump on the same field: add '{suggestion}' beside "
                   f"'{nf.name}'")
            action = (f"new field name: add '{suggestion}' ({un or 'no unit'}) beside '{nf.name}' "
                      f"({uo or 'no unit'}) and keep writing both for {d.notice}; dropping "
                      f"'{nf.name}' later is a major version")
            d.add("field.unit_changed", f"{p}.unit", msg, field_line(d.a, of, "unit"),
                  field_line(d.b, nf, "unit"), action=action)
    elif of.dimension != nf.dimension:
        d.add("field.dimension_changed", f"{p}.dimension",
              f"dimension of '{nf.name}' changed: {of.dimension or 'none'} -> {nf.dimension or 'none'} "
              f"(unit unchanged: {un or 'none'})",
              field_line(d.a, of, "dimension"), field_line(d.b, nf, "dimension"))
    # fixed value
    if of.has_value and nf.has_value and of.value != nf.value:
        d.add("field.fixed_value_changed", f"{p}.value",
              f"fixed value of '{nf.name}' changed: {of.value!r} -> {nf.value!r}; every row changes",
              field_line(d.a, of, "value"), field_line(d.b, nf, "value"))
    elif nf.has_value and not of.has_value:
        d.add("field.fixed_value_added", f"{p}.value",
              f"'{nf.name}' now has the fixed value {nf.value!r}; existing rows with other values fail",
              field_line(d.a, of), field_line(d.b, nf, "value"))
    elif of.has_value and not nf.has_value:
        d.add("field.fixed_value_removed", f"{p}.value",
              f"'{nf.name}' no longer has a fixed value (was {of.value!r})",
              field_line(d.a, of, "value"), field_line(d.b, nf))
    # nullability (a fixed value added already says "never null")
    if of.nullable and not nf.nullable and not (nf.has_value and not of.has_value):
        d.add("field.nullability_tightened", f"{p}.nullable",
              f"'{nf.name}' is no longer nullable ({_never_null_reason(d.b, nf)}); existing null rows fail",
              field_line(d.a, of, "nullable"), field_line(d.b, nf, "nullable"))
    elif not of.nullable and nf.nullable:
        d.add("field.nullability_relaxed", f"{p}.nullable",
              f"'{nf.name}' may now be null (was never null: {_never_null_reason(d.a, of)})",
              field_line(d.a, of, "nullable"), field_line(d.b, nf, "nullable"))
    _pattern(d, of, nf, p)
    if of.references != nf.references:
        lines = field_line(d.a, of, "references"), field_line(d.b, nf, "references")
        old_ref = ".".join(of.references) if of.references else ""
        new_ref = ".".join(nf.references) if nf.references else ""
        if not old_ref:
            d.add("field.references_added", f"{p}.references",
                  f"'{nf.name}' must now be a value of {new_ref}", *lines)
        elif not new_ref:
            d.add("field.references_removed", f"{p}.references",
                  f"'{nf.name}' no longer references {old_ref}", *lines)
        else:
            d.add("field.references_changed", f"{p}.references",
                  f"'{nf.name}' references {new_ref} (was {old_ref})", *lines)
    if of.plausible != nf.plausible:
        lines = field_line(d.a, of, "plausible"), field_line(d.b, nf, "plausible")
        if nf.plausible is not None:
            d.add("field.plausible_added", f"{p}.plausible",
                  f"'{nf.name}' warns outside its series' plausible bounds (from the catalog); "
                  "a warning, never a failure", *lines)
        else:
            d.add("field.plausible_removed", f"{p}.plausible",
                  f"'{nf.name}' no longer warns outside its plausible bounds", *lines)
    # documentation
    for attr in ("description", "note"):
        if getattr(of, attr) != getattr(nf, attr):
            d.add("field.doc_changed", f"{p}.{attr}", f"{attr} of '{nf.name}' changed",
                  field_line(d.a, of, attr), field_line(d.b, nf, attr))
    if (of.lint_allow, of.lint_reason) != (nf.lint_allow, nf.lint_reason):
        d.add("field.doc_changed", f"{p}.lint", f"lint waiver of '{nf.name}' changed",
              field_line(d.a, of, "lint"), field_line(d.b, nf, "lint"))
    if of.meta != nf.meta:
        d.add("field.doc_changed", p, f"x-* metadata of '{nf.name}' changed",
              field_line(d.a, of), field_line(d.b, nf))
    if of.aliases != nf.aliases and not (of.name != nf.name and of.name in nf.aliases):
        d.add("field.aliases_changed", f"{p}.aliases",
              f"aliases of '{nf.name}': [{', '.join(of.aliases)}] -> [{', '.join(nf.aliases)}]",
              field_line(d.a, of, "aliases"), field_line(d.b, nf, "aliases"))


def _pattern(d: Diff, of: Field, nf: Field, p: str) -> None:
    """A tighter pattern (fewer values match, or not provably more) is breaking; a looser one is
    with notice; the same set of values (respelled, anchors added) is a patch."""
    from tacit_gen.sql.pattern import includes, normalize

    if of.pattern == nf.pattern:
        return
    lines = field_line(d.a, of, "pattern"), field_line(d.b, nf, "pattern")
    if of.pattern is None:
        d.add("field.pattern_added", f"{p}.pattern", f"'{nf.name}' must now match {nf.pattern}", *lines)
        return
    if nf.pattern is None:
        d.add("field.pattern_removed", f"{p}.pattern", f"'{nf.name}' no longer has a pattern "
              f"(was {of.pattern})", *lines)
        return
    ob, nb = normalize(of.pattern), normalize(nf.pattern)
    wider = includes(nb, ob)  # every old value still matches
    narrower = includes(ob, nb)
    change = f"pattern of '{nf.name}': {of.pattern} -> {nf.pattern}"
    if wider and narrower:
        d.add("field.pattern_respelled", f"{p}.pattern", change + " (the same values match)", *lines)
    elif wider:
        d.add("field.pattern_widened", f"{p}.pattern", change + " (every old value still matches)", *lines)
    else:
        why = "fewer values match" if narrower else "some old values no longer match"
        if wider is None or narrower is None:
            why = "cannot prove every old value still matches"
        d.add("field.pattern_tightened", f"{p}.pattern", f"{change} ({why})", *lines)


def compare_key(d: Diff) -> None:
    old_key = tuple(d.new_name(k) for k in d.a.key)
    if old_key == d.b.key:
        return
    ol, nl = d.a.key_pos.line or None, d.b.key_pos.line or None
    if set(old_key) == set(d.b.key) and len(old_key) == len(d.b.key):
        d.add("key.reordered", "key", f"key columns reordered: [{', '.join(d.a.key)}] -> "
              f"[{', '.join(d.b.key)}]", ol, nl)
        return
    d.add("key.changed", "key", f"natural key changed: [{', '.join(d.a.key)}] -> [{', '.join(d.b.key)}]; "
          "the same rows now mean different things", ol, nl,
          action=f"new dataset: publish '{d.b.name}' under a new contract name (e.g. '{d.b.name}_v2') "
          "beside the old one and migrate consumers")


def _never_null_reason(c: Contract, f: Field) -> str:
    if f.has_value:
        return "it has a fixed value"
    if f.name in c.key:
        return "it is a key column"
    if c.time is not None and f.name == c.time.column:
        return "it is the time column"
    if f.name in c.provenance_required:
        return "it is a provenance column"
    return "nullable: false"
