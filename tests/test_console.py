"""What a person sees: errors with the source line and a caret, colour only on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tacit_gen.cli import main
from tacit_gen.console import format_diagnostic, use_color
from tacit_gen.diagnostics import Diagnostic
from tests.ptyrun import run_tty

BAD = """\
contract: x
version: 1.0.0
key: [a]
fields:
  a: {type: int64}
  b: {type: strng}
invariants:
  - a <= > b
"""


def _bad(tmp_path: Path) -> Path:
    p = tmp_path / "bad.yaml"
    p.write_text(BAD, encoding="utf-8")
    return p


def test_lint_error_shows_the_line_and_a_caret_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _bad(tmp_path)
    result = CliRunner().invoke(main, ["lint", "bad.yaml"])
    assert result.exit_code == 1
    assert result.output == (
        "bad.yaml:6:13: error: unknown type 'strng'; did you mean 'string'? [TG105]\n"
        "  |\n"
        "6 |   b: {type: strng}\n"
        "  |             ^^^^^\n"
        "bad.yaml:8:10: error: invalid invariant 'a <= > b': unexpected '>' [TG108]\n"
        "  |\n"
        "8 |   - a <= > b\n"
        "  |          ^\n"
        "1 contract(s): 2 error(s), 0 warning(s)\n"
    )


def test_an_error_at_the_end_of_the_file_shows_the_last_line(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A mapping left open: YAML reports the line after the last; the last line is shown above
    an empty one with the caret (it used to print no source at all)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "open.yaml").write_text("contract: x\nversion: 1.0.0\nfields:\n  a: {type: int64\n",
                                        encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "open.yaml"])
    assert result.exit_code == 1
    assert result.output == (
        "open.yaml:5:1: error: expected ',' or '}', but found the end of the file (while parsing a "
        "flow mapping at line 4) at 'end of file' [TG100]\n"
        "  |\n"
        "4 |   a: {type: int64\n"
        "5 |\n"
        "  | ^\n"
        "1 contract(s): 1 error(s), 0 warning(s)\n"
    )


def test_a_contract_that_does_not_load_shows_its_caret_on_stderr(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _bad(tmp_path)
    result = CliRunner().invoke(main, ["explain", "bad.yaml"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "6 |   b: {type: strng}\n  |             ^^^^^\n" in result.stderr


def test_json_is_unchanged_no_source_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _bad(tmp_path)
    result = CliRunner().invoke(main, ["lint", "--format", "json", "bad.yaml"])
    data = json.loads(result.output)
    assert [d["word"] for d in data["diagnostics"]] == ["strng", ">"]
    assert set(data["diagnostics"][0]) == {"path", "line", "col", "severity", "code", "message", "word"}


def test_caret_under_escaped_and_wide_text() -> None:
    """Unprintable characters in the source line are escaped, and the caret still stands under
    the word: it counts the escaped width and double-width characters."""
    lines = ["  - \x1b[31m = 1 and 量 = zz"]
    d = Diagnostic("c.yaml", 1, 23, "error", "TG107", "unknown column 'zz'", "zz")
    assert format_diagnostic(d, lines) == (
        "c.yaml:1:23: error: unknown column 'zz' [TG107]\n"
        "  |\n"
        "1 |   - \\x1b[31m = 1 and 量 = zz\n"
        "  | " + " " * 26 + "^^"
    )


def test_a_huge_line_shows_a_window_around_the_caret() -> None:
    line = "  - " + "a + " * 5000 + "zz > 1"
    d = Diagnostic("c.yaml", 1, line.index("zz") + 1, "error", "TG107", "unknown column 'zz'", "zz")
    shown = format_diagnostic(d, [line]).splitlines()
    assert len(shown[2]) < 120 and shown[2].startswith("1 | …") and shown[2].endswith("zz > 1")
    assert shown[3].index("^^") == shown[2].index("zz")


def test_colour_only_on_a_terminal_and_never_with_no_color(tmp_path: Path) -> None:
    bad = _bad(tmp_path)
    on_tty = run_tty("lint", str(bad), stdout_tty=True, env={"NO_COLOR": ""})
    assert on_tty.returncode == 1
    out = on_tty.stdout.replace("\r\n", "\n")
    assert "\x1b[1;31merror:\x1b[0m unknown type 'strng'" in out
    assert "\x1b[1;31m^^^^^\x1b[0m" in out
    no_color = run_tty("lint", str(bad), stdout_tty=True, env={"NO_COLOR": "1"})
    assert "\x1b" not in no_color.stdout and "^^^^^" in no_color.stdout
    piped = run_tty("lint", str(bad), stdout_tty=False)
    assert "\x1b" not in piped.stdout and "^^^^^" in piped.stdout


def test_use_color_honours_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Tty())  # type: ignore[arg-type]


def test_readme_error_example_is_real_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ tacit-gen lint contracts/bad.yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "bad.yaml").write_text(BAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["lint", "contracts/bad.yaml"]).output == block


ORDERS = """\
contract: orders
version: 1.0.0
key: [order_id]
fields:
  order_id: {type: int64}
  amount: {type: decimal(12,2), unit: USD}
  status: {type: "enum[open, shipped, cancelled]"}
invariants:
  - amount >= 0 and amount <= 1000000 or status = cancelled
"""


def test_a_narrow_explain_wraps_the_text_and_cuts_nothing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "orders.yaml").write_text(ORDERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "72")
    result = CliRunner().invoke(main, ["explain", "orders.yaml"])
    assert result.exit_code == 0
    assert result.output == (
        'orders 1.0.0 (orders.yaml): 8 clauses\n'
        'id              kind                columns         line  text\n'
        '--------------  ------------------  --------------  ----  --------------\n'
        'column:         column              order_id        5     order_id:\n'
        'order_id                                                  {type: int64}\n'
        'column:amount   column              amount          6     amount: {type:\n'
        '                                                          decimal(12,2),\n'
        '                                                          unit: USD}\n'
        'column:status   column              status          7     status: {type:\n'
        '                                                          "enum[open,\n'
        '                                                          shipped,\n'
        '                                                          cancelled]"}\n'
        'no_unknown_col  no_unknown_columns  order_id,       4     fields:\n'
        'umns                                amount, status        order_id,\n'
        '                                                          amount, status\n'
        'not_null:       not_null            order_id        3     key:\n'
        'order_id                                                  [order_id]\n'
        'unique:         unique              order_id        3     key:\n'
        'order_id                                                  [order_id]\n'
        'accepted_value  accepted_values     status          7     status: {type:\n'
        's:status                                                  "enum[open,\n'
        '                                                          shipped,\n'
        '                                                          cancelled]"}\n'
        'invariant:      invariant           amount, status  9     amount >= 0\n'
        'amount >= 0                                               and amount <=\n'
        'and amount <=                                             1000000 or\n'
        '1000000 or                                                status =\n'
        'status =                                                  cancelled\n'
        'cancelled\n'
    )
    assert max(len(line) for line in result.output.splitlines()) <= 72
    assert "…" not in result.output


def test_without_a_terminal_every_row_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "orders.yaml").write_text(ORDERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    lines = CliRunner().invoke(main, ["explain", "orders.yaml"]).output.splitlines()
    assert len(lines) == 3 + 8  # title, header, rule, one line per clause
    assert lines[-1].startswith("invariant:amount >= 0 and amount <= 1000000 or status = cancelled  ")
    assert lines[-1].endswith("  amount >= 0 and amount <= 1000000 or status = cancelled")


def test_a_narrow_verify_table_wraps_the_clause_column() -> None:
    from tacit_gen.contract.loader import load
    from tacit_gen.engines.base import Verdict
    from tacit_gen.plan import plan
    from tacit_gen.verify import ClauseRow, VerifyReport
    from tests.conftest import ROOT

    c = load(ROOT / "contracts" / "ohlcv_1m.yaml")
    rows = [ClauseRow(cl, {t: Verdict(cl.id, "pass", 0, None) for t in ("dbt", "soda", "gx")})
            for cl in plan(c) if cl.kind == "invariant"]
    rows[0].verdicts["gx"] = Verdict(rows[0].clause.id, "fail", 3, None)
    assert VerifyReport(c, ("dbt", "soda", "gx"), rows).render_text(width=40) == (
        "verify ohlcv_1m 4.0.0\n"
        "clause                dbt   soda  gx\n"
        "--------------------  ----  ----  ------\n"
        "invariant:low <=      pass  pass  FAIL 3\n"
        "open <= high\n"
        "invariant:low <=      pass  pass  pass\n"
        "close <= high\n"
        "\n"
        "1 clause(s) violated; all engines agree"
    )
