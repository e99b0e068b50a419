"""A value with a final newline does not match a pattern in any engine, JSON Schema included:
verify's verdicts on DuckDB and PostgreSQL (in the batch of
tests/hardening/test_verify_batch.py) and on Spark (tests/parity/test_parity_spark.py).

Found by probing verify with new data (2026-12-03): ``"ABC\\n"`` failed ``pattern: "^[A-Z]{3}$"``
in dbt, Soda, Soda 4, GX, pandera and the runtime, and passed the JSON Schema. The schema is
right (its ``pattern`` is ECMA-262, where ``$`` is the end of the input); the validator verify
runs, Python's `jsonschema`, evaluates it with ``re.search``, where ``$`` also matches before a
final newline. verify's JSON Schema engine now reads ``$`` as ECMA-262 does.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tacit_gen.targets.jsonschema.engine import ecma_end
from tests.conftest import value_targets
from tests.hardening import helpers

pytestmark = pytest.mark.engine

CONTRACT = """\
contract: pattern_newline
version: 1.0.0
key: [id]
fields:
  id: {type: int64}
  code: {type: string, pattern: "^[A-Z]{3}$"}
  tag: {type: string, pattern: "[a-z]+"}
"""

# code fails rows 1 (a final newline), 3 (a newline inside) and 4 (not ASCII);
# tag fails rows 2 (a digit), 3 (a newline inside) and 4 (not ASCII)
DATA = 'id,code,tag\n1,"ABC\n",abc\n2,ABC,ab1\n3,"AB\nC","x\ny"\n4,ÀBC,é\n5,XYZ,ok\n'
FAILING = {"pattern:code": 3, "pattern:tag": 3}
ENGINES = (*value_targets(), "jsonschema")  # JSON Schema checks this clause too
NOW = datetime(2024, 1, 2, tzinfo=UTC)


CASE = helpers.FailingCase("pattern_newline", CONTRACT, DATA, FAILING, ENGINES)
write_case = CASE.write  # the DuckDB, PostgreSQL and Spark batches write and check the case
check_report = CASE.check


def test_python_re_reads_dollar_differently_and_ecma_end_fixes_it() -> None:
    """The trap itself (Python's ``$`` before a final newline), and the translation: only a ``$``
    that is an anchor becomes ``\\Z``."""
    assert re.search("^([A-Z]{3})$", "ABC\n") is not None  # what jsonschema's own keyword does
    assert re.search(ecma_end("^([A-Z]{3})$"), "ABC\n") is None
    assert re.search(ecma_end("^([A-Z]{3})$"), "ABC") is not None
    assert ecma_end(r"^(a\$b)$") == r"^(a\$b)\Z"  # an escaped dollar is a character
    assert ecma_end("^([$a]+)$") == r"^([$a]+)\Z"  # so is one in a class
    assert ecma_end(r"^([\]$]x)$") == r"^([\]$]x)\Z"  # an escaped ] does not close the class
