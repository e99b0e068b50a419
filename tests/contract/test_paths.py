"""The loader's path helpers (the messages' path, the headers' project root and portable path)
give what the plain `pathlib` definitions give, for links, nested projects and any working
directory: they are written with `os.path` and resolve a path once, for speed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tacit_gen.contract.loader import display_path, load, load_rooted, portable_path, project_root
from tests.conftest import ROOT


def _root(path: Path) -> Path:
    resolved = path.resolve()
    for parent in resolved.parents:
        if (parent / ".git").exists():
            return parent
    for parent in resolved.parents:
        if parent.name == "contracts":
            return parent.parent
    return resolved.parent


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _layout(tmp_path: Path) -> list[Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "team" / "contracts" / "deep").mkdir(parents=True)
    (tmp_path / "loose" / "contracts").mkdir(parents=True)
    (tmp_path / "plain").mkdir()
    files = [repo / "team" / "contracts" / "a.yaml", repo / "team" / "contracts" / "deep" / "b.yaml",
             tmp_path / "loose" / "contracts" / "c.yaml", tmp_path / "plain" / "d.yaml"]
    for f in files:
        f.write_text("contract: x\n")
    (tmp_path / "link").symlink_to(repo / "team")  # a contract reached through a link
    return [*files, tmp_path / "link" / "contracts" / "a.yaml"]


@pytest.mark.parametrize("where", ["tmp", "repo", "deep", "root"])
def test_path_helpers_match_pathlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    files = _layout(tmp_path)
    cwd = {"tmp": tmp_path, "repo": tmp_path / "repo", "deep": tmp_path / "repo" / "team" / "contracts",
           "root": Path("/")}[where]
    monkeypatch.chdir(cwd)
    for f in files:
        for given in (f, Path(os.path.relpath(f, cwd))):
            assert project_root(given) == _root(given), given
            assert portable_path(given) == given.resolve().relative_to(_root(given)).as_posix(), given
            assert display_path(given) == _display(given), given
    assert portable_path(files[0]) == "team/contracts/a.yaml"
    assert portable_path(files[2]) == "contracts/c.yaml"
    assert portable_path(files[3]) == "d.yaml"
    assert display_path(cwd) == "."


def test_load_rooted_is_load_and_project_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `render` calls for each contract: the contract `load` gives (its header path
    included), and the folder `project_root` gives, the path resolved once for both."""
    files = _layout(tmp_path)
    text = (ROOT / "contracts" / "ohlcv_1m.yaml").read_text()
    monkeypatch.chdir(tmp_path / "repo")
    for f in files:
        f.write_text(text)
        for given in (f, Path(os.path.relpath(f, tmp_path / "repo"))):
            contract, root = load_rooted(given)
            assert root == project_root(given) == _root(given), given
            assert contract == load(given) and contract.path == load(given).path == portable_path(given)
