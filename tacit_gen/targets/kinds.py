"""Clause kinds through tables: a renderer, a reader or a projection compiles a clause by looking
its kind up in a `KindTable` (sqlglot's ``Generator.TRANSFORMS``, ibis's ``SIMPLE_OPS``), and
declares the kinds it never expresses with the reason its unsupported report gives.

A reader keyed by what the artifact holds (a dbt test, a Soda metric) uses a `FormTable`: each
form names the clause kinds it reads back. Either way, `uncovered` lists the kinds of
`tacit_gen.plan_types.KINDS` a table neither handles nor declares unsupported:
``tests/targets/test_kind_tables.py`` requires it to be empty for every table of every target, so
a new kind fails that test until each table has its entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from tacit_gen.plan_types import KINDS

F = TypeVar("F", bound=Callable[..., object])
Role = Literal["render", "read", "project"]


def _no_overlap(table: str, handled: Iterable[str], unsupported: Mapping[str, str]) -> None:
    both = sorted(set(handled) & set(unsupported))
    if both:
        raise ValueError(f"{table}: {', '.join(both)} both handled and declared unsupported")


@dataclass(frozen=True)
class KindTable(Generic[F]):
    """Clause kind -> the function that compiles a clause of that kind.

    Attributes:
        target: the target's name (``dbt``).
        role: what the functions do: ``render`` (a clause into the artifact), ``read`` (an
            artifact's checks back into a clause of the kind) or ``project`` (the clause as a
            faithful artifact carries it, what the reader returns).
        rules: kind -> function. Several kinds may share one function.
        unsupported: kind -> why the target never expresses it (its Unsupported report's reason).
    """

    target: str
    role: Role
    rules: Mapping[str, F]
    unsupported: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _no_overlap(f"{self.target} {self.role}", self.rules, self.unsupported)

    def get(self, kind: str) -> F | None:
        """The function for `kind`, or None (an unsupported or unknown kind)."""
        return self.rules.get(kind)

    @property
    def covered(self) -> frozenset[str]:
        """The kinds this table handles."""
        return frozenset(self.rules)

    def uncovered(self, kinds: Iterable[str] = KINDS) -> tuple[str, ...]:
        """The kinds of `kinds` the table neither handles nor declares unsupported."""
        return tuple(k for k in kinds if k not in self.rules and k not in self.unsupported)


@dataclass(frozen=True)
class Form(Generic[F]):
    """One form an artifact states a clause in, and the kinds reading it can yield."""

    kinds: tuple[str, ...]
    read: F


@dataclass(frozen=True)
class FormTable(Generic[F]):
    """A reader's table: artifact form (a dbt test name, a Soda metric) -> its `Form`.

    Attributes:
        target: the target's name.
        role: always ``read``.
        rules: form -> `Form` (the function reading it and the kinds it yields).
        elsewhere: kinds read outside the table (from the artifact's structure: a column's
            ``data_type``, a constraint), with where.
        unsupported: kind -> why the target never writes it (nothing to read back).
    """

    target: str
    rules: Mapping[str, Form[F]]
    elsewhere: Mapping[str, str] = field(default_factory=dict)
    unsupported: Mapping[str, str] = field(default_factory=dict)
    role: Role = "read"

    def __post_init__(self) -> None:
        _no_overlap(f"{self.target} {self.role}", self.covered, self.unsupported)

    def get(self, form: str) -> Form[F] | None:
        """The `Form` of an artifact form, or None (not one the target writes)."""
        return self.rules.get(form)

    @property
    def covered(self) -> frozenset[str]:
        """The kinds read back, through the table or elsewhere."""
        return frozenset(k for f in self.rules.values() for k in f.kinds) | frozenset(self.elsewhere)

    def uncovered(self, kinds: Iterable[str] = KINDS) -> tuple[str, ...]:
        """The kinds of `kinds` neither read back nor declared unsupported."""
        covered = self.covered
        return tuple(k for k in kinds if k not in covered and k not in self.unsupported)
