"""Parity on a real PostgreSQL 15: every target runs in PostgreSQL (dbt-postgres, Soda's postgres
data source, GX's SQL datasource for the whole suite, pandera on frames read through Arrow, the
ibis runtime on the postgres backend), on artifacts rendered for PostgreSQL, for every clause of
every bundled contract: clean data passes everywhere, and data breaking one clause is flagged by
every target, naming exactly that clause.

One server for the whole session (tests/conftest.py, its own time zone America/New_York: every
session must run in UTC anyway); each case is loaded into a fresh schema and dropped after. A
module's selected cases run in ONE `verify_cases` (`parity_batch`, tests/parity/conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.verify import VerifyReport
from tests.conftest import value_targets
from tests.parity.harness import batch_limit, check_violation, contract_path, unsupported

# The targets that run in PostgreSQL (the wire schemas check the data file, not the database).
PG_ENGINES = value_targets("postgres", own_environment=False)


def postgres_parity_test(name: str, only: tuple[str | None, ...] | None = None) -> Any:
    """The PostgreSQL parity test of one bundled contract: clean data, then each clause broken
    (one module per contract, so pytest-xdist spreads the contracts over workers; the module's
    selected cases in one batch); `only` runs those cases alone (None is the clean data)."""
    cases = [None, *(c.id for c in plan(load(str(contract_path(name)))))]
    if only is not None:
        cases = [c for c in cases if c in only]

    @pytest.mark.timeout(batch_limit(len(cases)))
    @pytest.mark.engine
    @pytest.mark.parametrize("violate", cases, ids=[v or "clean" for v in cases])
    def test_postgres_parity(parity_batch: Any, violate: str | None) -> None:
        report, violated = parity_batch(violate)
        _check(name, violate, report, violated)

    test_postgres_parity.parity = (name, "postgres")  # type: ignore[attr-defined]  # `parity_batch`
    return test_postgres_parity


def _check(name: str, violate: str | None, report: VerifyReport, violated: tuple[str, ...]) -> None:
    table = report.render_text()
    skip = unsupported(name)
    if violate is None:
        assert violated == ()
        assert report.exit_code == 0, table
        for r in report.rows:
            for t, v in r.verdicts.items():
                want = "n/a" if r.clause.id in skip[t] else "pass"
                assert v.status == want, f"{t} {r.clause.id}: {v.status}\n{table}"
        return
    check_violation(name, violate, report, violated)
