"""`render --templates DIR`: a user's override folder wins over the shipped templates."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import ROOT


def render(out: Path, *extra: str) -> str:
    res = CliRunner().invoke(main, ["render", str(ROOT / "contracts" / "fct_sensor_readings.yaml"),
                                    "--out", str(out), *extra])
    assert res.exit_code == 0, res.output
    return res.output


def test_override_folder_wins_for_each_templated_target(tmp_path: Path) -> None:
    overrides = tmp_path / "overrides"
    for target, name in (("pandera", "module.py.j2"), ("ibis", "module.py.j2"), ("dbt", "tacit_tests.sql")):
        (overrides / target).mkdir(parents=True)
        shipped = (ROOT / "templates" / target / name).read_text()
        marker = "# house style\n" if name.endswith(".j2") else "-- house style\n"
        (overrides / target / name).write_text(shipped + marker)
    render(tmp_path / "plain")
    render(tmp_path / "custom", "--templates", str(overrides))
    assert (tmp_path / "custom" / "pandera" / "fct_sensor_readings.py").read_text().endswith("# house style\n")
    assert (tmp_path / "custom" / "ibis" / "fct_sensor_readings.py").read_text().endswith("# house style\n")
    assert (tmp_path / "custom" / "dbt_macros" / "tacit_tests.sql").read_text().endswith("-- house style\n")
    assert not (tmp_path / "plain" / "pandera" / "fct_sensor_readings.py").read_text().endswith("# house style\n")


def test_partial_override_falls_back_to_shipped(tmp_path: Path) -> None:
    overrides = tmp_path / "overrides"
    (overrides / "ibis").mkdir(parents=True)
    shutil.copy(ROOT / "templates" / "ibis" / "module.py.j2", overrides / "ibis" / "module.py.j2")
    render(tmp_path / "a", "--templates", str(overrides))
    render(tmp_path / "b")
    for sub in ("pandera", "ibis", "dbt", "soda", "gx"):
        a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / sub).rglob("*") if p.is_file())
        assert a, sub
        for rel in a:
            assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
