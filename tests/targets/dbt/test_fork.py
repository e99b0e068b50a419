"""dbt run in process, then in a process forked from it (as verify forks each engine): the child
builds against its own DuckDB file. dbt-duckdb keeps its DuckDB environment as class state; the
child inherited the parent's and closed it on its first connection, which aborted the child
(SIGABRT in LocalEnvironment.close) and made every later verify of a pytest worker exit 3. The
dbt engine drops an inherited environment unclosed on first use in a process."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from tacit_gen.targets.dbt.engine import invoke

pytestmark = pytest.mark.engine


def _project(root: Path) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "dbt_project.yml").write_text(
        "name: fork_check\nversion: '1.0'\nprofile: fork_check\nmodel-paths: [models]\n",
        encoding="utf-8")
    (root / "profiles.yml").write_text(
        "fork_check:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{(root / 'db.duckdb').as_posix()}'\n      threads: 1\n", encoding="utf-8")
    (root / "models" / "one.sql").write_text("select 1 as x\n", encoding="utf-8")
    return root


def _child(project: str, conn: multiprocessing.connection.Connection) -> None:
    result = invoke(Path(project), "build")
    conn.send(bool(result.success))
    conn.close()


def test_a_forked_process_builds_after_the_parent_ran_dbt(tmp_path: Path) -> None:
    assert invoke(_project(tmp_path / "parent"), "build").success
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(str(_project(tmp_path / "child")), sender))
    proc.start()
    sender.close()
    built = receiver.recv() if receiver.poll(300) else None
    proc.join(60)
    assert proc.exitcode == 0, f"the forked dbt process ended with {proc.exitcode}"
    assert built is True
    assert (tmp_path / "child" / "db.duckdb").exists()
