"""`catalog:`, `calendar:` and `evolution:`."""

from __future__ import annotations

from tacit_gen.contract import names
from tacit_gen.contract.loader.base import (
    CALENDAR_KEYS,
    CATALOG_KEYS,
    COMPAT_MODES,
    EVOLUTION_KEYS,
    Ctx,
    check_keys,
    expect,
    name_list,
    parse_duration,
    pos_of,
    text_value,
)
from tacit_gen.contract.model import Calendar, Catalog, Evolution
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import close_matches


def load_catalog(ctx: Ctx, node: YNode) -> Catalog | None:
    if not expect(ctx, node, "map", "'catalog'"):
        return None
    check_keys(ctx, node, CATALOG_KEYS, "'catalog'")
    rel = text_value(ctx, node.get("relation"), "'catalog.relation'")
    if rel is None:
        ctx.error(node, "TG104", "'catalog' needs a 'relation'", "catalog")
        return None
    vals = {k: text_value(ctx, node.get(k), f"'catalog.{k}'") for k in CATALOG_KEYS[1:]}
    for k, v in [("relation", rel), *vals.items()]:
        if v is None:
            continue
        problem = names.name_problem(v, f"'catalog.{k}'", names.RELATION if k == "relation" else names.IDENT)
        if problem is not None:
            ctx.error(node.get(k), "TG115", problem, v)
    defaults = Catalog(relation=rel, key="")
    return Catalog(
        relation=rel,
        key=vals["key"] or "",
        unit=vals["unit"] or defaults.unit,
        hard_min=vals["hard_min"] or defaults.hard_min,
        hard_max=vals["hard_max"] or defaults.hard_max,
        cadence=vals["cadence"] or defaults.cadence,
        pos=pos_of(node),
        calendar=vals["calendar"] or defaults.calendar,
        plausible_min=vals["plausible_min"] or defaults.plausible_min,
        plausible_max=vals["plausible_max"] or defaults.plausible_max,
    )


def load_calendar(ctx: Ctx, node: YNode) -> Calendar | None:
    if not expect(ctx, node, "map", "'calendar'"):
        return None
    check_keys(ctx, node, CALENDAR_KEYS, "'calendar'")
    vals = {k: text_value(ctx, node.get(k), f"'calendar.{k}'") for k in CALENDAR_KEYS}
    for k, v in vals.items():
        if v is None:
            continue
        problem = names.name_problem(v, f"'calendar.{k}'", names.RELATION if k == "relation" else names.IDENT)
        if problem is not None:
            ctx.error(node.get(k), "TG115", problem, v)
    d = Calendar()
    return Calendar(relation=vals["relation"] or d.relation, calendar=vals["calendar"] or d.calendar,
                    session=vals["session"] or d.session, open=vals["open"] or d.open,
                    close=vals["close"] or d.close, pos=pos_of(node))


def load_evolution(ctx: Ctx, node: YNode) -> Evolution:
    if not expect(ctx, node, "map", "'evolution'"):
        return Evolution()
    check_keys(ctx, node, EVOLUTION_KEYS, "'evolution'")
    mode = text_value(ctx, node.get("compatibility"), "'evolution.compatibility'") or "BACKWARD"
    if mode.upper() not in COMPAT_MODES:
        close = close_matches(mode.upper(), COMPAT_MODES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(node.get("compatibility"), "TG114", f"unknown compatibility mode '{mode}'{hint}", mode)
        mode = "BACKWARD"
    notice = None
    nnode = node.get("notice_period")
    ntext = text_value(ctx, nnode, "'evolution.notice_period'")
    if ntext is not None:
        parsed = parse_duration(ntext)
        if parsed is None:
            ctx.error(nnode, "TG106", f"notice period '{ntext}' is not a duration", ntext)
        else:
            notice = parsed[0]
    reserved = [r for r, _ in name_list(ctx, node.get("reserved"), "'evolution.reserved'")]
    return Evolution(compatibility=mode.upper(), notice_period=notice, reserved=tuple(reserved))
