"""The catalog and the verdict page in a real headless browser (Debian's chromium, driven by
Playwright; one launch for every page): they load without console errors, make no request
beyond their own files, every link resolves, hostile text shows as text, and a screenshot is a
real PNG."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tests.conftest import BUNDLED, CONTRACTS
from tests.site.helpers import HOSTILE, SCRIPT, history_repo

pytestmark = [pytest.mark.browser, pytest.mark.engine]
NOW = "2024-01-02T15:00:00Z"
EVIL = "<script>alert(4)</script>"


def chromium() -> str:
    """The system chromium (`apt-get install chromium`; .ci/run installs it): Playwright's own
    download is never used."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("chromium is not installed (apt-get install -y chromium; .ci/run does it)")


def invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.output


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A site of the bundled contracts, a hostile one and one with git history; and a verdict
    page of a violated range whose failing row holds markup."""
    tmp = tmp_path_factory.mktemp("site")
    hostile = tmp / "hostile" / "hostile_sensor.yaml"
    hostile.parent.mkdir()
    hostile.write_text(HOSTILE.replace("contract: sensor", "contract: hostile_sensor"), encoding="utf-8")
    with_history = history_repo(tmp / "repo")
    code, out = invoke("docs", *map(str, BUNDLED), str(hostile), str(with_history),
                       "--out", str(tmp / "site"))
    assert code == 0, out
    # the bundled contract with its quality enum a warning (severity: warn); the data breaks the
    # range (a failure) and, in one row, the enum (a warning)
    contract = tmp / "fct_sensor_readings.yaml"
    contract.write_text((CONTRACTS / contract.name).read_text(encoding="utf-8")
                        + "severity:\n  warn: [accepted_values:quality]\n", encoding="utf-8")
    data = tmp / "data.csv"
    code, out = invoke("sample", str(contract), "--rows", "24", "--now", NOW,
                       "--violate", "range:value_degc", "--out", str(data))
    assert code == 0, out
    text = data.read_text(encoding="utf-8").replace("series_id_01", EVIL)
    assert ",suspect," in text
    data.write_text(text.replace(",suspect,", ",unheard_of,", 1), encoding="utf-8")
    code, out = invoke("verify", str(contract), "--data", str(data), "--now", NOW,
                       "--target", "pandera,ibis,jsonschema", "--format", "html",
                       "--out", str(tmp / "verdict.html"))
    assert code == 1, out
    return {"site": tmp / "site", "verdict": tmp / "verdict.html", "shots": tmp, "data": data,
            "contract": contract}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), headless=True)
        try:
            yield b
        finally:
            b.close()


class Visit:
    """One page load: what the browser logged, requested and found."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.problems: list[str] = []
        self.requests: list[str] = []
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        response = page.goto(path.resolve().as_uri(), wait_until="load")
        assert response is not None and response.ok, path
        self.page = page
        self.url: str = page.url
        self.hrefs: list[str] = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
        self.ids: set[str] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        self.external: list[str] = page.eval_on_selector_all(
            "script, link, img, iframe, object, embed, [src]", "els => els.map(e => e.outerHTML)")


def _resolve(href: str, base: str, root: Path) -> tuple[Path, str]:
    url, fragment = urldefrag(urljoin(base, href))
    parsed = urlparse(url)
    assert parsed.scheme == "file", f"{href} leaves the site ({url})"
    target = Path(unquote(parsed.path))
    assert target.is_file(), f"{href} on {base}: no file {target}"
    assert target.resolve().is_relative_to(root.resolve()), f"{href} points outside the site"
    return target.resolve(), fragment


def test_the_verdict_page_is_the_same_bytes_on_a_second_run(built: dict[str, Path]) -> None:
    again = built["shots"] / "again.html"
    code, out = invoke("verify", str(built["contract"]), "--data", str(built["data"]),
                       "--now", NOW, "--target", "pandera,ibis,jsonschema", "--format", "html",
                       "--out", str(again))
    assert code == 1, out
    assert again.read_bytes() == built["verdict"].read_bytes()


def test_every_page_loads_clean_and_every_link_resolves(browser: Any, built: dict[str, Path]) -> None:
    site = built["site"]
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == len(BUNDLED) + 3  # index, the bundled, the hostile one, the git one
    visits = {p.resolve(): Visit(browser, p) for p in [*pages, built["verdict"]]}
    links = 0
    for path, v in visits.items():
        assert v.problems == [], (path, v.problems)
        assert v.requests == [path.as_uri()], (path, v.requests)  # nothing but the page itself
        assert v.external == [], (path, v.external)
        root = site if path != built["verdict"].resolve() else path.parent
        for href in v.hrefs:
            links += 1
            target, fragment = _resolve(href, v.url, root)
            if path == built["verdict"].resolve():
                assert target == path, href  # the verdict page links only into itself
            if fragment:
                assert fragment in visits[target].ids, f"{href} on {path.name}: no #{fragment}"
        v.page.close()
    assert links > 200  # index -> pages, fields, clauses, table of contents


def test_hostile_text_is_text_and_a_screenshot_is_a_real_png(browser: Any, built: dict[str, Path]) -> None:
    site = built["site"]
    v = Visit(browser, site / "contracts" / "hostile_sensor.html")
    assert v.problems == []
    lead = v.page.inner_text("p.lead >> nth=0")
    assert SCRIPT in lead and "{{ 7*7 }}" in lead  # shown as written, never run or rendered
    assert v.page.eval_on_selector_all("script", "els => els.length") == 0
    v.page.close()
    verdict = Visit(browser, built["verdict"])
    assert verdict.problems == []
    page = verdict.page
    assert page.inner_text("#verdict") == "violations (exit 1)"
    row = page.inner_text("#clause-17")
    assert row.split("\t")[1:] == ["range:value_degc", "-40 <= value_degc <= 150", "FAIL 1", "FAIL 1", "FAIL 1"]
    warned = page.inner_text("#clause-15")
    assert warned.split("\t")[1:] == ["accepted_values:quality", "quality:    {type: enum[good, suspect, bad]}",
                                      "WARN 1", "WARN 1", "n/a"]
    samples = page.locator("table.sample").all_inner_texts()
    assert len(samples) == 2  # the warned clause's row, then the failed clause's
    assert "unheard_of" in samples[0]
    assert EVIL in samples[1] and "-40.001" in samples[1]  # as the ibis engine returned it
    shot = built["shots"] / "verdict.png"
    page.screenshot(path=str(shot), full_page=True)
    page.close()
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1280 and height > 900 and len(data) > 20_000, (width, height, len(data))
