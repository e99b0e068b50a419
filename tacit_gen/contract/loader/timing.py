"""The `time:` section: column, precision, timezone, calendar, cadence, completeness, freshness."""

from __future__ import annotations

import re

from tacit_gen.contract.loader.base import (
    PER_SERIES_CALENDAR,
    TIME_KEYS,
    Ctx,
    check_keys,
    expect,
    misspelled,
    parse_duration,
    pos_of,
    text_value,
)
from tacit_gen.contract.model import Cadence, Completeness, TimeSpec
from tacit_gen.contract.yamlpos import YNode
from tacit_gen.diagnostics import close_matches

_WITHIN_SESSION = re.compile(r"^within\s+sessions?$", re.I)
_NO_OUTSIDE = re.compile(r"^no\s+bars\s+outside\s+sessions?$", re.I)
_TOLERANCE = re.compile(r"^tolerance\s*(?:\+/-|±|\+-)\s*(\d+(?:\.\d+)?)\s*%(?:\s*of\s*interval)?$", re.I)
_GAPS = re.compile(r"^gaps\s+(allowed|forbidden|not\s+allowed)$", re.I)


def load_time(ctx: Ctx, node: YNode) -> TimeSpec | None:
    if not expect(ctx, node, "map", "'time'"):
        return None
    check_keys(ctx, node, TIME_KEYS, "'time'")
    col = text_value(ctx, node.get("column"), "'time.column'")
    if col is None:
        if not misspelled(ctx, node, "column"):
            ctx.error(node, "TG104", "'time' needs a 'column'", "time")
        return None
    lines: list[tuple[str, int]] = []
    texts: list[tuple[str, str]] = []
    for k, v in node.value:
        lines.append((str(k.value), k.line))
        texts.append((str(k.value), ctx.text_of(v, k)))
    precision = text_value(ctx, node.get("precision"), "'time.precision'")
    if precision is not None and precision not in ("s", "ms", "us", "ns"):
        pn = node.get("precision")
        ctx.error(pn, "TG114", f"time precision '{precision}' is not one of s, ms, us, ns", precision)
    tz_text = text_value(ctx, node.get("timezone"), "'time.timezone'") or "UTC instant"
    tz_main, _, tz_note = tz_text.partition(";")
    if tz_main.strip().lower() not in ("utc instant", "utc"):
        tzn = node.get("timezone")
        ctx.error(
            tzn,
            "TG114",
            f"timezone '{tz_main.strip()}' is not supported: times are UTC instants "
            "(write 'UTC instant', prose after ';')",
            tz_main.strip(),
        )
    calendar, calendar_from_catalog = _time_calendar(ctx, node.get("calendar"))
    cadence = None
    cnode = node.get("cadence")
    ctext = text_value(ctx, cnode, "'time.cadence'")
    if ctext is not None and cnode is not None:
        cadence = _parse_cadence(ctx, cnode, ctext)
    completeness = _time_completeness(ctx, node.get("completeness"), calendar, calendar_from_catalog)
    freshness = None
    fnode = node.get("freshness")
    ftext = text_value(ctx, fnode, "'time.freshness'")
    if ftext is not None and fnode is not None:
        parsed = parse_duration(ftext)
        if parsed is None or parsed[0].business_days is not None:
            ctx.error(fnode, "TG106", f"freshness '{ftext}' is not a duration such as 15m or 2h", ftext)
        else:
            freshness = parsed[0]
    return TimeSpec(
        column=col,
        precision=precision,
        timezone=tz_main.strip(),
        timezone_note=tz_note.strip() or None,
        cadence=cadence,
        freshness=freshness,
        ingest_column=text_value(ctx, node.get("ingest_column"), "'time.ingest_column'"),
        calendar=calendar,
        calendar_from_catalog=calendar_from_catalog,
        completeness=completeness,
        pos=pos_of(node),
        lines=tuple(lines),
        texts=tuple(texts),
    )


def _time_completeness(ctx: Ctx, node: YNode | None, calendar: str | None,
                       per_series_calendar: bool) -> Completeness | None:
    """`time.completeness` (tacit_gen.contract.completeness); `per session` needs a calendar."""
    from tacit_gen.contract.completeness import CompletenessSyntaxError, parse_completeness

    text = text_value(ctx, node, "'time.completeness'")
    if text is None or node is None:
        return None
    try:
        found = parse_completeness(text, parse_duration)
    except CompletenessSyntaxError as e:
        ctx.error(node, "TG106", str(e), e.word)
        return None
    if found.window is None and calendar is None and not per_series_calendar:
        ctx.error(node, "TG114", "completeness 'per session' needs time.calendar (the sessions are "
                  "the windows)", "session")
        return None
    return found


def _time_calendar(ctx: Ctx, node: YNode | None) -> tuple[str | None, bool]:
    """`time.calendar`: an exchange_calendars code, or `per series from catalog`."""
    from tacit_gen.semantics.calendar import CALENDAR_CODES

    text = text_value(ctx, node, "'time.calendar'")
    if text is None or node is None:
        return None, False
    code = text.strip()
    if code.lower() == PER_SERIES_CALENDAR:
        return None, True
    if code not in CALENDAR_CODES:
        close = close_matches(code.upper(), CALENDAR_CODES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        ctx.error(node, "TG118", f"unknown exchange calendar '{code}'{hint} (a code exchange_calendars "
                  "knows, such as XNYS, XLON, XTKS; or 'per series from catalog')", code)
        return None, False
    return code, False


def _parse_cadence(ctx: Ctx, cnode: YNode, text: str) -> Cadence | None:
    parts = [p.strip() for p in text.split(";")]
    head = parts[0]
    notes: list[str] = []
    interval = None
    from_catalog = False
    sessions = None
    if head.lower().startswith("per series from catalog"):
        from_catalog = True
        rest = head[len("per series from catalog") :].strip()
    elif (daily := parse_duration(head)) is not None and daily[0].business_days is not None:
        if daily[0].business_days != 1 or not daily[0].trading:
            ctx.error(cnode, "TG106", f"cadence '{head}': the calendar cadence is '1 trading day' "
                      "(one bar per session)", head.split()[0])
            return None
        sessions, rest = "trading_day", daily[1]
    else:
        parsed = parse_duration(head)
        if parsed is None or parsed[0].business_days is not None:
            ctx.error(
                cnode,
                "TG106",
                f"cadence '{head}' does not start with a duration such as 60s, or "
                "'per series from catalog'",
                head.split()[0] if head.split() else head,
            )
            return None
        interval, rest = parsed
    if rest and _WITHIN_SESSION.match(rest):
        sessions = "within"  # kept in the note too: without a calendar it is only a note
    if rest:
        notes.append(rest)
    tolerance = "0"
    gaps = False
    for p in parts[1:]:
        if not p:
            continue
        m = _TOLERANCE.match(p)
        g = _GAPS.match(p)
        if _NO_OUTSIDE.match(p) or _WITHIN_SESSION.match(p):
            sessions = sessions or "within"
            notes.append(p)
        elif m and sessions == "trading_day":
            ctx.error(cnode, "TG114", f"'{p}': a '1 trading day' cadence has no interval to "
                      "tolerate (a bar stamps its session's date or open)", p)
        elif m:
            tolerance = m.group(1)
        elif g:
            gaps = g.group(1).lower() == "allowed"
        elif p.lower().startswith("tolerance"):
            ctx.error(cnode, "TG114", f"cannot read '{p}': write 'tolerance +/-N% of interval'", p)
        else:
            notes.append(p)
    return Cadence(
        interval=interval,
        from_catalog=from_catalog,
        tolerance_pct=tolerance,
        gaps_allowed=gaps,
        note="; ".join(notes) or None,
        text=text,
        sessions=sessions,
    )
