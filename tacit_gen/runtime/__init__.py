"""The native ibis runtime: `Schema`, `DataFrame[S]`, `cast()`, `parse()`, `@contract`.

``import tacit_gen.runtime`` does not import ibis; `DataFrame` (an ibis Table subclass) is loaded
on first access, and `cast()`/`parse()` import ibis when called.

    from tacit_gen.runtime import DataFrame, Schema, contract

    class Iris(Schema):
        sepal_length: float
        species: str

    @contract
    def clean(df: DataFrame[Iris]) -> DataFrame[Iris]: ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tacit_gen.plan_types import Clause
from tacit_gen.runtime.decorator import contract
from tacit_gen.runtime.errors import (
    CheckExecutionError,
    ClauseFailure,
    CoercionError,
    ConstraintError,
    ContractWarning,
    StructuralError,
    UsageError,
    ValidationError,
    ValidationPhase,
)
from tacit_gen.runtime.schema import Column, ColumnSpec, Schema, SchemaDefinitionError, clause

if TYPE_CHECKING:
    from tacit_gen.runtime.dataframe import DataFrame

__all__ = [
    "CheckExecutionError",
    "Clause",
    "ClauseFailure",
    "CoercionError",
    "Column",
    "ColumnSpec",
    "ConstraintError",
    "ContractWarning",
    "DataFrame",
    "Schema",
    "SchemaDefinitionError",
    "StructuralError",
    "UsageError",
    "ValidationError",
    "ValidationPhase",
    "clause",
    "contract",
]


def __getattr__(name: str) -> Any:
    if name == "DataFrame":
        from tacit_gen.runtime.dataframe import DataFrame

        return DataFrame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
