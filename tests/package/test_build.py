"""The release artifacts, as `nox -s build` makes them (`uv build`: the sdist, then the wheel built
from the sdist): what ships inside them, and each installed alone into a clean environment and run.
The wheel, with only the core dependencies, renders the bundled contracts byte for byte as
generated/ holds them, from its own templates."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.package.conftest import clean_env, uv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([uv(), "build", "-q", "--out-dir", str(out), str(ROOT)], check=True,
                   capture_output=True)
    (wheel,) = out.glob("tacit_gen-*.whl")
    (sdist,) = out.glob("tacit_gen-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def install(artifact: Path, where: Path) -> Path:
    venv = where / "venv"
    subprocess.run([uv(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    subprocess.run([uv(), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(artifact)],
                   check=True, env=clean_env(venv))
    return venv


def test_the_wheel_holds_the_templates_the_locks_and_the_licence(dist: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    shipped_templates = {p.relative_to(ROOT / "templates").as_posix()
                         for p in (ROOT / "templates").rglob("*") if p.is_file()}
    assert shipped_templates
    assert {f"tacit_gen/_templates/{t}" for t in shipped_templates} <= names
    locks = {f"tacit_gen/engines/{p.parent.name}/requirements.txt"
             for p in (ROOT / "tacit_gen" / "engines").glob("*/requirements.txt")}
    assert locks >= {"tacit_gen/engines/spark/requirements.txt",
                     "tacit_gen/engines/soda4/requirements.txt"}
    assert locks <= names
    assert "tacit_gen/__main__.py" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")
               for n in names), sorted(n for n in names if "dist-info" in n)


def test_the_sdist_holds_what_a_build_needs(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md",
                   "tacit_gen/engines/spark/requirements.txt", "templates"):
        assert needed in names or any(n.startswith(needed + "/") for n in names), needed
    assert not any(n.startswith((".import_linter_cache/", "site/", ".nox/")) for n in names)


def test_the_wheel_alone_renders_generated_byte_for_byte(dist: dict[str, Path], tmp_path: Path) -> None:
    venv = install(dist["wheel"], tmp_path)
    env = clean_env(venv)
    res = subprocess.run([str(venv / "bin" / "python"), "-m", "tacit_gen", "--version"], env=env,
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    assert res.stdout.startswith("tacit-gen, version ")
    out = tmp_path / "gen"
    res = subprocess.run([str(venv / "bin" / "tacit-gen"), "render", "contracts", "--out", str(out)],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
    rendered = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    committed = {p.relative_to(ROOT / "generated").as_posix(): p.read_bytes()
                 for p in (ROOT / "generated").rglob("*") if p.is_file()}
    assert rendered == committed
    # the engines' locks are read from the installed package
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import pathlib, tacit_gen.engines.spark as s, tacit_gen.engines.soda4 as d; "
         "print(all((pathlib.Path(m.__file__).parent / 'requirements.txt').stat().st_size > 0 "
         "for m in (s, d)), s.__file__)"],
        env=env, capture_output=True, text=True, check=True, cwd=tmp_path)
    ok, where = probe.stdout.split()
    assert ok == "True" and Path(where).is_relative_to(venv), probe.stdout


def test_the_sdist_installs_and_runs(dist: dict[str, Path], tmp_path: Path) -> None:
    venv = install(dist["sdist"], tmp_path)
    res = subprocess.run([str(venv / "bin" / "tacit-gen"), "lint", "contracts/"], cwd=ROOT,
                         env=clean_env(venv), capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "3 contract(s): 0 error(s)" in res.stdout
