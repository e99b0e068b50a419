"""A pytest plugin that reports each test's CPU time beside its wall time (`-p tests.cputime`).

On a loaded machine the wall time of a test says as much about its neighbours as about it; the
CPU time of the worker and of the processes it waited for (engine processes, a `tacit-gen`
subprocess, dbt) does not. The slowest `TACIT_CPUTIME_TOP` tests and files (default 40) by CPU
are printed at the end, with the total (docs/ci.md); under xdist the workers' rows are gathered.
A module-scoped fixture's cost is in the first test that uses it.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator
from typing import Any

import pytest

_ROWS: list[tuple[float, float, str]] = []  # (cpu, wall, node id) of each test, setup included


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


_START: dict[str, tuple[float, float]] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _START[item.nodeid] = (_cpu(), time.monotonic())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    if call.when == "teardown" and item.nodeid in _START:
        cpu, wall = _START.pop(item.nodeid)
        item.user_properties.append(("cputime", (_cpu() - cpu, time.monotonic() - wall)))
    yield


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # in this process, or (under xdist) the controller reading a worker's report
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "cputime":
                _ROWS.append((value[0], value[1], report.nodeid))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _ROWS:
        return
    top = int(os.environ.get("TACIT_CPUTIME_TOP", "40"))
    tr = terminalreporter
    tr.write_sep("=", f"slowest {top} tests by CPU (worker + waited-for children)")
    for cpu, wall, node in sorted(_ROWS, reverse=True)[:top]:
        tr.write_line(f"{cpu:8.1f}s cpu {wall:8.1f}s wall  {node}")
    files: dict[str, list[float]] = {}
    for cpu, wall, node in _ROWS:
        acc = files.setdefault(node.split("::")[0], [0.0, 0.0, 0])
        acc[0] += cpu
        acc[1] += wall
        acc[2] += 1
    tr.write_sep("-", f"slowest {top} files by CPU")
    for name, (cpu, wall, n) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        tr.write_line(f"{cpu:8.1f}s cpu {wall:8.1f}s wall  {int(n):4d} tests  {name}")
    tr.write_line(f"total: {sum(r[0] for r in _ROWS):.0f}s cpu, {sum(r[1] for r in _ROWS):.0f}s wall "
                  f"over {len(_ROWS)} tests")
