"""One benchmark row: a measure, its baseline timed in the same run, the ratio and the goal.

Every bench script prints its rows through `emit()`; with ``--json FILE`` (or the environment
variable ``TACIT_BENCH_JSON``, which `nox -s bench -- --json FILE` sets for every script) each
row is also appended to FILE as one JSON object in a list, so CI can keep a history. Seconds
move with the machine and its load (recorded per row); ratios much less.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

ENV = "TACIT_BENCH_JSON"


@dataclass(frozen=True)
class Row:
    """One measure against its baseline.

    ``kind`` says how the ratio reads: ``"slower"`` is measure / baseline with a goal of at most
    ``goal`` (``parse()`` within 1.10x of a hand query); ``"faster"`` is baseline / measure with
    a goal of at least ``goal`` (``parse()`` 1.3x faster than pandera); ``"wall"`` is a wall
    time in seconds with a goal of at most ``goal`` seconds and no baseline.
    """

    bench: str
    measure: str
    seconds: float
    baseline: str = ""
    baseline_seconds: float | None = None
    kind: Literal["slower", "faster", "wall"] = "slower"
    goal: float | None = None
    repeat: int = 1
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.kind == "wall" or not self.baseline_seconds or not self.seconds:
            return None
        if self.kind == "faster":
            return self.baseline_seconds / self.seconds
        return self.seconds / self.baseline_seconds

    @property
    def met(self) -> bool | None:
        if self.goal is None:
            return None
        if self.kind == "wall":
            return self.seconds <= self.goal
        r = self.ratio
        if r is None:
            return None
        return r >= self.goal if self.kind == "faster" else r <= self.goal

    def line(self) -> str:
        out = f"[{self.bench}] {self.measure}: {self.seconds:.3f} s"
        if self.baseline:
            base = f"{self.baseline_seconds:.3f} s" if self.baseline_seconds is not None else "-"
            out += f" | baseline, same run: {self.baseline} {base}"
        r = self.ratio
        if r is not None:
            out += f" | {r:.2f}x" + (" faster" if self.kind == "faster" else "")
        if self.goal is not None:
            sign = ">=" if self.kind == "faster" else "<="
            unit = " s" if self.kind == "wall" else "x"
            out += f" | goal {sign} {self.goal:g}{unit}: " + ("met" if self.met else "NOT met")
        out += f" | median of {self.repeat}"
        if self.note:
            out += f" | {self.note}"
        return out

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["extra"] = dict(self.extra)
        data.update(ratio=self.ratio, met=self.met)
        return data


def emit(row: Row) -> Row:
    """Print `row`; append it to the JSON file named by ``TACIT_BENCH_JSON`` when set."""
    print(row.line(), flush=True)
    target = os.environ.get(ENV)
    if target:
        path = Path(target)
        rows = json.loads(path.read_text()) if path.exists() and path.stat().st_size else []
        entry = row.as_json()
        entry.update(
            at=datetime.now(UTC).isoformat(timespec="seconds"),
            load_average=[round(x, 2) for x in os.getloadavg()],
            cpus=os.cpu_count(),
            python=platform.python_version(),
        )
        rows.append(entry)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(rows, indent=2, default=str) + "\n")
        tmp.replace(path)
    return row


def use_json(path: str | None) -> None:
    """``--json FILE`` given to a bench script directly: rows go to FILE (appended)."""
    if path:
        os.environ[ENV] = str(Path(path).resolve())


def interleaved(fns: Mapping[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, Any]]:
    """Median seconds (and the last result) of each function, run in turn `repeat` times.

    Interleaving (a, b, c, a, b, c, ...) rather than (a, a, a, b, b, b) spreads the load of a
    shared machine over every measure alike, so the ratios move less than the seconds.
    """
    times: dict[str, list[float]] = {k: [] for k in fns}
    last: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            last[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {k: (statistics.median(v), last[k]) for k, v in times.items()}


def row_count(text: str) -> int:
    """``--rows`` as an integer or in exponent form: ``10000000``, ``1e7``, ``2e6``."""
    value = float(text) if any(c in text for c in ".eE") else int(text)
    if value != int(value) or value < 1:
        raise ValueError(f"not a row count: {text}")
    return int(value)
