"""Contract -> ordered clauses with stable ids: the one semantic representation.

Every renderer, every drift reader and the runtime consume clauses, never the contract a second time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tacit_gen.contract.errors import ContractError
from tacit_gen.contract.model import Calendar, Catalog, Completeness, Contract
from tacit_gen.contract.semantics import resolve
from tacit_gen.diagnostics import Diagnostic, close_matches
from tacit_gen.expr import nodes as n
from tacit_gen.expr.bounds import Bounds, as_bounds
from tacit_gen.expr.printer import to_text
from tacit_gen.plan_types import ALWAYS_WARN, KINDS, NEVER_WARN, PRECISION_US, Clause, make_params
from tacit_gen.sql.pattern import normalize as normalize_pattern

__all__ = ["Clause", "calendar_params", "effective_catalog", "plan", "revision_by_column",
           "severity_problems",
           "unenforced"]

DEFAULT_CATALOG_RELATION = "series_catalog"


def effective_catalog(contract: Contract, key_column: str) -> Catalog:
    """The contract's catalog, or the documented default when it has no `catalog` section."""
    cat = contract.catalog
    if cat is None:
        return Catalog(relation=DEFAULT_CATALOG_RELATION, key=key_column, declared=False)
    if not cat.key:
        return replace(cat, key=key_column)
    return cat


def calendar_params(contract: Contract) -> dict[str, Any]:
    """The params naming the sessions a clause reads: the calendar's code (None when each series
    takes its own from the catalog), the sessions relation and its columns, and for a per-series
    calendar the catalog relation, key and calendar column. Empty without `time.calendar`."""
    t = contract.time
    if t is None or (t.calendar is None and not t.calendar_from_catalog):
        return {}
    cal = contract.calendar or Calendar(declared=False)
    out: dict[str, Any] = dict(
        calendar=t.calendar, sessions_relation=cal.relation, sessions_calendar=cal.calendar,
        sessions_session=cal.session, sessions_open=cal.open, sessions_close=cal.close)
    if t.calendar_from_catalog:
        series = contract.series_key
        cat = effective_catalog(contract, series[0] if series else "series_id")
        out.update(calendar_catalog=cat.relation, calendar_catalog_key=cat.key,
                   calendar_catalog_column=cat.calendar, calendar_series=series[0] if series else None)
    return out



def _clause(cid: str, kind: str, cols: tuple[str, ...], text: str, line: int,
            ast: n.Node | None = None, **params: Any) -> Clause:
    return Clause(cid, kind, cols, make_params(**params), text, line, ast)


def plan(contract: Contract) -> tuple[Clause, ...]:
    """The ordered clause plan of a loaded contract."""
    out: list[Clause] = []
    fields = contract.fields
    names = tuple(f.name for f in fields)
    time_col = contract.time.column if contract.time else None
    tlines = dict(contract.time.lines) if contract.time else {}
    ttexts = dict(contract.time.texts) if contract.time else {}

    for f in fields:
        unit = "per series from catalog" if f.unit_from_catalog else f.unit
        out.append(_clause(f"column:{f.name}", "column", (f.name,), f.text, f.pos.line,
                           column=f.name, type=str(f.type), unit=unit, dimension=f.dimension))
    first_line = fields[0].pos.line if fields else 0
    out.append(_clause("no_unknown_columns", "no_unknown_columns", names,
                       "fields: " + ", ".join(names), first_line - 1 if first_line > 1 else first_line,
                       columns=names))
    for f in fields:
        if f.nullable:
            continue
        explicit = "nullable: false" in f.text.replace("  ", " ")
        if explicit or f.has_value:
            text, line = f.text, f.pos.line
        elif f.name in contract.key:
            text, line = contract.key_text, contract.key_pos.line
        elif f.name == time_col:
            text, line = ttexts.get("column", f.text), tlines.get("column", f.pos.line)
        elif f.name in contract.provenance_required:
            text, line = contract.provenance_text, contract.provenance_pos.line
        else:
            text, line = f.text, f.pos.line
        out.append(_clause(f"not_null:{f.name}", "not_null", (f.name,), text, line, column=f.name))
    if contract.key:
        out.append(_clause("unique:" + ",".join(contract.key), "unique", contract.key,
                           contract.key_text, contract.key_pos.line, columns=contract.key))
    for f in fields:
        if f.type.kind == "enum":
            out.append(_clause(f"accepted_values:{f.name}", "accepted_values", (f.name,), f.text,
                               f.pos.line, column=f.name, values=f.type.values))
    rp = contract.revision_policy
    rr = contract.field("revision_reason")
    if rp is not None and rp.reasons and rr is not None and rr.type.kind != "enum":
        out.append(_clause("accepted_values:revision_reason", "accepted_values", ("revision_reason",),
                           rp.text, rp.pos.line, column="revision_reason", values=rp.reasons))
    for f in fields:
        if f.has_value:
            out.append(replace(_clause(f"fixed_value:{f.name}", "fixed_value", (f.name,), f.text,
                                       f.pos.line, column=f.name, value=f.value),
                               types=((f.name, str(f.type)),)))

    for f in fields:
        if f.pattern is not None:
            out.append(_clause(f"pattern:{f.name}", "pattern", (f.name,), f.text, f.pos.line,
                               column=f.name, pattern=normalize_pattern(f.pattern)))

    for f in fields:  # a foreign key: every non-null value is a value of to_relation.to_column
        if f.references is not None:
            out.append(_clause(f"references:{f.name}", "references", (f.name,), f.text, f.pos.line,
                               column=f.name, to_relation=f.references[0], to_column=f.references[1]))

    # invariants: ranges, catalog forms, the rest
    ranges: dict[str, Bounds] = {}
    invariants: list[Clause] = []
    catalog_clauses: list[Clause] = []
    seen: set[str] = set()
    rev = contract.field("revision")
    if rev is not None and "revision" in contract.provenance_required and rev.type.is_integer:
        r = Bounds("revision", min="0", texts=[contract.provenance_text], line=contract.provenance_pos.line)
        r.expr = n.Compare((n.Column("revision"), n.Number("0")), (">=",))
        ranges["revision"] = r
    for inv in contract.invariants:
        ast, problems = resolve(contract, inv.text)
        if ast is None or problems:
            continue  # the loader has reported these
        canon = to_text(ast)
        if canon in seen:
            continue
        seen.add(canon)
        if isinstance(ast, n.CatalogUnit | n.CatalogBounds):
            subject = to_text(ast.subject)
            key = to_text(ast.key)
            cat = effective_catalog(contract, key)
            if isinstance(ast, n.CatalogUnit):
                catalog_clauses.append(_clause(
                    f"catalog_unit:{subject}", "catalog_unit", (subject, key), inv.text, inv.pos.line, ast,
                    column=subject, key=key, relation=cat.relation, catalog_key=cat.key,
                    catalog_column=cat.unit))
            else:
                catalog_clauses.append(_clause(
                    f"catalog_bounds:{subject}", "catalog_bounds", (subject, key), inv.text, inv.pos.line,
                    ast, column=subject, key=key, relation=cat.relation, catalog_key=cat.key,
                    min_column=cat.hard_min, max_column=cat.hard_max, **_as_double(contract, subject)))
            continue
        found = as_bounds(ast)
        if found is not None:
            r = found
            r.texts = [inv.text]
            r.line = inv.pos.line
            r.expr = ast
            existing = ranges.get(r.column)
            if existing is None:
                ranges[r.column] = r
                continue
            if existing.merge(r):
                # the range's expression is every bound folded in, not the first one's: Soda 4
                # wrote an exclusive range's expression from it, and checked `z > 0` of
                # `z > 0` + `z < 10` alone (found 2026-12-04)
                existing.expr = n.And(existing.expr, ast) if existing.expr is not None else ast
                continue
        cols = n.columns(ast)
        kinds = {c: fc.type for c in cols if (fc := contract.field(c)) is not None}
        invariants.append(replace(
            _clause(f"invariant:{inv.text}", "invariant", cols, inv.text, inv.pos.line, ast, expr=canon),
            integers=frozenset(c for c, t in kinds.items() if t.is_integer),
            strings=frozenset(c for c, t in kinds.items() if t.is_textual),
            types=tuple((c, str(t)) for c, t in kinds.items())))
    order = {name: i for i, name in enumerate(names)}
    for col in sorted(ranges, key=lambda c: order.get(c, len(order))):
        r = ranges[col]
        fc = contract.field(col)
        out.append(replace(
            _clause(f"range:{col}", "range", (col,), "; ".join(r.texts), r.line, r.expr,
                    column=col, min=r.min, max=r.max, min_inclusive=r.min_inclusive,
                    max_inclusive=r.max_inclusive),
            types=((col, str(fc.type)),) if fc is not None else ()))
    out.extend(invariants)

    t = contract.time
    tf_ = contract.field(t.column) if t is not None else None
    if (t is not None and t.precision in PRECISION_US and tf_ is not None
            and tf_.type.kind == "timestamp"):
        out.append(_clause(f"precision:{t.column}", "precision", (t.column,),
                           ttexts.get("precision", ""), tlines.get("precision", 0),
                           column=t.column, precision=t.precision))
    if t is not None and t.freshness is not None:
        tf = contract.field(t.column)
        # a date column: age in whole days against the UTC date of "now" (only then the param)
        dated: dict[str, Any] = {"whole_days": True} if tf is not None and tf.type.kind == "date" else {}
        out.append(_clause(f"freshness:{t.column}", "freshness", (t.column,),
                           ttexts.get("freshness", ""), tlines.get("freshness", 0),
                           column=t.column, max_age_seconds=t.freshness.seconds, **dated))
    if t is not None and t.cadence is not None:
        c = t.cadence
        series = contract.series_key
        extra: dict[str, Any] = {}
        if c.from_catalog:
            cat = effective_catalog(contract, series[0] if series else "series_id")
            extra = dict(relation=cat.relation, catalog_key=cat.key, catalog_column=cat.cadence)
        cal = calendar_params(contract)
        if c.sessions == "trading_day" or (c.sessions and cal):
            # `1 trading day` counts Monday to Friday without a calendar (lint TG219);
            # `within session` without one stays a note (lint TG221)
            extra.update(sessions=c.sessions, **cal)
        out.append(_clause(f"cadence:{t.column}", "cadence", (t.column, *series),
                           ttexts.get("cadence", c.text), tlines.get("cadence", 0),
                           column=t.column, series=series,
                           interval_seconds=c.interval.seconds if c.interval else None,
                           from_catalog=c.from_catalog, tolerance_pct=c.tolerance_pct,
                           gaps_allowed=c.gaps_allowed, **extra))
    if t is not None and t.completeness is not None:
        out.append(completeness_clause(contract, t.completeness, ttexts.get("completeness", ""),
                                       tlines.get("completeness", 0)))
    out.extend(catalog_clauses)
    out.extend(_plausible(contract))
    out.extend(_catalog_dimensions(contract))
    if rp is not None and contract.field("revision") is not None:
        ingest = t.ingest_column if t is not None else None
        windowed = rp.window is not None and ingest is not None
        if not rp.allowed or windowed:
            w = rp.window
            sessions = (calendar_params(contract) if w is not None and w.trading and windowed
                        and rp.allowed else {})
            out.append(_clause(
                "revision_window", "revision_window",
                tuple(c for c in ("revision", time_col, ingest) if c), rp.text, rp.pos.line,
                column="revision", time_column=time_col, ingest_column=ingest,
                allowed=rp.allowed,
                window_seconds=(w.seconds if w is not None and w.business_days is None and windowed else None),
                business_days=(w.business_days if w is not None and windowed else None),
                **sessions))
    by_col = revision_by_column(contract)
    if rp is not None and rp.by and by_col is not None and contract.field("revision") is not None:
        out.append(_clause(f"revision_by:{by_col}", "revision_by", ("revision", by_col), rp.text,
                           rp.pos.line, column=by_col, revision_column="revision", values=rp.by))
    rank = {k: i for i, k in enumerate(KINDS)}
    ordered = tuple(sorted(out, key=lambda c: rank[c.kind]))  # stable: source order within a kind
    return _with_severity(contract, ordered)


def _plausible(contract: Contract) -> list[Clause]:
    """`plausible: catalog` on a field: the catalog's plausible bounds of the row's series, joined
    as catalog_bounds joins (same params), a warning by construction (``ALWAYS_WARN``)."""
    out: list[Clause] = []
    series = contract.series_key
    if len(series) != 1:
        return out  # the loader has reported it
    for f in contract.fields:
        if f.plausible != "catalog":
            continue
        cat = effective_catalog(contract, series[0])
        out.append(replace(_clause(
            f"plausible:{f.name}", "plausible", (f.name, series[0]), f.text, f.pos.line,
            column=f.name, key=series[0], relation=cat.relation, catalog_key=cat.key,
            min_column=cat.plausible_min, max_column=cat.plausible_max, **_as_double(contract, f.name)),
            severity="warn"))
    return out


def _as_double(contract: Contract, subject: str) -> dict[str, Any]:
    """``as_double=True`` for a catalog clause whose subject is float32: it is compared with the
    catalog's bounds as the double it holds (`Clause.singles`); DuckDB compares a FLOAT with a
    DECIMAL bound in float32, so a stored 0.1 was within a bound of 0.1 there and not in pandera
    (found 2026-12-04). Nothing for any other type: their clauses are as they were."""
    f = contract.field(subject)
    return {"as_double": True} if f is not None and f.type.kind == "float32" else {}


def _catalog_dimensions(contract: Contract) -> list[Clause]:
    """`catalog_dimension:<f>` for a field whose unit comes per series from the catalog under a
    stated dimension: each series' catalog unit must be one of the unit table's spellings of it."""
    from tacit_gen.contract.units import units_of_dimension

    out: list[Clause] = []
    series = contract.series_key
    for f in contract.fields:
        if not f.unit_from_catalog or f.dimension is None:
            continue
        allowed = units_of_dimension(f.dimension)
        if allowed is None:
            continue  # `per series` or an unknown name: lint TG215
        key = series[0] if series else "series_id"
        cat = effective_catalog(contract, key)
        out.append(_clause(f"catalog_dimension:{f.name}", "catalog_dimension", (f.name, key), f.text,
                           f.pos.line, column=f.name, key=key, relation=cat.relation,
                           catalog_key=cat.key, catalog_column=cat.unit,
                           dimension=f.dimension.strip(), units=allowed))
    return out
OUTAGES_RELATION = "outages"
OUTAGE_COLUMNS = ("start", "end", "type")


def completeness_clause(contract: Contract, comp: Completeness, text: str, line: int) -> Clause:
    """`completeness:<time column>`: readings per series per window (UTC-aligned, or the
    calendar's sessions), and the outages relation (the series key columns, `start`, `end`,
    `type`) when gap types are allowed."""
    assert contract.time is not None
    tcol = contract.time.column
    series = contract.series_key
    extra: dict[str, Any] = {}
    if comp.allowed_gaps:
        extra.update(outages_relation=OUTAGES_RELATION, outages_start="start", outages_end="end",
                     outages_type="type")
    if comp.window is None:
        extra.update(sessions="window", **calendar_params(contract))
    return _clause(f"completeness:{tcol}", "completeness", (tcol, *series), text, line,
                   column=tcol, series=series, expected=comp.expected,
                   window_seconds=comp.window.seconds if comp.window is not None else None,
                   min_pct=comp.min_pct, allowed_gaps=comp.allowed_gaps, **extra)


def _with_severity(contract: Contract, clauses: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """The clauses with the contract's `severity:` applied; a severity for no clause (or for a
    structural one) is a contract error, never silently dropped."""
    if not contract.severity:
        return clauses
    problems = severity_problems(contract, clauses)
    if problems:
        raise ContractError(problems)
    levels = dict(contract.severity)
    return tuple(replace(c, severity=levels[c.id]) if c.id in levels and c.kind not in ALWAYS_WARN
                 else c for c in clauses)


def severity_problems(contract: Contract, clauses: tuple[Clause, ...],
                      path: str | None = None) -> list[Diagnostic]:
    """Errors (TG119, TG114) for `severity:` entries naming no clause of `clauses` (with a
    did-you-mean over the plan's ids) or a structural clause, at the entry's position."""
    by_id = {c.id: c for c in clauses}
    where = dict(contract.severity_pos)
    shown = path or contract.path
    out: list[Diagnostic] = []
    for cid, level in contract.severity:
        pos = where.get(cid)
        line, col = (pos.line, pos.col) if pos is not None else (1, 1)
        clause = by_id.get(cid)
        if clause is None:
            out.append(Diagnostic(shown, line, col, "error", "TG119",
                                  f"severity.{level} names '{cid}', which is not a clause of this "
                                  f"contract{_did_you_mean(cid, clauses)}", cid))
        elif clause.kind in NEVER_WARN:
            out.append(Diagnostic(shown, line, col, "error", "TG114",
                                  f"'{cid}' cannot be a warning: a missing or mistyped column stops "
                                  "every engine before any value is checked", cid))
    return out


def _did_you_mean(cid: str, clauses: tuple[Clause, ...]) -> str:
    kind, _, rest = cid.partition(":")
    if kind == "invariant":  # a one-column bound is a range clause, a catalog form its own kind
        for c in clauses:
            if c.kind in ("range", "catalog_unit", "catalog_bounds") and rest.strip() in (
                    t.strip() for t in c.text.split(";")):
                return f"; did you mean '{c.id}'? (`tacit-gen explain` lists the clause ids)"
    close = close_matches(cid, [c.id for c in clauses], n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return hint + " (`tacit-gen explain` lists the clause ids)"


def revision_by_column(contract: Contract) -> str | None:
    """The column `revision_policy.by` is checked against: `by_column`, else `revised_by` when
    declared, else `source_id`; None when the contract has no such column."""
    rp = contract.revision_policy
    if rp is None:
        return None
    for name in (rp.by_column,) if rp.by_column else ("revised_by", "source_id"):
        if contract.field(name) is not None:
            return name
    return None


def unenforced(contract: Contract) -> list[tuple[int, str, str]]:
    """What the contract states that no clause checks, as (line, text, why): said loudly by
    `explain` and `lint`, never dropped silently."""
    out: list[tuple[int, str, str]] = []
    rp = contract.revision_policy
    t = contract.time
    if rp is not None:
        if rp.window is not None and (t is None or not t.ingest_column):
            out.append((rp.pos.line, f"window: {rp.window}",
                        "needs time.ingest_column to be checked (lint TG209)"))
        if rp.reasons and contract.field("revision_reason") is None:
            out.append((rp.pos.line, "reasons: " + ", ".join(rp.reasons),
                        "documented only: no revision_reason column (lint TG214)"))
        if rp.by and (revision_by_column(contract) is None or contract.field("revision") is None):
            out.append((rp.pos.line, "by: " + ", ".join(rp.by),
                        "documented only: no revision column, or no by_column / revised_by / "
                        "source_id column"))
        if rp.notification:
            out.append((rp.pos.line, f"notification: {rp.notification}", "a process, not a data check"))
    if t is not None:
        if t.timezone_note:
            out.append((dict(t.lines).get("timezone", 0), t.timezone_note, "a note, carried as text"))
        note = t.cadence.unchecked_note(bool(calendar_params(contract))) if t.cadence else None
        if t.cadence is not None and note:
            out.append((dict(t.lines).get("cadence", 0), note,
                        "a note, carried as text; gaps fail unless the cadence says 'gaps allowed'"))
    return out
