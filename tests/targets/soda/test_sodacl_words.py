"""Column names SodaCL's parser reads as its own words (`d`, `h`, `m` as time units; `change`,
`last`, `percent`, `warn`, `fail`, `pass`, `must`, `filter`, ... as words of a check line) are
quoted in every check line: unquoted, `max(change) < 10` is a syntax error and the scan errors
(verify reported the clause as ERROR in Soda alone, a disagreement). A real scan on DuckDB."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.engines.base import VerifyInput
from tacit_gen.plan import plan
from tacit_gen.targets.soda import TARGET
from tacit_gen.targets.soda.names import SODACL_WORDS
from tests.conftest import write_artifacts

pytestmark = pytest.mark.engine

WORDS = sorted(SODACL_WORDS)
# the invariant grammar's own words cannot be columns of an invariant (there is no quoting there):
# those columns get their column, not_null and unique checks only
RANGED = [w for w in WORDS if w not in ("and", "between", "in", "is", "not", "or")]


def _contract(tmp: Path) -> Path:
    fields = "".join(f"  {w}: {{type: int64, nullable: false}}\n" for w in WORDS)
    invariants = "".join(f"  - {w} between 0 and 10\n" for w in RANGED)
    path = tmp / "words.yaml"
    path.write_text(f"contract: words\nversion: 1.0.0\nkey: [{WORDS[0]}]\nfields:\n{fields}"
                    f"invariants:\n{invariants}", encoding="utf-8")
    return path


def _run(tmp: Path, rows: list[tuple[int, ...]]) -> dict[str, str]:
    from tacit_gen.targets.soda.engine import run

    tmp.mkdir()
    contract = load(_contract(tmp))
    clauses = plan(contract)
    art = write_artifacts(TARGET, contract, clauses, tmp / "generated")
    db = tmp / "data.duckdb"
    con = duckdb.connect(str(db))
    cols = ", ".join(f'"{w}" BIGINT' for w in WORDS)
    con.execute(f"CREATE TABLE data ({cols})")
    con.executemany(f"INSERT INTO data VALUES ({', '.join('?' for _ in WORDS)})", rows)
    con.close()
    work = tmp / "work"
    work.mkdir()
    result = run(VerifyInput(contract, clauses, art, db, "data", datetime(2024, 1, 2, tzinfo=UTC), work))
    return {v.clause_id: v.status for v in result.verdicts}


def test_every_check_of_a_sodacl_word_column_runs(tmp_path: Path) -> None:
    # the key column (the first word) holds 0 then 1; every other column is within 0..10
    clean = _run(tmp_path / "clean", [(0, *(5 for _ in WORDS[1:])), tuple(1 for _ in WORDS)])
    assert clean and set(clean.values()) == {"pass"}, clean
    bad = _run(tmp_path / "bad", [(0, *(20 for _ in WORDS[1:])), tuple(1 for _ in WORDS)])
    ranges = {f"range:{w}" for w in RANGED}
    assert {c for c, s in bad.items() if s == "fail"} == ranges, bad
    assert "error" not in bad.values()
