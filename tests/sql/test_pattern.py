"""`pattern:`: the portable regex subset (what lint refuses, and why), and the full-match
semantics as real engines run it (DuckDB's RE2 and Python's re, each in its flavor)."""

from __future__ import annotations

import re

import pytest

from tacit_gen.contract.loader import load_report
from tacit_gen.sql.pattern import PatternError, body_of, full_match, matches, normalize

REFUSED = {
    r"^[A-Z]{2}-\d{3}$": r"\d",
    r"a.b": ".",
    r"(a)\1": r"\1",
    r"(?=a)a": "(?=",
    r"(?i)abc": "(?i",
    r"(?:ab)+": "(?:",
    r"a*+": "+",
    r"a+?": "?",
    r"[\w]": "\\",
    r"[[:alpha:]]": "[",
    r"[a&&b]": "&&",
    r"a{256}": "{256}",
    r"a{,3}": "{",
    r"é": "é",
    r"a^b": "^",
    r"a$b": "$",
    r"it's": "'",
    r"[a-Z]": "a-Z",
    r"[!-~]": "!-~",
    r"": "",
    r"(ab": "(",
    r"ab)": ")",
    r"*a": "*",
}


@pytest.mark.parametrize("pattern", sorted(REFUSED))
def test_lint_refuses_what_some_engine_reads_differently(pattern: str) -> None:
    with pytest.raises(PatternError) as e:
        normalize(pattern)
    assert REFUSED[pattern] in (e.value.word or "") or REFUSED[pattern] == "", str(e.value)


ACCEPTED = {
    r"^[A-Z]{2}-[0-9]{3}$": "[A-Z]{2}-[0-9]{3}",
    r"[A-Z]{2}-[0-9]{3}": "[A-Z]{2}-[0-9]{3}",
    r"v[0-9]+\.[0-9]+": "v[0-9]+[.][0-9]+",
    r"(plant|site)/[^/]+": "(plant|site)/[^/]+",
    r"[a-z0-9_-]{1,64}": "[a-z0-9_-]{1,64}",
    r"price\$": "price[$]",
    r"a\-b": "a-b",
}


@pytest.mark.parametrize("pattern", sorted(ACCEPTED))
def test_the_subset_normalizes_to_a_backslash_free_body(pattern: str) -> None:
    body = normalize(pattern)
    assert body == ACCEPTED[pattern]
    assert "\\" not in body
    for flavor in ("re2", "posix", "java", "python"):
        assert body_of(full_match(body, flavor)) == body


VALUES = ["AB-123", "AB-1234", "xAB-123", "AB-123\n", "ab-123", "", "AB-12", "AB-123 ", "\nAB-123"]
BODIES = ["[A-Z]{2}-[0-9]{3}", "(plant|site)/[^/]+", "[^/]+", "v[0-9]+[.][0-9]+"]
MORE = ["plant/a", "site/", "plant/a/b", "plant/a\n", "v1.2", "v1x2", "v1.2\n", "a\nb"]


@pytest.mark.parametrize("body", BODIES)
def test_duckdb_and_python_agree_with_the_reference_on_a_whole_value_match(body: str) -> None:
    """A trailing newline is where engines differ (`$` in Python and Java matches before it):
    the rendered patterns reject it in every flavor, as the reference (re.fullmatch) does."""
    import duckdb

    con = duckdb.connect()
    pat = full_match(body, "re2")
    for value in VALUES + MORE:
        want = matches(body, value)
        got_duck = con.execute("SELECT regexp_matches(?, ?)", [value, pat]).fetchone()
        assert got_duck is not None and got_duck[0] is want, (value, pat)
        assert (re.search(full_match(body, "python"), value) is not None) is want, value
    con.close()


def test_pattern_on_a_non_string_field_and_outside_the_subset_point_at_the_word(tmp_path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text(
        "contract: c\nversion: 1.0.0\nfields:\n"
        "  n: {type: int64, pattern: '[0-9]+'}\n"
        "  s: {type: string, pattern: 'A.B'}\n"
    )
    contract, diags = load_report(p)
    assert contract is None
    got = {(d.line, d.code) for d in diags if d.severity == "error"}
    assert got == {(4, "TG110"), (5, "TG130")}
    dot = next(d for d in diags if d.code == "TG130")
    assert dot.col == 32 and dot.word == "."
