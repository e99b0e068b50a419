"""What a ``dbt build`` wrote: its results by node id and its manifest, read once for every
model of the project."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

_BUILD_FILES: dict[str, tuple[tuple[int, ...], tuple[dict[str, Any], dict[str, Any]]]] = {}


def build_files(project: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The last build's results by node id (``run_results.json``) and its manifest
    (``manifest.json``), read once for every model of the project (the manifest of a batch's
    project is megabytes: read again per model, it was a tenth of the batch's CPU); None: the
    build wrote no results."""
    paths = [project / "target" / "run_results.json", project / "target" / "manifest.json"]
    try:
        stats = [p.stat() for p in paths]
    except FileNotFoundError:
        return None
    key = tuple(n for st in stats for n in (st.st_ino, st.st_mtime_ns, st.st_size))
    cached = _BUILD_FILES.get(str(project))
    if cached is not None and cached[0] == key:
        return cached[1]
    results = {r["unique_id"]: r
               for r in json.loads(paths[0].read_text(encoding="utf-8"))["results"]}
    read = (results, json.loads(paths[1].read_text(encoding="utf-8")))
    _BUILD_FILES.clear()  # one project at a time
    _BUILD_FILES[str(project)] = (key, read)
    return read
