"""The catalog a plan joins to: its relation and column names, and its rows as data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


@dataclass(frozen=True)
class CatalogSpec:
    """The catalog relation and its column names, taken from the clause params."""

    relation: str
    key: str
    unit: str | None = None  # catalog_unit's catalog_column
    hard_min: str | None = None  # catalog_bounds' min_column
    hard_max: str | None = None  # catalog_bounds' max_column
    cadence: str | None = None  # cadence's catalog_column (cadence from catalog)
    plausible_min: str | None = None  # plausible's min_column (soft bounds, `tacit-gen profile`)
    plausible_max: str | None = None  # plausible's max_column
    calendar: str | None = None  # a per-series calendar's column (each series' exchange code)

    @property
    def columns(self) -> tuple[str, ...]:
        cols = [self.key]
        for c in (self.unit, self.hard_min, self.hard_max, self.cadence, self.plausible_min,
                  self.plausible_max, self.calendar):
            if c is not None and c not in cols:
                cols.append(c)
        return tuple(cols)

    def role(self, column: str) -> str:
        """key, unit, bound, plausible, calendar or cadence."""
        if column == self.key:
            return "key"
        if column == self.calendar:
            return "calendar"
        if column == self.unit:
            return "unit"
        if column in (self.hard_min, self.hard_max):
            return "bound"
        if column in (self.plausible_min, self.plausible_max):
            return "plausible"
        return "cadence"


def catalog_spec(clauses: Sequence[Clause]) -> CatalogSpec | None:
    """The catalog the plan joins to, or None when no clause reads a catalog."""
    rel = key = unit = lo = hi = cad = plo = phi = cal = None
    for c in clauses:
        if c.param("calendar_catalog") is not None:  # a per-series calendar (cadence, window)
            cal = cal or c.param("calendar_catalog_column")
            rel = rel or c.param("calendar_catalog")
            key = key or c.param("calendar_catalog_key")
        if c.kind in ("catalog_dimension", "catalog_unit"):
            unit = unit or c.param("catalog_column")
        elif c.kind == "catalog_bounds":
            lo, hi = lo or c.param("min_column"), hi or c.param("max_column")
        elif c.kind == "plausible":
            plo, phi = plo or c.param("min_column"), phi or c.param("max_column")
        elif c.kind == "cadence" and c.param("from_catalog"):
            cad = cad or c.param("catalog_column")
        else:
            continue
        rel = rel or c.param("relation")
        key = key or c.param("catalog_key")
    if rel is None or key is None:
        return None
    return CatalogSpec(str(rel), str(key), unit, lo, hi, cad, plo, phi, cal)


@dataclass(frozen=True)
class CatalogData:
    """Catalog rows (one per series), values in ``spec.columns`` order."""

    spec: CatalogSpec
    rows: tuple[tuple[Any, ...], ...]

    def lookup(self) -> dict[Any, dict[str, Any]]:
        """key value -> catalog row (the first one when a key repeats)."""
        out: dict[Any, dict[str, Any]] = {}
        for r in self.rows:
            out.setdefault(r[0], dict(zip(self.spec.columns, r, strict=True)))
        return out

    def types(self) -> dict[str, str]:
        """Column -> type text used by ``write`` (string key/unit, decimal bounds, int64 cadence)."""
        role_type = {"key": "string", "unit": "string", "bound": "decimal(38,10)",
                     "cadence": "int64", "plausible": "decimal(38,10)", "calendar": "string"}
        return {c: role_type[self.spec.role(c)] for c in self.spec.columns}
