"""docs/how-to/publish.md, run as written (`tests.since.pages`): the runtime loader and the CLI
publish minute bars into a DuckDB file, two batches land and two failing ones do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CONTRACTS, ROOT
from tests.since.pages import files, run_page

pytestmark = pytest.mark.engine

PAGE = ROOT / "docs" / "how-to" / "publish.md"


def test_the_page_shows_the_bundled_contract_verbatim() -> None:
    shown = files(PAGE.read_text(encoding="utf-8"))["contracts/ohlcv_1m.yaml"]
    assert shown == (CONTRACTS / "ohlcv_1m.yaml").read_text(encoding="utf-8")


def test_the_page_runs_as_written(tmp_path: Path) -> None:
    ran = run_page(PAGE, tmp_path)
    assert [c.split()[1] for c, _ in ran[3:7]] == ["loader.py", "publish", "loader.py", "publish"]
