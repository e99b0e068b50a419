"""Two decimals of different scales whose common type passes 38 digits are compared exactly in
every engine: verify's verdicts on DuckDB and PostgreSQL. (On Spark, its SQL compares such a pair
rounded to DECIMAL(38,10): tests/parity/test_parity_spark.py pins that measured limitation.)

Found by probing verify with new contracts and data (2026-12-03): a decimal(38,20) value against
its catalog's bounds (verify loads a catalog's numbers as decimal(38,10)), or against a
decimal(38,10) column in an invariant, made pandera raise ``ArrowInvalid("Decimal precision out of
range [1, 38]: 48")``: Arrow's common type of the two is decimal(48,20). The SQL engines compared
them. pandera's comparisons now fall back to decimal256 (76 digits), exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: wide_decimals
version: 1.0.0
key: [series_id, ts]
catalog:
  relation: wide_catalog
  key: series_id
fields:
  series_id: {type: string}
  ts: {type: timestamp_ms_utc}
  value: {type: "decimal(38,20)", unit: m}
  a: {type: "decimal(38,10)", unit: m}
invariants:
  - value within catalog hard_bounds for series_id
  - a <= value
"""

# catalog_bounds fails rows 1 (0.30000000000000000001 > 0.3) and 3 (2^53 + 1 > 2^53);
# a <= value fails row 2 (0.3000000001 > 0.3)
DATA = """\
series_id,ts,value,a
s1,2024-01-01T00:00:00Z,0.30000000000000000001,0.3
s1,2024-01-01T00:01:00Z,0.3,0.3000000001
s2,2024-01-01T00:00:00Z,9007199254740993,1
s2,2024-01-01T00:01:00Z,5,5
"""
CATALOG = "series_id,unit,hard_min,hard_max\ns1,m,0,0.3\ns2,m,0,9007199254740992\n"
FAILING = {"catalog_bounds:value": 2, "invariant:a <= value": 1}
SQL_AND_FRAMES = value_targets()
NOW = datetime(2024, 1, 2, tzinfo=UTC)


CASE = helpers.FailingCase("wide_decimals", CONTRACT, DATA, FAILING, SQL_AND_FRAMES,
                           catalog=("wide_catalog.csv", CATALOG))
write_case = CASE.write  # the DuckDB, PostgreSQL and Spark batches write and check the case
check_report = CASE.check
