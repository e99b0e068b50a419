"""`clause()` (the keyword form a generated module writes) and `Column(text=, line=)`: the clauses
they make are the ones the full `Clause(...)` literals made, text and line included."""

from __future__ import annotations

from typing import Annotated

import pytest

from tacit_gen.plan_types import Clause
from tacit_gen.runtime import Column, Schema, SchemaDefinitionError, clause


def test_keyword_form_fills_the_kind_columns_and_defaults() -> None:
    c = clause(id="range:volume", column="volume", min="0", text="volume >= 0", line=24)
    assert c == Clause(
        id="range:volume", kind="range", columns=("volume",),
        params=(("column", "volume"), ("max", None), ("max_inclusive", True), ("min", "0"),
                ("min_inclusive", True)),
        text="volume >= 0", line=24,
    )
    assert c.line == 24 and c.severity == "error"
    inv = clause(id="invariant:a <= b", expr="a <= b", reads=("a", "b"), text="a <= b",
                 severity="warn")
    assert (inv.kind, inv.columns, inv.params, inv.warn) == (
        "invariant", ("a", "b"), (("expr", "a <= b"),), True)
    key = clause(id="unique:a,b", columns=("a", "b"), text="key: [a, b]", line=3)
    assert key.columns == ("a", "b") and key.params == (("columns", ("a", "b")),)


class Bars(Schema):
    a: Annotated[int, Column(type="int64", nullable=False, text="a: {type: int64}", line=5)]
    b: Annotated[str | None, Column(type="string")]

    __clauses__ = (
        clause(id="no_unknown_columns", text="fields: a, b", line=4),
        clause(id="range:a", column="a", min="0", text="a >= 0", line=9),
    )


def test_column_text_and_line_reach_the_derived_clauses() -> None:
    by_id = {c.id: c for c in Bars.clauses()}
    assert [c.id for c in Bars.clauses()] == [
        "column:a", "column:b", "no_unknown_columns", "not_null:a", "range:a"]
    assert (by_id["column:a"].text, by_id["column:a"].line) == ("a: {type: int64}", 5)
    assert (by_id["not_null:a"].text, by_id["not_null:a"].line) == ("a: {type: int64}", 5)
    assert (by_id["column:b"].text, by_id["column:b"].line) == ("b: string", 0)
    nuc = by_id["no_unknown_columns"]
    assert (nuc.columns, nuc.params, nuc.text, nuc.line) == (
        ("a", "b"), (("columns", ("a", "b")),), "fields: a, b", 4)


def test_a_listed_no_unknown_columns_must_still_agree() -> None:
    with pytest.raises(SchemaDefinitionError, match="no_unknown_columns"):
        class Wrong(Schema):
            a: int

            __clauses__ = (Clause("no_unknown_columns", "no_unknown_columns", ("z",),
                                  (("columns", ("z",)),), "fields: z"),)

        Wrong.clauses()
