"""docs/how-to/incremental-dbt.md, run as written with dbt-duckdb (`tests.since.pages`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.since.pages import run_page

pytestmark = pytest.mark.engine


def test_the_page_runs_as_written(tmp_path: Path) -> None:
    ran = run_page(ROOT / "docs" / "how-to" / "incremental-dbt.md", tmp_path)
    assert [c.split()[1] for c, _ in ran[-4:]] == ["build", "build", "test", "verify"]
