"""Units outside the shipped table: pint answers the first run, the cache answers the second
without importing pint (issue 16: fast start), and its answers are pint's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tacit_gen.contract import units

CONTRACT = """\
contract: speeds
version: 1.0.0
owner: units@example
key: [id]
fields:
  id: {type: int64}
  drift: {type: float64, unit: furlong / fortnight}
  limit: {type: float64, unit: furlong / fortnight}
  crates: {type: int64, unit: widgets_per_crate}
  mass: {type: float64, unit: stone, dimension: mass}
  area: {type: float64, unit: acre}
invariants:
  - drift <= limit
  - drift * area >= 0
"""

# Each question units.py may send to pint, with texts outside the table.
ASK = """\
import json, sys
from tacit_gen.contract import units
out = {}
for t in ["furlong / fortnight", "acre", "stone", "widgets_per_crate", "m / fortnight", "+-+"]:
    try:
        r = units.resolve(t)
        out["resolve " + t] = [r.canonical, r.dimensionality, r.invented]
    except units.UnitError as e:
        out["resolve " + t] = str(e)
out["same"] = units.same_unit(units.resolve("furlong / fortnight"), units.resolve("m / fortnight"))
out["same2"] = units.same_unit(units.resolve("acre"), units.resolve("acre"))
out["dim"] = [units.dimension_of("luminous_flux"), units.dimension_of("no_such_dimension")]
out["mul"] = [units.multiply("furlong / fortnight", "acre", "*"), units.multiply("stone", "m", "/")]
out["pint"] = "pint" in sys.modules
print(json.dumps(out))
"""


def _run(code: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cwd = tmp / "cwd"  # on sys.path under -c; kept apart from the files the runs write
    cwd.mkdir(exist_ok=True)
    env = {**os.environ, "TACIT_GEN_CACHE_DIR": str(tmp / "cache")}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _pint_answers() -> dict[str, object]:
    """The same questions put to pint itself, in this process."""
    ureg = units.registry()
    out: dict[str, object] = {}
    for t in ["furlong / fortnight", "acre", "stone", "m / fortnight"]:
        u = ureg.Unit(t)
        out["resolve " + t] = [str(u), str(u.dimensionality), False]
    out["same"] = bool(ureg.Unit("furlong / fortnight") == ureg.Unit("m / fortnight"))
    out["same2"] = True
    out["dim"] = [str(ureg.get_dimensionality("[luminous_flux]")), None]
    out["mul"] = [str(ureg.Unit("furlong / fortnight") * ureg.Unit("acre")),
                  str(ureg.Unit("stone") / ureg.Unit("m"))]
    return out


def test_the_second_run_answers_without_pint_and_as_pint(tmp_path: Path) -> None:
    first, second = (_run(ASK, tmp_path) for _ in range(2))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert a.pop("pint") is True and b.pop("pint") is False
    assert a == b
    pint = _pint_answers()
    for k, v in pint.items():
        assert a[k] == v, k
    assert a["resolve widgets_per_crate"] == ["widgets_per_crate", "[widgets_per_crate_dim]", True]
    assert "not a unit pint knows" in a["resolve +-+"]
    assert len(list((tmp_path / "cache").glob("units-*.json"))) == 1


CLI = """\
import sys, atexit
atexit.register(lambda: print('PINT' if 'pint' in sys.modules else 'NO PINT', file=sys.stderr))
from tacit_gen.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("command", ["lint", "render"])
def test_lint_and_render_of_a_contract_with_odd_units_import_pint_once(tmp_path: Path, command: str) -> None:
    contract = tmp_path / "speeds.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    args = [command, str(contract)]
    runs = []
    for i in range(2):
        extra = ["--target", "pandera,jsonschema", "--out", str(tmp_path / f"gen{i}")] if command == "render" else []
        runs.append(_run(CLI, tmp_path, *args, *extra))
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert runs[0].stderr.splitlines()[-1] == "PINT" and runs[1].stderr.splitlines()[-1] == "NO PINT"
    assert runs[0].stdout.replace("gen0", "gen1") == runs[1].stdout
    if command == "render":
        for rel in ("pandera/speeds.py", "jsonschema/speeds.schema.json"):
            assert (tmp_path / "gen0" / rel).read_bytes() == (tmp_path / "gen1" / rel).read_bytes()


def test_an_answer_about_a_name_invented_earlier_is_not_reused_without_it(tmp_path: Path) -> None:
    """pint reads `kblip` as kilo-`blip` once `blip` is defined, and as a new unit otherwise: the
    cache keys the answer by the invented names the text holds."""
    both = ("from tacit_gen.contract import units\n"
            "print(units.resolve('blip').invented, units.resolve('kblip').dimensionality)\n")
    alone = "from tacit_gen.contract import units\nprint(units.resolve('kblip').dimensionality)\n"
    for _ in range(2):
        r = _run(both, tmp_path)
        assert r.stdout.split() == ["True", "[blip_dim]"], r.stdout + r.stderr
        r = _run(alone, tmp_path)
        assert r.stdout.strip() == "[kblip_dim]", r.stdout + r.stderr


def test_a_broken_cache_file_is_a_miss(tmp_path: Path) -> None:
    first = _run(ASK, tmp_path)
    (path,) = (tmp_path / "cache").glob("units-*.json")
    path.write_text("{not json", encoding="utf-8")
    again = _run(ASK, tmp_path)
    assert again.returncode == 0, again.stderr
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    assert b.pop("pint") is True and a.pop("pint") is True
    assert a == b
    json.loads(path.read_text(encoding="utf-8"))  # rewritten whole
