"""`@contract`: bare, validate=True, returns=; pass-through; phases; each error class."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any

import ibis.expr.types as ir
import pytest

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import (
    CheckExecutionError,
    CoercionError,
    Column,
    ConstraintError,
    DataFrame,
    Schema,
    StructuralError,
    ValidationError,
    ValidationPhase,
    contract,
)

from .helpers import connect, counting, duck_table

pytestmark = pytest.mark.engine


class Iris(Schema):
    sepal_length: Annotated[Decimal, Column(type="decimal(6,2)", nullable=False, unit="cm")]
    sepal_width: Annotated[Decimal, Column(type="decimal(6,2)", nullable=False, unit="cm")]
    __clauses__ = (
        Clause("invariant:sepal_width > 0", "invariant", ("sepal_width",),
               make_params(expr="sepal_width > 0"), "sepal_width > 0"),
    )


class IrisFeatures(Iris):
    sepal_ratio: Annotated[Decimal | None, Column(type="float64")]


class Catalogued(Schema):
    k: str
    __clauses__ = (
        Clause("catalog_unit:k", "catalog_unit", ("k",),
               make_params(column="k", key="k", relation="cat", catalog_key="k",
                           catalog_column="unit"), "k equals catalog unit for k"),
    )


IRIS = {"sepal_length": "DECIMAL(6,2)", "sepal_width": "DECIMAL(6,2)"}


@contract
def engineer(df: DataFrame[Iris], factor: int, label: str = "x") -> DataFrame[IrisFeatures]:
    seen["args"] = (type(df), factor, label)
    return IrisFeatures.cast(df.mutate(sepal_ratio=(df.sepal_length / df.sepal_width) * factor))


@contract(returns=IrisFeatures)
def engineer_returns(df: DataFrame[Iris]) -> ir.Table:
    return df.mutate(sepal_ratio=(df.sepal_length / df.sepal_width).cast("float64"))


@contract
def forgets_column(df: DataFrame[Iris]) -> DataFrame[IrisFeatures]:
    return df  # type: ignore[return-value]  # missing sepal_ratio: CONTRACT_OUTPUT


@contract(validate=True)
def validated(df: DataFrame[Iris]) -> DataFrame[Iris]:
    return df  # type: ignore[return-value]


@contract(validate=True, returns=Iris)
def validated_breaks_output(df: DataFrame[Iris]) -> ir.Table:
    return df.mutate(sepal_width=df.sepal_width - 100)


@contract(validate=True)
def needs_catalog(df: DataFrame[Catalogued]) -> ir.Table:
    return df


seen: dict[str, Any] = {}


@pytest.fixture
def con():  # type: ignore[no-untyped-def]
    c = connect()
    yield c
    c.disconnect()


def iris(con: Any, rows: list[tuple[Any, ...]] | None = None, types: dict[str, str] | None = None) -> ir.Table:
    return duck_table(con, "iris", types or IRIS, rows if rows is not None else [
        (Decimal("5.1"), Decimal("3.5")), (Decimal("6.2"), Decimal("2.9"))])


def test_bare_casts_inputs_and_outputs_and_passes_other_params(con) -> None:  # type: ignore[no-untyped-def]
    calls = counting(con)
    t = iris(con)
    calls.calls.clear()
    out = engineer(t, 2, label="y")
    assert calls.calls == []  # cast only: no query at either boundary
    assert seen["args"] == (DataFrame, 2, "y")  # the body got a DataFrame; others unchanged
    assert isinstance(out, DataFrame) and out.tacit_schema is IrisFeatures
    assert engineer.__name__ == "engineer"


def test_returns_moves_the_output_schema_to_the_decorator(con) -> None:  # type: ignore[no-untyped-def]
    out = engineer_returns(iris(con))
    assert isinstance(out, DataFrame) and out.tacit_schema is IrisFeatures


def test_input_failure_has_contract_input_phase_and_parameter(con) -> None:  # type: ignore[no-untyped-def]
    t = iris(con, [], {"sepal_length": "DECIMAL(6,2)"})
    with pytest.raises(StructuralError) as ei:
        engineer(t, 1)
    e = ei.value
    assert e.phase is ValidationPhase.CONTRACT_INPUT
    assert (e.function, e.parameter, e.schema) == ("engineer", "df", Iris)
    assert e.clause_ids == ("column:sepal_width",)
    assert isinstance(e.__cause__, StructuralError) and e.__cause__.phase is ValidationPhase.CAST
    assert "engineer() parameter 'df'" in str(e)


def test_output_failure_has_contract_output_phase(con) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as ei:
        forgets_column(iris(con))
    e = ei.value
    assert type(e) is StructuralError
    assert e.phase is ValidationPhase.CONTRACT_OUTPUT and e.parameter == "return"
    assert e.schema is IrisFeatures and e.clause_ids == ("column:sepal_ratio",)


def test_default_contract_does_not_check_constraints(con) -> None:  # type: ignore[no-untyped-def]
    t = iris(con, [(Decimal("1"), Decimal("-1"))])
    assert engineer(t, 1).tacit_schema is IrisFeatures  # cast only: the bad value passes


def test_validate_runs_parse_at_the_boundary(con) -> None:  # type: ignore[no-untyped-def]
    t = iris(con, [(Decimal("1"), Decimal("-1"))])
    calls = counting(con)
    with pytest.raises(ConstraintError) as ei:
        validated(t)
    e = ei.value
    assert e.phase is ValidationPhase.CONTRACT_INPUT
    assert e.counts == {"invariant:sepal_width > 0": 1}
    assert calls.calls  # parse() ran queries
    good = iris(con)
    with pytest.raises(ConstraintError) as ei2:
        validated_breaks_output(good)
    assert ei2.value.phase is ValidationPhase.CONTRACT_OUTPUT
    assert ei2.value.counts == {"invariant:sepal_width > 0": 2}


def test_validate_converts_and_reports_coercion_at_input(con) -> None:  # type: ignore[no-untyped-def]
    t = iris(con, [("5.1", "3.5")], {"sepal_length": "VARCHAR", "sepal_width": "VARCHAR"})
    out = validated(t)
    assert str(out.schema()["sepal_length"]) == "decimal(6, 2)"
    bad = iris(con, [("5.1", "wide")], {"sepal_length": "VARCHAR", "sepal_width": "VARCHAR"})
    with pytest.raises(CoercionError) as ei:
        validated(bad)
    assert ei.value.phase is ValidationPhase.CONTRACT_INPUT
    assert ei.value.failure("column:sepal_width").rows[0]["sepal_width"] == "wide"


def test_check_execution_error_at_boundary(con) -> None:  # type: ignore[no-untyped-def]
    t = duck_table(con, "k", {"k": "VARCHAR"}, [("a",)])
    with pytest.raises(CheckExecutionError) as ei:
        needs_catalog(t)
    assert ei.value.phase is ValidationPhase.CONTRACT_INPUT
    assert ei.value.clause_ids == ("catalog_unit:k",)


def test_errors_pickle_and_keep_their_data(con) -> None:  # type: ignore[no-untyped-def]
    import pickle

    with pytest.raises(ConstraintError) as ei:
        validated(iris(con, [(Decimal("1"), Decimal("-1"))]))
    e2 = pickle.loads(pickle.dumps(ei.value))
    assert type(e2) is ConstraintError and e2.counts == ei.value.counts
    assert e2.phase is ValidationPhase.CONTRACT_INPUT and e2.function == "validated"
    _ = dt
