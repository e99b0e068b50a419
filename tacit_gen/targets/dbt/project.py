"""The user's dbt project, as the dbt target's `render` and `check` hooks see it: packages,
properties files, and project-level test configs that would weaken the generated tests.

Read with plain YAML (dbt is not imported). The project is the folder holding ``dbt_project.yml``:
the settings' ``[dbt] project``, else the settings root (the repository root).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from tacit_gen.drift.base import Finding

if TYPE_CHECKING:
    from tacit_gen.targets.base import Artifact

DESCRIBED_TWICE = "D400"  # a generated model is also described in a project properties file
PROJECT_WEAKENS = "D401"  # a project-level test config weakens the generated tests
# config key -> a predicate on its value: True when it weakens a generated test
_WEAKENING: dict[str, Any] = {
    "severity": lambda v: str(v).strip().lower() == "warn",
    "enabled": lambda v: v is False or str(v).strip().lower() == "false",
    "where": lambda v: v is not None and str(v).strip() != "",
    "error_if": lambda v: v is not None and str(v).replace(" ", "") != "!=0",
    "warn_if": lambda v: v is not None,
    "limit": lambda v: v is not None,
}


@dataclass(frozen=True)
class DbtProject:
    """A dbt project on disk: its folder, name, and parsed dbt_project.yml."""

    root: Path
    name: str
    doc: dict[str, Any]

    @property
    def model_paths(self) -> list[Path]:
        return [self.root / str(p) for p in (self.doc.get("model-paths") or ["models"])]

    @property
    def macro_paths(self) -> list[Path]:
        return [self.root / str(p) for p in (self.doc.get("macro-paths") or ["macros"])]

    def packages_text(self) -> str | None:
        """packages.yml and dependencies.yml beside dbt_project.yml, joined (None: neither)."""
        texts = [p.read_text(encoding="utf-8") for p in
                 (self.root / "packages.yml", self.root / "dependencies.yml") if p.is_file()]
        return "\n".join(texts) if texts else None


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def find(root: Path, configured: str | None = None) -> DbtProject | None:
    """The dbt project at the configured folder, else at `root`; None when there is none."""
    folder = Path(configured) if configured else root
    path = folder / "dbt_project.yml"
    if not path.is_file():
        return None
    doc = _read_yaml(path)
    if not isinstance(doc, dict):
        return None
    return DbtProject(folder, str(doc.get("name", "")), doc)


def dbt_utils_warning(artifacts: list[Artifact], root: Path, configured: str | None) -> str | None:
    """A warning when the rendered dbt files use dbt_utils tests and the project's packages do
    not include dbt_utils (a `dbt build` would fail on an unknown test)."""
    uses = sorted({a.path for a in artifacts
                   if a.path.startswith("dbt/") and "- dbt_utils." in a.content})
    if not uses:
        return None
    project = find(root, configured)
    if project is None:
        return None
    packages = project.packages_text()
    if packages is not None and "dbt_utils" in packages:
        return None
    where = (project.root / "packages.yml").as_posix()
    return (f"{len(uses)} dbt file(s) use dbt_utils tests, but {where} does not list dbt_utils: "
            "add `- package: dbt-labs/dbt_utils` and run `dbt deps`, or set "
            "`[dbt] tests = \"native\"` in tacit-gen.toml")


def _under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _generated_models(out: Path) -> dict[str, tuple[Path, set[str]]]:
    """model name -> (generated properties file, its test names)."""
    models: dict[str, tuple[Path, set[str]]] = {}
    folder = out / "dbt"
    if not folder.is_dir():
        return models
    for f in sorted(folder.glob("*.yml")):
        doc = _read_yaml(f)
        for m in (doc or {}).get("models") or [] if isinstance(doc, dict) else []:
            if not isinstance(m, dict) or "name" not in m:
                continue
            names: set[str] = set()
            for holder in [m, *(c for c in m.get("columns") or [] if isinstance(c, dict))]:
                for t in (holder.get("data_tests") or []) + (holder.get("tests") or []):
                    if isinstance(t, dict) and len(t) == 1:
                        body = next(iter(t.values()))
                        if isinstance(body, dict) and body.get("name"):
                            names.add(str(body["name"]))
            models[str(m["name"])] = (f, names)
    return models


def _weakening(node: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], str, Any]]:
    """(config path, key, value) of every weakening key under a `data_tests:` tree."""
    found: list[tuple[tuple[str, ...], str, Any]] = []
    if not isinstance(node, dict):
        return found
    for k, v in node.items():
        key = str(k)
        bare = key.removeprefix("+")
        if bare in _WEAKENING and not isinstance(v, dict):
            if _WEAKENING[bare](v):
                found.append((path, key, v))
        elif isinstance(v, dict):
            found.extend(_weakening(v, (*path, key)))
    return found


def findings(out: Path, root: Path, configured: str | None = None) -> tuple[list[Finding], list[str]]:
    """What in the user's dbt project defeats the generated properties: a model described twice
    (dbt refuses both), and project-level test configs that weaken the generated tests.

    Returns (findings, notes); no dbt project: nothing.
    """
    project = find(root, configured)
    if project is None:
        return [], []
    generated = _generated_models(out)
    if not generated:
        return [], []
    result: list[Finding] = []
    notes: list[str] = []
    gen_dir = out / "dbt"
    shown_project = (project.root / "dbt_project.yml").as_posix()
    if not any(_under(gen_dir, mp) for mp in project.model_paths):
        notes.append(f"{shown_project}: model-paths does not include {gen_dir.as_posix()}: dbt "
                     "does not read the generated properties (add it to model-paths)")
    # 1. a model described twice
    for mp in project.model_paths:
        if not mp.is_dir():
            continue
        for f in sorted([*mp.rglob("*.yml"), *mp.rglob("*.yaml")]):
            if _under(f, gen_dir):
                continue
            doc = _read_yaml(f)
            if not isinstance(doc, dict):
                continue
            for m in doc.get("models") or []:
                name = str(m.get("name")) if isinstance(m, dict) else None
                if name in generated:
                    result.append(Finding(
                        DESCRIBED_TWICE, f.as_posix(),
                        f"model {name} is described here and in {generated[name][0].as_posix()} "
                        "(dbt refuses a model described twice): move its columns, tests and "
                        "description into the contract and delete this entry"))
    # 2. project-level test configs that reach the generated tests
    test_names = {n for _, names in generated.values() for n in names}
    for section in ("data_tests", "tests"):
        tree = project.doc.get(section)
        for path, key, value in _weakening(tree, ()):
            applies = (not path or path == (project.name,)
                       or (len(path) == 2 and path[0] == project.name and path[1] in test_names))
            if not applies:
                continue
            where = ".".join((section, *path, key))
            result.append(Finding(
                PROJECT_WEAKENS, shown_project,
                f"{where}: {value!r} weakens every generated test it reaches (a failing test "
                "would not fail the build): remove it, or scope it to a folder without "
                "generated tests", None, None, f"{key}: {value}"))
    return result, notes


# the committed YAML's marks of a form, newest first: (the dbt-core that first reads it, its mark)
_FORM_MARKS = (((1, 10), re.compile(r"^\s*arguments:", re.M), "arguments:"),
               ((1, 8), re.compile(r"^\s*data_tests:", re.M), "data_tests:"))


def form_note(out: Path, installed: str | None) -> str | None:
    """A note when the dbt-core installed here (its version as package metadata, `installed`;
    None: no dbt-core, nothing to warn about) is older than the form the committed properties
    files are written in: 1.10 reads `arguments:`, 1.8 `data_tests:`. `check` does not fail on it:
    the bytes are right for the dbt the project pins, only this machine's dbt cannot run them."""
    if not installed:
        return None
    m = re.match(r"^(\d+)\.(\d+)", installed)
    if not m:
        return None
    have = (int(m.group(1)), int(m.group(2)))
    folder = out / "dbt"
    files = sorted(folder.glob("*.yml")) if folder.is_dir() else []
    for need, pattern, mark in _FORM_MARKS:
        if have >= need:
            continue
        for f in files:
            try:
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if pattern.search(text):
                form = f"{need[0]}.{need[1]}"
                return (f"{f.as_posix()}: written in the dbt {form} form ({mark}), which the "
                        f"dbt-core {installed} installed here does not read: install dbt-core "
                        f"{form} or later, or set [dbt] version = \"{have[0]}.{have[1]}\" in "
                        "tacit-gen.toml and re-render")
    return None
