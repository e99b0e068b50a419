"""`plausible: catalog` run for real in every engine (dbt-duckdb, Soda v3, Soda 4, GX, pandera,
the ibis runtime) on hand-made data: clean data passes everywhere; a value inside its series'
hard bounds but outside the plausible ones is a `warn` verdict (not fail, not pass) in each engine that
renders the clause, the wire schemas say n/a as declared, and verify exits 0; a value beyond the
hard bounds still fails catalog_bounds (exit 1) and warns plausible beside it. The three cases
are verified in one batch (`verify_cases`: each engine once, one dbt build)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport
from tests.conftest import engine_targets, value_targets, verify_named

pytestmark = pytest.mark.engine

CONTRACT = Path(__file__).resolve().parents[1] / "fixtures" / "plausible" / "plausible.yaml"
CATALOG = ("series_id,hard_min,hard_max,plausible_min,plausible_max\n"
           "pt_101,0,1000,80,120\n"
           "pt_102,0,1000,,150\n")  # pt_102 has no lower plausible bound (too little history)
HEADER = "series_id,event_ts,value,quality\n"
CLEAN = [
    "pt_101,2024-01-02T00:00:00.000+00:00,80.0000,good",     # on the bounds: inclusive
    "pt_101,2024-01-02T00:01:00.000+00:00,120.0000,good",
    "pt_101,2024-01-02T00:02:00.000+00:00,,bad",             # NULL passes
    "pt_102,2024-01-02T00:00:00.000+00:00,0.5000,good",      # no lower bound: passes that side
]
CASES = {
    "clean": (CLEAN, {}),
    # inside the hard bounds 0..1000, outside 80..120 (twice) and above pt_102's 150
    "implausible": ([*CLEAN, "pt_101,2024-01-02T00:03:00.000+00:00,400.0000,good",
                             "pt_101,2024-01-02T00:04:00.000+00:00,79.9999,good",
                             "pt_102,2024-01-02T00:01:00.000+00:00,150.0001,good"],
                    {"plausible:value": ("warn", 3)}),
    # beyond the hard bounds: catalog_bounds fails (the build fails), plausible warns beside it
    "impossible": ([*CLEAN, "pt_101,2024-01-02T00:03:00.000+00:00,1000.0001,good"],
                   {"catalog_bounds:value": ("fail", 1), "plausible:value": ("warn", 1)}),
}
VERDICT_ENGINES = value_targets()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """The three cases verified in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("plausible")
    contract = load(CONTRACT)
    cases = {}
    for case in sorted(CASES):
        rows, _ = CASES[case]
        (tmp / case).mkdir()
        data, catalog = tmp / case / "data.csv", tmp / case / "catalog.csv"
        data.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
        catalog.write_text(CATALOG, encoding="utf-8")
        cases[case] = VerifyCase(contract, data, catalog, datetime(2024, 1, 3, tzinfo=UTC),
                                 engine_targets(), CONTRACT)
    return verify_named(cases, tmp / "work")


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_engine_warns_on_implausible_values_and_never_fails_for_them(
        case: str, reports: dict[str, VerifyReport]) -> None:
    targets, report = engine_targets(), reports[case]
    table = report.render_text()
    _, found = render_contract(load(CONTRACT), targets, RenderOptions())
    declared = {(u.target, u.clause_id) for u in found}
    want = CASES[case][1]
    for row in report.rows:
        cid = row.clause.id
        status, count = want.get(cid, ("pass", 0))
        for target, verdict in row.verdicts.items():
            expected = "n/a" if (target, cid) in declared else status
            assert verdict.status == expected, f"{target} {cid}: {verdict.status}\n{table}"
            if expected in ("warn", "fail") and verdict.failures is not None:
                assert verdict.failures == count, f"{target} {cid}: {verdict.failures}\n{table}"
    plausible = next(r for r in report.rows if r.clause.id == "plausible:value")
    for target in VERDICT_ENGINES:  # the engines that can say warn do (none declares it away)
        assert (target, "plausible:value") not in declared, f"{target} declares plausible unsupported"
        assert plausible.verdicts[target].status == ("pass" if case == "clean" else "warn"), table
    assert report.exit_code == (1 if case == "impossible" else 0), table
    if case == "implausible":
        assert "WARN" in table and report.as_json()["warnings"] == ["plausible:value"], table
