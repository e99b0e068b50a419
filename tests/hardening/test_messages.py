"""Class 10 of issue 15: messages never echo terminal escape sequences raw, and never echo a huge
data line whole."""

from __future__ import annotations

from pathlib import Path

from tacit_gen.contract.errors import Diagnostic
from tacit_gen.textsafe import printable
from tests.hardening.helpers import BASE, cli

ESC = "\x1b]0;pwned\x07\x1b[31m"


def test_printable_escapes_and_truncates() -> None:
    assert printable("a\x1b[31mb\u2028c\x85d\ud800") == "a\\x1b[31mb\\u2028c\\x85d\\ud800"
    long = printable("x" * 100_000, limit=100)
    assert len(long) < 160 and long.startswith("x" * 100) and "99900 more" in long
    assert printable("plain text, 'quotes' and üñïçødé") == "plain text, 'quotes' and üñïçødé"


def test_diagnostic_render_is_printable() -> None:
    d = Diagnostic(f"c{ESC}.yaml", 1, 2, "error", "TG100", f"bad {ESC} thing", ESC)
    assert "\x1b" not in d.render() and "\x07" not in d.render()


def test_a_path_with_escapes_is_not_echoed_raw(tmp_path: Path) -> None:
    p = tmp_path / f"c{ESC}.yaml"
    p.write_text(BASE + "  bad name: {type: string}\n", encoding="utf-8")
    res = cli("lint", str(p))
    assert res.returncode == 1, res.stdout
    assert "\x1b" not in res.stdout + res.stderr and "\\x1b" in res.stdout


def test_a_huge_data_line_is_not_echoed_whole(tmp_path: Path) -> None:
    c = tmp_path / "c.yaml"
    c.write_text(BASE, encoding="utf-8")
    data = tmp_path / "d.csv"
    data.write_text('id,note\n1,"' + "y" * 3_000_000 + "\n", encoding="utf-8")  # unterminated quote
    res = cli("verify", str(c), "--data", str(data), "--target", "ibis")
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out[:3000]
    assert res.returncode == 2, out[:3000]
    assert len(out) < 5_000, len(out)
