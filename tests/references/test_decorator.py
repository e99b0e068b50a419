"""`@contract(validate=True, refs=...)` on DuckDB: the decorator passes the relations `references:`
clauses read to `parse()`, on the inputs and on the output. A relation is a Table given at
decoration, or the name of one of the function's parameters (each call's argument is the relation).
An order whose customer is absent fails `references:customer_id` at the boundary that reads it
(CONTRACT_INPUT naming the parameter, or CONTRACT_OUTPUT); a relation not given is a
CheckExecutionError naming it; `refs=` without `validate=True`, or naming no parameter, is a
TypeError at decoration, never a silent cast()."""

# No `from __future__ import annotations`: the annotations below name a schema class built in
# the test, which @contract resolves when it decorates.

from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import load_module
from tacit_gen.engines.load import load_data
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.runtime import DataFrame, contract
from tacit_gen.runtime.errors import CheckExecutionError, ConstraintError, ValidationPhase
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "references" / "orders.yaml"
CLAUSE = "references:customer_id"


def _tables(tmp_path: Path, violate: str | None) -> tuple[Any, Any, Any]:
    """(the Orders schema, orders, customers) on a DuckDB file loaded from sample data."""
    contract_ = load(FIXTURE)
    arts, _ = render_contract(contract_, ("ibis",), RenderOptions())
    path = tmp_path / "orders_schema.py"
    path.write_text(arts[0].content, encoding="utf-8")
    orders_schema = load_module(path, "refs_decorator").Orders
    data = sample(contract_, plan(contract_), rows=16, seed=5, violate=violate)
    data_path, _ = write(data, tmp_path / "data" / "orders.csv")
    load_data(contract_, data_path, tmp_path / "x.duckdb")
    con = ibis.duckdb.connect(str(tmp_path / "x.duckdb"))
    return orders_schema, con.table("orders"), con.table("customers")


@pytest.mark.parametrize("violate", [None, CLAUSE])
def test_refs_given_as_a_table_reach_the_output_check(tmp_path: Path, violate: str | None) -> None:
    orders_schema, orders, customers = _tables(tmp_path, violate)

    @contract(validate=True, returns=orders_schema, refs={"customers": customers})
    def placed(raw: ibis.Table) -> ibis.Table:
        return raw.filter(raw.amount >= 0)

    if violate is None:
        assert placed(orders).count().execute() == 16
        return
    with pytest.raises(ConstraintError) as e:
        placed(orders)
    assert e.value.phase is ValidationPhase.CONTRACT_OUTPUT and e.value.parameter == "return"
    assert [(f.clause_id, f.count) for f in e.value.failures] == [(CLAUSE, 1)]
    assert e.value.function is not None and e.value.function.endswith("placed")


@pytest.mark.parametrize("violate", [None, CLAUSE])
def test_refs_naming_a_parameter_read_that_calls_argument(tmp_path: Path, violate: str | None) -> None:
    orders_schema, orders, customers = _tables(tmp_path, violate)

    @contract(validate=True, refs={"customers": "known"})
    def enrich(raw: DataFrame[orders_schema], known: ibis.Table) -> DataFrame[orders_schema]:  # type: ignore[valid-type]
        return raw  # type: ignore[no-any-return]

    if violate is None:
        assert enrich(orders, customers).count().execute() == 16
        # the same function against a relation without those customers: the input fails
        with pytest.raises(ConstraintError) as e:
            enrich(orders, known=customers.filter(customers.customer_id < 0))
        assert e.value.phase is ValidationPhase.CONTRACT_INPUT and e.value.parameter == "raw"
        assert e.value.clause_ids == (CLAUSE,) and e.value.counts[CLAUSE] > 0
        return
    with pytest.raises(ConstraintError) as e:
        enrich(orders, customers)
    assert e.value.phase is ValidationPhase.CONTRACT_INPUT and e.value.parameter == "raw"
    assert [(f.clause_id, f.count) for f in e.value.failures] == [(CLAUSE, 1)]


def test_a_relation_not_given_is_an_execution_error_naming_it(tmp_path: Path) -> None:
    orders_schema, orders, _ = _tables(tmp_path, None)

    @contract(validate=True, returns=orders_schema)
    def placed(raw: ibis.Table) -> ibis.Table:
        return raw

    with pytest.raises(CheckExecutionError) as e:
        placed(orders)
    assert e.value.clause_ids == (CLAUSE,)
    assert "pass refs={'customers': <table>}" in str(e.value), str(e.value)


def test_refs_without_validate_or_naming_no_parameter_is_a_type_error(tmp_path: Path) -> None:
    orders_schema, _, customers = _tables(tmp_path, None)

    with pytest.raises(TypeError, match="pass validate=True"):
        @contract(returns=orders_schema, refs={"customers": customers})
        def cast_only(raw: ibis.Table) -> ibis.Table:
            return raw

    with pytest.raises(TypeError, match=r"refs\['customers'\] = 'clients' names no parameter"):
        @contract(validate=True, returns=orders_schema, refs={"customers": "clients"})
        def typo(raw: ibis.Table, customers: ibis.Table) -> ibis.Table:
            return raw
