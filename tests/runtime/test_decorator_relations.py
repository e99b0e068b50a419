"""`@contract(validate=True, sessions=..., outages=...)` on DuckDB: the decorator passes the
exchange sessions and the outages relation to every `parse()` it runs, as `refs=` does for
foreign keys (tests/references/test_decorator.py). A day short of readings passes the function's
output check under an outage of an allowed type, fails `completeness:` under one of another type
(CONTRACT_OUTPUT, the failing count from the engine), and `sessions=`/`outages=` without
`validate=True` are a TypeError at decoration, never a silent cast()."""

# No `from __future__ import annotations`: the annotations below name a schema class built in
# the test, which @contract resolves when it decorates.

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import load_module
from tacit_gen.engines.load import load_data
from tacit_gen.render import render_contract
from tacit_gen.runtime import DataFrame, contract
from tacit_gen.runtime.errors import ConstraintError, ValidationPhase
from tacit_gen.targets.base import RenderOptions
from tests.targets.test_completeness_engines import CASES, CID, NOW, _files

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "series" / "completeness.yaml"


def _tables(tmp_path: Path, case: str) -> tuple[Any, Any, Any]:
    """(the schema class, the readings, the outages) of one case on a DuckDB file."""
    contract_ = load(FIXTURE)
    arts, _ = render_contract(contract_, ("ibis",), RenderOptions())
    path = tmp_path / "completeness_schema.py"
    path.write_text(arts[0].content, encoding="utf-8")
    schema = load_module(path, f"decorator_outages_{case}").CompletenessDemo
    data, outages = _files(case, tmp_path / "files")
    load_data(contract_, data, tmp_path / "x.duckdb", outages_path=outages)
    con = ibis.duckdb.connect(str(tmp_path / "x.duckdb"))
    return schema, con.table("completeness_demo"), con.table("outages")


@pytest.mark.parametrize("case", ["allowed_outage", "other_outage"])
def test_outages_reach_the_output_check(tmp_path: Path, case: str) -> None:
    schema, readings, outages = _tables(tmp_path, case)

    @contract(validate=True, returns=schema, now=NOW, outages=outages)
    def passthrough(raw: ibis.Table) -> ibis.Table:
        return raw

    if not CASES[case][2]:
        assert passthrough(readings).count().execute() == readings.count().execute()
        # the same readings without the outages relation: the short day is not excused
        with pytest.raises(Exception) as without:
            contract(validate=True, returns=schema, now=NOW)(lambda raw: raw)(readings)
        assert CID in str(without.value)
        return
    with pytest.raises(ConstraintError) as e:
        passthrough(readings)
    assert e.value.phase is ValidationPhase.CONTRACT_OUTPUT and e.value.parameter == "return"
    assert e.value.clause_ids == (CID,) and e.value.counts[CID] >= 1


def test_inputs_are_checked_with_the_outages_too(tmp_path: Path) -> None:
    schema, readings, outages = _tables(tmp_path, "other_outage")

    @contract(validate=True, now=NOW, outages=outages)
    def total(raw: DataFrame[schema]) -> int:  # type: ignore[valid-type]
        return int(raw.count().execute())  # type: ignore[attr-defined]

    with pytest.raises(ConstraintError) as e:
        total(readings)
    assert e.value.phase is ValidationPhase.CONTRACT_INPUT and e.value.parameter == "raw"
    assert e.value.clause_ids == (CID,)


@pytest.mark.parametrize("arg", ["sessions", "outages"])
def test_without_validate_is_a_type_error(arg: str) -> None:
    table = ibis.memtable({"series_id": ["AB-001"], "start": [datetime(2024, 1, 2, tzinfo=UTC)]})
    with pytest.raises(TypeError, match=f"{arg}= is read by parse"):
        contract(**{arg: table})(lambda raw: raw)  # type: ignore[call-overload]
