"""A Markdown data dictionary: a target that lives outside tacit-gen.

The test copies this file into a temporary folder, next to a dist-info whose entry_points.txt
names it in the ``tacit_gen.targets`` group; nothing of the project registers it. It uses only the
public API a target needs (`tacit_gen.targets.base`, `tacit_gen.drift.base`, `tacit_gen.plan_types`,
`tacit_gen.targets.header`; its engine `tacit_gen.engines.base`, `tacit_gen.engines.load` and
`tacit_gen.contract.types`).

The page states each column's type and whether it may be null; every other clause is declared
unsupported. Its engine (this module's `run`, declared on DuckDB and PostgreSQL) reads the page
back and checks those two facts on the data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tacit_gen.drift.base import UNREADABLE, Finding, ReadResult
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    Engine,
    RenderOptions,
    RenderResult,
    Unsupported,
    flag,
    sql_projection,
)
from tacit_gen.targets.header import comment_header, parse_header

# The clause kinds the page states (and its engine checks); the others are declared unsupported.
STATED = ("column", "not_null")
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
    # verify runs this module's `run` on the data, on DuckDB and on PostgreSQL (not on Spark)
    engines: ClassVar[dict[str, Engine]] = {
        "duckdb": Engine("tacit_markdown", ("duckdb",)),
        "postgres": Engine("tacit_markdown", ("psycopg2",)),
    }
    templates = False

    def artifact_paths(self, contract: Any) -> tuple[str, ...]:
        return (f"markdown/{contract.name}.md",)

    def render(self, contract: Any, clauses: tuple[Clause, ...], options: RenderOptions) -> RenderResult:
        title = contract.target_option("markdown", "title") or contract.name
        mark = "#" if options.get(MarkdownOptions).heading == "title" else "##"
        lines = ["<!--", comment_header(contract, " ").rstrip("\n"), "-->", "", f"{mark} {_cell(title)}", "",
                 "| clause | kind | params |", "|---|---|---|"]
        for c in clauses:
            if c.kind in STATED:
                params = f"type={c.param('type')}" if c.kind == "column" else ""
                lines.append(f"| `{_cell(c.id)}` | {c.kind} | {_cell(params)} |")
        unsupported = tuple(Unsupported(self.name, c.id, "a data dictionary states types and nulls only")
                            for c in clauses if c.kind not in STATED)
        return RenderResult((Artifact(self.artifact_paths(contract)[0], "\n".join(lines) + "\n"),),
                            unsupported)

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
        return sql_projection(clause) if clause.kind in STATED else None

    # optional: what `render` and `check` say beyond the artifacts (the protocol's defaults: nothing)
    def render_warnings(self, artifacts: Any, root: Path, options: RenderOptions) -> tuple[str, ...]:
        pages = [a.path for a in artifacts if a.path.startswith("markdown/")]
        return (f"{len(pages)} markdown page(s) are linked from no index.md",) if pages else ()

    def check_project(self, out: Path, root: Path, options: RenderOptions) -> tuple[list[Any], list[str]]:
        return [], [f"{len(list((out / 'markdown').glob('*.md')))} markdown page(s) under {out.name}/"]

    def init_settings(self) -> tuple[str, str]:
        return 'heading = "section"              # title or section\n', "markdown pages start at ## (a section)"


TARGET = MarkdownTarget()


def run(inp: Any) -> Any:
    """The engine: the page read back, each column's type and each non-null column checked on
    the data where verify loaded it (a `tacit_gen.engines.base.VerifyInput`)."""
    from tacit_gen.contract.types import parse_type
    from tacit_gen.engines.base import EngineRun, Verdict
    from tacit_gen.engines.load import duckdb_type, postgres_type

    page = inp.artifact_dir / TARGET.artifact_paths(inp.contract)[0]
    read = TARGET.read(page, page.read_text(encoding="utf-8"))
    if inp.engine == "postgres":
        import psycopg2

        con: Any = psycopg2.connect(inp.postgres.dsn)
        table = f'"{inp.postgres.schema}"."{inp.table}"'
        cur = con.cursor()
        cur.execute("SELECT column_name, CASE WHEN data_type = 'numeric' THEN 'numeric(' || "
                    "numeric_precision || ',' || numeric_scale || ')' ELSE data_type END "
                    "FROM information_schema.columns WHERE table_schema = %s AND table_name = %s",
                    (inp.postgres.schema, inp.table))
        types = dict(cur.fetchall())

        def expected(text: str) -> str:
            return postgres_type(duckdb_type(parse_type(text)))
    else:
        import duckdb

        con = duckdb.connect(str(inp.database), read_only=True)
        table = f'"{inp.table}"'
        cur = con
        types = {n: t for n, t, *_ in con.execute(f"DESCRIBE {table}").fetchall()}

        def expected(text: str) -> str:
            return duckdb_type(parse_type(text))
    verdicts = []
    try:
        for c in read.clauses:
            column = c.id.split(":", 1)[1]
            if column not in types:
                verdicts.append(Verdict(c.id, "fail", None, f"no column {column}"))
            elif c.kind == "column":
                want = expected(str(c.param("type")))
                same = types[column].lower() == want.lower()
                verdicts.append(Verdict(c.id, "pass" if same else "fail", None,
                                        "" if same else f"{column} is {types[column]}, not {want}"))
            else:
                cur.execute(f'SELECT count(*) FROM {table} WHERE "{column}" IS NULL')
                nulls = cur.fetchone()[0]
                verdicts.append(Verdict(c.id, "fail" if nulls else "pass", nulls))
    finally:
        con.close()
    return EngineRun(TARGET.name, tuple(verdicts))
