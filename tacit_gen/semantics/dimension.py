"""`catalog_dimension`: each series' catalog unit is a unit of the contract's dimension.

The reference verdict on one data row. A row whose key is NULL is not judged (`not_null` owns
it); a series missing from the catalog, a NULL catalog unit, or a unit that is not one of the
clause's `units` (the unit table's spellings of the dimension, compared exactly) fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause


def dimension_ok(clause: Clause, row: Mapping[str, Any], lookup: Mapping[Any, Any]) -> bool | None:
    """None when the row's key is NULL; otherwise whether its series' catalog unit fits."""
    key = row.get(str(clause.param("key")))
    if key is None:
        return None
    entry = lookup.get(key)
    if entry is None:
        return False
    return entry.get(str(clause.param("catalog_column"))) in tuple(clause.param("units") or ())
