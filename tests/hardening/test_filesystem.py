"""Classes 6 and 8 of issue 15: the artifact set is written atomically, with the umask's mode;
fmt writes through symlinks; headers and orphans do not depend on the working directory."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.hardening.helpers import BASE, assert_usage_error, cli


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "hostile.yaml").write_text(BASE, encoding="utf-8")
    (proj / "contracts" / "other.yaml").write_text(BASE.replace("hostile", "other"), encoding="utf-8")
    assert cli("render", cwd=proj).returncode == 0
    return proj


def _bump(proj: Path) -> None:
    p = proj / "contracts" / "hostile.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("1.0.0", "1.1.0"), encoding="utf-8")


def test_failure_while_staging_leaves_the_previous_set(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    _bump(proj)
    before = tree(proj / "generated")
    shutil.rmtree(proj / "generated" / "ibis")
    (proj / "generated" / "ibis").write_text("a file where a folder should be\n", encoding="utf-8")
    before = tree(proj / "generated")
    res = cli("render", cwd=proj)
    assert_usage_error(res, "generated/ibis")
    errors = [ln for ln in (res.stdout + res.stderr).splitlines()
              if not ln.startswith("warning:") and ": warning: " not in ln]
    assert len(errors) == 1, res.stderr
    assert tree(proj / "generated") == before  # nothing replaced, no temp file left


def test_failure_while_swapping_restores_the_previous_set(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    _bump(proj)
    target = proj / "generated" / "pandera" / "hostile.py"
    target.unlink()
    target.mkdir()  # a folder where a file should be: staging succeeds, the swap fails
    before = tree(proj / "generated")
    res = cli("render", cwd=proj)
    assert_usage_error(res, "generated/pandera/hostile.py")
    assert tree(proj / "generated") == before


def test_full_disk_leaves_the_previous_set(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    _bump(proj)
    before = tree(proj / "generated")
    sizes = sorted(len(v) for v in before.values())
    limit = sizes[len(sizes) // 2]  # some artifacts fit, larger ones hit "File too large"

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render"], cwd=proj,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                         preexec_fn=small_files, timeout=120)
    assert_usage_error(res, "File too large")
    assert tree(proj / "generated") == before


def test_files_get_the_umask_mode(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "hostile.yaml").write_text(BASE, encoding="utf-8")
    old = os.umask(0o022)
    try:
        res = subprocess.run([sys.executable, "-m", "tacit_gen.cli", "render"], cwd=proj,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    finally:
        os.umask(old)
    assert res.returncode == 0, res.stderr
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in (proj / "generated").rglob("*") if p.is_file()}
    assert modes and set(modes.values()) == {"0o644"}, modes


def test_fmt_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text(BASE.replace("{type: int64}", "{type: 'int64'}").replace("key: [id]\n", "")
                    + "key: [id]\n", encoding="utf-8")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    res = cli("fmt", str(link))
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text(encoding="utf-8").index("key:") < real.read_text(encoding="utf-8").index("fields:")


def test_header_names_the_contract_from_the_project_root_whatever_the_cwd(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    first = tree(proj / "generated")
    assert b"from contracts/hostile.yaml." in first["dbt/hostile.yml"]
    res = cli("render", "--check", "hostile.yaml", "other.yaml", "--out", "../generated", cwd=proj / "contracts")
    assert res.returncode == 0, res.stdout + res.stderr
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # the git top level wins
    res = cli("render", ".", "--out", str(tmp_path / "g2"), cwd=proj / "contracts")
    assert res.returncode == 0, res.stderr
    assert b"from proj/contracts/hostile.yaml." in (tmp_path / "g2" / "dbt" / "hostile.yml").read_bytes()


def test_check_one_contract_does_not_call_the_others_orphans(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    res = cli("render", "--check", "contracts/hostile.yaml", cwd=proj)
    assert res.returncode == 0 and "orphaned" not in res.stdout, res.stdout
    res = cli("check", "contracts/hostile.yaml", "--no-bump-gate", cwd=proj)
    assert res.returncode == 0 and "orphan" not in res.stdout, res.stdout
    (proj / "contracts" / "other.yaml").unlink()  # now its artifacts are orphans
    res = cli("render", "--check", "contracts/hostile.yaml", cwd=proj)
    assert res.returncode == 1 and "generated/dbt/other.yml" in res.stdout, res.stdout


def test_contract_names_differing_only_in_case_do_not_share_files(tmp_path: Path) -> None:
    # On a case-insensitive file system (macOS, Windows) generated/dbt/Orders.yml and
    # generated/dbt/orders.yml are one file: the second would silently overwrite the first.
    proj = tmp_path / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "contracts" / "a.yaml").write_text(BASE.replace("hostile", "orders"), encoding="utf-8")
    (proj / "contracts" / "b.yaml").write_text(BASE.replace("hostile", "Orders"), encoding="utf-8")
    res = cli("render", cwd=proj)
    assert_usage_error(res, "TG120", "only in case")
    assert not (proj / "generated").exists()


def test_render_writes_through_a_symlinked_artifact(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    real = tmp_path / "elsewhere.yml"
    link = proj / "generated" / "dbt" / "hostile.yml"
    real.write_bytes(link.read_bytes())
    link.unlink()
    link.symlink_to(real)
    _bump(proj)
    assert cli("render", cwd=proj).returncode == 0
    assert link.is_symlink() and b"version 1.1.0" in real.read_bytes()
