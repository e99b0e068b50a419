"""The runtime compiles each clause kind through one table: every kind of `KINDS` is checked by
it, checked structurally (`cast()`), or declared unsupported; a kind outside it is an error."""

from __future__ import annotations

from typing import Annotated

import pytest

from tacit_gen.plan_types import KINDS, Clause, make_params
from tacit_gen.runtime import Column, Schema
from tacit_gen.runtime.clauses import CHECKS, JOINS_CATALOG, STRUCTURAL, UNSUPPORTED
from tacit_gen.runtime.evaluate import evaluate

from .helpers import NOW, connect, duck_table


def test_every_kind_is_in_exactly_one_place() -> None:
    places = {"CHECKS": set(CHECKS), "STRUCTURAL": set(STRUCTURAL), "UNSUPPORTED": set(UNSUPPORTED)}
    for kind in KINDS:
        where = [name for name, kinds in places.items() if kind in kinds]
        assert len(where) == 1, f"clause kind {kind!r} is in {where or 'none'} of {sorted(places)}"
    assert set().union(*places.values()) == set(KINDS), "the table names a kind KINDS does not"


def test_the_catalog_joins_serve_checked_kinds() -> None:
    assert set(CHECKS) >= JOINS_CATALOG


@pytest.mark.engine
def test_a_kind_outside_the_table_is_an_execution_error_never_a_pass() -> None:
    class Odd(Schema):
        x: Annotated[int, Column(type="int64")]
        __clauses__ = (Clause("sorted:x", "sorted", ("x",), make_params(column="x"), "x: sorted"),)

    t = duck_table(connect(), "odd", {"x": "BIGINT"}, [(1,), (2,)])
    result = evaluate(Odd, t, now=NOW).result("sorted:x")
    assert (result.status, result.category) == ("error", "execution")
    assert result.message == "cannot build the check: unknown clause kind 'sorted'"
