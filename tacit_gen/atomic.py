"""Write files atomically: a temp file beside the destination, flushed to disk, then one rename."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


class WriteError(OSError):
    """A file of the set could not be written; nothing of the set was changed."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"cannot write {path.as_posix()}: {error.strerror or error}")
        self.path = path
        self.error = error


def _umask() -> int:
    old = os.umask(0o022)
    os.umask(old)
    return old


def _stage(path: Path, data: bytes, created: list[Path]) -> str:
    """Write `data` to a temp file beside `path` (folders created and recorded) and flush it to
    disk; return the temp file's path.

    The temp file gets the mode a plain `open()` would give a new file (the umask's), or the
    mode of the file it replaces."""
    import tempfile  # only when something is written (it imports shutil and random)

    missing = [d for d in [path.parent, *path.parent.parents] if not d.exists()]
    for d in reversed(missing):
        d.mkdir()
        created.append(d)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())  # the rename must not reach the disk before the content
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write(path: Path, data: bytes) -> None:
    """Write through a temp file in the same folder and rename: readers never see half a file.
    A symlink stays a link: the file it points to is replaced.

    Raises:
        WriteError: naming the path and the OS error; the previous file is as it was.
    """
    write_set([(Path(os.path.realpath(path)), data)])


def write_set(files: list[tuple[Path, bytes]]) -> None:
    """Write every file or none: each is staged as a temp file beside its destination, and the
    set is swapped in (one rename per file) only when every file is staged. A failure while
    staging removes the temp files and the folders it made; a failure while swapping puts back
    what was replaced.

    Raises:
        WriteError: naming the path and the OS error; the previous files are as they were.
    """
    created: list[Path] = []
    staged: list[tuple[Path, str]] = []
    current: Path | None = None
    try:
        for path, data in files:
            current = path
            staged.append((path, _stage(path, data, created)))
    except OSError as e:
        _discard(staged, created)
        raise WriteError(current or Path("."), e) from None
    done: list[tuple[Path, bytes | None]] = []
    try:
        for path, tmp in staged:
            current = path
            try:
                old: bytes | None = path.read_bytes()
            except FileNotFoundError:
                old = None
            os.replace(tmp, path)
            done.append((path, old))
    except OSError as e:
        for path, old in reversed(done):  # best effort: put the previous files back
            try:
                if old is None:
                    path.unlink()
                else:
                    os.replace(_stage(path, old, []), path)
            except OSError:
                pass
        _discard([(p, t) for p, t in staged if os.path.exists(t)], created)
        raise WriteError(current or Path("."), e) from None


def _discard(staged: list[tuple[Path, str]], created: list[Path]) -> None:
    for _, tmp in staged:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    for d in reversed(created):
        with contextlib.suppress(OSError):
            d.rmdir()
