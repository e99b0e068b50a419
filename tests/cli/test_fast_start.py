"""Issue 16, fast start: what `--help`, `lint`, `render` and `check` import, and the two things that
let `check` skip work safely (an artifact equal to its fresh render is not read back; the
installed distributions' entry points and versions are remembered on disk until one changes).

Each command runs in a fresh interpreter that prints, at exit, which heavy modules it imported."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tacit_gen import registry
from tacit_gen.compare import compare, read_artifact
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.render import target_enabled
from tacit_gen.targets.base import RenderOptions
from tests.conftest import BUNDLED, ROOT

# Engines and libraries a command must not import unless its work needs them.
HEAVY = ("sqlglot", "pint", "pandas", "dbt", "great_expectations", "soda", "pyspark", "psycopg",
         "psycopg2", "jsonschema", "google.protobuf", "grpc_tools", "fastavro", "pandera", "ibis",
         "duckdb", "numpy", "pyarrow")
CONTRACT = "contracts/ohlcv_1m.yaml"
# The targets whose render builds no SQL text (sqlglot is for the SQL of dbt, Soda and GX).
NO_SQL = "pandera,ibis,avro,protobuf,jsonschema"

PROBE = (
    "import sys, atexit\n"
    "atexit.register(lambda: print('IMPORTED:' + ','.join(m for m in sys.argv[1].split(',') "
    "if m in sys.modules), file=sys.stderr))\n"
    "from tacit_gen.cli import main\n"
    "main(sys.argv[2:])\n"
)


def imported(*args: str, watch: tuple[str, ...] = HEAVY, cwd: Path = ROOT,
             env: dict[str, str] | None = None) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Which of `watch` a `tacit-gen ARGS` run imported, and the run itself."""
    res = subprocess.run([sys.executable, "-c", PROBE, ",".join(watch), *args], cwd=cwd,
                         env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=300)
    line = [x for x in res.stderr.splitlines() if x.startswith("IMPORTED:")]
    assert line, res.stdout + res.stderr
    return {m for m in line[-1].removeprefix("IMPORTED:").split(",") if m}, res


@pytest.mark.parametrize("args", [
    ["--help"],
    ["render", "--help"],
    ["check", "--help"],
    ["publish", "--help"],
    ["lint", CONTRACT],
    ["lint", "contracts"],
    ["explain", CONTRACT],
], ids=lambda a: " ".join(a))
def test_commands_that_build_no_sql_import_nothing_heavy(args: list[str]) -> None:
    got, res = imported(*args)
    assert res.returncode in (0, 1), res.stdout + res.stderr
    assert got == set(), (args, got)


def test_render_of_the_targets_without_sql_imports_nothing_heavy(tmp_path: Path) -> None:
    got, res = imported("render", CONTRACT, "--target", NO_SQL, "--out", str(tmp_path / "gen"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert got == set(), got
    assert (tmp_path / "gen" / "protobuf" / "ohlcv_1m.proto").is_file()


def test_render_of_every_target_imports_sqlglot_and_nothing_else_heavy(tmp_path: Path) -> None:
    """Cold (empty render cache): sqlglot and nothing else heavy; warm: nothing heavy at all."""
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    got, res = imported("render", CONTRACT, "--out", str(tmp_path / "gen"), env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert got == {"sqlglot"}, got  # the SQL of dbt, Soda and GX is built with sqlglot
    for _ in range(2):  # the first warm run also stores the render made with the lock it wrote
        got, res = imported("render", CONTRACT, "--out", str(tmp_path / "gen"), env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert got == set(), got  # the artifacts came from the render cache (tacit_gen.rendercache)


def test_check_of_committed_artifacts_reads_none_back(tmp_path: Path) -> None:
    """Every committed artifact equals its fresh render: no reader runs, so no protoc, no
    jsonschema, no fastavro; sqlglot only for the render of the SQL targets, and not even that
    when the render cache holds them."""
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    got, res = imported("check", "--no-bump-gate", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "checked: clean" in res.stdout
    # pint (and its numpy): the new cache folder holds no answers for units outside the table yet
    assert got - {"pint", "numpy"} == {"sqlglot"}, got
    got, res = imported("check", "--no-bump-gate", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "checked: clean" in res.stdout
    assert got == set(), got
    got, res = imported("check", "--no-bump-gate", "--target", NO_SQL, "--no-cache", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert got == set(), got


def test_check_reads_back_an_artifact_that_differs(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    shutil.copytree(ROOT / "generated", out)
    schema = out / "jsonschema" / "ohlcv_1m.schema.json"
    text = schema.read_text(encoding="utf-8")
    edited = text.replace('"symbol": {\n      "type": "string"', '"symbol": {\n      "type": "integer"', 1)
    assert edited != text
    schema.write_text(edited, encoding="utf-8")
    got, res = imported("check", CONTRACT, "--no-bump-gate", "--target", "jsonschema",
                        "--out", str(out))
    assert res.returncode == 1, res.stdout + res.stderr
    assert "byte drift" in res.stdout and "D202" in res.stdout, res.stdout
    assert "jsonschema" in got  # its reader validates the schema


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_committed_artifacts_read_back_as_their_plan(path: Path) -> None:
    """What check no longer does for an artifact equal to its fresh render, done here once: every
    bundled contract's committed primary artifact, read back by its target, is its plan exactly
    (with tests/drift/test_roundtrip_property.py for random contracts)."""
    contract = load(path)
    clauses = plan(contract)
    for name in registry.names():
        if not target_enabled(contract, name):
            continue
        rel = registry.get(name).artifact_paths(contract)[0]
        p = ROOT / "generated" / rel
        findings = compare(contract, clauses, read_artifact(name, p), p.as_posix(), name,
                           options=RenderOptions())
        assert findings == [], (name, [f.render() for f in findings])


def test_entry_points_are_scanned_once_until_a_distribution_changes(tmp_path: Path) -> None:
    """The second run answers from the cache (importlib.metadata is not imported); a plugin
    installed afterwards is seen at once (its dist-info changes the cache key)."""
    site, cwd = tmp_path / "site", tmp_path / "cwd"  # cwd: on sys.path, and untouched by the runs
    site.mkdir()
    cwd.mkdir()
    env = {"TACIT_GEN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(site)}
    probe = ["render", "--help"]
    first, res1 = imported(*probe, watch=("importlib.metadata",), cwd=cwd, env=env)
    second, res2 = imported(*probe, watch=("importlib.metadata",), cwd=cwd, env=env)
    assert res1.returncode == res2.returncode == 0
    assert first == {"importlib.metadata"} and second == set()
    assert res1.stdout == res2.stdout and "--markdown-title" not in res2.stdout

    shutil.copy(ROOT / "tests" / "targets" / "plugin" / "markdown_target.py", site / "tacit_markdown.py")
    info = site / "tacit_markdown-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tacit-markdown\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[tacit_gen.targets]\nmarkdown = tacit_markdown:TARGET\n", encoding="utf-8")
    third, res3 = imported(*probe, watch=("importlib.metadata",), cwd=cwd, env=env)
    assert res3.returncode == 0 and third == {"importlib.metadata"}
    listed = subprocess.run(
        [sys.executable, "-c", "from tacit_gen import registry; print(','.join(registry.names()))"],
        cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, check=True)
    assert listed.stdout.strip().split(",")[-1] == "markdown"


def test_cached_versions_and_entry_points_equal_importlib_metadata(tmp_path: Path) -> None:
    import json
    from importlib import metadata

    code = ("import json, sys\n"
            "from tacit_gen import installed\n"
            "print(json.dumps([installed.version('dbt-core'), installed.version('no-such-dist-tacit'),\n"
            "                  installed.entry_points('console_scripts'),\n"
            "                  'importlib.metadata' in sys.modules]))\n")
    env = {**os.environ, "TACIT_GEN_CACHE_DIR": str(tmp_path / "cache")}
    (tmp_path / "cwd").mkdir()
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "cwd", env=env,
                                      capture_output=True, text=True, check=True).stdout)
            for _ in range(2)]
    # importlib.metadata's own answer, in a process like the runs (same cwd, so the same sys.path):
    # this pytest process's sys.path is not theirs (pytest prepends the rootdir, and engines
    # imported earlier in the worker may add folders), so it cannot be the reference
    direct = ("import json\n"
              "from importlib import metadata\n"
              "first = {}\n"
              "for ep in sorted(metadata.entry_points(group='console_scripts'), key=lambda e: e.name):\n"
              "    first.setdefault(ep.name, ep.value)\n"
              "print(json.dumps([metadata.version('dbt-core'), None,\n"
              "                  [list(p) for p in sorted(first.items())]]))\n")
    want = json.loads(subprocess.run([sys.executable, "-c", direct], cwd=tmp_path / "cwd", env=env,
                                     capture_output=True, text=True, check=True).stdout)
    assert want[0] == metadata.version("dbt-core") and any(n == "dbt" for n, _ in want[2])
    assert runs[0][:3] == want and runs[0][3] is True  # computed by importlib.metadata
    assert runs[1][:3] == want and runs[1][3] is False  # read back from the cache
    assert len(list((tmp_path / "cache").glob("installed-*.json"))) == 1
