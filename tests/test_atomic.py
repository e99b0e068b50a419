"""The one atomic writer, as render, sample, profile and the disk cache use it: the umask's mode
(or the replaced file's), through symlinks, flushed before the rename, nothing left on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacit_gen import atomic, diskcache
from tacit_gen.contract.loader import load
from tacit_gen.plan import plan
from tacit_gen.sample import sample, write

from .conftest import BUNDLED


@pytest.fixture
def umask_022() -> object:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_sample_files_get_the_umask_mode(tmp_path: Path, umask_022: object) -> None:
    c = load(BUNDLED[0])
    data_path, _ = write(sample(c, plan(c), rows=5), tmp_path / "out" / "data.csv")
    assert oct(data_path.stat().st_mode & 0o777) == "0o644"


def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask_022: object) -> None:
    p = tmp_path / "x.txt"
    p.write_bytes(b"old")
    p.chmod(0o640)
    atomic.write(p, b"new")
    assert p.read_bytes() == b"new" and oct(p.stat().st_mode & 0o777) == "0o640"


def test_a_symlink_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_bytes(b"old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    atomic.write(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_the_content_is_flushed_before_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    atomic.write(tmp_path / "x.txt", b"data")
    assert events == ["fsync", "replace"]


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(atomic.WriteError, match=r"cannot write .*new/x.txt: No space left"):
        atomic.write(tmp_path / "new" / "x.txt", b"data")
    assert list(tmp_path.iterdir()) == []  # no temp file, no folder made for it


def test_the_cache_ignores_a_failed_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    assert diskcache.store_bytes("k.json", b"{}", folder=tmp_path / "c") is False
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert diskcache.store_bytes("k.json", b"{}", folder=tmp_path / "c") is True
    assert oct((tmp_path / "c" / "k.json").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old
