"""`tacit-gen profile`: plausibility bounds per series proposed from history.

Methods, for each series (the contract's one series-key column), over the measurement's non-null
values: ``quantiles`` (default), the 1st and 99th percentiles (linear interpolation, DuckDB
``quantile_cont``); ``mean-sd``, the mean minus and plus ``sigmas`` sample standard deviations.
Computed over doubles and settled at 1e-9, the lower bound rounded down and the upper one rounded
up to the column's scale. The history is the whole file, or with a window the readings of each
series in ``(newest - window, newest]``, newest being that series' latest time. A series with
fewer than ``min_count`` values gets no bounds (empty cells): too little history to say what is
implausible. The bounds are written as ``plausible_min`` / ``plausible_max`` beside the catalog
key, into a new CSV, or merged into an existing catalog CSV (other columns kept).
"""

from __future__ import annotations

import csv
import io
import tempfile
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from tacit_gen.plan import effective_catalog, plan

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract, Duration

LOW, HIGH = 0.01, 0.99
MIN_COUNT = 20
SIGMAS = Decimal(3)
COLUMNS = ("plausible_min", "plausible_max")
METHODS = ("quantiles", "mean-sd")


class ProfileError(ValueError):
    """A contract or file `profile` cannot work with (the CLI exits 2 with the message)."""


@dataclass(frozen=True)
class Bounds:
    """Proposed bounds of one series (None when it has too little history)."""

    series: str
    count: int
    low: Decimal | None
    high: Decimal | None


@dataclass(frozen=True)
class Method:
    """How bounds are derived: `quantiles` (p1/p99) or `mean-sd` (mean +/- `sigmas` sample
    standard deviations), over each series' whole history or its last `window`."""

    name: str = "quantiles"
    sigmas: Decimal = SIGMAS
    window: Duration | None = None

    def describe(self) -> str:
        """The method in words, as `profile` states it."""
        how = ("p1/p99" if self.name == "quantiles"
               else f"mean +/- {self.sigmas.normalize():f} sample standard deviations")
        over = (f"the last {self.window.text} of each series' history (to its newest reading)"
                if self.window is not None else "each series' whole history")
        return f"{how} of {over}"


@dataclass(frozen=True)
class Profile:
    """What `profile` proposes: the catalog key column, the measurement, bounds per series, and
    the method that derived them."""

    key: str
    column: str
    bounds: tuple[Bounds, ...]
    method: Method = Method()


def measurement(contract: Contract, column: str | None) -> str:
    """The column to profile: `column`, else the one a catalog_bounds clause checks, else the
    only numeric field with a unit."""
    if column is not None:
        f = contract.field(column)
        if f is None or not f.type.is_numeric:
            raise ProfileError(f"--column {column}: not a numeric field of {contract.name}")
        return column
    bounded = [str(c.param("column")) for c in plan(contract) if c.kind == "catalog_bounds"]
    if len(bounded) == 1:
        return bounded[0]
    units = [f.name for f in contract.fields if f.type.is_numeric and (f.unit or f.unit_from_catalog)]
    if len(units) == 1:
        return units[0]
    raise ProfileError(f"{contract.name} has {len(units)} measurement columns; name one with --column")


def parse_method(name: str = "quantiles", sigmas: str | None = None,
                 window: str | None = None) -> Method:
    """A Method from the CLI's words; ProfileError naming the offending one."""
    from decimal import InvalidOperation

    from tacit_gen.contract.loader import parse_duration

    if name not in METHODS:
        raise ProfileError(f"--method {name}: expected one of {', '.join(METHODS)}")
    k = SIGMAS
    if sigmas is not None:
        if name != "mean-sd":
            raise ProfileError("--sigmas goes with --method mean-sd")
        try:
            k = Decimal(sigmas)
        except InvalidOperation:
            k = Decimal(-1)
        if not k.is_finite() or k <= 0:
            raise ProfileError(f"--sigmas {sigmas}: expected a positive number")
    d = None
    if window is not None:
        parsed = parse_duration(window)
        if parsed is None or parsed[1] or parsed[0].business_days is not None:
            raise ProfileError(f"--window {window}: expected a duration such as 30d, 12h or 2 weeks")
        d = parsed[0]
    return Method(name, k, d)


def _aggregates(col: str, method: Method) -> str:
    from tacit_gen.sql import ident

    x = f"CAST({ident(col)} AS DOUBLE)"
    if method.name == "quantiles":
        return f"quantile_cont({x}, {LOW}), quantile_cont({x}, {HIGH})"
    k = f"CAST('{method.sigmas:f}' AS DOUBLE)"
    return f"avg({x}) - {k} * stddev_samp({x}), avg({x}) + {k} * stddev_samp({x})"


def profile(contract: Contract, data: Path, column: str | None = None,
            min_count: int = MIN_COUNT, method: Method | None = None) -> Profile:
    """Propose plausibility bounds per series from the history in `data` (CSV or Parquet), by
    `method` (default: p1/p99 over the whole history)."""
    import duckdb

    from tacit_gen.engines.load import LoadError, load_data
    from tacit_gen.sql import ident

    method = method or Method()
    series = contract.series_key
    if len(series) != 1:
        raise ProfileError(f"{contract.name}: bounds go into a catalog keyed by one series column; "
                           f"the series key is {', '.join(series) or 'empty'}")
    if method.window is not None and contract.time is None:
        raise ProfileError(f"--window {method.window.text}: {contract.name} has no time column")
    col = measurement(contract, column)
    f = contract.field(col)
    assert f is not None
    scale = Decimal(1).scaleb(-(f.type.scale or 0)) if f.type.kind == "decimal" else None
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "profile.duckdb"
        try:
            load_data(contract, data, db)
        except LoadError as e:
            raise ProfileError(str(e)) from e
        con = duckdb.connect(str(db), read_only=True)
        try:
            source = f"{ident(contract.name)} WHERE {ident(series[0])} IS NOT NULL"
            if method.window is not None and contract.time is not None:
                t = ident(contract.time.column)
                source = (f"(SELECT *, max({t}) OVER (PARTITION BY {ident(series[0])}) AS tacit_newest "
                          f"FROM {source} AND {t} IS NOT NULL) AS h "
                          f"WHERE {t} > tacit_newest - INTERVAL {method.window.seconds} SECOND")
            rows = con.execute(
                f"SELECT CAST({ident(series[0])} AS VARCHAR) AS s, count({ident(col)}), "
                f"{_aggregates(col, method)} FROM {source} GROUP BY s ORDER BY s"
            ).fetchall()
        finally:
            con.close()
    out = []
    for s, n, lo, hi in rows:
        if n < min_count or lo is None or hi is None:
            out.append(Bounds(s, int(n), None, None))
            continue
        # doubles carry noise (0.5 + 4 * 0.99 = 4.460000000000001): settle it at 1e-9 first, so
        # widening to the column's scale does not add a unit for it
        low, high = (Decimal(repr(x)).quantize(Decimal("1e-9")) for x in (lo, hi))
        if scale is not None:
            low, high = low.quantize(scale, ROUND_FLOOR), high.quantize(scale, ROUND_CEILING)
        out.append(Bounds(s, int(n), low.normalize() if scale is None else low,
                          high.normalize() if scale is None else high))
    key = effective_catalog(contract, series[0]).key
    return Profile(key, col, tuple(out), method)


def catalog_text(result: Profile, existing: str | None = None) -> str:
    """The catalog CSV: `existing` (if any) with plausible_min/max set per series (other columns
    and rows kept), or a new file with the key and the two columns."""
    by_series = {b.series: b for b in result.bounds}
    if existing:
        reader = csv.DictReader(io.StringIO(existing))
        names = list(reader.fieldnames or ())
        if result.key not in names:
            raise ProfileError(f"the catalog has no column '{result.key}' (the catalog key)")
        rows = list(reader)
    else:
        names, rows = [result.key], []
    names += [c for c in COLUMNS if c not in names]
    seen = {r[result.key] for r in rows}
    rows += [{result.key: s} for s in by_series if s not in seen]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=names, lineterminator="\n")
    w.writeheader()
    for r in rows:
        b = by_series.get(r[result.key])
        if b is not None:
            r["plausible_min"] = "" if b.low is None else str(b.low)
            r["plausible_max"] = "" if b.high is None else str(b.high)
        w.writerow({k: r.get(k, "") for k in names})
    return buf.getvalue()
