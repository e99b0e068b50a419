"""Test-wide setup: every engine offline, telemetry off, before any engine is imported."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

for _k, _v in {
    "DO_NOT_TRACK": "1",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "SCARF_NO_ANALYTICS": "true",
}.items():
    os.environ.setdefault(_k, _v)
# The version gate reads CI / GITHUB_BASE_REF: tests set them where they mean to, never inherit them.
for _k in ("CI", "GITHUB_BASE_REF"):
    os.environ.pop(_k, None)

ROOT = Path(__file__).resolve().parent.parent


def write_artifacts(target: Any, contract: Any, clauses: Any, folder: Path) -> Path:
    """Render one target's artifacts of a contract into `folder` (what `render --out` writes),
    for an engine test that runs them; returns `folder`."""
    from tacit_gen.targets.base import RenderOptions

    for a in target.render(contract, clauses, RenderOptions()).artifacts:
        (folder / a.path).parent.mkdir(parents=True, exist_ok=True)
        (folder / a.path).write_text(a.content, encoding="utf-8")
    return folder
CONTRACTS = ROOT / "contracts"

# The costliest files of the suite by CPU (a fresh-clone CI run's `-p tests.cputime` table, 2026-12-05:
# 75 s down to 18 s each), costliest first. `nox -s tests` distributes whole files over two workers
# (--dist loadfile) in collection order (--no-loadscope-reorder): these go first, so the run ends on
# small files and no worker waits a minute for the other at the end. A file missing from the list
# only runs later; tests/test_ci_sessions.py checks that each one exists.
COSTLIEST_FIRST = (
    "tests/parity/test_parity_ohlcv_1m.py",
    "tests/since/test_whole_table.py",
    "tests/parity/test_parity_postgres_ohlcv_1m.py",
    "tests/parity/test_parity_plant_sensor_reading.py",
    "tests/targets/gx/test_engine.py",
    "tests/cli/test_verify_many.py",
    "tests/parity/test_parity_postgres_plant_sensor_reading.py",
    "tests/sql/test_shapes.py",
    "tests/verify/test_offending_rows.py",
    "tests/publish/test_cli.py",
    "tests/hardening/test_verify_ns_overflow.py",
    "tests/calendar/test_calendar_engines.py",
    "tests/targets/dbt/test_engine.py",
    "tests/parity/test_parity_fct_sensor_readings.py",
    "tests/hardening/test_verify_batch.py",
    "tests/timeseries/test_freshness_date.py",
    "tests/timeseries/test_completeness_session_engines.py",
    "tests/cli/test_verify_progress.py",
    "tests/since/test_verify_since.py",
    "tests/timeseries/test_session_edges.py",
    "tests/since/test_howto_dbt.py",
    "tests/parity/test_parity_views_fct_sensor_readings.py",
    "tests/parity/test_parity_postgres_fct_sensor_readings.py",
    "tests/hardening/test_verify_bad_data.py",
    "tests/runtime/test_since_property.py",
)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """The files of COSTLIEST_FIRST first, in its order; every other test keeps its place after them."""
    rank = {path: i for i, path in enumerate(COSTLIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
BUNDLED = sorted(CONTRACTS.glob("*.yaml"))


# The cross-cutting suites take their targets from the registry (a new target joins them without
# editing them); a file about one target names it.
_PROBE = """\
contract: probe
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  x: {type: float64, unit: m}
invariants:
  - x between 0 and 1
"""


def engine_targets(backend: str = "duckdb", *, own_environment: bool = True) -> tuple[str, ...]:
    """Every registered target `verify` runs on `backend` (``duckdb``, ``postgres``, ``spark``),
    in the registry's order: the value checkers and the record schemas. `own_environment=False`
    leaves out those whose engine runs in an environment of its own (soda4: soda-core 4 cannot
    share verify's), which a suite that runs every case in one process tests apart."""
    from tacit_gen import registry

    return tuple(t for t in registry.names() if backend in (engines := registry.get(t).engines)
                 and (own_environment or engines[backend].environment is None))


@cache
def _checks_values(target: str) -> bool:
    from tacit_gen import registry
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan
    from tacit_gen.targets.base import RenderOptions

    contract = load("probe.yaml", _PROBE)
    # a clause across rows (the key's uniqueness): a record schema states rules of one record
    # only (JSON Schema states a float's range too), a table's checker states this one
    (key,) = [c for c in plan(contract) if c.kind == "unique"]
    return registry.get(target).project(contract, key, RenderOptions()) is not None


def value_targets(backend: str = "duckdb", *, own_environment: bool = True) -> tuple[str, ...]:
    """The targets of `engine_targets` that check a table's values (the key's uniqueness across
    rows): the SQL and dataframe targets."""
    return tuple(t for t in engine_targets(backend, own_environment=own_environment)
                 if _checks_values(t))


def record_targets(backend: str = "duckdb") -> tuple[str, ...]:
    """The targets of `engine_targets` that check the structure of a record only (the wire
    schemas: Avro, Protobuf, JSON Schema): a value clause is n/a there."""
    return tuple(t for t in engine_targets(backend) if not _checks_values(t))

def verify_named(cases: dict[Any, Any], workdir: Path, engine: str = "duckdb",
                 dsn: str | None = None) -> dict[Any, Any]:
    """Named cases (each a `VerifyCase`) verified in ONE run (`verify_cases`: each engine once,
    one dbt build), their reports by the same names."""
    from tacit_gen.verify import verify_cases

    got = verify_cases(list(cases.values()), engine=engine, workdir=workdir, dsn=dsn)
    return dict(zip(cases, got, strict=True))


# The PostgreSQL server of the whole test session (per xdist worker): started on first use,
# stopped at the end. Its own default time zone is America/New_York on purpose: every session
# tacit-gen opens must run in UTC anyway, so a test that passes here proves that it does.
PG_SERVER_TIMEZONE = "America/New_York"


def _pg_server():  # type: ignore[no-untyped-def]
    import pytest

    @pytest.fixture(scope="session")
    def pg_server():  # type: ignore[no-untyped-def]
        from tacit_gen.engines.postgres_server import throwaway_server

        with throwaway_server(timezone=PG_SERVER_TIMEZONE) as server:
            yield server

    return pg_server


pg_server = _pg_server()


def _spark_batch():  # type: ignore[no-untyped-def]
    import pytest

    @pytest.fixture(scope="session")
    def spark_batch(request, tmp_path_factory):  # type: ignore[no-untyped-def]
        """Every selected Spark module's cases in ONE Spark worker (tests/spark_batch.py)."""
        from tests import spark_batch as batch

        return batch.run(batch.modules_of(request.session.items), tmp_path_factory.mktemp("spark"))

    return spark_batch


spark_batch = _spark_batch()


def _no_columns():  # type: ignore[no-untyped-def]
    import pytest

    @pytest.fixture(autouse=True)
    def no_columns(monkeypatch):  # type: ignore[no-untyped-def]
        """Every test starts without COLUMNS: the CLI's tables fit COLUMNS when it is set, so a
        value left by another test or a library in the same worker must not wrap a table that a
        test reads line by line (tests of the width set it themselves)."""
        monkeypatch.delenv("COLUMNS", raising=False)

    return no_columns


no_columns = _no_columns()


def targets_rendering(contract: Path, clause: str) -> set[str]:
    """The registered targets whose render of `contract` expresses `clause` (does not declare it
    unsupported): the targets a per-target table of a drift test must cover."""
    from tacit_gen import registry
    from tacit_gen.contract.loader import load
    from tacit_gen.render import render_contract
    from tacit_gen.targets.base import RenderOptions

    targets = registry.names()
    _, unsupported = render_contract(load(contract), targets, RenderOptions())
    return set(targets) - {u.target for u in unsupported if u.clause_id == clause}
