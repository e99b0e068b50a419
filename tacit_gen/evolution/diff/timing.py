"""The time section: the time column, timezone, calendar, cadence, completeness and freshness."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tacit_gen.contract.model import Cadence, Completeness, Contract, Duration
from tacit_gen.evolution.diff.facts import Diff, timezone_of


def _tline(c: Contract, key: str) -> int | None:
    if c.time is None:
        return None
    lines = dict(c.time.lines)
    return lines.get(key, c.time.pos.line)


def compare_time(d: Diff) -> None:
    ta, tb = d.a.time, d.b.time
    col_a = d.new_name(ta.column) if ta is not None else None
    col_b = tb.column if tb is not None else None
    if col_a != col_b:
        d.add("time.column_changed", "time.column",
              f"time column changed: {ta.column if ta else 'none'} -> {col_b or 'none'}",
              _tline(d.a, "column"), _tline(d.b, "column"))
    _completeness(d, ta.completeness if ta else None, tb.completeness if tb else None)
    if ta is None or tb is None:
        _cadence(d, ta.cadence if ta else None, tb.cadence if tb else None)
        _freshness(d, ta.freshness if ta else None, tb.freshness if tb else None)
        return
    if timezone_of(d.a) != timezone_of(d.b):
        d.add("time.timezone_changed", "time.timezone",
              f"timezone convention changed: '{timezone_of(d.a)}' -> '{timezone_of(d.b)}'",
              _tline(d.a, "timezone"), _tline(d.b, "timezone"))
    if ta.precision != tb.precision:
        fa, fb = d.a.field(ta.column), d.b.field(tb.column)
        if fa is None or fb is None or str(fa.type) == str(fb.type):
            d.add("time.precision_changed", "time.precision",
                  f"declared time precision changed: {ta.precision or 'none'} -> {tb.precision or 'none'}",
                  _tline(d.a, "precision"), _tline(d.b, "precision"))
    _cadence(d, ta.cadence, tb.cadence)
    _calendar(d, ta, tb)
    _freshness(d, ta.freshness, tb.freshness)
    ia = d.new_name(ta.ingest_column) if ta.ingest_column else None
    if ia != tb.ingest_column:
        d.add("time.ingest_column_changed", "time.ingest_column",
              f"ingest column changed: {ta.ingest_column or 'none'} -> {tb.ingest_column or 'none'}",
              _tline(d.a, "ingest_column"), _tline(d.b, "ingest_column"))


def _calendar(d: Diff, ta: Any, tb: Any) -> None:
    def show(t: Any) -> str:
        cal = "per series from catalog" if t.calendar_from_catalog else (t.calendar or "none")
        mode = t.cadence.sessions if t.cadence is not None and t.cadence.sessions else "no sessions"
        return f"calendar {cal}, cadence {mode}"

    if show(ta) != show(tb):
        d.add("time.calendar_changed", "time.calendar",
              f"{show(ta)} -> {show(tb)}; bars outside sessions, holidays and trading days are "
              "judged differently", _tline(d.a, "calendar"), _tline(d.b, "calendar"))


def _cadence_text(c: Cadence) -> str:
    if c.from_catalog:
        return "per series from catalog"
    return c.interval.text if c.interval else "none"


def _cadence(d: Diff, ca: Cadence | None, cb: Cadence | None) -> None:
    ol, nl = _tline(d.a, "cadence"), _tline(d.b, "cadence")
    if ca is None and cb is None:
        return
    if ca is None:
        assert cb is not None
        d.add("time.cadence_added", "time.cadence", f"cadence added: {_cadence_text(cb)}; existing "
              "series may have gaps or off-grid points", None, nl)
        return
    if cb is None:
        d.add("time.cadence_removed", "time.cadence",
              f"cadence removed (was {_cadence_text(ca)}); spacing is no longer checked", ol, None)
        return
    ia = ca.interval.seconds if ca.interval else None
    ib = cb.interval.seconds if cb.interval else None
    if ca.from_catalog != cb.from_catalog or ia != ib:
        d.add("time.cadence_changed", "time.cadence",
              f"cadence changed: {_cadence_text(ca)} -> {_cadence_text(cb)}", ol, nl)
    ta, tb = Decimal(ca.tolerance_pct), Decimal(cb.tolerance_pct)
    if tb > ta:
        d.add("time.cadence_relaxed", "time.cadence", f"cadence tolerance widened: +/-{ca.tolerance_pct}% "
              f"-> +/-{cb.tolerance_pct}%", ol, nl)
    elif tb < ta:
        d.add("time.cadence_tightened", "time.cadence", f"cadence tolerance narrowed: "
              f"+/-{ca.tolerance_pct}% -> +/-{cb.tolerance_pct}%; existing points may fall off the grid",
              ol, nl)
    if cb.gaps_allowed and not ca.gaps_allowed:
        d.add("time.cadence_relaxed", "time.cadence", "gaps are now allowed", ol, nl)
    elif ca.gaps_allowed and not cb.gaps_allowed:
        d.add("time.cadence_tightened", "time.cadence", "gaps are no longer allowed; existing series "
              "with gaps fail", ol, nl)
    if ca.note != cb.note:
        d.add("time.cadence_note_changed", "time.cadence",
              f"cadence note changed: '{ca.note or ''}' -> '{cb.note or ''}'", ol, nl)


def _completeness(d: Diff, ca: Completeness | None, cb: Completeness | None) -> None:
    """More readings expected (count or share) or a gap type no longer allowed: breaking; fewer
    expected or a gap type newly allowed: with notice; another window: breaking."""
    ol, nl = _tline(d.a, "completeness"), _tline(d.b, "completeness")
    if ca is None or cb is None:
        if cb is not None:
            d.add("time.completeness_added", "time.completeness", f"completeness added: {cb.text}; "
                  "existing series may have short windows", None, nl)
        elif ca is not None:
            d.add("time.completeness_removed", "time.completeness",
                  f"completeness removed (was {ca.text}); readings per window are no longer counted",
                  ol, None)
        return
    wa = ca.window.seconds if ca.window else None
    wb = cb.window.seconds if cb.window else None
    if wa != wb:
        d.add("time.completeness_changed", "time.completeness",
              f"completeness window changed: {ca.text} -> {cb.text}", ol, nl)
        return
    need_a, need_b = ca.expected * Decimal(ca.min_pct), cb.expected * Decimal(cb.min_pct)
    change = f"{ca.expected} at {ca.min_pct}% -> {cb.expected} at {cb.min_pct}%"
    if need_b > need_a:
        d.add("time.completeness_tightened", "time.completeness",
              f"more readings expected per window: {change}", ol, nl)
    elif need_b < need_a:
        d.add("time.completeness_relaxed", "time.completeness",
              f"fewer readings expected per window: {change}", ol, nl)
    dropped = sorted(set(ca.allowed_gaps) - set(cb.allowed_gaps))
    added = sorted(set(cb.allowed_gaps) - set(ca.allowed_gaps))
    if dropped:
        d.add("time.completeness_tightened", "time.completeness",
              "gap type(s) no longer allowed: " + ", ".join(dropped), ol, nl)
    if added:
        d.add("time.completeness_relaxed", "time.completeness",
              "gap type(s) now allowed: " + ", ".join(added), ol, nl)


def _freshness(d: Diff, fa: Duration | None, fb: Duration | None) -> None:
    ol, nl = _tline(d.a, "freshness"), _tline(d.b, "freshness")
    if fa is None and fb is None:
        return
    if fa is None:
        assert fb is not None
        d.add("time.freshness_tightened", "time.freshness", f"freshness promise added: {fb.text}", None, nl)
    elif fb is None:
        d.add("time.freshness_loosened", "time.freshness", f"freshness promise removed (was {fa.text})",
              ol, None)
    elif fb.seconds < fa.seconds:
        d.add("time.freshness_tightened", "time.freshness", f"freshness tightened: {fa.text} -> {fb.text}",
              ol, nl)
    elif fb.seconds > fa.seconds:
        d.add("time.freshness_loosened", "time.freshness", f"freshness loosened: {fa.text} -> {fb.text}",
              ol, nl)
