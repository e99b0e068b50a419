"""Provenance, target options and documentation."""

from __future__ import annotations

from tacit_gen.evolution.diff.facts import Diff, top_line


def compare_provenance(d: Diff) -> None:
    pa = tuple(d.new_name(p) for p in d.a.provenance_required)
    if pa != d.b.provenance_required:
        d.add("provenance.changed", "provenance_required",
              f"provenance columns: [{', '.join(d.a.provenance_required)}] -> "
              f"[{', '.join(d.b.provenance_required)}]",
              d.a.provenance_pos.line or None, d.b.provenance_pos.line or None)


def _name_option(target: str) -> str | None:
    """The option naming the target's artifact (`model`, `dataset`...), from the target itself."""
    from tacit_gen import registry

    try:
        return registry.get(target).artifact_name_option
    except KeyError:  # a target this installation does not have: its options are just options
        return None


def compare_targets(d: Diff) -> None:
    ta, tb = dict(d.a.targets), dict(d.b.targets)
    ol, nl = top_line(d.a, "targets"), top_line(d.b, "targets")
    for target in sorted(set(ta) | set(tb)):
        oa, ob = dict(ta.get(target, ())), dict(tb.get(target, ()))
        if oa == ob:
            continue
        name_key = _name_option(target)
        if name_key is not None and oa.get(name_key) != ob.get(name_key):
            k = name_key
            d.add("targets.renamed", f"targets.{target}.{k}",
                  f"{target} {k} renamed: {oa.get(k) or '(default)'} -> {ob.get(k) or '(default)'}",
                  ol, nl)
        others = sorted(k for k in set(oa) | set(ob) if k != name_key and oa.get(k) != ob.get(k))
        for k in others:
            d.add("targets.changed", f"targets.{target}.{k}",
                  f"{target} option '{k}': {oa.get(k)!r} -> {ob.get(k)!r}", ol, nl)


def compare_docs(d: Diff) -> None:
    if d.a.source_system != d.b.source_system:
        d.add("doc.changed", "source", f"source changed: {d.a.source_system!r} -> {d.b.source_system!r}",
              top_line(d.a, "source"), top_line(d.b, "source"))
    for attr in ("owner", "description"):
        if getattr(d.a, attr) != getattr(d.b, attr):
            d.add("doc.changed", attr, f"{attr} changed: {getattr(d.a, attr)!r} -> {getattr(d.b, attr)!r}",
                  top_line(d.a, attr), top_line(d.b, attr))
    ma, mb = dict(d.a.meta), dict(d.b.meta)
    for k in sorted(set(ma) | set(mb)):
        if ma.get(k) != mb.get(k):
            d.add("doc.changed", k, f"metadata '{k}' changed", top_line(d.a, k), top_line(d.b, k))
