"""`tacit-gen init`: start a project in an empty folder or an existing repository.

Writes the settings (`tacit-gen.toml`, with the first table each target declares,
`Target.init_settings`: the dbt YAML form pinned), a first contract that lints clean, a GitHub
Actions workflow running `lint`, `render --check` and `check`, and a pre-commit configuration
running the same three. Nothing that exists is overwritten: when any of the files
is there already, nothing at all is written (`Exists` names every one).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from tacit_gen import registry
from tacit_gen.render import write_set
from tacit_gen.settings import FILE_NAME

CONTRACT_PATH = "contracts/example.yaml"
WORKFLOW_PATH = ".github/workflows/contracts.yml"
PRE_COMMIT_PATH = ".pre-commit-config.yaml"

# The next commands, printed after the files are written (run from the project's folder).
NEXT_COMMANDS = ("tacit-gen lint", "tacit-gen render", "tacit-gen check")

# In the canonical form (`tacit-gen fmt --check` passes on it).
CONTRACT = """\
# A first data contract: rename the file and the contract, then describe your dataset.
# Every statement below becomes a clause that each target checks (`tacit-gen explain` lists them).
contract: example
version: 0.1.0
owner: data-team@example.com
description: One reading per meter and hour.
key: [meter_id, reading_ts]
time:
  column: reading_ts
fields:
  meter_id: {type: 'string'}
  reading_ts: {type: 'timestamp_ms_utc'}
  energy: {type: 'decimal(12,3)', unit: kWh}
  status: {type: 'enum[ok, estimated, missing]'}
invariants:
  - energy >= 0
  - energy is null only when status = missing
"""

# The same text as the ci-snippet block of docs/how-to/ci.md (a test keeps them equal).
WORKFLOW = """\
name: contracts
on: [pull_request]
jobs:
  contracts:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0        # the version gate needs the base branch's history
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install tacit-gen
      - run: tacit-gen lint contracts/
      - run: tacit-gen render --check   # generated/ is the render of contracts/ (prints the diff)
      - run: tacit-gen check            # hand edits, orphans, and a version bump that matches the change
"""

# The same text as the pre-commit-config block of docs/how-to/ci.md (a test keeps them equal):
# the hooks run the tacit-gen installed in the environment, so they need no published release.
PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: tacit-gen-lint
        name: tacit-gen lint
        entry: tacit-gen lint
        language: system
        files: ^contracts/.*\\.ya?ml$
        require_serial: true
      - id: tacit-gen-render-check
        name: tacit-gen render --check
        entry: tacit-gen render --check
        language: system
        files: ^(contracts/|generated/|tacit-gen\\.toml$|pyproject\\.toml$)
        pass_filenames: false
        require_serial: true
      - id: tacit-gen-check
        name: tacit-gen check
        entry: tacit-gen check
        language: system
        files: ^(contracts/|generated/|tacit-gen\\.toml$|pyproject\\.toml$)
        pass_filenames: false
        require_serial: true
"""


class Exists(Exception):
    """Files `init` would write are there already; nothing was written."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(", ".join(paths))
        self.paths = paths


@dataclass(frozen=True)
class Written:
    root: Path
    paths: tuple[str, ...]
    notes: tuple[str, ...]  # what the targets say about their settings (`Target.init_settings`)


def target_settings() -> list[tuple[str, str, str]]:
    """(name, table body, note) of each registered target that declares a first settings table
    (`Target.init_settings`), in the registry's order."""
    out = []
    for name in registry.names():
        body, note = registry.get(name).init_settings()
        if body or note:
            out.append((name, body, note))
    return out


def settings_text(tables: list[tuple[str, str, str]]) -> str:
    targets = ", ".join(f'"{name}"' for name in registry.names())
    text = (
        "# tacit-gen settings: every command reads this file; a flag overrides a setting.\n"
        'contracts = "contracts"          # the contracts (a folder, a file, or a list)\n'
        'out = "generated"                # where render writes the artifacts\n'
        f"targets = [{targets}]\n"
    )
    return text + "".join(f"\n[{name}]\n{body}" for name, body, _ in tables if body)


def files(tables: list[tuple[str, str, str]]) -> dict[str, str]:
    """What `init` writes, by path relative to the project's folder."""
    return {
        FILE_NAME: settings_text(tables),
        CONTRACT_PATH: CONTRACT,
        WORKFLOW_PATH: WORKFLOW,
        PRE_COMMIT_PATH: PRE_COMMIT,
    }


def _has_tool_section(pyproject: Path) -> bool:
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return "tacit-gen" in doc.get("tool", {})


def init(root: Path) -> Written:
    """Write the project's files under `root` (created when missing), or none of them.

    Raises:
        Exists: naming every file (or settings section) already there; nothing was written.
        render.WriteError: a file could not be written; nothing was left half-written.
    """
    tables = target_settings()
    planned = files(tables)
    existing = [path for path in planned if (root / path).exists() or (root / path).is_symlink()]
    if _has_tool_section(root / "pyproject.toml"):
        existing.append("pyproject.toml ([tool.tacit-gen])")
    if existing:
        raise Exists(existing)
    write_set([(root / path, text) for path, text in planned.items()])
    return Written(root=root, paths=tuple(planned), notes=tuple(note for _, _, note in tables if note))
