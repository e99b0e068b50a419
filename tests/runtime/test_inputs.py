"""`Inputs`: the relations and instant a `parse()` reads besides the table, one frozen object.
A relation a clause needs and the call did not give is an execution error naming the argument
(never a pass); `@contract` binds `refs=` per call on the inputs it built at decoration."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import ibis
import pytest

from tacit_gen.runtime import CheckExecutionError
from tacit_gen.runtime.compile import CompileError
from tacit_gen.runtime.evaluate import evaluate
from tacit_gen.runtime.inputs import Inputs

from .helpers import NOW, connect, duck_table
from .test_parse import Readings

CAT = ibis.table({"series_id": "string"}, name="series_catalog")


def test_inputs_are_frozen_and_replaced_field_by_field() -> None:
    inputs = Inputs(catalog=CAT, now=NOW)
    with pytest.raises(dataclasses.FrozenInstanceError):
        inputs.now = None  # type: ignore[misc]
    bound = inputs.with_refs({"customers": CAT})
    assert (bound.catalog, bound.now, bound.refs) == (CAT, NOW, {"customers": CAT})
    assert inputs.refs is None


@pytest.mark.parametrize(("inputs", "message"), [
    (Inputs(), "needs the catalog relation 'series_catalog': pass catalog="),
    (Inputs(catalog={"other": CAT}), "catalog relation 'series_catalog' not given (have ['other'])"),
])
def test_a_missing_catalog_names_the_argument(inputs: Inputs, message: str) -> None:
    with pytest.raises(CompileError) as e:
        inputs.catalog_relation("series_catalog")
    assert str(e.value) == message


def test_one_table_serves_every_relation_name() -> None:
    assert Inputs(catalog=CAT).catalog_relation("anything") is CAT
    assert Inputs(sessions=CAT).sessions_relation("xnys_sessions") is CAT
    assert Inputs(sessions={"xnys_sessions": CAT}).sessions_relation("xnys_sessions") is CAT
    assert Inputs(outages=CAT).outages_relation("outages") is CAT
    with pytest.raises(CompileError, match="needs the sessions relation 'x': pass sessions="):
        Inputs().sessions_relation("x")
    with pytest.raises(CompileError, match="needs the outages relation 'o': pass outages="):
        Inputs().outages_relation("o")


@pytest.mark.engine
def test_no_catalog_is_an_execution_error_on_duckdb() -> None:
    t = duck_table(connect(), "r", {"series_id": "VARCHAR", "value": "DECIMAL(12,4)",
                                    "unit": "VARCHAR"}, [("p1", Decimal("3"), "bar")])
    report = evaluate(Readings, t, now=NOW)
    for cid in ("catalog_unit:unit", "catalog_bounds:value"):
        r = report.result(cid)
        assert (r.status, r.category) == ("error", "execution")
        assert r.message == ("cannot build the check: needs the catalog relation "
                             "'series_catalog': pass catalog=")
    with pytest.raises(CheckExecutionError):
        Readings.parse(t, now=NOW)
