"""What the Spark worker writes of an engine's run, and what `verify` reads back of it, without
Spark: the verdicts whole, offending rows included (they were once dropped on the way)."""

from __future__ import annotations

import json

from tacit_gen.engines.base import EngineRun, Verdict
from tacit_gen.engines.spark.client import runs_from_json
from tacit_gen.engines.spark.worker import run_as_json


def test_a_run_crosses_the_process_boundary_whole() -> None:
    rows = ((("meter_id", "m02"), ("voltage_v", "999.5"), ("note", None)),
            (("meter_id", "m05"), ("voltage_v", "301.0"), ("note", "late")))
    run = EngineRun("gx", (Verdict("range:voltage_v", "fail", 2, "2 unexpected", rows),
                           Verdict("not_null:meter_id", "pass", 0)), ("a note",), failure=None)
    back = runs_from_json({"gx": json.loads(json.dumps(run_as_json(run)))})["gx"]
    assert back == run
    assert [v.rows for v in back.verdicts] == [rows, ()]  # rows are not part of Verdict's ==

