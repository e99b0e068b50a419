"""The checks generated pandera modules import (`checks`: column types and row conditions;
`series`: series, catalog and reference checks), loaded on first use.

``import tacit_gen.pandera_checks`` imports nothing heavy; the first name taken from it
(``from tacit_gen.pandera_checks import col``) imports pandas, pyarrow and pandera, which the
generated module imports anyway. Nothing of the generator is imported here or there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.pandera_checks.checks import (
        accepts,
        add,
        and_,
        between,
        cmp,
        col,
        column_type,
        div,
        enum,
        equals,
        holds,
        in_,
        in_range,
        is_not_null,
        is_null,
        matches,
        mul,
        neg,
        not_,
        not_between,
        not_in,
        only_when,
        or_,
        sub,
    )
    from tacit_gen.pandera_checks.series import (
        cadence_check,
        catalog_bounds_check,
        catalog_dimension_check,
        catalog_unit_check,
        completeness_check,
        freshness_check,
        precision_check,
        references_check,
        revision_by_check,
        revision_window_check,
        session_cadence_check,
        session_completeness_check,
        session_window_check,
        warn,
    )

# The names a generated module may import (the renderer writes, the drift reader reads them).
__all__ = [
    "accepts",
    "add",
    "and_",
    "between",
    "cadence_check",
    "catalog_bounds_check",
    "catalog_dimension_check",
    "catalog_unit_check",
    "cmp",
    "col",
    "column_type",
    "completeness_check",
    "div",
    "enum",
    "equals",
    "freshness_check",
    "holds",
    "in_",
    "in_range",
    "is_not_null",
    "is_null",
    "matches",
    "mul",
    "neg",
    "not_",
    "not_between",
    "not_in",
    "only_when",
    "or_",
    "precision_check",
    "references_check",
    "revision_by_check",
    "revision_window_check",
    "session_cadence_check",
    "session_completeness_check",
    "session_window_check",
    "sub",
    "warn",
]


# The names of `series` (the series, catalog and reference checks); the rest are in `checks`.
_SERIES = frozenset((
    "cadence_check",
    "catalog_bounds_check",
    "catalog_dimension_check",
    "catalog_unit_check",
    "completeness_check",
    "freshness_check",
    "precision_check",
    "references_check",
    "revision_by_check",
    "revision_window_check",
    "session_cadence_check",
    "session_completeness_check",
    "session_window_check",
    "warn",
))


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tacit_gen.pandera_checks import checks, series

        return getattr(series if name in _SERIES else checks, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
