"""The Soda 4 worker as a server (`Server` in tacit_gen/targets/soda4/engine.py): one
process answers a process's requests one after another, its output goes to each request's log,
and a worker that ends without answering is reported and replaced on the next request."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tacit_gen.targets.soda4.engine import Server


def _request(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"workdir": str(folder), "results": str(folder / f"{name}.out.json"),
                                "log": str(folder / f"{name}.log"), "cases": []}), encoding="utf-8")
    return path


def test_one_worker_answers_every_request(tmp_path: Path) -> None:
    # no case: the worker's own loop, without soda-core (this interpreter has Soda 3)
    assert Server.ask(sys.executable, _request(tmp_path / "a", "r1"))
    first = Server._current
    assert first is not None
    assert Server.ask(sys.executable, _request(tmp_path / "b", "r2"))
    assert Server._current is first and first.proc.poll() is None  # the same process
    for folder, name in (("a", "r1"), ("b", "r2")):
        assert json.loads((tmp_path / folder / f"{name}.out.json").read_text()) == {"cases": {}, "timings": {}}
        assert (tmp_path / folder / f"{name}.log").is_file()


def test_a_worker_that_ends_unanswered_is_replaced(tmp_path: Path) -> None:
    dead = tmp_path / "python"  # reads the request and ends without a word
    dead.write_text("#!/bin/sh\nread line\nexit 3\n", encoding="utf-8")
    os.chmod(dead, 0o755)
    assert not Server.ask(str(dead), _request(tmp_path / "x", "r"))
    assert Server._current is None
    assert Server.ask(sys.executable, _request(tmp_path / "y", "r"))  # a new one, answering
    assert Server._current is not None and Server._current.python == sys.executable
