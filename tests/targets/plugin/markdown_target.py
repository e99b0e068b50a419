"""A Markdown data dictionary: a target that lives outside tacit-gen.

The test copies this file into a temporary folder, next to a dist-info whose entry_points.txt
names it in the ``tacit_gen.targets`` group; nothing of the project registers it. It uses only the
public API a target needs (`tacit_gen.targets.base`, `tacit_gen.drift.base`, `tacit_gen.plan_types`,
`tacit_gen.targets.header`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tacit_gen.drift.base import UNREADABLE, Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    RenderOptions,
    RenderResult,
    flag,
    sql_projection,
)
from tacit_gen.targets.header import comment_header, parse_header

_ROW = re.compile(r"^\| `(?P<id>[^`]+)` \| (?P<kind>\w+) \| (?P<params>.*) \|$")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


@dataclass(frozen=True)
class MarkdownOptions:
    """`--markdown-heading`, or `heading` in the `[markdown]` table of tacit-gen.toml."""

    heading: str = field(default="title", metadata=flag(
        "--markdown-heading", "The page's heading: a title (#) or a section (##).", ("title", "section")))


class MarkdownTarget:
    """One Markdown page per contract: a table of columns and a table of every clause."""

    name = "markdown"
    options = MarkdownOptions
    contract_keys = (ContractKey("title", "heading of the page", kind="text"),)
    artifact_name_option = None
    engine = None  # a document: verify has nothing to run
    templates = False

    def artifact_paths(self, contract: Any) -> tuple[str, ...]:
        return (f"markdown/{contract.name}.md",)

    def render(self, contract: Any, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        title = contract.target_option("markdown", "title") or contract.name
        mark = "#" if options.get(MarkdownOptions).heading == "title" else "##"
        lines = ["<!--", comment_header(contract, " ").rstrip("\n"), "-->", "", f"{mark} {_cell(title)}", "",
                 "| clause | kind | params |", "|---|---|---|"]
        for c in clauses:
            params = f"type={c.param('type')}" if c.kind == "column" else ""
            lines.append(f"| `{_cell(c.id)}` | {c.kind} | {_cell(params)} |")
        return RenderResult((Artifact(self.artifact_paths(contract)[0], "\n".join(lines) + "\n"),))

    def read(self, path: Path, text: str) -> ReadResult:
        header = parse_header(text)
        clauses = []
        for line in text.splitlines():
            m = _ROW.match(line)
            if m is None:
                continue
            cid, kind = m.group("id"), m.group("kind")
            params: dict[str, Any] = {}
            if kind == "column":
                found = re.fullmatch(r"type=(.+)", m.group("params").strip())
                if found is None:
                    return ReadResult((), (Finding(UNREADABLE, path.as_posix(), f"{cid}: no type"),))
                params = {"column": cid.split(":", 1)[1], "type": found.group(1)}
            clauses.append(Clause(cid, kind, (), make_params(**params), ""))
        name, version, digest = header if header else (None, None, None)
        return ReadResult(tuple(clauses), (), name, version, digest)

    def project(self, contract: Any, clause: Clause, options: RenderOptions) -> Clause | None:
        return sql_projection(clause)

    # optional: what `render` and `check` say beyond the artifacts (the protocol's defaults: nothing)
    def render_warnings(self, artifacts: Any, root: Path, options: RenderOptions) -> tuple[str, ...]:
        pages = [a.path for a in artifacts if a.path.startswith("markdown/")]
        return (f"{len(pages)} markdown page(s) are linked from no index.md",) if pages else ()

    def check_project(self, out: Path, root: Path, options: RenderOptions) -> tuple[list[Any], list[str]]:
        return [], [f"{len(list((out / 'markdown').glob('*.md')))} markdown page(s) under {out.name}/"]


TARGET = MarkdownTarget()
