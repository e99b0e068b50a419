"""datacontract-cli, the real ODCS client, on every bundled contract's `export odcs`.

It runs in an environment of its own: a uv venv in ``.cache/datacontract``
(``TACIT_DATACONTRACT_VENV``), created on first use from the package index with datacontract-cli
pinned, as tests/targets/dbt/test_dbt18.py builds dbt 1.8's. `datacontract lint` must call the
export valid ODCS, and `datacontract export sodacl` must turn its rules into SodaCL checks: the
columns, not-null, key, enum, invariant and freshness checks are asserted one by one, and the
clauses it drops (tacit-gen's custom rules) are asserted absent, as docs/import-export.md says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tests.conftest import BUNDLED, ROOT

pytestmark = [pytest.mark.engine, pytest.mark.slow]

VERSION = "1.2.8"
VENV = Path(os.environ.get("TACIT_DATACONTRACT_VENV", ROOT / ".cache" / "datacontract"))


def datacontract() -> Path:
    """The datacontract executable of its environment, created when absent."""
    exe = VENV / "bin" / "datacontract"
    if exe.is_file():
        return exe
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(VENV)], check=True)
    subprocess.run([uv, "pip", "install", "-q", "--python", str(VENV / "bin" / "python"),
                    f"datacontract-cli=={VERSION}"], check=True)
    assert exe.is_file()
    return exe


def dc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1", "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([str(datacontract()), *args], capture_output=True, text=True, env=env,
                          cwd=cwd, check=False, timeout=300)


def test_datacontract_cli_lints_and_exports_every_bundled_export(tmp_path: Path) -> None:
    from tacit_gen.adopt.odcs_export import export_odcs

    exe = datacontract()
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout
    assert VERSION in version, version
    files = {}
    for path in BUNDLED:
        c = load(path)
        f = tmp_path / f"{c.name}.odcs.yaml"
        f.write_text(export_odcs(c), encoding="utf-8")
        files[c.name] = (c, f)

    def both(name: str) -> tuple[str, subprocess.CompletedProcess[str],
                                 subprocess.CompletedProcess[str]]:
        f = files[name][1]
        return (name, dc("lint", f.name, cwd=tmp_path),
                dc("export", "sodacl", f.name, cwd=tmp_path))

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(both, sorted(files)))
    for name, lint, export in results:
        c = files[name][0]
        assert lint.returncode == 0, lint.stdout + lint.stderr
        assert "valid against ODCS v3.1.0" in lint.stdout and "is valid" in lint.stdout, lint.stdout
        assert export.returncode == 0, export.stderr
        checks = yaml.safe_load(export.stdout)[f"checks for {name}"]
        keys = [next(iter(ch)) for ch in checks]
        clauses = plan(c)
        for cl in clauses:
            col = cl.param("column")
            if cl.kind == "not_null":
                assert f"missing_count({col}) = 0" in keys, (name, cl.id)
            elif cl.kind in ("accepted_values", "fixed_value"):
                assert f"invalid_count({col}) = 0" in keys, (name, cl.id)
            elif cl.kind == "unique" and len(c.key) > 1:
                assert f"duplicate_count({', '.join(c.key)}) = 0" in keys, (name, cl.id)
            elif cl.kind == "freshness":
                minutes = int(cl.param("max_age_seconds")) // 60
                assert f"freshness({col}) < {minutes}m" in keys, (name, cl.id)
        present = [k for k in keys if k == "schema"]
        assert len(present) >= 2 * len(c.fields)  # present + type, per column
        sql_rules = [cl for cl in clauses if cl.kind in ("range", "invariant") and cl.expr is not None
                     and cl.text in [i.text for i in c.invariants]]
        quality = [k for k in keys if "__quality_sql_" in k]
        assert len(quality) == len(sql_rules), (name, quality)
        for k in quality:  # each is the count of violating rows, which must be 0
            body = next(ch[k] for ch in checks if k in ch)
            assert k.endswith("= 0") and "WHERE NOT (" in next(
                v for q, v in body.items() if q.endswith(" query")), body
        # dropped: tacit-gen's own custom rules (cadence, catalog joins) have no SodaCL check
        assert not any("quality_custom" in k for k in keys)
