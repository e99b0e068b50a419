"""The unknown-column metric finds the dataset's relation in the catalog the way each warehouse
stores the name Soda writes: PostgreSQL folds an unquoted name to lower case (a double-quoted
dataset is exact), Snowflake to upper case, DuckDB ignores case; a qualified dataset is looked up
in its own schema. Before, the contract's name was compared as written in CURRENT_SCHEMA(), so the
query counted nothing (and passed) on any of those."""

from __future__ import annotations

import duckdb
import psycopg2
import pytest

from tacit_gen.engines.postgres_server import Server
from tacit_gen.targets.soda.queries import unknown_columns_sql

pytestmark = pytest.mark.engine
COLUMNS = ("series_id", "value")


def _count_pg(pg_server: Server, create: str, dataset: str) -> int:
    con = psycopg2.connect(pg_server.dsn)
    try:
        with con, con.cursor() as cur:
            cur.execute("DROP SCHEMA IF EXISTS other CASCADE; CREATE SCHEMA other")
            cur.execute('DROP TABLE IF EXISTS public."FCT", public.fct')
            cur.execute(create)
            cur.execute("SET search_path = public")
            cur.execute(unknown_columns_sql(dataset, COLUMNS, "postgres"))
            row = cur.fetchone()
            assert row is not None
            cur.execute('DROP SCHEMA other CASCADE; DROP TABLE IF EXISTS public."FCT", public.fct')
            return int(row[0])
    finally:
        con.close()


@pytest.mark.parametrize(("create", "dataset"), [
    ('CREATE TABLE public."FCT" (series_id text, value int, extra int)', '"FCT"'),
    ("CREATE TABLE public.FCT (series_id text, value int, extra int)", "FCT"),
    ("CREATE TABLE other.fct (series_id text, value int, extra int)", "other.fct"),
])
def test_postgres_counts_the_unknown_column(pg_server: Server, create: str, dataset: str) -> None:
    assert _count_pg(pg_server, create, dataset) == 1


def test_postgres_clean_table_counts_nothing(pg_server: Server) -> None:
    assert _count_pg(pg_server, 'CREATE TABLE public."FCT" (series_id text, value int)', '"FCT"') == 0


@pytest.mark.parametrize(("create", "dataset"), [
    ('CREATE TABLE "FCT" ("SERIES_ID" VARCHAR, value INT, extra INT)', "fct"),
    ("CREATE TABLE other.fct (series_id VARCHAR, value INT, extra INT)", "other.fct"),
    ("CREATE TABLE other.fct (series_id VARCHAR, value INT, extra INT)", "OTHER.FCT"),
])
def test_duckdb_counts_the_unknown_column(create: str, dataset: str) -> None:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA other")
    con.execute(create)
    row = con.execute(unknown_columns_sql(dataset, COLUMNS, "duckdb")).fetchone()
    assert row is not None and row[0] == 1


def test_snowflake_text_looks_up_upper_case_names() -> None:
    text = unknown_columns_sql("fct", COLUMNS, "snowflake")
    assert "table_name = 'FCT'" in text, text
    assert "LOWER(column_name) NOT IN ('series_id', 'value')" in text, text
    qualified = unknown_columns_sql("analytics.fct", COLUMNS, "snowflake")
    assert "table_schema = 'ANALYTICS'" in qualified and "CURRENT_SCHEMA" not in qualified, qualified
    assert "table_name = 'fct'" in unknown_columns_sql('"fct"', COLUMNS, "snowflake")
