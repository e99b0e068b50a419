"""Strings order by code point in every engine, whatever PostgreSQL's collation.

Found by probing verify on a PostgreSQL 15 server whose databases collate as most users' do
(ICU ``en-US``, 2026-12-03): ``code < 'b'`` passed the values B, C and a in DuckDB, Spark and
pandera (byte order: upper case sorts first) and failed B and C in PostgreSQL's dbt, Soda, Soda 4,
GX and runtime (``en-US`` puts ``b`` before ``B``): a verdict that depended on the database, not on
the contract. The throwaway server of the other PostgreSQL tests is initialised with the C
locale, which hid it.

Now PostgreSQL's SQL compares a string column ``COLLATE "C"`` in ``<``, ``<=``, ``>``, ``>=`` and
``between``; GX runs such an invariant as that SQL instead of a native expectation (which compares
in the database's collation), and the runtime compares ``convert_to(x, 'UTF8')`` (ibis 12 has no
COLLATE). The data below fails different rows in byte order and in ``en-US`` order.

The case is verified in-process on each backend (`verify_cases`, every engine on DuckDB, then on
the ``en-US`` PostgreSQL), not through a `tacit-gen verify` subprocess each: one case a backend,
the whole batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.postgres_server import Server, throwaway_server
from tacit_gen.expr import nodes as n
from tacit_gen.sql import orders_strings, to_sql
from tacit_gen.verify import VerifyCase, verify_cases
from tests.conftest import engine_targets, value_targets
from tests.hardening.helpers import write_case

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: codes
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  code: {type: string}
  lo: {type: string}
  grade: {type: 'enum[a, b]'}
invariants:
  - code < 'b'
  - lo <= code
  - code between 'A' and 'Z'
  - code != 'zz'
"""
# byte order (every engine now):     code < 'b' fails row 4 (d); lo <= code fails row 3 (c > C);
#                                     between 'A' and 'Z' fails rows 2 and 4 (a, d)
# en-US order (PostgreSQL before):   code < 'b' failed rows 1, 3, 4; lo <= code rows 2 and 4;
#                                     between failed row 2 only
DATA = """\
id,code,lo,grade
1,B,A,a
2,a,B,b
3,C,c,a
4,d,D,b
"""
FAILING = {"invariant:code < 'b'": 1, "invariant:lo <= code": 1,
           "invariant:code between 'A' and 'Z'": 2}
SQL_AND_FRAMES = value_targets()
NOW = datetime(2026, 1, 1, tzinfo=UTC)  # the contract has no time column: any instant


@pytest.fixture(scope="module")
def en_us_server() -> Iterator[Server]:
    """A throwaway PostgreSQL 15 whose databases collate by ICU ``en-US``."""
    with throwaway_server(icu_locale="en-US") as server:
        yield server


def test_the_server_collates_as_users_databases_do(en_us_server: Server) -> None:
    import psycopg2

    with psycopg2.connect(en_us_server.dsn) as con, con.cursor() as cur:
        cur.execute("SELECT 'B' < 'b', 'B' COLLATE \"C\" < 'b'")
        assert cur.fetchone() == (False, True)
    con.close()


def test_strings_order_by_code_point_on_a_postgres_with_en_us_collation(en_us_server: Server,
                                                                       tmp_path: Path) -> None:
    _check(tmp_path, "postgres", en_us_server.dsn)


def test_strings_order_by_code_point_on_duckdb(tmp_path: Path) -> None:
    _check(tmp_path, "duckdb")


def test_only_postgres_sql_says_collate() -> None:
    lt = n.Compare((n.Column("code"), n.String("b")), ("<",))
    pair = n.Compare((n.Column("lo"), n.Column("code")), ("<=",))
    eq = n.Compare((n.Column("code"), n.String("zz")), ("!=",))
    between = n.Between(n.Column("code"), n.String("A"), n.String("Z"), False)
    strings = {"code", "lo"}
    assert to_sql(lt, "postgres", (), strings) == "code COLLATE \"C\" < 'b'"
    assert to_sql(pair, "postgres", (), strings) == "lo COLLATE \"C\" <= code COLLATE \"C\""
    assert to_sql(between, "postgres", (), strings) == "code COLLATE \"C\" BETWEEN 'A' AND 'Z'"
    assert to_sql(eq, "postgres", (), strings) == "code <> 'zz'"  # equality is bytewise anyway
    for dialect in ("duckdb", "spark", "snowflake", "bigquery"):
        assert to_sql(lt, dialect, (), strings) == "code < 'b'", dialect
    assert [orders_strings(x, strings) for x in (lt, pair, eq, between)] == [True, True, False, True]
    assert not orders_strings(lt, ())


def _check(tmp_path: Path, engine: str, dsn: str | None = None) -> None:
    """The case verified by every engine of `engine` (what `tacit-gen verify` runs by default)."""
    contract, data = write_case(tmp_path, "codes", CONTRACT, DATA)
    case = VerifyCase(load(str(contract)), data, None, NOW, engine_targets(engine), contract)
    (report,) = verify_cases([case], engine=engine, workdir=tmp_path / "work", dsn=dsn)
    shown = report.render_text()
    assert set(report.targets) == set(engine_targets(engine)), shown
    check_report(report.as_json(), shown)


def check_report(report: dict[str, Any], shown: str = "") -> None:
    rows = {r["id"]: r for r in report["clauses"]}
    assert {cid: r["disagreement"] for cid, r in rows.items() if r["disagreement"]} == {}, shown
    assert report["exit_code"] == 1, shown
    for cid, row in rows.items():
        verdicts = row["verdicts"]
        got = {t: verdicts[t]["status"] for t in SQL_AND_FRAMES}
        want = "fail" if cid in FAILING else "pass"
        assert got == dict.fromkeys(SQL_AND_FRAMES, want), (cid, {t: verdicts[t]["detail"] for t in SQL_AND_FRAMES})
        if cid in FAILING:
            counts = {t: verdicts[t]["failures"] for t in SQL_AND_FRAMES if t != "pandera"}
            assert counts == dict.fromkeys(counts, FAILING[cid]), (cid, counts)


def test_the_dbt_reader_names_the_columns_not_the_collation() -> None:
    from tacit_gen.targets.dbt.read import sql_columns

    assert sql_columns('lo COLLATE "C" <= code COLLATE "C"') == ("lo", "code")
    assert sql_columns("(CAST(qty AS DECIMAL(38, 0)) / NULLIF(2, 0)) >= 0.5") == ("qty",)


def test_the_same_verdict_on_different_rows_is_a_disagreement() -> None:
    """Before the fix, that en-US database gave `code < 'b'` FAIL 3 in dbt, Soda, Soda 4, GX and
    the runtime and FAIL 1 in pandera, and verify said the engines agree. For a clause whose count
    is the rows a one-row test fails, different counts are a disagreement (exit 3); `unique:`
    counts duplicate keys in dbt and Soda and duplicate rows elsewhere, so it is not compared."""
    from tacit_gen.engines.base import Verdict
    from tacit_gen.verify import clause_disagreement

    cid = "invariant:code < 'b'"
    got = {t: Verdict(cid, "fail", 3, "") for t in ("dbt", "soda", "gx", "ibis")}
    got["pandera"] = Verdict(cid, "fail", 1, "")
    assert clause_disagreement(got, {}, cid, "invariant") == \
        "failing rows differ: dbt 3, gx 3, ibis 3, pandera 1, soda 3"
    got["pandera"] = Verdict(cid, "fail", None, "")  # an engine that does not count says nothing
    assert clause_disagreement(got, {}, cid, "invariant") is None
    got["pandera"] = Verdict(cid, "fail", 1, "")
    assert clause_disagreement(got, {}, "unique:k", "unique") is None
