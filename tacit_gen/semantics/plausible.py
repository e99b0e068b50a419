"""What `plausible: catalog` means, row by row (the reference every engine is compared with)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tacit_gen.semantics.evaluate import and3, compare3

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


def plausible_ok(clause: Clause, row: Mapping[str, Any],
                 lookup: Mapping[Any, Mapping[str, Any]]) -> bool | None:
    """True inside the series' [plausible_min, plausible_max], False outside it or when the series
    has no catalog row; UNKNOWN (None, which passes) for a NULL value or an empty bound that
    decides it, as a SQL CHECK: exactly the catalog_bounds test on the plausible columns."""
    v = row.get(str(clause.param("column")))
    if v is None:
        return None
    k = row.get(str(clause.param("key")))
    entry = lookup.get(k) if k is not None else None
    if entry is None:
        return False
    lo, hi = entry.get(str(clause.param("min_column"))), entry.get(str(clause.param("max_column")))
    return and3(compare3(lo, "<=", v), compare3(v, "<=", hi))
