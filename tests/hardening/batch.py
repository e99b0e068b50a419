"""The hand-made hardening cases verified in batches: each module below writes its contract, data
(and catalog) with `write_case` and checks a verify report (its JSON form) with `check_report`;
`tests/hardening/test_verify_batch.py` verifies them all in ONE `verify_cases` on DuckDB and one
on PostgreSQL, `tests/parity/test_parity_spark.py` in the Spark batch. One engine process and one
dbt build serve every case, where a `tacit-gen verify` per case started them all again.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from tests.hardening import test_verify_before_1900 as before_1900
from tests.hardening import test_verify_before_1970 as before_1970
from tests.hardening import test_verify_double_bounds as double_bounds
from tests.hardening import test_verify_exact_arithmetic as exact_arith
from tests.hardening import test_verify_fixed_numbers as fixed_numbers
from tests.hardening import test_verify_float32 as float32
from tests.hardening import test_verify_float32_catalog as float32_catalog
from tests.hardening import test_verify_nan_division as nan_div
from tests.hardening import test_verify_pattern_newline as pattern_newline
from tests.hardening import test_verify_wide_decimals as wide_decimals

HARDENING: tuple[tuple[str, ModuleType], ...] = (
    ("nan_div", nan_div), ("exact_arith", exact_arith), ("double_bounds", double_bounds),
    ("pattern_newline", pattern_newline), ("wide_decimals", wide_decimals), ("before_1970", before_1970),
    ("before_1900", before_1900), ("float32", float32), ("fixed_numbers", fixed_numbers),
    ("float32_catalog", float32_catalog))


def cases(root: Path, targets: tuple[str, ...]) -> list[Any]:
    """One `VerifyCase` per hardening module, its files written under `root/<name>`."""
    from tacit_gen.contract.loader import load
    from tacit_gen.verify import VerifyCase

    out = []
    for name, module in HARDENING:
        contract, data, *catalog = module.write_case(root / name)
        out.append(VerifyCase(load(str(contract)), data, catalog[0] if catalog else None, module.NOW,
                              targets, contract))
    return out


def check(module: ModuleType, case: Any, report: dict[str, Any], shown: str = "") -> None:
    """The module's own check of a report of its case (on DuckDB or PostgreSQL: every engine)."""
    if hasattr(module, "expected_windows"):  # before_1970: the reference counts the windows
        module.check_report(report, module.expected_windows(case.source), shown)
    else:
        module.check_report(report, shown)
