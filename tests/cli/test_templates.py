"""`render --templates DIR`: a user's override folder wins over the shipped templates."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen import registry
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
    for sub in registry.names():  # the overridden target and every other one
        a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / sub).rglob("*") if p.is_file())
        assert a, sub
        for rel in a:
            assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def _marked(shipped: Path) -> str:
    text = shipped.read_text(encoding="utf-8")
    return text + ("-- house style\n" if shipped.suffix == ".sql" else "# house style\n")


@pytest.mark.parametrize("target", registry.names())
def test_every_target_is_customisable_or_refuses_the_folder(target: str, tmp_path: Path) -> None:
    overrides = tmp_path / "overrides" / target
    overrides.mkdir(parents=True)
    out = tmp_path / "out"
    args = ["render", str(ROOT / "contracts" / "fct_sensor_readings.yaml"), "--out", str(out),
            "--target", target, "--templates", str(tmp_path / "overrides")]
    if not registry.get(target).templates:
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, res.output
        assert f"template folder {overrides.as_posix()}: the {target} target has no templates" in res.output
        assert not out.exists()
        return
    shipped = [p for p in (ROOT / "templates" / target).iterdir() if p.is_file()]
    assert shipped, target
    for p in shipped:
        (overrides / p.name).write_text(_marked(p), encoding="utf-8")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    written = [p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file()]
    assert any(t.endswith("house style\n") for t in written), target


def test_a_folder_naming_no_target_is_refused(tmp_path: Path) -> None:
    (tmp_path / "overrides" / "sodaa").mkdir(parents=True)
    res = CliRunner().invoke(main, ["render", str(ROOT / "contracts" / "fct_sensor_readings.yaml"),
                                    "--out", str(tmp_path / "out"), "--templates",
                                    str(tmp_path / "overrides")])
    assert res.exit_code == 2
    assert f"template folder {(tmp_path / 'overrides' / 'sodaa').as_posix()} names no target" in res.output


def test_an_edited_template_is_compiled_again_never_served_stale(tmp_path: Path) -> None:
    """Compiled templates are kept in the cache folder (``jinja/``): an override edited between
    two renders in fresh processes renders its new text; the same text again is read compiled."""
    import os
    import subprocess
    import sys

    overrides = tmp_path / "overrides" / "pandera"
    overrides.mkdir(parents=True)
    shipped = (ROOT / "templates" / "pandera" / "module.py.j2").read_text()
    env = {**os.environ, "TACIT_GEN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    contract = str(ROOT / "contracts" / "fct_sensor_readings.yaml")

    def rendered(marker: str) -> str:
        (overrides / "module.py.j2").write_text(shipped + marker)
        out = tmp_path / f"out-{len(list(tmp_path.glob('out-*')))}"
        subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render", contract, "--target",
                        "pandera", "--templates", str(overrides.parent), "--out", str(out)],
                       env=env, check=True, capture_output=True)
        return (out / "pandera" / "fct_sensor_readings.py").read_text()

    assert rendered("# first\n").endswith("# first\n")
    compiled = sorted((tmp_path / "cache" / "jinja").iterdir())
    assert compiled, "no compiled template was kept"
    assert rendered("# second\n").endswith("# second\n")
    assert rendered("# first\n").endswith("# first\n")


def test_a_user_template_is_read_anew_and_a_shipped_one_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A render asks for the dbt macros template for every contract: the shipped file is read
    once a process (while its `stat` is unchanged), a user's file every time (edited between two
    renders of one process, the second render has the edit)."""
    from tacit_gen.targets import templates
    from tacit_gen.targets.base import RenderOptions

    reads: list[Path] = []
    real = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(self)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(templates, "_TEXTS", {})
    monkeypatch.setattr(Path, "read_text", read_text)
    shipped = templates.packaged_root("dbt") / "tacit_tests.sql"
    for _ in range(3):
        assert templates.read_template("dbt", "tacit_tests.sql", RenderOptions()) == real(shipped)
    assert reads == [shipped]
    user = tmp_path / "dbt" / "tacit_tests.sql"
    user.parent.mkdir()
    options = RenderOptions(templates_dir=str(tmp_path))
    for text in ("-- one\n", "-- two\n", "-- six\n"):  # same size, within one clock tick
        user.write_text(text)
        assert templates.read_template("dbt", "tacit_tests.sql", options) == text
    assert reads == [shipped, user, user, user]
