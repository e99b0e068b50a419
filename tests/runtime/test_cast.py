"""`Schema.cast()`: structure only (names, exact types, UTC, decimal precision), zero queries."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import ibis
import ibis.expr.types as ir
import pytest

from tacit_gen.runtime import (
    Column,
    DataFrame,
    Schema,
    SchemaDefinitionError,
    StructuralError,
    ValidationPhase,
)

from .helpers import BAR_TYPES, Bars, bar_rows, connect, counting, duck_table

pytestmark = pytest.mark.engine


@pytest.fixture
def con():  # type: ignore[no-untyped-def]
    c = connect()
    yield c
    c.disconnect()


def test_cast_returns_a_real_ibis_table_typed_by_the_schema(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "bars", BAR_TYPES, bar_rows())
    df = Bars.cast(t)
    assert isinstance(df, DataFrame) and isinstance(df, ir.Table)
    assert df.tacit_schema is Bars
    # ibis methods work and return plain Tables (a transformation may break the schema)
    out = df.filter(df.high > 0).mutate(spread=df.high - df.low)
    assert type(out) is ir.Table
    assert out.count().to_pyarrow().as_py() == 3


def test_cast_issues_no_query(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "bars", BAR_TYPES, bar_rows())
    calls = counting(con)
    for _ in range(5):
        Bars.cast(t)
    derived = t.mutate(extra=t.high * 2).drop("extra")
    Bars.cast(derived)
    with pytest.raises(StructuralError):
        Bars.cast(t.drop("quality"))
    assert calls.calls == []
    # the counter does see real work
    t.count().to_pyarrow()
    assert len(calls.calls) == 1


def test_missing_unknown_and_wrong_types_are_all_reported(con) -> None:  # type: ignore[no-untyped-def]
    types = {**BAR_TYPES, "trade_count": "INTEGER", "low": "DECIMAL(18,6)", "extra": "VARCHAR"}
    del types["quality"]
    t = duck_table(con, "bad", types, [])
    with pytest.raises(StructuralError) as ei:
        Bars.cast(t)
    e = ei.value
    assert e.phase is ValidationPhase.CAST
    assert e.schema is Bars
    assert set(e.clause_ids) == {
        "column:low", "column:trade_count", "column:quality", "no_unknown_columns"
    }
    assert "decimal(18,6)" in e.failure("column:low").message
    assert "extra" in e.failure("no_unknown_columns").message
    assert e.failure("column:quality").message == "column is missing"


@pytest.mark.parametrize(
    ("sql_type", "why"),
    [("TIMESTAMP", "naive timestamp"), ("DATE", "expected timestamp_ms_utc"),
     ("VARCHAR", "expected timestamp_ms_utc")],
)
def test_timestamps_must_be_utc_instants(con, sql_type: str, why: str) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "ts", {**BAR_TYPES, "bar_start": sql_type}, [])
    with pytest.raises(StructuralError) as ei:
        Bars.cast(t)
    assert ei.value.clause_ids == ("column:bar_start",)
    assert why in ei.value.failure("column:bar_start").message


def test_non_utc_zone_fails_cast() -> None:
    t = ibis.table({**{k: "string" for k in BAR_TYPES}, "bar_start": "timestamp('Europe/Paris')",
                    "low": "decimal(18,8)", "open": "decimal(18,8)", "high": "decimal(18,8)",
                    "trade_count": "int64"}, name="paris")
    with pytest.raises(StructuralError) as ei:
        Bars.cast(t)
    assert "Europe/Paris" in ei.value.failure("column:bar_start").message


def test_non_table_is_a_structural_error() -> None:
    with pytest.raises(StructuralError) as ei:
        Bars.cast({"symbol": ["a"]})  # type: ignore[arg-type]
    assert "expected an ibis Table, got builtins.dict" in str(ei.value)


def test_non_strict_schema_allows_extra_columns(con) -> None:  # type: ignore[no-untyped-def]
    class Loose(Schema):
        __strict__ = False
        symbol: str

    t = duck_table(con, "loose", {"symbol": "VARCHAR", "other": "INTEGER"}, [])
    assert Loose.cast(t).tacit_schema is Loose
    assert "no_unknown_columns" not in {c.id for c in Loose.clauses()}


def test_hand_written_schema_derives_clauses() -> None:
    class Iris(Schema):
        sepal_length: float
        species: str | None
        kind: Annotated[str, Column(type="enum[setosa, virginica]")]

    ids = [c.id for c in Iris.clauses()]
    assert ids == [
        "column:sepal_length", "column:species", "column:kind", "no_unknown_columns",
        "not_null:sepal_length", "accepted_values:kind",
    ]
    assert Iris.clauses()[0].param("type") == "float64"


def test_contradicting_clause_data_is_a_definition_error() -> None:
    from tacit_gen.runtime import Clause

    with pytest.raises(SchemaDefinitionError, match="column:a"):

        class Bad(Schema):
            a: Annotated[int, Column(type="int64")]
            __clauses__ = (
                Clause("column:a", "column", ("a",),
                       (("column", "a"), ("dimension", None), ("type", "int32"), ("unit", None)),
                       "a: int32"),
            )


def test_timestamp_precision_coarser_than_declared_fails() -> None:
    t = ibis.table({"symbol": "string", "bar_start": "timestamp('UTC', 0)", "low": "decimal(18,8)",
                    "open": "decimal(18,8)", "high": "decimal(18,8)", "trade_count": "int64",
                    "quality": "string"}, name="coarse")
    with pytest.raises(StructuralError, match="coarser than ms"):
        Bars.cast(t)
    finer = t.mutate(bar_start=t.bar_start.cast("timestamp('UTC', 6)"))
    assert Bars.cast(finer).tacit_schema is Bars
    _ = dt
