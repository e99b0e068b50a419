"""The ibis runtime on DuckDB: a violated `severity: warn` clause is a `ContractWarning` from
`parse()` (the data comes back), never an exception; with a real failure beside it, the error
carries it apart in `.warnings`."""

from __future__ import annotations

import datetime as dt
import warnings
from decimal import Decimal

import pytest

from tacit_gen.plan_types import Clause, make_params
from tacit_gen.runtime import ConstraintError, ContractWarning, DataFrame

from ..runtime.helpers import BAR_TYPES, T0, Bars, bar_rows, connect, duck_table

pytestmark = pytest.mark.engine


def inv(text: str, severity: str = "error") -> Clause:
    return Clause(f"invariant:{text}", "invariant", (), make_params(expr=text), text,
                  severity=severity)


class Warned(Bars):
    __clauses__ = (inv("low <= open", "warn"), inv("open <= high"))


def test_a_warn_violation_is_a_warning_and_the_data_passes() -> None:
    con = connect()
    rows = [*bar_rows(2), ("AAA", T0 + dt.timedelta(minutes=5), Decimal("10"), Decimal("9"),
                           Decimal("11"), 1, "good")]  # open < low: the warn clause
    t = duck_table(con, "bars", BAR_TYPES, rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = Warned.parse(t)
    assert isinstance(df, DataFrame)
    found = [w.message for w in caught if isinstance(w.message, ContractWarning)]
    assert len(found) == 1 and found[0].clause_ids == ("invariant:low <= open",)
    assert found[0].failures[0].count == 1
    report = Warned.evaluate(t)
    assert report.ok and [r.clause.id for r in report.warnings] == ["invariant:low <= open"]
    assert report.result("invariant:low <= open").status == "warn"
    # a user who wants warnings to stop the pipeline says so
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContractWarning)
        with pytest.raises(ContractWarning):
            Warned.parse(t)
    con.disconnect()


def test_a_failure_beside_a_warning_raises_and_keeps_the_warning_apart() -> None:
    con = connect()
    rows = [*bar_rows(2),
            ("AAA", T0 + dt.timedelta(minutes=5), Decimal("10"), Decimal("9"), Decimal("11"), 1, "good"),
            ("AAA", T0 + dt.timedelta(minutes=6), Decimal("10"), Decimal("12"), Decimal("11"), 1, "good")]
    t = duck_table(con, "bars", BAR_TYPES, rows)
    with pytest.raises(ConstraintError) as ei:
        Warned.parse(t)
    assert ei.value.clause_ids == ("invariant:open <= high",)
    assert [f.clause_id for f in ei.value.warnings] == ["invariant:low <= open"]
    con.disconnect()
