"""Rendered artifacts kept on disk, keyed by everything a render reads (issue 16, fast start).

A warm `render` or `check` of an unchanged contract takes its artifacts from here instead of
running the targets, so it imports neither sqlglot nor any target's renderer. The cache is only
an accelerator: an entry is used when its key is exactly the key of this render, and the key is a
SHA-256 over every input a render of the built-in targets reads:

- the contract's text as the loader parsed it, and its path as the artifact headers name it;
- the effective options (`RenderOptions`: settings merged with the flags, the dbt-core version);
- the targets rendered, and for each the bytes of every file in its `--templates` override folder
  and of every file its `render_inputs(contract, options)` names (protobuf's field-number lock);
- tacit-gen itself: its version, and the `stat` of every file of the package and of the
  repository's `templates/` (inode, size, modification and change times: any write, rename or
  reinstall changes the change time, which no tool can set back);
- the Python version and the installed versions of the libraries that shape output (`DISTRIBUTIONS`).

Targets added by other packages (entry points) are never cached: their source is not in the key.

Entries live in ``<cache dir>/render/<key>.entry`` (`tacit_gen.diskcache.cache_dir`: the
``TACIT_GEN_CACHE_DIR`` folder, else ``$XDG_CACHE_HOME/tacit-gen``), written atomically: a JSON
line (digest, format, key), a JSON line indexing the artifacts, then their texts as they are (no
escaping to write or undo: `_entry_bytes`). An entry whose bytes after the first line do not
match its digest, that does not parse, or has another key or format is a miss, and the render that
follows rewrites it. Nothing is stored when the inputs changed while the render ran (the key is
computed again after it), when tacit-gen's files changed (checked once when a run's entries are
written, `RenderCache.deferred`), nor when a file of tacit-gen was written less than
`RACY_SECONDS` before the process started (the code running may not be the code on disk: git's
"racily clean" rule). Past `MAX_ENTRIES` entries
the least recently used are removed, never one the current run used (a repository of more
contracts than that keeps every one of its own); deleting the folder is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen import STARTED, __version__, diskcache, installed, registry
from tacit_gen.targets.base import Artifact, RenderResult, Unsupported

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.targets.base import RenderOptions

FORMAT = "tacit-gen render cache 3"
SUFFIX = ".entry"
# The installed libraries whose version can change an artifact's bytes: tacit-gen's runtime
# dependencies, and what sqlglot imports when it is there (mypy_extensions; its compiled
# tokenizer and parser). tests/cli/test_render_cache.py fails when a render imports another.
DISTRIBUTIONS = ("sqlglot", "sqlglotrs", "sqlglotc", "mypy_extensions", "jinja2", "markupsafe",
                 "pyyaml", "ruamel.yaml", "pint", "click")
RACY_SECONDS = 2.0
MAX_ENTRIES = 512
FOLDER = "render"

_PACKAGE = Path(__file__).resolve().parent


def _source_roots() -> list[Path]:
    """The folders a render's code and packaged templates come from (see `targets.templates`)."""
    roots = [_PACKAGE]
    repo_templates = _PACKAGE.parent / "templates"
    roots += [repo_templates / name for name in registry.BUILTIN if (repo_templates / name).is_dir()]
    return roots


def source_fingerprint() -> tuple[str, float]:
    """(a fingerprint of tacit-gen's files as they are on disk, the newest of their times).

    One `stat` per file: inode, size, modification and change time (nanoseconds)."""
    parts: list[str] = []
    newest = 0.0
    for root in _source_roots():
        parts.append(str(root))
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    parts.append(f"{path}\0gone")
                    continue
                parts.append(f"{path}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}")
                newest = max(newest, st.st_mtime, st.st_ctime)
    return "\n".join(parts), newest


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as e:  # unreadable: a key no other state shares, so never a hit
        return f"unreadable {e.errno} {os.urandom(8).hex()}"


def _folder_digest(folder: Path) -> str:
    """Every file under `folder`: relative path and bytes; "absent" when it is no folder."""
    if not folder.is_dir():
        return "absent"
    h = hashlib.sha256()
    for dirpath, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            p = Path(dirpath) / name
            h.update(p.relative_to(folder).as_posix().encode("utf-8", "surrogateescape") + b"\0")
            h.update(_file_digest(p).encode() + b"\0")
    return h.hexdigest()


class RenderCache:
    """Rendered artifacts per (contract, targets, options, code): see the module docstring.

    Args:
        folder: where entries live (default: ``<cache dir>/render``).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._base: str | None = None
        self._storable = False
        self._pending: list[tuple[str, dict[str, RenderResult]]] | None = None  # within `deferred`
        self._sql_memo: dict[str, Any] = {}  # the SQL templates this cache's run read or stored

    def _dir(self) -> Path:
        return self.folder if self.folder is not None else diskcache.cache_dir() / FOLDER

    def _code(self) -> tuple[str, bool]:
        """(the key part of tacit-gen and its libraries, whether entries may be stored)."""
        fingerprint, newest = source_fingerprint()
        versions = [f"{d}=={installed.version(d)}" for d in DISTRIBUTIONS]
        base = "\n".join([FORMAT, __version__, sys.version, sys.implementation.cache_tag or "",
                          *versions, fingerprint])
        return base, newest < STARTED - RACY_SECONDS

    def key(self, contract: Contract, targets: tuple[str, ...], options: RenderOptions) -> str:
        """The key of rendering `targets` (built-in ones) of `contract` with `options`."""
        if self._base is None:
            self._base, self._storable = self._code()
        h = hashlib.sha256()
        for part in self._parts(contract, targets, options):
            h.update(part.encode("utf-8", "surrogatepass") + b"\0")
        return h.hexdigest()

    def _parts(self, contract: Contract, targets: tuple[str, ...], options: RenderOptions) -> list[str]:
        parts = [self._base or "", contract.path, contract.source, repr(options), ",".join(targets)]
        for name in targets:
            if name not in registry.BUILTIN:
                raise ValueError(f"the render cache takes built-in targets only, not '{name}'")
            target = registry.get(name)
            if options.templates_dir and target.templates:
                parts.append(f"templates {name} " + _folder_digest(Path(options.templates_dir) / name))
            for p in target.render_inputs(contract, options):
                parts.append(f"input {name} {Path(p).as_posix()} {_file_digest(Path(p))}")
        return parts

    def sql_templates(self) -> contextlib.AbstractContextManager[None]:
        """The scope in which SQL texts come from compiled templates (`tacit_gen.sql.shapes`),
        kept in the ``sql/`` folder beside this cache's and keyed by the same code."""
        from tacit_gen.sql import shapes

        if self._base is None:
            self._base, self._storable = self._code()
        folder = self._dir().parent / shapes.FOLDER
        return shapes.scope(self._base, self._storable, folder, self._sql_memo)

    def get(self, key: str) -> dict[str, RenderResult] | None:
        """The results stored under `key`, per target; None when absent or not whole."""
        path = self._dir() / f"{key}{SUFFIX}"
        try:
            data = path.read_bytes()
        except OSError:
            return None
        results = _read_entry(data, key)
        if results is None:
            return None
        with contextlib.suppress(OSError):  # least recently used goes first when the folder is full
            os.utime(path)
        return results

    def put(self, key: str, contract: Contract, targets: tuple[str, ...], options: RenderOptions,
            results: dict[str, RenderResult]) -> bool:
        """Store `results` (of `targets`) under `key` when that is safe; True when stored (within
        `deferred`: when queued, stored at its end if tacit-gen did not change meanwhile)."""
        if not self._storable or set(results) != set(targets):
            return False
        if self.key(contract, targets, options) != key:
            return False  # a template or an input changed while rendering
        if self._pending is not None:
            self._pending.append((key, results))
            return True
        return self._store([(key, results)]) == 1

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Within this block `put` queues its entries, and they are written when it ends, after
        one check that tacit-gen's files did not change while it ran (that check walks the
        package: once per run, not once per contract of a repository). Nothing is written when
        the block raises."""
        if self._pending is not None:  # already deferred: the outer block writes
            yield
            return
        self._pending = []
        began = time.time()
        try:
            yield
            pending = self._pending
        finally:
            self._pending = None
        self._store(pending, began)

    def _store(self, entries: list[tuple[str, dict[str, RenderResult]]], began: float | None = None) -> int:
        """Write `entries` when tacit-gen is unchanged since the keys were made; how many were.
        Pruning keeps every entry used since `began` (the run's own)."""
        if not entries:
            return 0
        base, storable = self._code()
        if base != self._base or not storable:
            return 0  # tacit-gen changed while rendering: the code of the keys is not on disk
        folder = self._dir()
        written = 0
        for key, results in entries:
            written += diskcache.store_bytes(f"{key}{SUFFIX}", _entry_bytes(key, results), folder=folder)
        if written:  # (earlier formats' `.json` entries age out with the others)
            diskcache.prune(folder, MAX_ENTRIES, keep_since=began, suffixes=(SUFFIX, ".json"))
        return written


def str_(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"not a string: {type(value).__name__}")
    return value


def _entry_bytes(key: str, results: dict[str, RenderResult]) -> bytes:
    """An entry's file: a JSON line (digest, format, key), a JSON line indexing the artifacts
    (per target: each artifact's path and length in characters, and the unsupported clauses),
    then every artifact's text, one after another, as written: no escaping to write or undo.
    The digest is the SHA-256 of everything after the first line."""
    index = [[name, [[a.path, len(a.content)] for a in r.artifacts],
              [[u.target, u.clause_id, u.reason] for u in r.unsupported]] for name, r in results.items()]
    rest = (json.dumps(index, separators=(",", ":")) + "\n"
            + "".join(a.content for r in results.values() for a in r.artifacts)).encode("utf-8", "surrogatepass")
    head = json.dumps({"digest": hashlib.sha256(rest).hexdigest(), "format": FORMAT, "key": key},
                      separators=(",", ":"))
    return head.encode("ascii") + b"\n" + rest


def _read_entry(data: bytes, key: str) -> dict[str, RenderResult] | None:
    """The results of an entry's bytes (`_entry_bytes`), or None when they are not whole."""
    head, nl, rest = data.partition(b"\n")
    try:
        meta = json.loads(head)
        if not nl or not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("key") != key \
                or meta.get("digest") != hashlib.sha256(rest).hexdigest():
            return None
        index_text, nl, body = rest.partition(b"\n")
        index = json.loads(index_text)
        text = body.decode("utf-8", "surrogatepass")
        out: dict[str, RenderResult] = {}
        at = 0
        for name, arts, uns in index:
            made = []
            for path, n in arts:
                if type(n) is not int or n < 0 or at + n > len(text):
                    return None
                made.append(Artifact(str_(path), text[at:at + n]))
                at += n
            out[str_(name)] = RenderResult(tuple(made), tuple(Unsupported(str_(t), str_(i), str_(why))
                                                              for t, i, why in uns))
    except (ValueError, TypeError):  # not JSON, not UTF-8, not the shape written
        return None
    return out if at == len(text) else None
