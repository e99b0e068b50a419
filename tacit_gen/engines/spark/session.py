"""The one Spark session of a worker, and how a case's data becomes Spark relations.

Types are decided in one place: verify's loader converts the file to the contract's types in
DuckDB (:mod:`tacit_gen.engines.load`) and writes each relation to Parquet; Spark reads those
Parquet types as they are (``DECIMAL(p,s)`` -> ``DecimalType(p,s)``, ``TIMESTAMPTZ`` (UTC-adjusted
Parquet timestamp) -> ``TimestampType``, a naive ``TIMESTAMP`` -> ``TimestampNTZType``, so a naive
column still fails its type check; enums are strings). :func:`spark_type` is the contract ->
Spark SQL type map, and :func:`check_types` holds the loaded relation to it.

Instants: Spark's ``TimestampType`` is an instant (microseconds since the epoch, UTC) displayed in
the session time zone; the session runs in UTC (``spark.sql.session.timeZone=UTC``, and the JVM's
``user.timezone=UTC``), so every engine's text and arithmetic on it is UTC.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.contract.types import DataType

__all__ = ["CONF_ENV", "SESSION_SQL_CONF", "SPARK_CONF", "check_types", "conf", "create_relations",
           "extra_conf", "quoted", "session", "spark_type"]

SPARK_CONF: dict[str, str] = {
    "spark.master": "local[2]",
    "spark.app.name": "tacit-gen-verify",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.executor.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.catalogImplementation": "in-memory",
    # Spark 4's default, as soda-core-spark-df, GX, pandera and ibis meet it; dbt-spark 1.11 turns
    # it off in its own connection (docs/engines/spark.md)
    "spark.sql.ansi.enabled": "true",
    "spark.driver.memory": "2g",
}
# SQL settings restored before each target (the worker's loop): a target may change them
SESSION_SQL_CONF = ("spark.sql.ansi.enabled", "spark.sql.session.timeZone")

_SPARK_TYPES = {
    "string": "string", "enum": "string", "bool": "boolean", "int32": "int", "int64": "bigint",
    "float32": "float", "float64": "double", "date": "date", "timestamp": "timestamp",
}


def spark_type(t: DataType) -> str:
    """The Spark SQL type of a contract type (``DataType.simpleString()`` spelling)."""
    if t.kind == "decimal":
        return f"decimal({t.precision},{t.scale})"
    return _SPARK_TYPES[t.kind]


CONF_ENV = "TACIT_GEN_SPARK_CONF"


def extra_conf() -> dict[str, str]:
    """Settings from ``$TACIT_GEN_SPARK_CONF`` (a JSON object of strings) laid over
    `SPARK_CONF`: the test suite's small-data settings (docs/engines/spark.md)."""
    import json

    text = os.environ.get(CONF_ENV, "").strip()
    if not text:
        return {}
    try:
        conf = json.loads(text)
    except ValueError as e:
        raise ValueError(f"${CONF_ENV} is not JSON: {e}") from None
    if not isinstance(conf, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in conf.items()):
        raise ValueError(f"${CONF_ENV} must be a JSON object of strings, got {text!r}")
    return conf


_UTC = "-Duser.timezone=UTC"


def conf() -> dict[str, str]:
    """`SPARK_CONF` with `extra_conf` laid over it; the JVMs' options keep ``-Duser.timezone=UTC``
    whatever the overlay says (every engine's instants are UTC)."""
    out = {**SPARK_CONF, **extra_conf()}
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        if _UTC not in out[key].split():
            out[key] = f"{_UTC} {out[key]}".strip()
    return out


def session(workdir: Path) -> Any:
    """The worker's Spark session (local[2], UTC, no UI), its warehouse under `workdir`."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["TZ"] = "UTC"
    from pyspark.sql import SparkSession  # pyright: ignore[reportMissingImports]  (Spark env)

    builder = SparkSession.builder
    for k, v in conf().items():
        builder = builder.config(k, v)
    builder = builder.config("spark.sql.warehouse.dir", str(workdir / "warehouse"))
    builder = builder.config("spark.local.dir", str(workdir / "tmp"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def quoted(database: str, relation: str) -> str:
    """``database.relation`` as Spark SQL text (backtick-quoted)."""
    return f"{_q(database)}.{_q(relation)}"


def create_relations(spark: Any, database: str, relations: dict[str, str]) -> None:
    """A Spark database holding one table per relation over its Parquet file (an external
    table: the catalog keeps the schema Spark reads from the file once, and the session caches
    the resolved relation). A view over ``parquet.`<path>``` was resolved again for every query
    that read it: the files listed and their footers read to infer the schema, a fifth of the
    Spark suite's JVM time (docs/engines/spark.md)."""
    from tacit_gen.sql import literal

    spark.sql(f"CREATE DATABASE IF NOT EXISTS {_q(database)}")
    for name, path in relations.items():
        spark.sql(f"DROP TABLE IF EXISTS {_q(database)}.{_q(name)}")
        spark.sql(f"CREATE TABLE {_q(database)}.{_q(name)} USING parquet "
                  f"LOCATION {literal(str(path), 'spark')}")


def check_types(spark: Any, database: str, table: str, expected: dict[str, DataType],
                broken: set[str]) -> list[str]:
    """Problems where a column that converted cleanly is not of its Spark type (a loader bug)."""
    got = {f.name: f.dataType.simpleString() for f in spark.table(f"{_q(database)}.{_q(table)}").schema}
    return [f"{c}: loaded as {got[c]}, expected {spark_type(t)}" for c, t in expected.items()
            if c in got and c not in broken and got[c] != spark_type(t)]
