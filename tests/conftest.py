"""Test-wide setup: every engine offline, telemetry off, before any engine is imported."""

from __future__ import annotations

import os
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
BUNDLED = sorted(CONTRACTS.glob("*.yaml"))

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
