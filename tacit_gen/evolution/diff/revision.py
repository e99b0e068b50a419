"""The revision policy and the evolution section (compatibility mode, notice period, reserved names)."""

from __future__ import annotations

from tacit_gen.contract.model import Contract, RevisionPolicy
from tacit_gen.evolution.diff.facts import Diff, duration_seconds, top_line

_MODE_STRENGTH = {
    "NONE": (0, 0), "BACKWARD": (1, 0), "FORWARD": (1, 0), "FULL": (2, 0),
    "BACKWARD_TRANSITIVE": (1, 1), "FORWARD_TRANSITIVE": (1, 1), "FULL_TRANSITIVE": (2, 1),
}


def _mode_covers(new: str, old: str) -> bool:
    """Whether mode `new` promises at least what `old` did."""
    if new == old:
        return True
    dirs = {"NONE": set(), "BACKWARD": {"b"}, "FORWARD": {"f"}, "FULL": {"b", "f"}}
    base_n, base_o = new.replace("_TRANSITIVE", ""), old.replace("_TRANSITIVE", "")
    return dirs[base_n] >= dirs[base_o] and _MODE_STRENGTH[new][1] >= _MODE_STRENGTH[old][1]


def revision_policy_or_default(c: Contract) -> RevisionPolicy:
    return c.revision_policy if c.revision_policy is not None else RevisionPolicy(allowed=True)


def compare_revision(d: Diff) -> None:
    ra, rb = revision_policy_or_default(d.a), revision_policy_or_default(d.b)
    ola = d.a.revision_policy.pos.line if d.a.revision_policy else None
    nla = d.b.revision_policy.pos.line if d.b.revision_policy else None

    def line(c: Contract, base: int | None, key: str) -> int | None:
        return (c.positions.line("revision_policy", key) or base) if base else None

    def add(code: str, key: str, msg: str) -> None:
        d.add(code, f"revision_policy.{key}", msg, line(d.a, ola, key), line(d.b, nla, key))

    if ra.allowed and not rb.allowed:
        add("revision.tightened", "allowed", "revisions are no longer allowed; existing restated rows fail")
    elif rb.allowed and not ra.allowed:
        add("revision.relaxed", "allowed", "revisions are now allowed: points may be restated")
    if ra.allowed and rb.allowed:
        wa, wb = ra.window, rb.window
        if wa is None and wb is not None:
            add("revision.tightened", "window", f"revision window added: {wb.text} (was unbounded)")
        elif wa is not None and wb is None:
            add("revision.relaxed", "window", f"revision window removed (was {wa.text}): restatements "
                "may come at any time")
        elif wa is not None and wb is not None and wa.text != wb.text:
            sa, sb = duration_seconds(wa), duration_seconds(wb)
            if sb < sa:
                add("revision.tightened", "window", f"revision window shortened: {wa.text} -> {wb.text}")
            elif sb > sa:
                add("revision.relaxed", "window", f"revision window lengthened: {wa.text} -> {wb.text}")
            else:
                add("revision.doc_changed", "window", f"revision window respelled: {wa.text} -> {wb.text}")
    added = [r for r in rb.reasons if r not in ra.reasons]
    removed = [r for r in ra.reasons if r not in rb.reasons]
    if added:
        add("revision.relaxed", "reasons", "revision reasons added: " + ", ".join(added))
    if removed:
        add("revision.tightened", "reasons", "revision reasons removed: " + ", ".join(removed))
    if ra.notification != rb.notification:
        add("revision.notification_changed", "notification",
            f"revision notification changed: {ra.notification or 'none'} -> {rb.notification or 'none'}")
    if ra.by and not rb.by:
        add("revision.relaxed", "by", "who may restate is no longer checked (was " + ", ".join(ra.by) + ")")
    elif rb.by and not ra.by:
        add("revision.tightened", "by", "only " + ", ".join(rb.by) + " may restate now")
    else:
        if [b for b in rb.by if b not in ra.by]:
            add("revision.relaxed", "by", "may now also restate: " + ", ".join(b for b in rb.by if b not in ra.by))
        if [b for b in ra.by if b not in rb.by]:
            add("revision.tightened", "by", "may no longer restate: " + ", ".join(b for b in ra.by if b not in rb.by))
    if ra.by_column != rb.by_column:
        add("revision.tightened", "by_column", f"who restated is read from another column: "
            f"{ra.by_column or 'default'} -> {rb.by_column or 'default'}")
    for attr in ("note",):
        if getattr(ra, attr) != getattr(rb, attr):
            add("revision.doc_changed", attr, f"revision policy '{attr}' changed")


def compare_evolution(d: Diff) -> None:
    ea, eb = d.a.evolution, d.b.evolution
    ta, tb = top_line(d.a, "evolution"), top_line(d.b, "evolution")

    def add(code: str, key: str, msg: str) -> None:
        ol = (d.a.positions.line("evolution", key) or ta) if ta else None
        nl = (d.b.positions.line("evolution", key) or tb) if tb else None
        d.add(code, f"evolution.{key}", msg, ol, nl)

    if ea.compatibility != eb.compatibility:
        covers = _mode_covers(eb.compatibility, ea.compatibility)
        msg = f"compatibility mode changed: {ea.compatibility} -> {eb.compatibility}"
        if covers:
            add("evolution.compatibility_strengthened", "compatibility", msg + " (a stronger promise)")
        else:
            add("evolution.compatibility_changed", "compatibility", msg + " (a weaker promise)")
    pa, pb = ea.notice_period, eb.notice_period
    if (pa.text if pa else None) != (pb.text if pb else None):
        if pb is None or (pa is not None and duration_seconds(pb) < duration_seconds(pa)):
            add("evolution.notice_period_shortened", "notice_period",
                f"notice period shortened: {pa.text if pa else 'none'} -> {pb.text if pb else 'none'}")
        else:
            add("evolution.notice_period_changed", "notice_period",
                f"notice period: {pa.text if pa else 'none'} -> {pb.text}")
    gone = [r for r in ea.reserved if r not in eb.reserved]
    new = [r for r in eb.reserved if r not in ea.reserved]
    if gone:
        add("evolution.unreserved", "reserved", "reserved names released: " + ", ".join(gone))
    if new:
        add("evolution.reserved_changed", "reserved", "names reserved: " + ", ".join(new))
