"""`verify --data-dir` on PostgreSQL: every bundled contract on one real server, one report per
contract in order, one exit code; one contract's violation fails that clause only; each engine
runs once for all the contracts (side by side, as on DuckDB) and every schema verify made is
dropped afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.verify import VerifyCase, parse_now
from tacit_gen.verify import pool as v
from tacit_gen.verify.many import verify_many
from tests.conftest import BUNDLED

pytestmark = pytest.mark.engine
NOW = parse_now("2024-01-02T15:00:00Z")
TARGETS = ("pandera", "ibis")


def _verify_schemas(dsn: str) -> set[str]:
    import psycopg2

    con = psycopg2.connect(dsn)
    try:
        with con.cursor() as cur:
            cur.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'tacit_verify_%'")
            return {str(r[0]) for r in cur.fetchall()}
    finally:
        con.close()


def test_many_contracts_on_one_postgres_server(pg_server: Server, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    jobs: list[tuple[str, int]] = []
    real = v.run_engines

    def spy(work, root, parallel, warm=None):  # type: ignore[no-untyped-def]
        jobs.extend((t, len(inputs)) for t, inputs in work)
        return real(work, root, parallel, warm)

    monkeypatch.setattr(v, "run_engines", spy)
    before = _verify_schemas(pg_server.dsn)
    cases = []
    for path in BUNDLED:
        c = load(str(path))
        violate = "range:revision" if c.name == "plant_sensor_reading" else None
        data = sample(c, plan(c), rows=15, seed=0, violate=violate, now=NOW)
        csv, cat = write(data, tmp_path / f"{c.name}.csv")
        cases.append(VerifyCase(c, csv, cat, NOW, TARGETS, path))
    report = verify_many(cases, engine="postgres", dsn=pg_server.dsn, jobs=2)
    # one job per engine, carrying every contract: each engine imported once, two at a time
    assert sorted(jobs) == sorted((t, len(BUNDLED)) for t in TARGETS)
    assert _verify_schemas(pg_server.dsn) == before  # the data's and dbt's schemas: all dropped
    assert [r.contract.name for r in report.reports] == [p.stem for p in BUNDLED]
    assert report.exit_code == 1
    for r in report.reports:
        assert not r.failed and r.load.get("rows") == 15, r.contract.name
        bad = {(row.clause.id, t) for row in r.rows for t, v in row.verdicts.items()
               if v.status not in ("pass", "n/a")}
        want = ({("range:revision", t) for t in TARGETS}
                if r.contract.name == "plant_sensor_reading" else set())
        assert bad == want, (r.contract.name, bad)
