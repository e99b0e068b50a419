"""`tacit-gen docs`: what a contract page says, byte-stable output, hostile text escaped, and the
usage errors of `docs` and `verify --format html`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from markupsafe import escape

from tacit_gen.cli import main
from tacit_gen.contract.loader import load
from tacit_gen.evolution import diff, history_from_git
from tacit_gen.explain import support_matrix
from tacit_gen.plan import plan
from tests.conftest import BUNDLED, CONTRACTS
from tests.evolution.test_diff import BASE as BASE_SENSOR
from tests.site.helpers import HOSTILE, SCRIPT, history_repo


def docs(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["docs", *args], catch_exceptions=False)
    return res.exit_code, res.output


def esc(text: str) -> str:
    """As the pages escape text (markupsafe: `&#34;` and `&#39;` for quotes)."""
    return str(escape(text))


def read_site(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_every_bundled_contract_gets_a_page_and_the_index_links_them(tmp_path: Path) -> None:
    code, out = docs(str(CONTRACTS), "--out", str(tmp_path / "site"))
    assert code == 0, out
    files = read_site(tmp_path / "site")
    assert sorted(files) == ["contracts/" + p.stem + ".html" for p in BUNDLED] + ["index.html"]
    index = files["index.html"].decode()
    for p in BUNDLED:
        assert f'<a href="contracts/{p.stem}.html">{p.stem}</a>' in index


def test_a_page_lists_fields_units_clauses_and_the_targets_explain_reports(tmp_path: Path) -> None:
    path = CONTRACTS / "plant_sensor_reading.yaml"
    code, out = docs(str(path), "--out", str(tmp_path))
    assert code == 0, out
    page = (tmp_path / "contracts" / "plant_sensor_reading.html").read_text(encoding="utf-8")
    contract = load(path)
    for f in contract.fields:
        assert f'<tr id="field-{f.name}">' in page
        if f.unit and not f.unit_from_catalog:
            assert f'<td class="mono">{esc(f.unit)}</td>' in page
    clauses = plan(contract)
    matrix = {r["id"]: r for r in support_matrix(contract, clauses)["clauses"]}
    rows = re.findall(r'<tr id="clause-\d+">(.*?)</tr>', page, re.S)
    assert len(rows) == len(clauses)
    for c, row in zip(clauses, rows, strict=True):
        assert esc(c.id) in row and esc(c.text) in row
        enforced = re.findall(r'<span class="tag">(\w+)</span>', row.split("<td")[7])
        assert enforced == [t for t, v in matrix[c.id].items() if v == "yes" and t not in ("id", "kind")]
    # what no clause checks is on the page, as `explain` says it
    assert "Stated but checked by no clause" in page or "Everything the contract states" in page


def test_the_same_contracts_give_the_same_bytes_from_any_folder(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    assert docs(str(CONTRACTS), "--out", str(tmp_path / "a"))[0] == 0
    monkeypatch.chdir(tmp_path)
    assert docs(str(CONTRACTS), "--out", "b")[0] == 0
    a, b = read_site(tmp_path / "a"), read_site(tmp_path / "b")
    assert a == b and len(a) == len(BUNDLED) + 1


def test_history_shows_each_version_with_its_commit_date_and_diffs_classification(tmp_path: Path) -> None:
    path = history_repo(tmp_path / "repo")
    code, out = docs(str(path), "--out", str(tmp_path / "site"))
    assert code == 0, out
    page = (tmp_path / "site" / "contracts" / "sensor.html").read_text(encoding="utf-8")
    history = page[page.index('<h2 id="history">'):]
    versions = re.findall(r'<h3 id="version-\d+">([\d.]+) <span class="mono muted">(\w{12}) (\S+)</span>',
                          history)
    assert [(v, d) for v, _, d in versions] == [("2.0.0", "2026-01-03T10:00:00+00:00"),
                                                ("1.1.0", "2026-01-02T10:00:00+00:00"),
                                                ("1.0.0", "2026-01-01T10:00:00+00:00")]
    committed = history_from_git(path)
    for (old, new), block in zip([(committed[1], committed[2]), (committed[0], committed[1])],
                                 history.split('<h3 id="version-')[1:3], strict=True):
        report = diff(old, new)
        assert f'Class: <span class="{report.cls}">{report.cls}</span>; least bump: {report.least_bump}' in block
        for ch in report.changes:
            assert esc(ch.message) in block and ch.code in block
    assert "breaking" in history.split('<h3 id="version-')[1]
    # an uncommitted edit is listed on top, classified against the last commit
    path.write_text(path.read_text(encoding="utf-8").replace("version: 2.0.0", "version: 2.0.1")
                    .replace("Pressure readings per series.", "Pressure, per series."), encoding="utf-8")
    assert docs(str(path), "--out", str(tmp_path / "site"))[0] == 0
    page = (tmp_path / "site" / "contracts" / "sensor.html").read_text(encoding="utf-8")
    assert '2.0.1 <span class="mono muted">working tree (not committed)</span>' in page


def test_hostile_contract_text_is_escaped_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "contracts" / "sensor.yaml"
    path.parent.mkdir()
    path.write_text(HOSTILE, encoding="utf-8")
    code, out = docs(str(path), "--out", str(tmp_path / "site"))
    assert code == 0, out
    for name in ("index.html", "contracts/sensor.html"):
        text = (tmp_path / "site" / name).read_text(encoding="utf-8")
        assert "<script" not in text and "<img" not in text and "<b>" not in text
        assert "href='https" not in text and 'href="https' not in text
        assert esc(SCRIPT) in text
        assert "{{ 7*7 }}" in text  # data, never a template
    page = (tmp_path / "site" / "contracts" / "sensor.html").read_text(encoding="utf-8")
    assert esc("site != '</td><script>alert(3)</script>'") in page
    assert esc("<style>body{display:none}</style>") in page
    assert page.count("<style>") == 1  # the page's own


def test_two_contracts_that_would_be_one_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.yaml").write_text(BASE_SENSOR, encoding="utf-8")
    (tmp_path / "b" / "y.yaml").write_text(BASE_SENSOR.replace("contract: sensor", "contract: Sensor"),
                                           encoding="utf-8")
    code, out = docs(str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "site"))
    assert code == 2 and "differ only in case" in out
    assert not (tmp_path / "site").exists()


def test_verify_html_needs_out_and_out_needs_html(tmp_path: Path) -> None:
    contract = str(CONTRACTS / "fct_sensor_readings.yaml")
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n", encoding="utf-8")
    for extra in (["--format", "html"], ["--out", str(tmp_path / "v.html")]):
        res = CliRunner().invoke(main, ["verify", contract, "--data", str(data), *extra])
        assert res.exit_code == 2 and "--format html and --out FILE go together" in res.output



def test_a_warn_clause_is_marked_on_its_page(tmp_path: Path) -> None:
    path = tmp_path / "sensor.yaml"
    path.write_text(BASE_SENSOR + "severity:\n  warn: [range:pressure]\n", encoding="utf-8")
    assert docs(str(path), "--out", str(tmp_path / "site"))[0] == 0
    page = (tmp_path / "site" / "contracts" / "sensor.html").read_text(encoding="utf-8")
    marked = re.findall(r'<td class="mono wrap id">([^<]+) <span class="tag warn">warn</span>', page)
    assert marked == ["range:pressure"]


def test_the_identity_names_the_source_system(tmp_path: Path) -> None:
    path = CONTRACTS / "plant_sensor_reading.yaml"
    source = load(path).source_system
    assert source  # the bundled contract states `source:`
    assert docs(str(path), "--out", str(tmp_path))[0] == 0
    page = (tmp_path / "contracts" / "plant_sensor_reading.html").read_text(encoding="utf-8")
    assert f"<dt>source</dt><dd>{esc(source)}</dd>" in page
