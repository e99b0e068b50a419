"""`pattern:` and `revision_policy.by` run for real in every engine (dbt, Soda v3, Soda 4, GX,
pandera, the ibis runtime, and JSON Schema for the pattern) on hand-made data: clean data passes everywhere,
a bad series id fails `pattern:` and a restatement by someone not in `by` fails `revision_by:`,
in each engine that can say it; the wire schemas that cannot are n/a, as declared. The cases are
verified in one batch (`verify_cases`: each engine once, one dbt build)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.render import render_contract
from tacit_gen.targets.base import RenderOptions
from tacit_gen.verify import VerifyCase, VerifyReport
from tests.conftest import engine_targets, verify_named

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "tests" / "fixtures" / "series" / "series_clauses.yaml"
HEADER = "series_id,event_ts,value,revised_by,source_id,revision\n"
CLEAN = [
    "AB-001,2024-01-02T00:00:00.000+00:00,1.5000,,historian,0",
    "AB-001,2024-01-02T00:00:00.000+00:00,1.6000,vendor-a,historian,1",
    "CD-999,2024-01-02T00:01:00.000+00:00,,,historian,0",
]
CASES = {
    "clean": (CLEAN, set()),
    # lower case, too long, a prefix match only: each fails the whole-value match
    "pattern": ([*CLEAN, "ab-001,2024-01-02T00:03:00.000+00:00,1.0,,historian,0",
                         "AB-0012,2024-01-02T00:03:00.000+00:00,1.0,,historian,0"], {"pattern:series_id"}),
    # a restatement by someone not listed, and one that names no one
    "revision_by": ([*CLEAN, "CD-999,2024-01-02T00:01:00.000+00:00,1.0,intern,historian,1",
                             "CD-999,2024-01-02T00:01:00.000+00:00,1.0,,historian,2"], {"revision_by:revised_by"}),
}
CANNOT = {"avro": {"pattern:series_id", "revision_by:revised_by"},
          "protobuf": {"revision_by:revised_by"},
          "jsonschema": {"revision_by:revised_by"}}


TARGETS = engine_targets()  # verdicts only


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    """Every case verified in ONE run: each engine once (one dbt build) for all of them."""
    tmp = tmp_path_factory.mktemp("series_engines")
    contract = load(CONTRACT)
    cases = {}
    for name in sorted(CASES):
        data = tmp / f"{name}.csv"
        data.write_text(HEADER + "\n".join(CASES[name][0]) + "\n")
        cases[name] = VerifyCase(contract, data, None, datetime(2024, 1, 3, tzinfo=UTC), TARGETS, CONTRACT)
    return verify_named(cases, tmp / "work")


@pytest.mark.engine
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_engine_flags_exactly_the_broken_clause(case: str, reports: dict[str, VerifyReport]) -> None:
    _, want = CASES[case]
    contract = load(CONTRACT)
    report = reports[case]
    table = report.render_text()
    assert set(report.targets) == set(TARGETS), table
    _, found = render_contract(contract, TARGETS, RenderOptions())
    declared = {(u.target, u.clause_id) for u in found}
    for cid, target in ((c, t) for t, ids in CANNOT.items() for c in ids):
        assert (target, cid) in declared, f"{target} does not declare {cid} unsupported"
    for row in report.rows:
        cid = row.clause.id
        for target, verdict in row.verdicts.items():
            expected = "n/a" if (target, cid) in declared else "fail" if cid in want else "pass"
            assert verdict.status == expected, f"{target} {cid}: {verdict.status}\n{table}"
            if expected == "fail" and verdict.failures is not None:
                assert verdict.failures == 2, f"{target} {cid}: {verdict.failures}\n{table}"
    assert report.exit_code == (1 if want else 0), table
