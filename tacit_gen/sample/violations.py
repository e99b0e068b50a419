"""Data that breaks exactly one clause: one candidate generator per clause kind.

``candidates`` yields changes of the clean rows, smallest first; ``sample`` keeps the first whose
reference verdict fails the asked clause alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

from tacit_gen.expr import nodes as n
from tacit_gen.sample.generate import Col, Context, dec_units, fill_row
from tacit_gen.sample.model import (
    EXTRA_COLUMN,
    INT_BOUNDS,
    OTHER_UNIT,
    US,
    SampleError,
    epoch_us,
    truncate,
)
from tacit_gen.sample.verdicts import catalog_interval, within_window
from tacit_gen.semantics.catalog import CatalogData
from tacit_gen.semantics.evaluate import evaluate

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


@dataclass
class Candidate:
    rows: list[dict[str, Any]]
    names: list[str]
    types: dict[str, str]
    description: str
    catalog: CatalogData | None = None


def copy_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in rows]


def other_value(col: Col, v: Any) -> Any:
    """A different value of the same type (for fixed_value)."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, str):
        return OTHER_UNIT.get(v, v + "_other")
    if isinstance(v, Decimal):
        return v + col.ulp()
    if isinstance(v, float):
        return v + 1.0
    if isinstance(v, int):
        return v + 1
    return v


def beyond(col: Col, side: str, bound: Decimal, inclusive: bool) -> Any | None:
    """The value just outside a bound, if the column's type can hold it."""
    ulp = col.ulp()
    s = col.scale
    if side == "min":
        u = dec_units(bound, s, ROUND_CEILING) - (1 if inclusive or
                                                    Decimal(dec_units(bound, s, ROUND_CEILING)
                                                            ).scaleb(-s) != bound else 0)
        v = Decimal(u).scaleb(-s)
        if not (v < bound or (not inclusive and v == bound)):
            v = bound - ulp
    else:
        u = dec_units(bound, s, ROUND_FLOOR) + (1 if inclusive or
                                                  Decimal(dec_units(bound, s, ROUND_FLOOR)
                                                          ).scaleb(-s) != bound else 0)
        v = Decimal(u).scaleb(-s)
        if not (v > bound or (not inclusive and v == bound)):
            v = bound + ulp
    u = dec_units(v, s, ROUND_FLOOR)
    if col.type.kind == "decimal" and abs(u) > 10 ** (col.type.precision or 0) - 1:
        return None
    if col.type.kind in INT_BOUNDS:
        lo, hi = INT_BOUNDS[col.type.kind]
        if not lo <= u <= hi:
            return None
    return col.from_units(u)


def row_order(ctx: Context, rows: list[dict[str, Any]]) -> list[int]:
    """Rows to try a change on: restatements first, then the rest from the oldest."""
    idx = list(range(len(rows)))
    return sorted(idx, key=lambda i: (0 if (rows[i].get("revision") or 0) != 0 else 1, i))


@dataclass
class Violation:
    """What a candidate generator works on: the clean rows and the clause to break."""

    ctx: Context
    clause: Clause
    rows: list[dict[str, Any]]
    types: dict[str, str]
    catalog: CatalogData | None
    seed: int

    def __post_init__(self) -> None:
        self.names = list(self.ctx.names)
        self.lookup: Mapping[Any, Any] = self.catalog.lookup() if self.catalog is not None else {}
        self.col_name = str(self.clause.param("column"))
        self.col = self.ctx.cols.get(self.col_name)

    def candidate(self, rows: list[dict[str, Any]], description: str,
                  types: dict[str, str] | None = None, names: list[str] | None = None
                  ) -> Candidate:
        return Candidate(rows, self.names if names is None else names,
                         dict(self.types) if types is None else types, description)

    def one(self, i: int, changes: Mapping[str, Any], what: str) -> Candidate:
        new = copy_rows(self.rows)
        new[i].update(changes)
        return self.candidate(new, f"row {i + 1}: {what}")

    def resampled(self, i: int, pinned: Mapping[str, Any], what: str, tries: int = 400
                  ) -> Candidate | None:
        """Row i with `pinned` set and its other free columns regenerated to stay valid."""
        ctx, rows = self.ctx, self.rows
        rng = random.Random(f"{self.seed}:{self.clause.id}:{i}")
        row = dict(rows[i])
        row.update(pinned)
        frozen = set(ctx.pinned) | set(pinned)
        j = 0
        if ctx.series:
            j = sum(1 for r in rows[:i] if r.get(ctx.series[0]) != rows[i].get(ctx.series[0]))
        if not fill_row(ctx, row, j, rng, self.catalog, self.lookup, frozen, skip=self.clause.id,
                        null_p=0.5, tries=tries):
            return None
        new = copy_rows(rows)
        new[i] = row
        return self.candidate(new, f"row {i + 1}: {what}")

    def row_level(self, change: Callable[[int], tuple[dict[str, Any], str] | None],
                  first: Callable[[int], bool] | None = None) -> Iterator[Candidate]:
        """One row changed: every row in turn as is, then the first six with their other
        columns regenerated (for a change another clause would otherwise catch)."""
        order = row_order(self.ctx, self.rows)
        if first is not None:
            order.sort(key=lambda i: 0 if first(i) else 1)
        for i in order:
            got = change(i)
            if got is not None:
                yield self.one(i, *got)
        for i in order[:6]:
            got = change(i)
            if got is not None:
                cand = self.resampled(i, *got)
                if cand is not None:
                    yield cand


def _column(v: Violation) -> Iterator[Candidate]:
    """The wrong type: naive timestamps, float64 for exact numbers, or the column missing."""
    col, col_name, rows = v.col, v.col_name, v.rows
    assert col is not None
    t = col.type
    if t.kind == "timestamp":
        new = copy_rows(rows)
        for r in new:
            if r[col_name] is not None:
                r[col_name] = r[col_name].replace(tzinfo=None)
        ty = dict(v.types)
        ty[col_name] = f"timestamp_{t.ts_unit}"
        yield v.candidate(new, f"{col_name}: naive timestamps (no UTC offset)", ty)
    elif t.kind == "decimal":
        extra = Decimal(1).scaleb(-(col.scale + 1))
        ty = dict(v.types)
        ty[col_name] = "float64"
        for i in row_order(v.ctx, rows):
            x = rows[i][col_name]
            if x is None:
                continue
            for d in (extra, -extra):
                new = copy_rows(rows)
                new[i][col_name] = x + d
                yield v.candidate(new, f"{col_name}: float64 column; row {i + 1} holds {x + d}, "
                                  f"more digits than {t}", dict(ty))
    elif t.is_integer:
        # a float64 column, and one value that no integer type holds (an engine that accepts
        # whole floats as integers still sees it)
        ty = dict(v.types)
        ty[col_name] = "float64"
        for i in row_order(v.ctx, rows):
            if rows[i][col_name] is None:
                continue
            for nudge in (0.5, -0.5):
                new = copy_rows(rows)
                for r in new:
                    if r[col_name] is not None:
                        r[col_name] = float(r[col_name])
                new[i][col_name] = float(new[i][col_name]) + nudge
                yield v.candidate(new, f"{col_name}: float64 column; row {i + 1} "
                                  f"holds {new[i][col_name]!r}, not an {t}", dict(ty))
        new = copy_rows(rows)  # last resort: whole floats (e.g. revisions must all be 0)
        for r in new:
            if r[col_name] is not None:
                r[col_name] = float(r[col_name])
        yield v.candidate(new, f"{col_name}: float64 values (1.0) instead of {t}", dict(ty))
    else:
        new = [{k: x for k, x in r.items() if k != col_name} for r in rows]
        ty = {k: x for k, x in v.types.items() if k != col_name}
        yield v.candidate(new, f"{col_name}: column missing", ty,
                          [x for x in v.names if x != col_name])


def _no_unknown_columns(v: Violation) -> Iterator[Candidate]:
    extra_name = EXTRA_COLUMN
    while extra_name in v.names:
        extra_name += "_"
    new = copy_rows(v.rows)
    for i, r in enumerate(new):
        r[extra_name] = f"extra_{i + 1}"
    ty = dict(v.types)
    ty[extra_name] = "string"
    yield v.candidate(new, f"extra column {extra_name}", ty, [*v.names, extra_name])


def _not_null(v: Violation) -> Iterator[Candidate]:
    name, rows = v.col_name, v.rows
    yield from v.row_level(lambda i: ({name: None}, f"{name} is NULL")
                           if rows[i][name] is not None else None)


def _accepted_values(v: Violation) -> Iterator[Candidate]:
    vals = tuple(v.clause.param("values") or ())
    badv = next(x for x in ("unknown", "invalid", "n/a_x") if x not in vals)
    yield from v.row_level(lambda i: ({v.col_name: badv}, f"{v.col_name} = {badv!r}"))


def _fixed_value(v: Violation) -> Iterator[Candidate]:
    assert v.col is not None
    other = other_value(v.col, v.col.fixed)
    yield from v.row_level(lambda i: ({v.col_name: other}, f"{v.col_name} = {other!r}"))


def _range(v: Violation) -> Iterator[Candidate]:
    col, clause = v.col, v.clause
    assert col is not None
    sides = []
    if clause.param("min") is not None:
        sides.append(("min", Decimal(clause.param("min")), bool(clause.param("min_inclusive"))))
    if clause.param("max") is not None:
        sides.append(("max", Decimal(clause.param("max")), bool(clause.param("max_inclusive"))))
    for side, bound, incl in sides:
        x = beyond(col, side, bound, incl)
        if x is not None:
            def change(i: int, x: Any = x, side: str = side) -> tuple[dict[str, Any], str]:
                return {v.col_name: x}, f"{v.col_name} = {x} beyond the {side}"

            yield from v.row_level(change)


def _invariant(v: Violation) -> Iterator[Candidate]:
    assert v.clause.expr is not None
    yield from invariant_candidates(v.ctx, v.clause, v.rows, v.names, v.types, v.catalog,
                                    v.lookup)


def _freshness(v: Violation) -> Iterator[Candidate]:
    max_age = int(v.clause.param("max_age_seconds"))
    column = str(v.clause.param("column"))
    if v.types.get(column) == "date":  # whole days: one day more than the freshness allows
        days = timedelta(days=max_age // 86400 + 1)
        new = copy_rows(v.rows)
        for r in new:
            for k, x in r.items():
                if isinstance(x, date) and not isinstance(x, datetime):
                    r[k] = x - days
        yield v.candidate(new, f"every date shifted back by {days.days} day(s)")
        return
    delta = timedelta(seconds=(max_age // 60 + 1) * 60)
    new = copy_rows(v.rows)
    for r in new:
        for k, x in r.items():
            if isinstance(x, datetime):
                r[k] = x - delta
    yield v.candidate(new, f"every timestamp shifted back by {int(delta.total_seconds())}s")


def _cadence(v: Violation) -> Iterator[Candidate]:
    yield from cadence_candidates(v.ctx, v.clause, v.rows, v.names, v.types, v.catalog, v.lookup)


def _completeness(v: Violation) -> Iterator[Candidate]:
    """One series gets readings before its clean ones, from a window start on, so that one whole
    window is judged and holds too few: on the series' own cadence grid when the grid gives fewer
    readings than the window needs (the cadence stays clean), else a single reading at the
    window's start, or a window earlier when one reading fills a window (an empty stretch: a
    cadence without allowed gaps catches it too)."""
    from tacit_gen.semantics.completeness import PCT_SCALE, pct_units

    ctx, c, rows = v.ctx, v.clause, v.rows
    if c.param("window_seconds") is None:
        yield from _session_completeness(v)
        return
    tcol = str(c.param("column"))
    w_us = int(c.param("window_seconds")) * 1_000_000
    need = pct_units(str(c.param("min_pct"))) * int(c.param("expected"))
    firsts = _first_readings(v)
    cadence = ctx.cadence
    serial = len(rows)
    for key, i in firsts.items():
        first = rows[i][tcol]
        f_us = epoch_us(first)
        ws = (f_us // w_us) * w_us - w_us  # the whole window before the first reading's
        step = catalog_interval(cadence, v.catalog, v.lookup, key) if cadence is not None else None
        if step and (w_us // (step * 1_000_000)) * 100 * PCT_SCALE < need and w_us % (step * 1_000_000) == 0:
            s_us = step * 1_000_000
            count = -(-(f_us - ws) // s_us)  # readings back from the first one, to the window start
            times = [first - timedelta(microseconds=s_us * k) for k in range(count, 0, -1)]
            what = f"{count} readings on the series' {step}s grid"
        else:  # one reading at a window start; one window earlier when one reading is enough
            back = w_us if need <= 100 * PCT_SCALE else 0
            times = [first - timedelta(microseconds=f_us - ws + back)]
            what = "one reading at a window start" + (", then an empty window" if back else "")
        added = _readings_like(v, i, times, serial)
        serial += len(added)
        label = ", ".join(str(x) for x in key)
        start = times[0].isoformat()
        yield v.candidate([*added, *copy_rows(rows)],
                          f"series {label}: {what} from {start}, short of the window's "
                          f"{c.param('expected')} at {c.param('min_pct')}%")


def _first_readings(v: Violation) -> dict[tuple[Any, ...], int]:
    """Each series' first reading (a row index; restated rows aside), by series key."""
    tcol = str(v.clause.param("column"))
    series_cols = tuple(str(s) for s in (v.clause.param("series") or ()))
    firsts: dict[tuple[Any, ...], int] = {}
    for i, r in enumerate(v.rows):
        t = r.get(tcol)
        if isinstance(t, datetime) and not (v.ctx.has_revision and r.get("revision")):
            key = tuple(r.get(s) for s in series_cols)
            if key not in firsts or epoch_us(t) < epoch_us(v.rows[firsts[key]][tcol]):
                firsts[key] = i
    return firsts


def _readings_like(v: Violation, i: int, times: list[datetime], serial: int) -> list[dict[str, Any]]:
    """Copies of row i at `times` (its ingest time following; fresh values for the key columns
    that are neither series, time nor revision)."""
    from tacit_gen.sample.generate import ingest_time, point_key

    ctx = v.ctx
    tcol = str(v.clause.param("column"))
    series_cols = tuple(str(s) for s in (v.clause.param("series") or ()))
    added: list[dict[str, Any]] = []
    for t in times:
        row = dict(v.rows[i])
        row[tcol] = t
        if ctx.ingest_col is not None and row.get(ctx.ingest_col) is not None:
            row[ctx.ingest_col] = ingest_time(ctx, t, int(row.get("revision") or 0))
        for kc in ctx.key:
            if kc not in (*series_cols, tcol, "revision"):
                row[kc] = point_key(ctx.cols[kc], serial, ctx)
        serial += 1
        added.append(row)
    return added


def _session_completeness(v: Violation) -> Iterator[Candidate]:
    """`N per session`: one series gets a single reading at the open of the last session of its
    calendar that closed before its first reading, so that session is judged and holds one; the
    session the first reading falls in is judged too when the series reads past its close, so
    it is filled from its open up to the first reading on the series' grid (the cadence's
    interval, else the calendar's longest session over `expected`): it stays full, and the
    cadence (a bar at an open, consecutive sessions) stays clean."""
    from tacit_gen.sample.sessions import group_code, sessions_around

    c, rows = v.clause, v.rows
    tcol = str(c.param("column"))
    series_cols = tuple(str(s) for s in (c.param("series") or ()))
    cadence = v.ctx.cadence
    serial = len(rows)
    for key, i in _first_readings(v).items():
        code = group_code(c, key, v.lookup)
        if code is None:
            continue
        first = rows[i][tcol]
        last = max((r[tcol] for r in rows if isinstance(r.get(tcol), datetime)
                    and tuple(r.get(s) for s in series_cols) == key), key=epoch_us)
        around = sessions_around(code, first)
        before = [s for s in around if epoch_us(s.close) <= epoch_us(first)]
        if not before:
            continue
        shorted = before[-1]
        times = [shorted.open]
        inside = next((s for s in around if epoch_us(s.open) < epoch_us(first) < epoch_us(s.close)), None)
        if inside is not None and epoch_us(inside.close) <= epoch_us(last):
            seconds = cadence.param("interval_seconds") if cadence is not None else None
            longest = max(epoch_us(s.close) - epoch_us(s.open) for s in around)
            step = (int(seconds) * 1_000_000 if seconds else longest // int(c.param("expected")))
            t = epoch_us(inside.open)
            while t < epoch_us(first):
                times.append(inside.open + timedelta(microseconds=t - epoch_us(inside.open)))
                t += step
        added = _readings_like(v, i, times, serial)
        serial += len(added)
        label = ", ".join(str(x) for x in key)
        yield v.candidate([*added, *copy_rows(rows)],
                          f"series {label}: one reading in the {code} session of "
                          f"{shorted.session.isoformat()}, short of its {c.param('expected')} at "
                          f"{c.param('min_pct')}%")


def _catalog_unit(v: Violation) -> Iterator[Candidate]:
    catalog, rows, lookup, col_name = v.catalog, v.rows, v.lookup, v.col_name
    assert catalog is not None
    key = str(v.clause.param("key"))
    unit_col = catalog.spec.unit or ""

    def wrong_unit(i: int) -> tuple[dict[str, Any], str] | None:
        entry = lookup.get(rows[i][key])
        if entry is None or rows[i][col_name] is None:
            return None
        good = str(entry[unit_col])
        other = OTHER_UNIT.get(good, good + "_other")
        return {col_name: other}, f"{col_name} = {other!r}, the catalog says {good!r}"

    def in_bar(i: int) -> bool:  # the kPa incident: a series in bar reported in kPa
        entry = lookup.get(rows[i][key])
        return entry is not None and entry.get(unit_col) == "bar"

    yield from v.row_level(wrong_unit, in_bar)


def _catalog_dimension(v: Violation) -> Iterator[Candidate]:
    """One series' catalog unit of another dimension (kg under pressure); the data's unit column
    follows it, so `unit equals catalog unit` still holds and this clause fails alone."""
    catalog = v.catalog
    assert catalog is not None
    allowed = tuple(v.clause.param("units") or ())
    unit_col = str(v.clause.param("catalog_column"))
    idx = catalog.spec.columns.index(unit_col)
    key = str(v.clause.param("key"))
    echo = [str(c.param("column")) for c in v.ctx.cat_unit]
    for wrong in (u for u in ("kg", "m", "s") if u not in allowed):
        for i, entry in enumerate(catalog.rows):
            rows = list(catalog.rows)
            rows[i] = (*entry[:idx], wrong, *entry[idx + 1:])
            new = copy_rows(v.rows)
            for r in new:
                if r.get(key) == entry[0]:
                    r.update({c: wrong for c in echo if r.get(c) is not None})
            cand = v.candidate(new, f"the catalog gives series {entry[0]!r} unit {wrong!r}, "
                               f"not a unit of {v.clause.param('dimension')}")
            cand.catalog = CatalogData(catalog.spec, tuple(rows))
            yield cand
        return


def _catalog_bounds(v: Violation) -> Iterator[Candidate]:
    catalog, col, rows, lookup, col_name = v.catalog, v.col, v.rows, v.lookup, v.col_name
    assert catalog is not None and col is not None
    key = str(v.clause.param("key"))

    def out_of_bounds(i: int) -> tuple[dict[str, Any], str] | None:
        entry = lookup.get(rows[i][key])
        if entry is None or rows[i][col_name] is None:
            return None
        hi = entry[catalog.spec.hard_max or ""]
        x = beyond(col, "max", Decimal(hi), True)
        if x is None:
            x = beyond(col, "min", Decimal(entry[catalog.spec.hard_min or ""]), True)
        if x is None:
            return None
        return {col_name: x}, f"{col_name} = {x}, beyond the catalog hard bounds"

    yield from v.row_level(out_of_bounds)


def _plausible(v: Violation) -> Iterator[Candidate]:
    """A value inside the hard bounds and the range but just outside its series' plausible
    bounds (sample places those in the middle of what is valid)."""
    catalog, col, rows, lookup, col_name = v.catalog, v.col, v.rows, v.lookup, v.col_name
    assert catalog is not None and col is not None
    key, lo_col, hi_col = (str(v.clause.param(p)) for p in ("key", "min_column", "max_column"))

    def implausible(i: int) -> tuple[dict[str, Any], str] | None:
        entry = lookup.get(rows[i][key])
        if entry is None or rows[i][col_name] is None:
            return None
        x = None
        if entry.get(hi_col) is not None:
            x = beyond(col, "max", Decimal(entry[hi_col]), True)
        if x is None and entry.get(lo_col) is not None:
            x = beyond(col, "min", Decimal(entry[lo_col]), True)
        if x is None:
            return None
        return {col_name: x}, f"{col_name} = {x}, valid but outside its plausible bounds"

    yield from v.row_level(implausible)


def _pattern(v: Violation) -> Iterator[Candidate]:
    """A value that does not match the pattern. A series column is renamed for the whole series
    (and its catalog entry), so the cadence and catalog clauses still hold."""
    from tacit_gen.sql.pattern import counterexample

    body, name, rows = str(v.clause.param("pattern")), v.col_name, v.rows
    values = [r[name] for r in rows if r.get(name) is not None]
    if name in v.ctx.series and values:
        old = values[0]
        bad = counterexample(body, str(old))
        if bad is not None and bad not in values:
            new = copy_rows(rows)
            for r in new:
                if r[name] == old:
                    r[name] = bad
            cand = v.candidate(new, f"series {old!r} renamed {bad!r}, outside the pattern")
            if v.catalog is not None:
                cand.catalog = CatalogData(v.catalog.spec, tuple(
                    (bad, *r[1:]) if r[0] == old else r for r in v.catalog.rows))
            yield cand

    def change(i: int) -> tuple[dict[str, Any], str] | None:
        cur = rows[i][name]
        bad = counterexample(body, str(cur) if cur is not None else "x")
        return None if bad is None else ({name: bad}, f"{name} = {bad!r}, outside the pattern")

    yield from v.row_level(change)


def _references(v: Violation) -> Iterator[Candidate]:
    """One value the referenced relation lacks (it holds exactly the clean data's values): a
    value next to the clean ones, tried on each row in turn."""
    col, name = v.col, v.col_name
    assert col is not None
    present = {r[name] for r in v.rows if r[name] is not None}
    if v.clause.param("to_relation") == v.ctx.contract.name:  # a self reference: a dangling parent
        present |= {r.get(str(v.clause.param("to_column"))) for r in v.rows} - {None}
    fresh: list[Any] = []
    for base in sorted(present, key=str) or [None]:
        x = other_value(col, base) if base is not None else None
        tries = 0
        while x is not None and x in present and tries < 50:
            x, tries = other_value(col, x), tries + 1
        if x is not None and x not in present and x not in fresh:
            fresh.append(x)
        if len(fresh) >= 3:
            break
    where = f"{v.clause.param('to_relation')}.{v.clause.param('to_column')}"
    for x in fresh:
        def change(i: int, x: Any = x) -> tuple[dict[str, Any], str]:
            return {name: x}, f"{name} = {x}, absent from {where}"

        yield from v.row_level(change)


def _precision(v: Violation) -> Iterator[Candidate]:
    """One instant 1 us later: a digit finer than the precision; then, for a cadence with no
    tolerance (whose steps one moved instant breaks), every instant of one series 1 us later
    (its steps unchanged)."""
    rows, name = v.rows, v.col_name
    what = f"1 us later: finer than {v.clause.param('precision')}"
    yield from v.row_level(lambda i: None if rows[i].get(name) is None else (
        {name: rows[i][name] + timedelta(microseconds=1)}, f"{name} {what}"))
    series = v.ctx.series
    for key in dict.fromkeys(tuple(r.get(s) for s in series) for r in rows):
        new = copy_rows(rows)
        for r in new:
            if tuple(r.get(s) for s in series) == key and r.get(name) is not None:
                r[name] = r[name] + timedelta(microseconds=1)
        yield v.candidate(new, f"every {name} of series {key} {what}")


def _revision_by(v: Violation) -> Iterator[Candidate]:
    allowed = tuple(v.clause.param("values") or ())
    who = next(x for x in ("unlisted-restater", "someone-else", "n/a_x") if x not in allowed)
    rev = str(v.clause.param("revision_column"))
    rows = v.rows
    yield from v.row_level(lambda i: ({v.col_name: who}, f"restated by {who!r}, not in 'by'")
                           if (rows[i].get(rev) or 0) > 0 else None)


def _revision_window(v: Violation) -> Iterator[Candidate]:
    ctx, clause, rows = v.ctx, v.clause, v.rows
    if not clause.param("allowed"):
        key_cols = ctx.key
        existing = {tuple(r.get(k) for k in key_cols) for r in rows}

        def restate(i: int) -> tuple[dict[str, Any], str] | None:
            r = dict(rows[i])
            r["revision"] = 1
            if tuple(r.get(k) for k in key_cols) in existing:
                return None
            return {"revision": 1}, "revision = 1 where revisions are not allowed"

        yield from v.row_level(restate)
        return
    ingest = clause.param("ingest_column")
    tcol = str(clause.param("time_column"))

    def late(i: int) -> tuple[dict[str, Any], str] | None:
        r = rows[i]
        if not r.get("revision") or r.get(tcol) is None:
            return None
        t = r[tcol]
        unit = ctx.cols[str(ingest)].type.ts_unit or "us"
        if clause.param("business_days") is not None:
            code = None
            if clause.param("calendar_catalog") is not None:  # the series' own calendar
                from tacit_gen.sample.sessions import row_code

                code = row_code(clause, r, v.lookup)
                if code is None:
                    return None  # no sessions: never late
            late_t = t
            while within_window(clause, t, late_t, code):
                late_t += timedelta(days=1)
        else:
            late_t = t + timedelta(seconds=int(clause.param("window_seconds")) + 1)
        late_t = truncate(late_t, unit)
        return {str(ingest): late_t}, f"restatement ingested at {late_t.isoformat()}"

    yield from v.row_level(late)


def _unique(v: Violation) -> Iterator[Candidate]:
    ctx, rows = v.ctx, v.rows
    key_cols = tuple(v.clause.param("columns") or ())
    latest: dict[tuple[Any, ...], Any] = {}
    if ctx.has_revision and ctx.time_col is not None:
        for r in rows:
            p = (*(r[s] for s in ctx.series), r[ctx.time_col])
            latest[p] = max(latest.get(p, r["revision"]), r["revision"])
    order = list(range(len(rows)))
    if latest and ctx.time_col is not None:
        tc = ctx.time_col
        # a row below the latest revision of its point: its copy is no extra point for cadence
        order.sort(key=lambda i: 0 if rows[i]["revision"] < latest[
            (*(rows[i][s] for s in ctx.series), rows[i][tc])] else 1)
    for i in order:
        new = copy_rows(rows)
        new.insert(i + 1, dict(rows[i]))
        key_text = ", ".join(f"{k}={rows[i][k]}" for k in key_cols)
        yield v.candidate(new, f"row {i + 1} duplicated ({key_text})")


# One candidate generator per clause kind (keep sorted: several engineers add kinds).
GENERATORS: dict[str, Callable[[Violation], Iterator[Candidate]]] = {
    "accepted_values": _accepted_values,
    "cadence": _cadence,
    "catalog_bounds": _catalog_bounds,
    "catalog_dimension": _catalog_dimension,
    "catalog_unit": _catalog_unit,
    "column": _column,
    "completeness": _completeness,
    "fixed_value": _fixed_value,
    "freshness": _freshness,
    "invariant": _invariant,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "pattern": _pattern,
    "plausible": _plausible,
    "precision": _precision,
    "range": _range,
    "references": _references,
    "revision_by": _revision_by,
    "revision_window": _revision_window,
    "unique": _unique,
}


def candidates(ctx: Context, clause: Clause, rows: list[dict[str, Any]], types: dict[str, str],
               catalog: CatalogData | None, seed: int) -> Iterator[Candidate]:
    """Changes of the clean rows that may break `clause` alone, smallest first."""
    generate = GENERATORS.get(clause.kind)
    if generate is None:
        raise SampleError(f"cannot violate clause kind {clause.kind}")
    yield from generate(Violation(ctx, clause, rows, types, catalog, seed))


def alternatives(ctx: Context, name: str, row: Mapping[str, Any], node: n.Node) -> list[Any]:
    col = ctx.cols[name]
    alts: list[Any] = []
    if col.nullable:
        alts.append(None)
    t = col.type
    if t.kind == "enum":
        alts.extend(t.values)
    elif t.kind == "bool":
        alts.extend([True, False])
    elif t.is_numeric:
        ulp = col.ulp()
        for x in n.walk(node):
            v = None
            if isinstance(x, n.Column) and x.name != name and isinstance(row.get(x.name),
                                                                          Decimal | int | float):
                v = Decimal(str(row[x.name]))
            elif isinstance(x, n.Number):
                v = Decimal(x.text)
            if v is not None:
                for d in (v + ulp, v - ulp, v):
                    alts.append(d)
        lo, hi = col.unit_bounds()
        alts.extend([Decimal(lo).scaleb(-col.scale), Decimal(hi).scaleb(-col.scale)])
        out = []
        for a in alts:
            if a is None or not isinstance(a, Decimal):
                out.append(a)
                continue
            u = dec_units(a, col.scale, ROUND_FLOOR)
            if lo <= u <= hi:
                out.append(col.from_units(u))
        alts = out
    elif t.kind == "string":
        alts.append(name + "_other")
    dedup: list[Any] = []
    for a in alts:
        if not any(a is b or (a == b and type(a) is type(b)) for b in dedup):
            dedup.append(a)
    return dedup


def invariant_candidates(ctx: Context, clause: Clause, rows: list[dict[str, Any]],
                          names: list[str], types: dict[str, str], catalog: CatalogData | None,
                          lookup: Mapping[Any, Any]) -> Iterator[Candidate]:
    assert clause.expr is not None
    cols = [c for c in n.columns(clause.expr) if c in ctx.cols and c not in ctx.pinned]
    for i in row_order(ctx, rows):
        row = rows[i]
        options = [(c, a) for c in cols for a in alternatives(ctx, c, row, clause.expr)]
        combos: list[tuple[tuple[str, Any], ...]] = [(o,) for o in options]
        combos += [(a, b) for k, a in enumerate(options) for b in options[k + 1:] if a[0] != b[0]]
        for combo in combos:
            new_row = dict(row)
            new_row.update(dict(combo))
            if evaluate(clause.expr, new_row, catalog, lookup) is not False:
                continue
            if ctx.row_violations(new_row, catalog, lookup, skip=clause.id):
                continue
            new = copy_rows(rows)
            new[i] = new_row
            what = ", ".join(f"{c} = {v!r}" for c, v in combo)
            yield Candidate(new, names, dict(types), f"row {i + 1}: {what}")
            break


def cadence_candidates(ctx: Context, clause: Clause, rows: list[dict[str, Any]], names: list[str],
                        types: dict[str, str], catalog: CatalogData | None,
                        lookup: Mapping[Any, Any]) -> Iterator[Candidate]:
    tcol = str(clause.param("column"))
    series_cols = tuple(clause.param("series") or ())
    unit = ctx.cols[tcol].type.ts_unit or "us"
    tol = Decimal(str(clause.param("tolerance_pct") or "0"))
    groups: dict[tuple[Any, ...], list[datetime]] = {}
    for r in rows:
        if r[tcol] is not None:
            g = groups.setdefault(tuple(r[s] for s in series_cols), [])
            if r[tcol] not in g:
                g.append(r[tcol])
    for key, times in groups.items():
        times.sort(key=epoch_us)
        interval = catalog_interval(clause, catalog, lookup, key)
        if interval is None and clause.param("sessions") == "trading_day":
            interval = 7_200  # a daily bar moved off its 00:00 UTC (or open) stamp by an hour
        if interval is None or len(times) < 2:
            continue
        # shift one point by more than the tolerance: one short step and one long step
        shift_us = int(Decimal(interval * 1_000_000) * (Decimal(50) + tol / 2) / 100)
        shift_us = -(-shift_us // US[unit]) * US[unit]
        middle = list(range(1, len(times) - 1)) or [len(times) - 1]
        for k in middle:
            for sign in (1, -1):
                old = times[k]
                new_t = old + timedelta(microseconds=sign * shift_us)
                new = copy_rows(rows)
                for r in new:
                    if r[tcol] == old and tuple(r[s] for s in series_cols) == key:
                        r[tcol] = new_t
                        if ctx.ingest_col is not None and r.get(ctx.ingest_col) is not None:
                            r[ctx.ingest_col] = r[ctx.ingest_col] + (new_t - old)
                label = ", ".join(str(x) for x in key)
                yield Candidate(new, names, dict(types),
                                 f"series {label}: point {old.isoformat()} moved off the "
                                 f"{interval}s grid to {new_t.isoformat()}")
