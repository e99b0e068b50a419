"""HTML from the catalog data and from a verify report, through jinja2 with autoescape on.

Contract text is hostile input (docs/security.md): every value reaches the page through an
escaping `{{ }}`, never `|safe`; a Content-Security-Policy allows no script and no request, so a
page works offline and from a CI artifact. Nothing depends on the clock or the machine: the same
inputs give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.site.catalog import ContractDoc

if TYPE_CHECKING:
    from tacit_gen.verify import VerifyReport


class SiteError(ValueError):
    """The contracts cannot share one site (two pages would be one file)."""


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    from tacit_gen.targets.templates import packaged_root

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(packaged_root("site"))),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = _visible
    return env


def _visible(value: Any) -> str:
    """Data values (not contract text) can hold control characters: shown escaped."""
    from tacit_gen.textsafe import printable

    return "null" if value is None else printable(str(value), 500)


def _render(name: str, **context: Any) -> str:
    text: str = _environment().get_template(name).render(**context)
    return text


def index_page(docs: Sequence[ContractDoc]) -> str:
    """The catalog's index: one row per contract, linking to its page."""
    return _render("index.html.j2", docs=docs, root="")


def contract_page(doc: ContractDoc) -> str:
    """One contract's page."""
    return _render("contract.html.j2", doc=doc, root="../")


def site_files(docs: Sequence[ContractDoc]) -> list[tuple[str, str]]:
    """(relative path, HTML) of every page of the site, index first.

    Raises:
        SiteError: two contracts whose page names differ only in case (or not at all).
    """
    seen: dict[str, ContractDoc] = {}
    for d in docs:
        other = seen.get(d.name.lower())
        if other is not None:
            raise SiteError(f"{other.path} and {d.path} would both be {d.page} "
                            "(contract names that differ only in case are one file on some "
                            "file systems)")
        seen[d.name.lower()] = d
    ordered = sorted(docs, key=lambda d: d.name)
    return [("index.html", index_page(ordered)), *((d.page, contract_page(d)) for d in ordered)]


def write_site(out: Path, docs: Sequence[ContractDoc]) -> list[str]:
    """Write the site under `out` (atomically, as `render` writes artifacts); the paths written."""
    from tacit_gen.render import write_set

    files = site_files(docs)
    write_set([(out / rel, html) for rel, html in files])
    return [rel for rel, _ in files]


def verdict_page(report: VerifyReport) -> str:
    """`verify --format html`: the verdict per clause per engine, and failing rows' samples."""
    rows = []
    for i, r in enumerate(report.rows, 1):
        samples = []
        for t in report.targets:
            v = r.verdicts.get(t)
            if v is not None and v.rows:
                columns = [k for k, _ in v.rows[0]]
                samples.append((t, columns, [[value for _, value in row] for row in v.rows]))
        details = [(t, v.status, v.detail) for t, v in r.verdicts.items()
                   if v.status in ("fail", "warn", "error", "n/a") and v.detail]
        rows.append({"anchor": f"clause-{i}", "row": r, "samples": samples[:1], "details": details,
                     "cells": [r.verdicts.get(t) for t in report.targets]})
    data = report.as_json()
    return _render("verdict.html.j2", report=report, data=data, rows=rows, root="")
