"""`revision_policy:` and `severity:`."""

from __future__ import annotations

from tacit_gen.contract.loader.base import (
    REVISION_KEYS,
    SEVERITY_KEYS,
    Ctx,
    bool_value,
    check_keys,
    expect,
    name_list,
    parse_duration,
    pos_of,
    text_value,
    value_offset,
)
from tacit_gen.contract.model import Pos, RevisionPolicy
from tacit_gen.contract.yamlpos import YNode


def load_revision(ctx: Ctx, knode: YNode, node: YNode) -> RevisionPolicy | None:
    if not expect(ctx, node, "map", "'revision_policy'"):
        return None
    check_keys(ctx, node, REVISION_KEYS, "'revision_policy'")
    allowed = bool_value(ctx, node.get("allowed"), "'revision_policy.allowed'")
    if allowed is None:
        if node.get("allowed") is None:
            ctx.error(knode, "TG104", "'revision_policy' needs 'allowed: true|false'", "revision_policy")
        allowed = True
    window = None
    wnode = node.get("window")
    wtext = text_value(ctx, wnode, "'revision_policy.window'")
    if wtext is not None and wnode is not None:
        parsed = parse_duration(wtext)
        if parsed is None:
            ctx.error(wnode, "TG106", f"window '{wtext}' is not a duration such as 2 days or 5 trading days", wtext)
        else:
            window = parsed[0]
    reasons = [r for r, _ in name_list(ctx, node.get("reasons"), "'revision_policy.reasons'")]
    bnode = node.get("by")
    by: list[str] = []
    if bnode is not None and bnode.kind == "scalar":
        one = text_value(ctx, bnode, "'revision_policy.by'")
        by = [one] if one else []
    elif bnode is not None:
        by = [b for b, _ in name_list(ctx, bnode, "'revision_policy.by'")]
    by_column = text_value(ctx, node.get("by_column"), "'revision_policy.by_column'")
    return RevisionPolicy(
        allowed=allowed,
        window=window,
        reasons=tuple(reasons),
        notification=text_value(ctx, node.get("notification"), "'revision_policy.notification'"),
        by=tuple(by),
        by_column=by_column,
        note=text_value(ctx, node.get("note"), "'revision_policy.note'"),
        pos=pos_of(knode),
        text=ctx.text_of(node, knode),
    )


def load_severity(ctx: Ctx, node: YNode) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Pos], ...]]:
    """``severity: {warn: [<clause id>, ...]}``: the clauses whose violation is a warning. The
    shape is checked here; that each id names a clause of the plan is checked by the plan
    (`tacit_gen.plan.severity_problems`), with this position."""
    if not expect(ctx, node, "map", "'severity'"):
        return (), ()
    check_keys(ctx, node, SEVERITY_KEYS, "'severity'")
    levels: list[tuple[str, str]] = []
    where: list[tuple[str, Pos]] = []
    for cid, cn in name_list(ctx, node.get("warn"), "'severity.warn'"):
        cid = cid.strip()
        if any(cid == seen for seen, _ in levels):
            ctx.error(cn, "TG101", f"clause '{cid}' is listed twice in 'severity.warn'", cid)
            continue
        levels.append((cid, "warn"))
        where.append((cid, Pos(cn.line, cn.col + value_offset(cn))))
    return tuple(levels), tuple(where)
