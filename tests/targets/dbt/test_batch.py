"""dbt over many contracts (`verify --data-dir`): ONE project with a model per contract and ONE
`dbt build`; a model whose build fails (a not_null constraint at insert) is rebuilt alone, and the
other models keep their verdicts. Real dbt-duckdb; the builds dbt ran are counted by wrapping
`invoke` (it still runs)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.dbt import engine
from tacit_gen.verify import VerifyCase, parse_now
from tacit_gen.verify.many import verify_many
from tests.conftest import BUNDLED

pytestmark = pytest.mark.engine
NOW = parse_now("2024-01-02T15:00:00Z")


def cases(folder: Path, violate: dict[str, str]) -> list[VerifyCase]:
    out = []
    for path in BUNDLED:
        c = load(str(path))
        data = sample(c, plan(c), rows=15, seed=0, violate=violate.get(c.name), now=NOW)
        csv, cat = write(data, folder / f"{c.name}.csv")
        out.append(VerifyCase(c, csv, cat, NOW, ("dbt",), path))
    return out


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The `dbt build` invocations of the test. A second thread runs meanwhile, so verify runs
    the engines in this process (as it does inside an application) and the wrapper sees them."""
    seen: list[tuple[str, ...]] = []
    real = engine.invoke

    def counting(project: Path, *args: str, manifest: Any = None) -> Any:
        if args[0] == "build":
            seen.append(args)
        return real(project, *args, manifest=manifest)

    monkeypatch.setattr(engine, "invoke", counting)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        yield seen
    finally:
        stop.set()
        other.join()


def test_clean_contracts_are_one_project_and_one_build(tmp_path: Path,
                                                       builds: list[tuple[str, ...]]) -> None:
    report = verify_many(cases(tmp_path / "data", {}), workdir=tmp_path / "work")
    assert report.exit_code == 0
    assert len(builds) == 1 and "--select" not in builds[0]
    project = tmp_path / "work" / "c0" / "dbt" / "project"
    models = sorted(p.stem for p in (project / "models").glob("*.sql"))
    for r in report.reports:  # every contract's model in the one project, every clause a pass
        assert engine.model_name(r.contract) in models
        assert {row.verdicts["dbt"].status for row in r.rows} == {"pass"}, r.contract.name
    assert not (tmp_path / "work" / "c1" / "dbt" / "project").exists()


def test_a_model_that_fails_its_build_is_rebuilt_alone(tmp_path: Path,
                                                       builds: list[tuple[str, ...]]) -> None:
    report = verify_many(cases(tmp_path / "data", {"ohlcv_1m": "not_null:close"}),
                         workdir=tmp_path / "work")
    assert report.exit_code == 1
    assert len(builds) == 2 and "--select" not in builds[0]
    assert builds[1][builds[1].index("--select") + 1:] == ("ohlcv_1m",)
    for r in report.reports:
        bad = {row.clause.id: row.verdicts["dbt"].status for row in r.rows
               if row.verdicts["dbt"].status != "pass"}
        assert bad == ({"not_null:close": "fail"} if r.contract.name == "ohlcv_1m" else {}), bad
