"""The parity harness: sample data for a contract (clean, or breaking one clause), run every
engine on it through `verify`, and return the report. A parity module's cases run in ONE
`verify_cases` (`run_cases`, through the `parity_batch` fixture of tests/parity/conftest.py):
each engine starts once for all of them and dbt builds them in one project, where a `verify` per
case started every engine and built a project again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import render_contract
from tacit_gen.sample import sample, write
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport, run_verify, verify_cases
from tests.conftest import CONTRACTS, ROOT, engine_targets

ROWS = 24
# every registered target that has an engine (the wire schemas included; a target without one,
# such as a render-only plugin, gives no verdict and verify would exit 4 on it), except soda4: it
# starts soda-core 4 in an environment of its own, so its parity runs every case in ONE worker
# (test_parity_soda4.py).
ENGINES = engine_targets(own_environment=False)


# Fixture contracts with a parity run of their own (a clause kind no bundled contract has yet;
# `orders`' references: on DuckDB and PostgreSQL is tests/references/test_engines.py).
FIXTURES = {
    "line_pressure": ROOT / "tests" / "fixtures" / "plausible" / "plausible.yaml",
    "pressure_by_catalog_unit": ROOT / "tests" / "fixtures" / "series" / "catalog_dimension.yaml",
    "series_clauses": ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml",
    "orders": ROOT / "tests" / "fixtures" / "references" / "orders.yaml",
    "bars_per_session": ROOT / "tests" / "fixtures" / "series" / "completeness_session.yaml",
    "bars_per_venue_session": ROOT / "tests" / "fixtures" / "series" / "completeness_venue_session.yaml",
}


def contract_path(name: str) -> Path:
    """A bundled contract by name, or one of FIXTURES."""
    return FIXTURES.get(name, CONTRACTS / f"{name}.yaml")


def unsupported(name: str, targets: tuple[str, ...] = ENGINES) -> dict[str, set[str]]:
    """Per target, the clauses it declares unsupported at render (its verdict there is n/a),
    which must be the set pinned in `tests.parity.unsupported`: a target that starts (or stops)
    declaring a clause unsupported, or one without a pin, fails here, never passes as n/a."""
    from tests.parity.unsupported import UNSUPPORTED

    _, found = render_contract(load(contract_path(name)), targets, RenderOptions())
    out: dict[str, set[str]] = {t: set() for t in targets}
    for u in found:
        out[u.target].add(u.clause_id)
    pins = UNSUPPORTED.get(name, {})
    missing = [t for t in targets if t not in pins]
    assert not missing, f"no unsupported set pinned for {missing} on {name} (tests/parity/unsupported.py)"
    pinned = {t: set(pins[t]) for t in targets}
    assert out == pinned, (f"{name}: the declared unsupported clauses differ from the pins "
                           f"(tests/parity/unsupported.py): declared {out}, pinned {pinned}")
    return pinned


def clause_ids(name: str) -> list[str]:
    return [c.id for c in plan(load(contract_path(name)))]


def run_case(name: str, violate: str | None, tmp: Path, targets: tuple[str, ...] = ENGINES) -> tuple[VerifyReport, tuple[str, ...]]:
    contract = load(contract_path(name))
    data = sample(contract, plan(contract), rows=ROWS, seed=7, violate=violate)
    data_path, catalog_path = write(data, tmp / f"{name}.csv")
    report = run_verify(contract, data_path, catalog_path, targets, data.now, keep=tmp / "work")
    return report, data.violated


def batch_limit(cases: int) -> float:
    """pytest-timeout's limit for a test that may pay a module's batch of `cases` (its fixture's
    setup counts): the suite's 20 minutes (pyproject.toml) plus a minute a case, so a loaded
    machine does not end the worker in the middle of a batch a case at a time would have run."""
    return 1200 + 60 * cases


def run_cases(name: str, violations: list[str | None], tmp: Path, targets: tuple[str, ...] = ENGINES,
              engine: str = "duckdb", dsn: str | None = None, materialized: str | None = None,
              ) -> dict[str | None, tuple[VerifyReport, tuple[str, ...]]]:
    """The cases of `run_case` (the same rows, seed and sampler) for each of `violations` (None:
    the clean data), verified in one batch: violation -> (report, the clauses sample broke).
    `materialized`: how dbt builds the model under test (``view``, ``table``; None: the
    engine's default, a table)."""
    path = contract_path(name)
    contract = load(path)
    clauses = plan(contract)
    cases, broke = [], []
    for i, violate in enumerate(violations):
        data = sample(contract, clauses, rows=ROWS, seed=7, violate=violate)
        data_path, catalog_path = write(data, tmp / f"case{i}" / f"{name}.csv")
        cases.append(VerifyCase(contract, data_path, catalog_path, data.now, targets, path))
        broke.append(data.violated)
    reports = with_materialization(materialized, lambda: verify_cases(
        cases, engine=engine, workdir=tmp / "work", dsn=dsn))
    return {v: (r, b) for v, r, b in zip(violations, reports, broke, strict=True)}


def verdict_table(report: VerifyReport) -> str:
    return report.render_text()


def failed_by_engine(report: VerifyReport, status: str = "fail") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {t: set() for t in report.targets}
    for row in report.rows:
        for t, v in row.verdicts.items():
            if v.status == status:
                out[t].add(row.clause.id)
    return out


def check_violation(name: str, clause: str, report: VerifyReport, violated: tuple[str, ...]) -> None:
    """Every engine fails exactly the broken error clauses and warns exactly the broken warn ones
    (a warn clause such as `plausible:` is violated alone, or beside the hard clause that implies
    it: a value beyond the hard bounds is beyond the plausible ones too); exit 1 only on a
    failure, 0 when only warnings, which the report lists apart from failures."""
    table = verdict_table(report)
    warn = {c.id for c in plan(load(contract_path(name))) if c.warn}
    assert clause in violated and set(violated) - {clause} <= warn, \
        f"sample could not isolate {clause}: {violated}"
    errors = {c for c in violated if c not in warn}
    skip = unsupported(name, report.targets)
    flagged = any(errors - skip[t] for t in report.targets)  # some engine renders the clause
    assert report.exit_code == (1 if flagged else 0), table
    warned = failed_by_engine(report, "warn")
    for engine, failed in failed_by_engine(report).items():
        assert failed == errors - skip[engine], f"{engine} flagged {sorted(failed)}\n{table}"
        assert warned[engine] == set(violated) - errors - skip[engine], \
            f"{engine} warned {sorted(warned[engine])}\n{table}"
    shown = set().union(*warned.values())
    assert set(report.as_json()["warnings"]) == shown, table  # apart from the failures
    if shown and not flagged:
        assert table.rstrip().endswith(f"{len(shown)} warn clause(s) violated (severity: warn), "
                                       "all engines agree"), table
    elif shown:
        assert f"; {len(shown)} warn clause(s) violated (severity: warn, not failures)" in table, table


def with_materialization(materialized: str | None, run: Any) -> Any:
    """`run()` with dbt's model under test built as `materialized` (the engine processes, forked
    from this one, read it from the environment: `tacit_gen.targets.dbt.engine.materialized`)."""
    import os

    from tacit_gen.targets.dbt.engine import MATERIALIZED_ENV

    if materialized is None:
        return run()
    before = os.environ.get(MATERIALIZED_ENV)
    os.environ[MATERIALIZED_ENV] = materialized
    try:
        return run()
    finally:
        if before is None:
            os.environ.pop(MATERIALIZED_ENV, None)
        else:
            os.environ[MATERIALIZED_ENV] = before


def parity_tests(name: str, only: tuple[str, ...] | None = None, targets: tuple[str, ...] | None = None,
                 materialized: str | None = None) -> tuple[Any, Any]:
    """The two parity tests of one bundled contract (one module per contract, so pytest-xdist
    spreads contracts over workers); the module's selected cases run in one batch
    (`parity_batch`); `only` breaks those clauses alone. `targets` (default: every engine) and
    `materialized` (dbt's model under test as a ``view`` or a ``table``; default the engine's,
    a table) make a configuration of its own."""
    import pytest

    clauses = [c for c in clause_ids(name) if only is None or c in only]
    limit = pytest.mark.timeout(batch_limit(len(clauses) + 1))

    @limit
    @pytest.mark.engine
    def test_clean_data_passes_in_every_engine(parity_batch: Any) -> None:
        report, violated = parity_batch(None)
        assert violated == ()
        assert report.exit_code == 0, verdict_table(report)
        skip = unsupported(name, report.targets)
        for r in report.rows:
            for t, v in r.verdicts.items():
                want = "n/a" if r.clause.id in skip[t] else "pass"
                assert v.status == want, f"{t} {r.clause.id}: {v.status}\n{verdict_table(report)}"

    @limit
    @pytest.mark.engine
    @pytest.mark.parametrize("clause", clauses)
    def test_one_violation_is_flagged_by_every_engine(clause: str, parity_batch: Any) -> None:
        report, violated = parity_batch(clause)
        check_violation(name, clause, report, violated)

    for test in (test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine):
        test.parity = (name, "duckdb")  # type: ignore[attr-defined]  # read by `parity_batch`
        test.parity_config = (targets, materialized)  # type: ignore[attr-defined]
    return test_clean_data_passes_in_every_engine, test_one_violation_is_flagged_by_every_engine
