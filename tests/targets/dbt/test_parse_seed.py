"""The parse seed (tacit_gen/targets/dbt/seed.py): dbt's and the adapter's macros parsed once,
every verify project's parse started from them. The seeded parse must give the manifest a full
parse gives (the project's own files parsed with this run's vars), the seed must be what dbt used
(not only made), and a seed is made once per key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write
from tacit_gen.targets.dbt import engine, seed
from tacit_gen.verify import run_verify
from tests.conftest import CONTRACTS

pytestmark = pytest.mark.engine


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dbt project verify wrote for plant_sensor_reading (its tests' `where` configs read
    var('tacit_since') at parse time), kept; the seed off while it ran."""
    root = tmp_path_factory.mktemp("kept")
    contract = load(CONTRACTS / "plant_sensor_reading.yaml")
    data = sample(contract, plan(contract), rows=12, seed=3)
    csv, catalog = write(data, root / "data.csv")
    with pytest.MonkeyPatch.context() as m:
        m.setenv(seed.ENV, "0")
        run_verify(contract, csv, catalog, ("dbt",), data.now, keep=root / "work")
    return root / "work" / "dbt" / "project"


def _project(kept: Path, tmp: Path, name: str) -> Path:
    """A copy of the kept project, parsed by nobody yet."""
    project = tmp / name / "project"
    shutil.copytree(kept, project, symlinks=True, ignore=shutil.ignore_patterns("target", "logs"))
    return project


def _nodes(project: Path, parsed: Any) -> dict[str, Any]:
    """The manifest a parse returned, as dbt writes it (the parse itself writes none:
    ``--no-write-json``), without what differs between two parses of one project."""
    path = project / "target" / "parsed-manifest.json"
    parsed.write(str(path))
    manifest = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps({k: manifest[k] for k in ("nodes", "macros", "parent_map", "child_map")},
                      sort_keys=True).replace(str(project), "<project>")
    out = json.loads(text)
    for section in ("nodes", "macros"):
        for node in out[section].values():
            node.pop("created_at", None)
            node.pop("root_path", None)
    return out


def test_a_seeded_parse_is_the_full_parse(kept: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TACIT_GEN_CACHE_DIR", str(tmp_path / "cache"))
    vars_arg = engine.dbt_vars("2024-03-04T12:00:00+00:00", "2024-03-04T06:00:00+00:00")
    full = _project(kept, tmp_path, "full")
    monkeypatch.setenv(seed.ENV, "0")
    full_manifest = engine.parsed(full, vars_arg)
    assert full_manifest is not None
    assert not (full / "target" / "manifest.json").exists()  # the build writes it, not the parse
    monkeypatch.delenv(seed.ENV)
    seeded = _project(kept, tmp_path, "seeded")
    before = len(seed.accepted)
    seeded_manifest = engine.parsed(seeded, vars_arg)
    assert seeded_manifest is not None
    seeds = list((tmp_path / "cache" / seed.SEEDS).glob("*.msgpack"))
    assert len(seeds) == 1 and len(seed.accepted) == before + 1 and seed.accepted[-1] == seeds[0].name
    nodes = _nodes(seeded, seeded_manifest)
    assert nodes == _nodes(full, full_manifest)
    where = [n["config"].get("where") for n in nodes["nodes"].values() if n["config"].get("where")]
    assert where, "no test of the project reads var('tacit_since') at parse time"
    # a second project of the same key reads the seed; none is made again
    other = _project(kept, tmp_path, "other")
    stamp = seeds[0].stat().st_mtime_ns
    assert engine.parsed(other, engine.dbt_vars("2025-01-01T00:00:00+00:00")) is not None
    assert seeds[0].stat().st_mtime_ns == stamp and len(seed.accepted) == before + 2


def test_a_seed_of_another_project_config_is_refused(kept: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """dbt's other checks still hold: a seed made for another dbt_project.yml is not taken."""
    monkeypatch.setenv("TACIT_GEN_CACHE_DIR", str(tmp_path / "cache"))
    vars_arg = engine.dbt_vars("2024-03-04T12:00:00+00:00")
    first = _project(kept, tmp_path, "first")
    assert engine.parsed(first, vars_arg) is not None
    made = next((tmp_path / "cache" / seed.SEEDS).glob("*.msgpack"))
    second = _project(kept, tmp_path, "second")
    text = (second / "dbt_project.yml").read_text(encoding="utf-8")
    (second / "dbt_project.yml").write_text(text.replace("version: '1.0'", "version: '2.0'"),
                                            encoding="utf-8")
    before = len(seed.accepted)
    args = ["--partial-parse", "--partial-parse-file-path", str(made)]  # the first one's seed
    result = engine.invoke(second, "parse", "--vars", vars_arg, *args)
    assert result.success and len(seed.accepted) == before
