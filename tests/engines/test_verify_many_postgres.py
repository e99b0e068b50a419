"""`verify --data-dir` on PostgreSQL: every bundled contract on one real server, one report per
contract in order, one exit code; one contract's violation fails that clause only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyCase, parse_now
from tacit_gen.verify_many import verify_many
from tests.conftest import BUNDLED

pytestmark = pytest.mark.engine
NOW = parse_now("2024-01-02T15:00:00Z")
TARGETS = ("pandera", "ibis")


def test_many_contracts_on_one_postgres_server(pg_server: Server, tmp_path: Path) -> None:
    cases = []
    for path in BUNDLED:
        c = load(str(path))
        violate = "range:revision" if c.name == "plant_sensor_reading" else None
        data = sample(c, plan(c), rows=15, seed=0, violate=violate, now=NOW)
        csv, cat = write(data, tmp_path / f"{c.name}.csv")
        cases.append(VerifyCase(c, csv, cat, NOW, TARGETS, path))
    report = verify_many(cases, engine="postgres", dsn=pg_server.dsn)
    assert [r.contract.name for r in report.reports] == [p.stem for p in BUNDLED]
    assert report.exit_code == 1
    for r in report.reports:
        assert not r.failed and r.load.get("rows") == 15, r.contract.name
        bad = {(row.clause.id, t) for row in r.rows for t, v in row.verdicts.items()
               if v.status not in ("pass", "n/a")}
        want = ({("range:revision", t) for t in TARGETS}
                if r.contract.name == "plant_sensor_reading" else set())
        assert bad == want, (r.contract.name, bad)
