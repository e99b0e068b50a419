"""The documentation site: `mkdocs build --strict` (a broken link, an anchor that does not exist or
a page left out of the navigation fails the build), then its home page and the tutorial opened in
a real headless chromium, served over HTTP as a host would serve them: no console error, no request
leaving the site, every link of the two pages to the site answers."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin
from urllib.request import urlopen

import pytest

from tests.conftest import ROOT
from tests.site.test_browser import chromium

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site `nox -s tests` built (TACIT_DOCS_SITE), else built here, with --strict."""
    given = os.environ.get("TACIT_DOCS_SITE")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("docs") / "site"
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                         cwd=ROOT, capture_output=True, text=True, check=False,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stderr
    return out


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), headless=True)
        try:
            yield b
        finally:
            b.close()


def visit(browser: Any, url: str) -> tuple[Any, list[str], list[str]]:
    problems: list[str] = []
    requests: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    response = page.goto(url, wait_until="networkidle")
    assert response is not None and response.ok, url
    return page, problems, requests


@pytest.mark.parametrize(("path", "heading", "text"), [
    ("", "tacit-gen", "Words used in these pages"),
    ("tutorial/", "Tutorial: from an empty folder to a green CI run", "$ tacit-gen init"),
])
def test_the_page_opens_clean(browser: Any, server: str, path: str, heading: str, text: str) -> None:
    page, problems, requests = visit(browser, server + path)
    assert problems == []
    assert [r for r in requests if not r.startswith(server)] == []  # no font, script or tracker from elsewhere
    assert page.inner_text("article h1").rstrip("¶").strip() == heading
    article = page.inner_text("article")
    assert text in article
    assert "**" not in article and "](" not in article  # every bit of Markdown rendered
    # the navigation holds the learning path
    nav = page.inner_text("nav.md-nav--primary")
    for section in ("Tutorial", "How-to guides", "Reference", "Explanation", "Targets and engines"):
        assert section in nav, section
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    inside = {urldefrag(urljoin(page.url, h))[0] for h in hrefs if h.startswith(server)}
    assert len(inside) > 20
    for url in sorted(inside):
        with urlopen(url) as answer:  # the local server
            assert answer.status == 200, url
    page.close()


def test_the_cli_reference_is_generated_from_the_commands(site: Path) -> None:
    from tacit_gen.cli import main

    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for name in main.commands:  # type: ignore[attr-defined]
        assert f"tacit-gen {name}" in html, name
