"""docs/how-to/hourly-spark.md, run as written on Spark local (`tests.since.pages`). Select with
``-m spark`` (`nox -s spark` in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.since.pages import run_page

pytestmark = [pytest.mark.spark, pytest.mark.engine]


def test_the_page_runs_as_written(tmp_path: Path) -> None:
    ran = run_page(ROOT / "docs" / "how-to" / "hourly-spark.md", tmp_path)
    assert [c for c, _ in ran if "--engine spark" in c and "--since" in c]
