"""The parse seed: dbt's own macros, the adapter's and the dbt_utils stand-in's, parsed once per
machine and handed to every verify project's parse as a partial-parse file.

Why: a verify project is new each run, so dbt parsed it whole each time, and most of that parse is
dbt's and the adapter's ~550 macros, which are the same for every project: about 0.6 s of a warm
process's 0.8 s parse here, 1.4 s in a fresh one (docs/engines/dbt.md). Partial parsing is dbt's
own way to keep them, but dbt takes a saved parse only when the ``--vars`` and the profile's
connection values are those it was made with, and verify's differ each run (the pinned now, the
DuckDB file's path).

How: the seed is the parse of a copy of the project with no file of its own (no model, no schema
file, no root macro), so it holds only files whose parse depends on neither the vars nor the
profile (macros are parsed as templates; nothing in them is rendered at parse time). A project's
parse reads it (``--partial-parse --partial-parse-file-path <seed>``): every file of the
project's own is new to dbt, so it is parsed with this run's vars and profile, as in a full parse.
dbt's own check would refuse the seed for the vars and the profile alone; the wrapper that
`_install` puts around ``ManifestLoader.is_partial_parsable`` (once per process) accepts a seed
file of this cache when every other check of dbt's passes (the dbt version, the projects' config
files, the env vars they read), and leaves every other partial-parse file to dbt.

The seed's name is a hash of what its parse depends on: dbt's version and the adapter's, the
profile's adapter type, ``dbt_project.yml``, ``packages.yml`` and the stand-in's files. A seed
that cannot be made or read (an older dbt without the flags, a read-only cache) is a miss: the
parse is dbt's full one, as before. ``TACIT_GEN_DBT_PARSE_SEED=0`` turns the seed off.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ENV", "accepted", "parse_args"]

ENV = "TACIT_GEN_DBT_PARSE_SEED"
SEEDS = "dbt-parse-seeds"
# seeds this process's dbt accepted (a test reads it: the seed was used, not only made)
accepted: list[str] = []


def _seeds_dir() -> Path:
    from tacit_gen.diskcache import cache_dir

    return cache_dir() / SEEDS


def _adapter(project: Path) -> tuple[str, str]:
    """The profile's adapter type and the installed plugin's version."""
    profile = yaml.safe_load((project / "profiles.yml").read_text(encoding="utf-8"))
    kind = str(next(iter(next(iter(profile.values()))["outputs"].values()))["type"])
    from importlib.metadata import PackageNotFoundError, version

    try:
        return kind, version(f"dbt-{kind}")
    except PackageNotFoundError:
        return kind, ""


def _key(project: Path) -> str:
    from dbt.version import __version__

    h = hashlib.sha256()
    for part in (__version__, *_adapter(project)):
        h.update(part.encode() + b"\0")
    for name in ("dbt_project.yml", "packages.yml"):
        h.update((project / name).read_bytes() + b"\0")
    standin = project / "tacit_dbt_utils"
    for f in sorted(p for p in standin.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(standin)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:24]


@functools.cache
def _install() -> bool:
    """Wrap dbt's partial-parse check, once in this process (False: this dbt has no such check).
    The seed folder is read at each check, so a process that moves its cache (a test setting
    ``TACIT_GEN_CACHE_DIR``) needs no second wrapper."""
    try:
        from dbt.flags import get_flags
        from dbt.parser.manifest import ManifestLoader
        from dbt.version import __version__
    except ImportError:
        return False
    original = getattr(ManifestLoader, "is_partial_parsable", None)
    if original is None:
        return False

    def accepting(self: Any, manifest: Any) -> tuple[bool, Any]:
        ok, why = original(self, manifest)
        path = getattr(get_flags(), "PARTIAL_PARSE_FILE_PATH", None)
        if ok or not path or Path(path).resolve().parent != _seeds_dir().resolve():
            return ok, why
        mine, saved = self.manifest.state_check, manifest.state_check
        if (manifest.metadata.dbt_version == __version__
                and mine.project_hashes == saved.project_hashes
                and mine.project_env_vars_hash == saved.project_env_vars_hash):
            accepted.append(Path(path).name)
            return True, None
        return ok, why

    ManifestLoader.is_partial_parsable = accepting  # type: ignore[method-assign]
    return True


def _make(project: Path, seed: Path, invoke: Callable[..., Any]) -> bool:
    """Parse a copy of `project` without its own files and keep the partial-parse file as `seed`."""
    from tacit_gen.diskcache import store_bytes

    work = Path(tempfile.mkdtemp(prefix="seed-", dir=project.parent))
    try:
        copy = work / "project"
        shutil.copytree(project, copy, symlinks=True,
                        ignore=shutil.ignore_patterns("target", "logs", "*.duckdb", "*.duckdb.wal"))
        for own in ("models", "macros"):
            shutil.rmtree(copy / own, ignore_errors=True)
            (copy / own).mkdir()
        result = invoke(copy, "parse", "--vars", "{}", "--partial-parse")
        made = copy / "target" / "partial_parse.msgpack"
        if not getattr(result, "success", False) or not made.is_file():
            return False
        return store_bytes(seed.name, made.read_bytes(), seed.parent)
    except OSError:
        return False
    finally:
        shutil.rmtree(work, ignore_errors=True)


def parse_args(project: Path, invoke: Callable[..., Any]) -> list[str]:
    """The arguments that make a parse of `project` start from the seed (made here on a miss),
    or none: the seed is off, this dbt cannot take it, or it could not be made."""
    if os.environ.get(ENV, "1") == "0" or not _install():
        return []
    try:
        seed = _seeds_dir() / f"{_key(project)}.msgpack"
    except (OSError, ValueError, KeyError, StopIteration, AttributeError, TypeError):
        return []
    if not seed.is_file() and not _make(project, seed, invoke):
        return []
    return ["--partial-parse", "--partial-parse-file-path", str(seed)]
