"""The shipped unit table (tacit_gen/contract/unit_table.py) is what pint says, and lint, render
and check of the bundled contracts never import pint (issue 16: fast start)."""

from __future__ import annotations

import subprocess
import sys
from itertools import product

from tacit_gen.contract import units
from tacit_gen.contract.unit_table import UNITS
from tests.conftest import ROOT


def test_the_table_is_what_the_installed_pint_computes() -> None:
    committed = (ROOT / "tacit_gen" / "contract" / "unit_table.py").read_text(encoding="utf-8")
    assert committed == units.table_source(), \
        "recompute: python -m tacit_gen.contract.units > tacit_gen/contract/unit_table.py"


def test_same_unit_from_the_table_agrees_with_pint() -> None:
    ureg = units.registry()
    names = [t for t in UNITS if not UNITS[t][2]]
    for a, b in product(names, names):
        ra, rb = units.resolve(a), units.resolve(b)
        assert units.same_unit(ra, rb) == (ureg.Unit(a) == ureg.Unit(b)), (a, b)


def test_a_unit_outside_the_table_still_resolves_with_pint() -> None:
    r = units.resolve("furlong / fortnight")
    assert r.dimensionality == "[length] / [time]" and not r.invented
    odd = units.resolve("widgets_per_crate")
    assert odd.invented and odd.dimensionality == "[widgets_per_crate_dim]"
    assert units.multiply("kPa", "m", "*") == "kilopascal * meter"


def test_lint_render_and_check_of_a_bundled_contract_import_no_pint(tmp_path) -> None:  # type: ignore[no-untyped-def]
    contract = str(ROOT / "contracts" / "ohlcv_1m.yaml")
    for args in (["lint", contract], ["render", contract, "--out", str(tmp_path / "gen")],
                 ["check", contract, "--no-bump-gate"]):
        code = ("import sys, atexit\n"
                "atexit.register(lambda: print('PINT' if 'pint' in sys.modules else 'NO PINT', file=sys.stderr))\n"
                f"from tacit_gen.cli import main\nmain({args!r})\n")
        res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stderr.strip().endswith("NO PINT"), (args, res.stderr[-500:])
