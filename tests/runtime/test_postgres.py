"""The runtime on PostgreSQL 15: `parse()` gives DuckDB's verdicts, and a server whose time zone
is America/New_York moves no cadence or freshness verdict across a DST change. ibis opens its
PostgreSQL sessions in UTC; the test sets the session back to America/New_York, so the runtime
itself is shown not to depend on the session time zone."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import ibis
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.load import load_data, load_postgres
from tacit_gen.engines.postgres_server import Server
from tacit_gen.plan import plan
from tacit_gen.runtime import Schema
from tacit_gen.runtime.evaluate import evaluate, parse_query
from tests.conftest import PG_SERVER_TIMEZONE

pytestmark = pytest.mark.engine

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "postgres" / "dst_series.yaml"
CONTRACT = load(str(FIXTURE))
UTC = dt.UTC
# America/New_York: clocks go forward at 2024-03-10 07:00 UTC and back at 2024-11-03 06:00 UTC.
DST_CHANGES = (dt.datetime(2024, 3, 10, 7, 0, tzinfo=UTC), dt.datetime(2024, 11, 3, 6, 0, tzinfo=UTC))


def _schema() -> type[Schema]:
    """The rendered ibis module of the fixture contract, imported as a user imports it."""
    import sys
    import types

    from tacit_gen.render import render_contract
    from tacit_gen.targets.base import RenderOptions

    arts, _ = render_contract(CONTRACT, ("ibis",), RenderOptions())
    (art,) = [a for a in arts if a.path.endswith(".py")]
    module = types.ModuleType("dst_series_module")
    sys.modules["dst_series_module"] = module  # postponed annotations resolve through it
    exec(compile(art.content, art.path, "exec"), module.__dict__)
    (cls,) = [v for v in vars(module).values()
              if isinstance(v, type) and issubclass(v, Schema) and v is not Schema]
    return cls


def _csv(path: Path, change: dt.datetime, gap_at: int | None = None) -> Path:
    lines = ["series_id,event_ts,reading"]
    t = change - dt.timedelta(minutes=5)
    for i in range(11):
        step = 120 if gap_at is not None and i == gap_at else 60
        if i:
            t += dt.timedelta(seconds=step)
        lines.append(f"s1,{t.isoformat().replace('+00:00', 'Z')},{i}.5")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _verdicts(report: Any) -> dict[str, str]:
    return {r.clause.id: r.status for r in report.results}


@pytest.mark.parametrize("change", DST_CHANGES, ids=["spring_forward", "fall_back"])
@pytest.mark.parametrize("gap", [None, 6], ids=["clean", "gap"])
def test_cadence_and_freshness_do_not_move_across_dst(
    pg_server: Server, tmp_path: Path, change: dt.datetime, gap: int | None
) -> None:
    schema = _schema()
    data = _csv(tmp_path / "dst.csv", change, gap)
    last = change + dt.timedelta(minutes=5 if gap is None else 6)
    now = last + dt.timedelta(minutes=14, seconds=59)  # fresh by one second
    pg_schema = f"dst_{change:%m}_{'gap' if gap else 'clean'}"
    load_postgres(CONTRACT, data, pg_server.dsn, pg_schema, tmp_path / "w")
    con = ibis.postgres.connect(host=pg_server.host, port=pg_server.port, user="postgres",
                                database="postgres")
    try:
        # ibis sets its sessions to UTC; put this one back in the server's zone on purpose
        con.raw_sql(f"SET TIME ZONE '{PG_SERVER_TIMEZONE}'")
        assert con.raw_sql("SHOW timezone").fetchone()[0] == PG_SERVER_TIMEZONE
        pg = _verdicts(evaluate(schema, con.table("dst_series", database=pg_schema), now=now))
        stale = _verdicts(evaluate(schema, con.table("dst_series", database=pg_schema),
                                   now=now + dt.timedelta(seconds=2)))
    finally:
        con.disconnect()
    load_data(CONTRACT, data, tmp_path / "d.duckdb")
    duck_con = ibis.duckdb.connect(str(tmp_path / "d.duckdb"))
    try:
        duck = _verdicts(evaluate(schema, duck_con.table("dst_series"), now=now))
    finally:
        duck_con.disconnect()
    assert pg == duck
    assert pg["cadence:event_ts"] == ("fail" if gap else "pass")
    assert pg["freshness:event_ts"] == "pass"
    assert stale["freshness:event_ts"] == "fail"
    assert {k: v for k, v in pg.items() if k != "cadence:event_ts"} == dict.fromkeys(
        [k for k in pg if k != "cadence:event_ts"], "pass")


def test_the_postgres_query_sums_booleans_without_casting_them() -> None:
    schema = _schema()
    t = ibis.table({"series_id": "string", "event_ts": "timestamp('UTC')", "reading": "float64"},
                   name="dst_series")
    query = parse_query(schema, t, now=DST_CHANGES[0])
    assert query is not None
    sql = re.sub(r"\(\s+", "(", " ".join(ibis.to_sql(query, dialect="postgres").split()))
    assert "SUM(CAST(" not in sql
    # one boolean sum per row clause; uniqueness sums the sizes of the duplicate key groups
    assert sql.count("SUM(CASE WHEN") == len([c for c in plan(CONTRACT)
                                              if c.kind not in ("column", "no_unknown_columns",
                                                                "freshness", "unique")])
