"""Compiled SQL templates (`tacit_gen.sql.shapes`): a text filled from a template is the text
sqlglot prints for the same values, byte for byte, for every shape, dialect and form that uses
templates, for names of every length (the layout of a pretty query changes with them), and a
render that finds its templates imports no sqlglot.

Each case compiles a template from one set of names, then asks for the same shape with other
names: the answer must equal a render without templates, and (for safe names within the
template's length) must have come from the template.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tacit_gen import registry
from tacit_gen.contract.loader import load
from tacit_gen.contract.model import Contract
from tacit_gen.expr import nodes as n
from tacit_gen.plan import plan
from tacit_gen.plan_types import Clause
from tacit_gen.render import render_contract
from tacit_gen.rendercache import RenderCache
from tacit_gen.sql import shapes
from tacit_gen.sql.build import to_sql
from tacit_gen.sql.dialects import DIALECTS
from tacit_gen.targets.base import RenderOptions
from tacit_gen.targets.gx.queries import cadence_query
from tacit_gen.targets.soda.queries import fail_query_sql, unknown_columns_sql
from tests.conftest import ROOT
from tests.drift.test_roundtrip_property import contracts

FILLS: list[str] = []  # the templates read (and filled) while a case runs


@pytest.fixture(autouse=True)
def _count_fills(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = shapes._read

    def read(sc: shapes._Scope, path: Path, key: str, slots: list[shapes.Slot]) -> str | None:
        template = real(sc, path, key, slots)
        if template is not None:
            FILLS.append(template)
        return template

    monkeypatch.setattr(shapes, "_read", read)
    FILLS.clear()
    yield


def _templated(folder: Path, make: Callable[[], str]) -> str:
    with shapes.scope("tests", True, folder):
        return make()


def _compare(folder: Path, first: Callable[[], str], second: Callable[[], str]) -> int:
    """Compile with `first`, then `second` from the templates equals `second` without them;
    the number of templates filled for `second`."""
    assert _templated(folder, first) == first()
    FILLS.clear()
    got = _templated(folder, second)
    assert got == second(), (got, second())
    return len(FILLS)


# --- invariants --------------------------------------------------------------------------------

def _c(name: str) -> n.Column:
    return n.Column(name=name)


def _expressions(a: str, b: str, c: str) -> list[n.Node]:
    """Invariant forms over columns a, b, c (resolved trees, as the plan gives them)."""
    return [
        n.Compare(operands=(_c(a), _c(b), _c(c)), ops=("<=", "<=")),
        n.Compare(operands=(n.BinOp(op="+", left=_c(a), right=n.BinOp(op="*", left=_c(b), right=n.Number(text="2"))), _c(c)), ops=(">",)),
        n.Compare(operands=(n.BinOp(op="/", left=_c(a), right=_c(b)), n.Number(text="0.5")), ops=(">=",)),
        n.Or(left=n.Not(operand=n.Compare(operands=(_c(a), n.String(value="x")), ops=("=",))), right=n.IsNull(operand=_c(b), negated=False)),
        n.Between(operand=_c(a), low=n.Number(text="1"), high=_c(c), negated=False),
        n.InList(operand=_c(a), items=(n.String(value="p"), n.String(value="q")), negated=True),
        n.Compare(operands=(n.Neg(operand=_c(a)), _c(b)), ops=("<",)),
        n.OnlyWhen(left=n.IsNull(operand=_c(a), negated=False), right=n.Compare(operands=(_c(b), n.EnumLiteral(value="bad")), ops=("=",))),
        n.And(left=n.Compare(operands=(_c(a), _c(c)), ops=("!=",)), right=n.Compare(operands=(_c(b), n.Number(text="-3")), ops=(">",))),
    ]


NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,70}", fullmatch=True) | st.sampled_from(
    ["id", "ts", "x", "value", "select", "order", "Upper", "has space", "z1", "z1__", "a" * 63, "b" * 64])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.tuples(NAMES, NAMES, NAMES).filter(lambda t: len(set(t)) == 3),
       st.sampled_from(DIALECTS), st.booleans())
def test_an_invariant_from_its_template_is_what_sqlglot_prints(
        tmp_path_factory: pytest.TempPathFactory, names: tuple[str, str, str], dialect: str,
        typed: bool) -> None:
    folder = tmp_path_factory.mktemp("sql")
    for i, (one, two) in enumerate(zip(_expressions("low", "open", "high"), _expressions(*names), strict=True)):
        ints = {names[0], names[1]} if typed else set()
        texts = {names[2]} if typed else set()
        first_ints = {"low", "open"} if typed else set()
        first_texts = {"high"} if typed else set()
        _compare(folder, lambda o=one, fi=first_ints, ft=first_texts: to_sql(o, dialect, fi, ft),
                 lambda t=two, it=ints, tx=texts: to_sql(t, dialect, it, tx))
        assert i >= 0


def test_invariant_templates_are_used_for_safe_names(tmp_path: Path) -> None:
    one = _expressions("low", "open", "high")[0]
    two = _expressions("bid_price_in_quote_currency", "px", "ask")[0]
    for dialect in DIALECTS:
        assert _compare(tmp_path / dialect, lambda d=dialect: to_sql(one, d), lambda d=dialect: to_sql(two, d)) == 1
    # a name that must be quoted is printed by sqlglot, not filled in
    three = _expressions("Low", "open", "high")[0]
    assert _compare(tmp_path / "duckdb", lambda: to_sql(one, "duckdb"), lambda: to_sql(three, "duckdb")) == 0
    assert to_sql(three, "duckdb") == '("Low" <= open AND open <= high)'


QUOTED = st.sampled_from(["value", "order", "user", "range", "Upper", "Price_USD", "ID", "_X", "Zz", "Z1"]) \
    | st.from_regex(r"[A-Z][A-Za-z0-9_]{1,70}", fullmatch=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.tuples(QUOTED, QUOTED, NAMES).filter(lambda t: len(set(t)) == 3),
       st.tuples(NAMES | QUOTED, NAMES | QUOTED, NAMES).filter(lambda t: len(set(t)) == 3),
       st.sampled_from(DIALECTS))
def test_a_template_of_quoted_names_is_what_sqlglot_prints(
        tmp_path_factory: pytest.TempPathFactory, first: tuple[str, str, str],
        second: tuple[str, str, str], dialect: str) -> None:
    """Templates compiled from names tacit-gen quotes (keywords, capitals), asked for with any
    names: sqlglot's text each time."""
    folder = tmp_path_factory.mktemp("sql")
    for one, two in zip(_expressions(*first), _expressions(*second), strict=True):
        _compare(folder, lambda o=one: to_sql(o, dialect), lambda t=two: to_sql(t, dialect))


def test_quoted_names_fill_their_templates(tmp_path: Path) -> None:
    """A keyword (`value`) takes the template a capitalised name compiled, and the other way
    round, in every dialect (double quotes or backticks), without sqlglot printing it."""
    capital = _expressions("Low", "open", "high")[0]
    keyword = _expressions("value", "open", "high")[0]
    for dialect in DIALECTS:
        assert _compare(tmp_path / dialect, lambda d=dialect: to_sql(capital, d),
                        lambda d=dialect: to_sql(keyword, d)) == 1
        assert _compare(tmp_path / f"{dialect}-back", lambda d=dialect: to_sql(keyword, d),
                        lambda d=dialect: to_sql(capital, d)) == 1
    assert to_sql(keyword, "spark") == "(`value` <= open AND open <= high)"


def test_a_quoted_template_is_checked_with_a_name_of_the_other_sort(tmp_path: Path) -> None:
    """A query that prints a keyword and a marker alike, but a mixed-case name otherwise, is not
    stored: the template is also filled with a mixed-case probe and with a keyword, and
    compared."""
    from tacit_gen.sql.build import ident

    def odd(values: list[str]) -> str:
        name = values[0]
        return f"SELECT {ident(name)}" + (" -- title" if name[0].isupper() and name[1:].islower() else "")

    with shapes.scope("tests", True, tmp_path / "odd"):
        assert shapes.text("test", "", [shapes.Slot("name", "value")], odd) == 'SELECT "value"'
    assert list((tmp_path / "odd").glob("*.json")) == []
    # nor one that quotes a keyword and leaves a capitalised name bare (as a generator's own
    # keyword quoting would), compiled from a capitalised name: the keyword probe shows it
    from tacit_gen.sql.names import RESERVED

    def generator_like(values: list[str]) -> str:
        return f'SELECT "{values[0]}"' if values[0] in RESERVED else f"SELECT {values[0]}"

    with shapes.scope("tests", True, tmp_path / "keyword"):
        assert shapes.text("test", "", [shapes.Slot("name", "Orders")], generator_like) == "SELECT Orders"
    assert list((tmp_path / "keyword").glob("*.json")) == []
    with shapes.scope("tests", True, tmp_path / "even"):  # the same query without the branch
        assert shapes.text("test", "", [shapes.Slot("name", "value")],
                           lambda v: f"SELECT {ident(v[0])}") == 'SELECT "value"'
    assert len(list((tmp_path / "even").glob("*.json"))) == 1


# --- Soda's unknown-columns query --------------------------------------------------------------

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(NAMES, min_size=1, max_size=12, unique=True), NAMES, st.sampled_from(DIALECTS))
def test_the_unknown_columns_query_from_its_template(
        tmp_path_factory: pytest.TempPathFactory, columns: list[str], dataset: str, dialect: str) -> None:
    folder = tmp_path_factory.mktemp("sql")
    first = tuple(f"col{i}" for i in range(len(columns)))
    _compare(folder, lambda: unknown_columns_sql("orders", first, dialect),
             lambda: unknown_columns_sql(dataset, tuple(columns), dialect))


def test_unknown_columns_templates_are_used(tmp_path: Path) -> None:
    """The column list is one slot: a column added or removed keeps the template."""
    first = tuple(f"col{i}" for i in range(13))
    for second in (tuple(f"a_much_longer_column_name_{i}" for i in range(13)),
                   tuple(f"col{i}" for i in range(14)), ("id", "ts"), tuple(f"c{i:03d}" for i in range(400))):
        for dialect in DIALECTS:
            assert _compare(tmp_path / dialect, lambda d=dialect: unknown_columns_sql("orders", first, d),
                            lambda d=dialect, s=second: unknown_columns_sql("fct_orders", s, d)) == 1
    # a column name no template holds ("it's") is printed by sqlglot, the list and all
    assert _compare(tmp_path / "duckdb", lambda: unknown_columns_sql("orders", first, "duckdb"),
                    lambda: unknown_columns_sql("orders", ("id", "it's"), "duckdb")) == 0


# --- session cadences (Soda's fail query, pretty; GX's query, one line) ---------------------------

def _contract(tmp: Path, time_col: str, series: list[str], cadence: str, per_series: bool,
              revision: bool) -> Path:
    fields = {s: "{type: string}" for s in series}
    fields[time_col] = "{type: timestamp_ms_utc}"
    fields["px"] = "{type: float64, unit: kPa}"
    key = [*series, time_col] + (["revision"] if revision else [])
    lines = ["contract: bars", "version: 1.0.0", f"key: [{', '.join(key)}]", "time:",
             f"  column: {time_col}", "  precision: ms",
             "  calendar: per series from catalog" if per_series else "  calendar: XNYS",
             f"  cadence: {cadence}", "fields:"]
    lines += [f"  {k}: {v}" for k, v in fields.items()]
    if per_series:
        lines += [f"catalog: {{relation: series_catalog, key: {series[0]}, calendar: venue_calendar}}"]
    if revision:
        lines += ["provenance_required: [revision]"]
    lines += ["calendar: {relation: venue_sessions}"]
    path = tmp / "bars.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cadence(path: Path) -> tuple[Clause, bool]:
    contract = load(path)
    clause = next(c for c in plan(contract) if c.kind == "cadence")
    return clause, contract.field("revision") is not None


CADENCES = ["60s within session", "60s within session; gaps allowed",
            "5m within session; tolerance +/-10% of interval", "1 trading day",
            "1 trading day; gaps allowed"]


def _soda_and_gx(tmp: Path, dialect: str, first: tuple[Contract, Clause], second: tuple[Contract, Clause],
                 revision: bool) -> tuple[int, int]:
    """The templates read for Soda's failed-rows query and GX's query of a cadence clause, each
    compiled from `first` and asked for `second` (each compared with sqlglot's text)."""
    (c1, f), (c2, s) = first, second
    soda = _compare(tmp / "soda" / dialect, lambda: fail_query_sql(c1, f, dialect) or "",
                    lambda: fail_query_sql(c2, s, dialect) or "")
    gx = _compare(tmp / "gx" / dialect, lambda: cadence_query(f, revision, dialect),
                  lambda: cadence_query(s, revision, dialect))
    return soda, gx


@pytest.mark.parametrize("cadence", CADENCES)
@pytest.mark.parametrize("per_series", [False, True])
def test_session_cadence_queries_from_their_templates(tmp_path: Path, cadence: str,
                                                       per_series: bool) -> None:
    """Every dialect, with and without revisions, names short and long: each text filled from a
    template compiled on the bundled names is the text sqlglot prints."""
    filled = 0
    for revision in (False, True):
        first, has_rev = _cadence(_contract(tmp_path, "bar_start", ["symbol"], cadence, per_series, revision))
        assert first.param("sessions") is not None
        others = [
            _cadence(_contract(tmp_path, "ts", ["instrument_identifier_for_the_venue"], cadence, per_series, revision))[0],
            _cadence(_contract(tmp_path, "event_timestamp_" + "x" * 40, ["sym"], cadence, per_series, revision))[0],
        ]
        if not per_series:  # two series columns: another shape, its own template
            others.append(_cadence(_contract(tmp_path, "t", ["a1", "b2"], cadence, False, revision))[0])
        for dialect in DIALECTS:
            for second in others:
                contract = load(_contract(tmp_path, second.param("column"), list(second.param("series")),
                                          cadence, per_series, revision))
                base = load(_contract(tmp_path, "bar_start", ["symbol"], cadence, per_series, revision))
                soda, gx = _soda_and_gx(tmp_path, dialect, (base, first), (contract, second), has_rev)
                # GX's is one line, so no layout: every name of 2 to 63 characters is filled in
                assert gx == (1 if len(second.param("column")) >= 2 else 0), (dialect, second)
                filled += soda + gx
    assert filled >= 2 * 2 * len(DIALECTS)


def test_a_longer_name_than_the_template_holds_is_printed_by_sqlglot(tmp_path: Path) -> None:
    """A pretty query's template records how long each name may be for its layout to hold
    (longer ones would break its window clauses over lines); a longer name is printed by sqlglot,
    not filled in."""
    first, _ = _cadence(_contract(tmp_path, "bar_start", ["symbol"], "60s within session", False, True))
    base = load(_contract(tmp_path, "bar_start", ["symbol"], "60s within session", False, True))
    _templated(tmp_path / "t", lambda: fail_query_sql(base, first, "duckdb") or "")
    entry = json.loads(next((tmp_path / "t").glob("*.json")).read_text())
    # the slots: the relation `bars`, then the clause's names in parameter order; every slot
    # was lengthened alike from its real length
    (ds_low, ds_high), *_ = entry["bounds"]
    widened = ds_high - len("bars")
    assert ds_low == 2 and widened > 0 and ds_high < shapes.MAX_LEN
    long_name = "t" * (len("bar_start") + widened + 1)
    second, _ = _cadence(_contract(tmp_path, long_name, ["symbol"], "60s within session", False, True))
    contract = load(_contract(tmp_path, long_name, ["symbol"], "60s within session", False, True))
    assert _compare(tmp_path / "t", lambda: fail_query_sql(base, first, "duckdb") or "",
                    lambda: fail_query_sql(contract, second, "duckdb") or "") == 0


def test_a_bad_or_foreign_template_is_a_miss(tmp_path: Path) -> None:
    one = _expressions("low", "open", "high")[0]
    _templated(tmp_path, lambda: to_sql(one, "duckdb"))
    (entry,) = tmp_path.glob("*.json")
    data = json.loads(entry.read_text())
    for broken in ("{", json.dumps({**data, "key": "other"}), json.dumps({**data, "bounds": [[2, 2]] * len(data["bounds"])}),
                   json.dumps({**data, "bounds": data["bounds"][:1]}),
                   json.dumps({**data, "text": "z9 AND nothing"}), json.dumps({**data, "format": "x"})):
        entry.write_text(broken)
        FILLS.clear()
        assert _templated(tmp_path, lambda: to_sql(one, "duckdb")) == "(low <= open AND open <= high)"
        assert FILLS == []
    # another code (tacit-gen or a library changed) reads none of them
    with shapes.scope("other code", True, tmp_path):
        to_sql(one, "duckdb")
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_a_run_reads_each_template_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Scopes sharing a memo (a render's contracts) read a template file once, take the one the
    first stored without reading it, and fill it with their own names: sqlglot's text."""
    loads: list[Path] = []
    real = shapes._load
    monkeypatch.setattr(shapes, "_load", lambda path: loads.append(path) or real(path))
    memo: dict[str, shapes._Parsed | None] = {}
    names = [("low", "open", "high"), ("lo_2", "op_2", "hi_2"), ("lo_3", "op_3", "hi_3")]
    for a, b, c in names:
        with shapes.scope("tests", True, tmp_path, memo):
            assert to_sql(_expressions(a, b, c)[0], "duckdb") == f"({a} <= {b} AND {b} <= {c})"
    assert len(FILLS) == 2  # the second and third filled the stored template
    (entry,) = tmp_path.glob("*.json")
    assert loads == [entry]  # the first scope's miss, before the file existed
    # a scope of its own (another run) reads the file again
    with shapes.scope("tests", True, tmp_path):
        to_sql(_expressions("x_1", "y_1", "z_1")[0], "duckdb")
    assert loads == [entry, entry] and len(FILLS) == 3


def test_nothing_is_stored_when_not_storable_or_outside_a_scope(tmp_path: Path) -> None:
    one = _expressions("low", "open", "high")[0]
    with shapes.scope("tests", False, tmp_path):
        to_sql(one, "duckdb")
    to_sql(one, "duckdb")
    assert list(tmp_path.glob("*.json")) == []


def test_a_clause_query_that_reads_the_clause_id_is_never_stored(tmp_path: Path) -> None:
    """The id (and the columns, the text, the expression) name the real columns: a template of a
    query that printed them would carry them."""
    first, _ = _cadence(_contract(tmp_path, "bar_start", ["symbol"], "60s within session", False, False))
    with shapes.scope("tests", True, tmp_path):
        got = shapes.clause_text("test", first, "", [], lambda c, _: f"SELECT {c.param('column')} -- {c.id}")
    assert got == f"SELECT bar_start -- {first.id}"
    assert list(tmp_path.glob("*.json")) == []
    with shapes.scope("tests", True, tmp_path):  # nor one that reads its columns
        got = shapes.clause_text("test", first, "", [], lambda c, _: f"SELECT {', '.join(c.columns)}")
    assert got == f"SELECT {', '.join(first.columns)}" and first.columns
    assert list(tmp_path.glob("*.json")) == []
    assert dataclasses.replace(first).id == first.id


@pytest.mark.parametrize("name", ["ohlcv_1m", "fct_sensor_readings", "plant_sensor_reading"])
def test_a_cold_render_that_finds_its_templates_imports_no_sqlglot(tmp_path: Path, name: str) -> None:
    """The bench's cold render (issue 16): the render cache emptied, the templates kept.
    (`plant_sensor_reading` too: its `value` column's queries take templates of quoted names,
    and its `pattern:` query is written without sqlglot, `sql.build.pattern_sql`.)"""
    env_code = (
        "import sys, runpy\n"
        f"sys.argv = ['tacit-gen', 'render', 'contracts/{name}.yaml', '--out', sys.argv[1]]\n"
        "try:\n    runpy.run_module('tacit_gen.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('SQLGLOT', any(m == 'sqlglot' or m.startswith('sqlglot.') for m in sys.modules))\n"
    )
    import os
    import shutil

    env = {**os.environ, "TACIT_GEN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}

    def run(out: str) -> str:
        res = subprocess.run([sys.executable, "-c", env_code, str(tmp_path / out)], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120, check=False)
        assert "Traceback" not in res.stderr, res.stderr
        return res.stdout

    assert "SQLGLOT True" in run("first")
    shutil.rmtree(tmp_path / "cache" / "render")
    assert "SQLGLOT False" in run("second")
    for path in (tmp_path / "first").rglob("*"):
        if path.is_file():
            assert (tmp_path / "second" / path.relative_to(tmp_path / "first")).read_bytes() == path.read_bytes()
            assert (ROOT / "generated" / path.relative_to(tmp_path / "first")).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark"])
def test_keyword_and_capitalised_columns_render_the_same_from_templates(tmp_path: Path, dialect: str) -> None:
    """The bundled contracts with columns renamed to names tacit-gen quotes (keywords, capitals):
    every built-in target renders a second contract from the templates the first compiled,
    and writes what a render without any cache writes."""
    import re

    def variant(name: str, to: dict[str, str]) -> Contract:
        text = (ROOT / "contracts" / f"{name}.yaml").read_text()
        for old, new in to.items():
            text = re.sub(rf"(?<![\w.-]){old}(?![\w-])", new, text)
        path = tmp_path / f"{name}_{len(list(tmp_path.glob('*.yaml')))}.yaml"
        path.write_text(text)
        return load(path)

    targets = tuple(registry.BUILTIN)
    options = RenderOptions(dialect=dialect)
    for name, first, second in (("ohlcv_1m", {"low": "Low", "high": "user", "symbol": "Symbol"},
                                 {"low": "value", "high": "High_Px", "symbol": "order"}),
                                ("plant_sensor_reading", {"series_id": "Series_ID"}, {"series_id": "key"})):
        for i, to in enumerate((first, second)):
            contract = variant(name, to)
            clauses = plan(contract)
            plain, _ = render_contract(contract, targets, options, clauses, None)
            FILLS.clear()
            # a render cache of its own, the templates folder beside it shared
            cache = RenderCache(tmp_path / f"cache-{name}" / f"render-{i}")
            got, _u = render_contract(contract, targets, options, clauses, cache)
            assert [(a.path, a.content) for a in got] == [(a.path, a.content) for a in plain]
            if i == 1:  # templates with a quoted name's marker (``Z0__``) were filled
                assert any(re.search(r"\bZ[0-9a-z]_*\b", t) for t in FILLS), FILLS


# --- whole renders of random contracts ----------------------------------------------------------

@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_contracts_render_the_same_with_templates(tmp_path_factory: pytest.TempPathFactory,
                                                         data: st.DataObject) -> None:
    """Random contracts (the drift property's), every built-in target, three dialects: a render
    whose SQL comes from templates compiled by earlier contracts (a fresh render cache, the
    templates folder shared) writes what a render without any cache writes."""
    base = tmp_path_factory.getbasetemp() / "random-contract-templates"
    text = data.draw(contracts())
    folder = tmp_path_factory.mktemp("contract")
    path = folder / "prop_contract.yaml"
    path.write_text(text, encoding="utf-8")
    contract = load(path)
    clauses = plan(contract)
    targets = tuple(registry.BUILTIN)
    for dialect in ("duckdb", "postgres", "spark"):
        options = RenderOptions(dialect=dialect)
        plain, _ = render_contract(contract, targets, options, clauses, None)
        for _ in range(2):  # the first may compile templates, the second reads them
            cache = RenderCache(base / f"render-{folder.name}-{dialect}-{_}")
            got, _u = render_contract(contract, targets, options, clauses, cache)
            assert [(a.path, a.content) for a in got] == [(a.path, a.content) for a in plain]


def test_equal_names_are_another_shape(tmp_path: Path) -> None:
    """A template compiled for distinct names never serves names that are equal (a query may
    depend on it), and one compiled for equal names fills them alike."""
    seen: list[list[str]] = []

    def build(values: list[str]) -> str:
        seen.append(values)
        return f"SELECT {values[0]}" if values[0] == values[1] else f"SELECT {values[0]}, {values[1]}"

    def run(a: str, b: str) -> str:
        with shapes.scope("tests", True, tmp_path):
            return shapes.text("test", "", [shapes.Slot("name", a), shapes.Slot("name", b)], build)

    assert run("ab", "cd") == "SELECT ab, cd"
    FILLS.clear()
    assert run("xy", "xy") == "SELECT xy"  # not the template of two names
    assert FILLS == []
    assert run("pq", "pq") == "SELECT pq" and len(FILLS) == 1
    assert run("pq", "rs") == "SELECT pq, rs" and len(FILLS) == 2


def test_the_gx_freshness_query_from_its_template(tmp_path: Path) -> None:
    from tacit_gen.targets.gx.queries import freshness_query

    for dialect in DIALECTS:
        for whole_days in (False, True):
            for second in ("event_ts", "ts", "a_rather_long_event_timestamp_column_name_for_this"):
                hits = _compare(tmp_path / dialect / str(whole_days),
                                lambda d=dialect, w=whole_days: freshness_query("loaded_at", 86400, d, w),
                                lambda d=dialect, w=whole_days, s=second: freshness_query(s, 86400, d, w))
                assert hits == 1, (dialect, whole_days, second)
            # another age is another shape
            assert _compare(tmp_path / dialect / str(whole_days),
                            lambda d=dialect, w=whole_days: freshness_query("loaded_at", 86400, d, w),
                            lambda d=dialect, w=whole_days: freshness_query("loaded_at", 3600, d, w)) == 0


def _plain_contract(tmp: Path, time_col: str, series: str, cadence: str, revision: bool,
                    relation: str = "series_catalog") -> Path:
    key = [series, time_col] + (["revision"] if revision else [])
    lines = ["contract: readings", "version: 1.0.0", f"key: [{', '.join(key)}]", "time:",
             f"  column: {time_col}", "  precision: ms", f"  cadence: {cadence}", "fields:",
             f"  {series}: {{type: string}}", f"  {time_col}: {{type: timestamp_ms_utc}}",
             "  px: {type: float64, unit: kPa}"]
    if "catalog" in cadence:
        lines += [f"catalog: {{relation: {relation}, key: {series}, cadence: cadence_seconds}}"]
    if revision:
        lines += ["provenance_required: [revision]"]
    path = tmp / "readings.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("cadence", ["60s", "5m; tolerance +/-10% of interval; gaps allowed",
                                     "per series from catalog; tolerance +/-10% of interval"])
def test_cadence_queries_without_sessions_from_their_templates(tmp_path: Path, cadence: str) -> None:
    """Soda's failed-rows query (pretty) and GX's (one line) of a cadence that reads no
    sessions, every dialect, with and without revisions, short and long names."""
    filled = 0
    for revision in (False, True):
        base = load(_plain_contract(tmp_path, "event_ts", "series_id", cadence, revision))
        first = next(c for c in plan(base) if c.kind == "cadence")
        for names in (("ts", "sid", "cat"), ("reading_timestamp_utc", "instrument_identifier", "catalog_of_series")):
            other = load(_plain_contract(tmp_path, *names[:2], cadence, revision, names[2]))
            second = next(c for c in plan(other) if c.kind == "cadence")
            for dialect in DIALECTS:
                soda, gx = _soda_and_gx(tmp_path, dialect, (base, first), (other, second), revision)
                assert gx == 1, (dialect, names)  # one line: every name of 2 to 63 characters
                filled += soda + gx
    assert filled >= 2 * 2 * len(DIALECTS)


def _catalog_contract(tmp: Path, series: str, reading: str, unit: str, relation: str) -> Path:
    text = f"""\
contract: plant
version: 1.0.0
key: [{series}, event_ts]
time:
  column: event_ts
  precision: ms
fields:
  {series}: {{type: string}}
  event_ts: {{type: timestamp_ms_utc}}
  {reading}: {{type: decimal(12,4), unit: per series from catalog, dimension: per series}}
  {unit}: {{type: string, constraint: equals catalog unit for {series}}}
invariants:
  - {reading} within catalog hard_bounds for {series}
catalog: {{relation: {relation}, key: {series}, unit: unit, hard_min: hard_min, hard_max: hard_max}}
"""
    path = tmp / "plant.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_catalog_unit_and_bounds_queries_from_their_templates(tmp_path: Path) -> None:
    """Soda's failed-rows query and GX's query of `unit equals catalog unit` and `within catalog
    hard_bounds`, every dialect, other names of other lengths."""
    from tacit_gen.targets.gx.queries import catalog_bounds_query, catalog_unit_query

    base = load(_catalog_contract(tmp_path, "series_id", "reading", "unit_code", "series_catalog"))
    firsts = {c.kind: c for c in plan(base) if c.kind in ("catalog_unit", "catalog_bounds")}
    assert set(firsts) == {"catalog_unit", "catalog_bounds"}
    filled = 0
    for names in (("sid", "px", "uom", "cat"), ("sensor_tag_identifier", "measured_value_in_unit",
                                                 "unit_of_measure_code", "instrument_catalog")):
        other = load(_catalog_contract(tmp_path, *names))
        for second in (c for c in plan(other) if c.kind in firsts):
            first = firsts[second.kind]
            query = catalog_unit_query if second.kind == "catalog_unit" else catalog_bounds_query
            for dialect in DIALECTS:
                filled += _compare(tmp_path / "soda" / second.kind / dialect,
                                   lambda d=dialect, c=base, f=first: fail_query_sql(c, f, d) or "",
                                   lambda d=dialect, c=other, s=second: fail_query_sql(c, s, d) or "")
                gx = _compare(tmp_path / "gx" / second.kind / dialect,
                              lambda d=dialect, f=first, q=query: q(f, d),
                              lambda d=dialect, s=second, q=query: q(s, d))
                assert gx == 1, (dialect, second.id)
                filled += gx
    assert filled >= 2 * 2 * len(DIALECTS)


def _completeness_contract(tmp: Path, series: str, time_col: str, completeness: str) -> Path:
    lines = ["contract: meter", "version: 1.0.0", f"key: [{series}, {time_col}]", "time:",
             f"  column: {time_col}", "  precision: ms", "  cadence: 60s",
             f"  completeness: {completeness}", "fields:", f"  {series}: {{type: string}}",
             f"  {time_col}: {{type: timestamp_ms_utc}}", "  px: {type: float64, unit: kPa}"]
    if "session" in completeness:
        lines[5:5] = ["  calendar: XNYS"]
        lines += ["calendar: {relation: venue_sessions}"]
    path = tmp / "meter.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("completeness", ["1440 per 1d per series; at least 95%",
                                          "60 per 1h; at least 99.5%; gaps allowed for maintenance, outage",
                                          "390 per session per series; at least 95%"])
def test_completeness_queries_from_their_templates(tmp_path: Path, completeness: str) -> None:
    """dbt's, Soda's and GX's completeness queries over fixed windows, every dialect, other names
    of other lengths. The per-session query pastes names into SQL text that sqlglot parses (a
    name may read as a keyword there), so it takes no template."""
    from tacit_gen.targets.dbt.render import completeness_sql
    from tacit_gen.targets.gx.queries import completeness_query

    base = load(_completeness_contract(tmp_path, "meter_id", "event_ts", completeness))
    first = next(c for c in plan(base) if c.kind == "completeness")
    filled = 0
    for names in (("mid", "ts"), ("metering_point_identifier", "reading_timestamp_in_utc")):
        other = load(_completeness_contract(tmp_path, *names, completeness))
        second = next(c for c in plan(other) if c.kind == "completeness")
        for dialect in DIALECTS:
            filled += _compare(tmp_path / "soda" / dialect,
                               lambda d=dialect: fail_query_sql(base, first, d) or "",
                               lambda d=dialect, c=other, s=second: fail_query_sql(c, s, d) or "")
            filled += _compare(tmp_path / "gx" / dialect, lambda d=dialect: completeness_query(first, d),
                               lambda d=dialect, s=second: completeness_query(s, d))
            filled += _compare(tmp_path / "dbt" / dialect, lambda d=dialect: completeness_sql(first, d),
                               lambda d=dialect, s=second: completeness_sql(s, d))
    if "session" in completeness:
        assert filled == 0
    else:
        assert filled >= 2 * 2 * len(DIALECTS)
