"""One exception family for `cast()`, `parse()` and `@contract`, with failures as data.

Every error carries the phase it was raised in, the schema, the clauses that failed (id, kind,
verbatim contract text, failing-row count and a few failing rows) and, at a `@contract` boundary,
the function and parameter name.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CheckExecutionError",
    "ClauseFailure",
    "CoercionError",
    "ConstraintError",
    "ContractWarning",
    "StructuralError",
    "UsageError",
    "ValidationError",
    "ValidationPhase",
]


class UsageError(ValueError):
    """A call that cannot be checked as asked (e.g. ``since=`` without a time zone, later than
    ``now``, or on a schema without a time column): the message says why. The CLI exits 2."""


class ValidationPhase(enum.Enum):
    """Where a validation error was raised."""

    CAST = "cast"
    PARSE = "parse"
    CONTRACT_INPUT = "contract_input"
    CONTRACT_OUTPUT = "contract_output"
    PUBLISH = "publish"


@dataclass(frozen=True)
class ClauseFailure:
    """One failed (or unevaluable) clause.

    Attributes:
        clause_id: the stable clause id, e.g. ``range:volume``.
        kind: the clause kind (``column``, ``not_null``, ``invariant``...).
        text: the verbatim contract text of the clause.
        message: what went wrong, in one line.
        count: failing rows (None for table-level failures such as a missing column).
        rows: a few failing rows, as dicts of column -> value.
        error: for a clause that could not be evaluated, the engine's error text.
    """

    clause_id: str
    kind: str
    text: str
    message: str
    count: int | None = None
    rows: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    error: str | None = None

    def describe(self) -> str:
        n = "" if self.count is None else f" ({self.count} row{'s' if self.count != 1 else ''})"
        return f"{self.clause_id}{n}: {self.message}"


class ValidationError(Exception):
    """Base of every validation failure.

    Attributes:
        phase: the `ValidationPhase`.
        schema: the `Schema` subclass checked against (None if unknown).
        failures: every failed clause, in plan order.
        function, parameter: set at a `@contract` boundary (``parameter`` is ``"return"`` for
            the output).
        warnings: violated `severity: warn` clauses found in the same run (not failures).
    """

    default_title = "validation failed"

    def __init__(
        self,
        failures: tuple[ClauseFailure, ...] | list[ClauseFailure],
        *,
        phase: ValidationPhase,
        schema: type | None = None,
        function: str | None = None,
        parameter: str | None = None,
        title: str | None = None,
        warnings: tuple[ClauseFailure, ...] = (),
    ) -> None:
        self.failures: tuple[ClauseFailure, ...] = tuple(failures)
        self.warnings: tuple[ClauseFailure, ...] = tuple(warnings)
        self.phase = phase
        self.schema = schema
        self.function = function
        self.parameter = parameter
        self.title = title or self.default_title
        super().__init__(self._message())

    # -- views -------------------------------------------------------------
    @property
    def clause_ids(self) -> tuple[str, ...]:
        """Ids of the failed clauses, in plan order."""
        return tuple(f.clause_id for f in self.failures)

    @property
    def counts(self) -> dict[str, int | None]:
        """Failing-row count per failed clause id."""
        return {f.clause_id: f.count for f in self.failures}

    def failure(self, clause_id: str) -> ClauseFailure:
        """The failure of one clause (KeyError if that clause did not fail)."""
        for f in self.failures:
            if f.clause_id == clause_id:
                return f
        raise KeyError(clause_id)

    @property
    def schema_name(self) -> str:
        return self.schema.__name__ if self.schema is not None else "<schema>"

    def _message(self) -> str:
        where = f"{self.schema_name} ({self.phase.value})"
        if self.function is not None:
            param = "return value" if self.parameter == "return" else f"parameter {self.parameter!r}"
            where = f"{self.function}() {param}: {where}"
        lines = [f"{where}: {self.title}: {len(self.failures)} clause(s)"]
        for f in self.failures:
            lines.append(f"  - {f.describe()}")
            for row in f.rows[:3]:
                lines.append(f"      {row!r}")
        return "\n".join(lines)

    def at_boundary(
        self, phase: ValidationPhase, function: str, parameter: str
    ) -> ValidationError:
        """The same error (same class, same failures) with `@contract` boundary context."""
        return type(self)(
            self.failures,
            phase=phase,
            schema=self.schema,
            function=function,
            parameter=parameter,
            title=self.title,
            warnings=self.warnings,
        )

    def __reduce__(self) -> tuple[Any, ...]:  # picklable despite keyword-only arguments
        return (
            _rebuild,
            (type(self), self.failures, self.phase, self.schema, self.function, self.parameter,
             self.title, self.warnings),
        )


def _rebuild(
    cls: type[ValidationError],
    failures: tuple[ClauseFailure, ...],
    phase: ValidationPhase,
    schema: type | None,
    function: str | None,
    parameter: str | None,
    title: str,
    warnings: tuple[ClauseFailure, ...] = (),
) -> ValidationError:
    return cls(
        failures, phase=phase, schema=schema, function=function, parameter=parameter, title=title,
        warnings=warnings,
    )


class StructuralError(ValidationError):
    """Missing or unknown columns, a wrong type, or an object that is not an ibis Table."""

    default_title = "structure does not match the schema"


class CoercionError(ValidationError):
    """A value that does not convert to the declared type (never silently nulled)."""

    default_title = "values do not convert to the declared types"


class ConstraintError(ValidationError):
    """One or more constraint clauses have failing rows."""

    default_title = "constraint clauses failed"


class CheckExecutionError(ValidationError):
    """A check could not be evaluated (engine error, missing catalog...): never a pass."""

    default_title = "checks could not be evaluated"


class ContractWarning(UserWarning):
    """Violated `severity: warn` clauses: `parse()` (and `@contract`) issue it with
    `warnings.warn` and return the data; it never stops a pipeline. Turn it into an error with
    ``warnings.simplefilter("error", ContractWarning)``.

    Attributes:
        failures: the violated clauses (id, kind, text, count, a few rows), in plan order.
        schema: the `Schema` subclass checked against.
    """

    def __init__(self, failures: tuple[ClauseFailure, ...], schema: type | None = None) -> None:
        self.failures = tuple(failures)
        self.schema = schema
        name = schema.__name__ if schema is not None else "<schema>"
        lines = [f"{name}: {len(self.failures)} warn clause(s) violated"]
        lines += [f"  - {f.describe()}" for f in self.failures]
        super().__init__("\n".join(lines))

    @property
    def clause_ids(self) -> tuple[str, ...]:
        return tuple(f.clause_id for f in self.failures)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ContractWarning, (self.failures, self.schema))
