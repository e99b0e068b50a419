"""Every hand-made hardening case (tests/hardening/batch.py) verified in every engine: ONE
`verify_cases` on DuckDB and one on PostgreSQL for all of them (one engine process and one dbt
build per backend), each report checked by its module's `check_report`, the hand-counted failing
rows in every engine of the module's list. The Spark batch (tests/parity/test_parity_spark.py)
runs the same cases on Spark."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tacit_gen.engines.postgres_server import Server
from tacit_gen.verify import verify_cases
from tests.conftest import engine_targets
from tests.hardening.batch import HARDENING, cases, check
from tests.parity.harness import batch_limit

# one test pays a backend's whole batch (its fixture's setup counts toward the limit)
pytestmark = [pytest.mark.engine, pytest.mark.timeout(batch_limit(len(HARDENING)))]


def _verify(root: Path, engine: str, dsn: str | None = None) -> dict[str, tuple[Any, Any]]:
    batch = cases(root, engine_targets(engine))
    reports = verify_cases(batch, engine=engine, workdir=root / "work", dsn=dsn)
    return {name: (case, report) for (name, _), case, report in zip(HARDENING, batch, reports, strict=True)}


@pytest.fixture(scope="module")
def on_duckdb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    return _verify(tmp_path_factory.mktemp("hardening-duckdb"), "duckdb")


@pytest.fixture(scope="module")
def on_postgres(pg_server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    return _verify(tmp_path_factory.mktemp("hardening-postgres"), "postgres", pg_server.dsn)


@pytest.mark.parametrize(("name", "module"), HARDENING, ids=[n for n, _ in HARDENING])
def test_every_engine_on_duckdb(name: str, module: ModuleType, on_duckdb: dict[str, Any]) -> None:
    case, report = on_duckdb[name]
    check(module, case, report.as_json(), report.render_text())


@pytest.mark.parametrize(("name", "module"), HARDENING, ids=[n for n, _ in HARDENING])
def test_every_engine_on_postgres(name: str, module: ModuleType, on_postgres: dict[str, Any]) -> None:
    case, report = on_postgres[name]
    check(module, case, report.as_json(), report.render_text())


def test_the_batch_holds_every_case_module() -> None:
    """A hardening module that writes and checks a verify case (`write_case`, `check_report`)
    is in the batch, so its DuckDB and PostgreSQL verdicts are tested."""
    here = Path(__file__).resolve().parent
    import importlib

    writers = set()
    for path in sorted(here.glob("test_verify_*.py")):
        text = path.read_text(encoding="utf-8")
        if "def write_case" in text or "write_case = " in text:
            module = importlib.import_module(f"tests.hardening.{path.stem}")
            if hasattr(module, "check_report") and hasattr(module, "NOW"):
                writers.add(module.__name__)
    assert writers == {m.__name__ for _, m in HARDENING}
