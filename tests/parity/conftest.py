"""The parity modules' batch: every selected case of a module verified in ONE `verify_cases`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(scope="module")
def parity_batch(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Callable[[str | None], Any]:
    """violation (None: the clean data) -> (report, the clauses sample broke), for the cases of
    the module's tests selected in this run (a test function of `parity_tests` or
    `postgres_parity_test` carries `parity = (contract, backend)`), verified in one batch: each
    engine starts once and dbt builds every case in one project."""
    from tests.parity.harness import run_cases
    from tests.parity.postgres_harness import PG_ENGINES

    selected: list[str | None] = []
    spec: tuple[str, str] | None = None
    config: tuple[tuple[str, ...] | None, str | None] = (None, None)  # targets, dbt materialization
    for item in request.session.items:
        fn = getattr(item, "function", None)
        if getattr(item, "module", None) is not request.module or not hasattr(fn, "parity"):
            continue
        spec = fn.parity  # type: ignore[union-attr]
        config = getattr(fn, "parity_config", config)
        params = getattr(item, "callspec", None)
        case = None if params is None else params.params.get("clause", params.params.get("violate"))
        if case not in selected:
            selected.append(case)
    assert spec is not None, "parity_batch serves the tests of parity_tests and postgres_parity_test"
    name, backend = spec
    root = tmp_path_factory.mktemp(f"parity-{backend}-{name}")
    if backend == "postgres":
        dsn = request.getfixturevalue("pg_server").dsn
        return run_cases(name, selected, root, PG_ENGINES, "postgres", dsn).__getitem__
    from tests.parity.harness import ENGINES

    targets, materialized = config
    return run_cases(name, selected, root, targets or ENGINES, materialized=materialized).__getitem__
