"""Run the real CLI with stdout and/or stderr on a pseudo-terminal, as a person's shell does."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT


@dataclass
class PtyRun:
    returncode: int
    stdout: str
    stderr: str


def _drain(fd: int, into: bytearray) -> bool:
    try:
        chunk = os.read(fd, 65536)
    except OSError:  # EIO: the other side closed
        return False
    into.extend(chunk)
    return bool(chunk)


def run_tty(*args: str, stdout_tty: bool = False, stderr_tty: bool = True,
            env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 600) -> PtyRun:
    """`tacit-gen ARGS` in a fresh interpreter; the chosen streams are a terminal (80 columns),
    the others pipes. Returns what each stream received, decoded."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", **(env or {})}
    full.pop("COLUMNS", None)
    if env and "COLUMNS" in env:
        full["COLUMNS"] = env["COLUMNS"]
    pairs = {name: pty.openpty() for name, on in (("out", stdout_tty), ("err", stderr_tty)) if on}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tacit_gen.cli", *args], cwd=cwd or ROOT, env=full,
        stdin=subprocess.DEVNULL,
        stdout=pairs["out"][1] if "out" in pairs else subprocess.PIPE,
        stderr=pairs["err"][1] if "err" in pairs else subprocess.PIPE)
    for _, slave in pairs.values():
        os.close(slave)
    bufs = {"out": bytearray(), "err": bytearray()}
    fds = {pairs[n][0] if n in pairs else getattr(proc, "stdout" if n == "out" else "stderr").fileno(): n
           for n in ("out", "err")}
    deadline = time.monotonic() + timeout
    while fds and time.monotonic() < deadline:
        ready, _, _ = select.select(list(fds), [], [], 0.5)
        for fd in ready:
            if not _drain(fd, bufs[fds[fd]]):
                del fds[fd]
    if fds:
        proc.kill()
    proc.wait()
    for master, _ in pairs.values():
        os.close(master)
    return PtyRun(proc.returncode, bufs["out"].decode("utf-8", "replace"),
                  bufs["err"].decode("utf-8", "replace"))
