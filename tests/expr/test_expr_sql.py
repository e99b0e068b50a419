"""The SQL compiler on real DuckDB: every construct keeps SQL CHECK semantics with NULLs.

A row violates an invariant when ``NOT (sql)`` is TRUE; UNKNOWN (a NULL operand) passes. Each
expression's violating rows from DuckDB are compared with a three-valued reference evaluator
written here, and with the rows a reader would expect, stated by hand.
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import duckdb
import pytest

from tacit_gen.contract.loader import load
from tacit_gen.contract.semantics import resolve
from tacit_gen.expr import nodes as n
from tacit_gen.sql import ident, literal, to_sql

CONTRACT = load(
    "sql.yaml",
    """\
contract: sql_semantics
version: 1.0.0
fields:
  id:  {type: int64, nullable: false}
  a:   {type: int64}
  b:   {type: int64}
  q:   {type: enum[good, suspect, bad]}
  "select": {type: int64}
""",
)
A = (None, 0, 5)
B = (None, 1, 5)
Q = (None, "good", "bad")
ROWS = [(i, a, b, q, a) for i, (a, b, q) in enumerate(itertools.product(A, B, Q))]


def _row(r: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(("id", "a", "b", "q", "select"), r, strict=True))


def _ev(x: n.Node, row: dict[str, Any]) -> Any:
    """Three-valued reference semantics (None is NULL / UNKNOWN)."""
    if isinstance(x, n.Column):
        return row[x.name]
    if isinstance(x, n.EnumLiteral | n.String):
        return x.value
    if isinstance(x, n.Number):
        return Decimal(x.text)
    if isinstance(x, n.Bool):
        return x.value
    if isinstance(x, n.Neg):
        v = _ev(x.operand, row)
        return None if v is None else -v
    if isinstance(x, n.BinOp):
        left, right = _ev(x.left, row), _ev(x.right, row)
        if left is None or right is None:
            return None
        return {"+": left + right, "-": left - right, "*": left * right}.get(x.op) if x.op != "/" else (
            None if right == 0 else Decimal(left) / Decimal(right))
    if isinstance(x, n.Compare):
        parts = [_cmp(_ev(a, row), op, _ev(b, row))
                 for a, op, b in zip(x.operands, x.ops, x.operands[1:], strict=False)]
        return _and(*parts)
    if isinstance(x, n.IsNull):
        return (_ev(x.operand, row) is None) != x.negated
    if isinstance(x, n.InList):
        v = _ev(x.operand, row)
        items = [_ev(i, row) for i in x.items]
        hit = _or(*[_cmp(v, "=", i) for i in items])
        return _not(hit) if x.negated else hit
    if isinstance(x, n.Between):
        v = _ev(x.operand, row)
        inside = _and(_cmp(v, ">=", _ev(x.low, row)), _cmp(v, "<=", _ev(x.high, row)))
        return _not(inside) if x.negated else inside
    if isinstance(x, n.And):
        return _and(_ev(x.left, row), _ev(x.right, row))
    if isinstance(x, n.Or):
        return _or(_ev(x.left, row), _ev(x.right, row))
    if isinstance(x, n.Not):
        return _not(_ev(x.operand, row))
    if isinstance(x, n.OnlyWhen):
        return _or(_not(_ev(x.left, row)), _ev(x.right, row))
    raise TypeError(x)


def _cmp(a: Any, op: str, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _not(v: bool | None) -> bool | None:
    return None if v is None else not v


def _and(*vs: bool | None) -> bool | None:
    if any(v is False for v in vs):
        return False
    return None if any(v is None for v in vs) else True


def _or(*vs: bool | None) -> bool | None:
    if any(v is True for v in vs):
        return True
    return None if any(v is None for v in vs) else False


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute('CREATE TABLE t (id BIGINT, a BIGINT, b BIGINT, q VARCHAR, "select" BIGINT)')
    c.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", ROWS)
    return c


def _violations(con: duckdb.DuckDBPyConnection, text: str) -> tuple[set[int], set[int]]:
    ast, problems = resolve(CONTRACT, text)
    assert ast is not None and not problems, problems
    sql = to_sql(ast)
    got = {r[0] for r in con.execute(f"SELECT id FROM t WHERE NOT ({sql})").fetchall()}
    expected = {r[0] for r in ROWS if _ev(ast, _row(r)) is False}
    return got, expected


def _ids(pred: Any) -> set[int]:
    return {r[0] for r in ROWS if pred(_row(r))}


# (invariant, the rows that violate it, stated directly)
CASES = [
    ("a >= 1", _ids(lambda r: r["a"] is not None and r["a"] < 1)),
    ("a < b", _ids(lambda r: None not in (r["a"], r["b"]) and r["a"] >= r["b"])),
    ("0 <= a <= b", _ids(lambda r: r["a"] is not None and (r["a"] < 0 or (r["b"] is not None and r["a"] > r["b"])))),
    ("a is null", _ids(lambda r: r["a"] is not None)),
    ("a is not null", _ids(lambda r: r["a"] is None)),
    ("a is null only when q = bad", _ids(lambda r: r["a"] is None and r["q"] == "good")),
    ("q = bad only when a is null", _ids(lambda r: r["q"] == "bad" and r["a"] is not None)),
    ("a in (0, 1)", _ids(lambda r: r["a"] == 5)),
    ("a not in (0, 1)", _ids(lambda r: r["a"] == 0)),
    ("q in (good, 'suspect')", _ids(lambda r: r["q"] == "bad")),
    ("a between 1 and 5", _ids(lambda r: r["a"] == 0)),
    ("a not between 1 and 5", _ids(lambda r: r["a"] == 5)),
    ("a between b and 5", _ids(lambda r: r["a"] is not None and r["b"] is not None and r["a"] < r["b"])),
    ("a is null or a >= 1", _ids(lambda r: r["a"] == 0)),
    ("a >= 1 and b >= 1", _ids(lambda r: r["a"] == 0)),
    ("not a = 0", _ids(lambda r: r["a"] == 0)),
    ("a + b > 5", _ids(lambda r: None not in (r["a"], r["b"]) and r["a"] + r["b"] <= 5)),
    ("a * 2 - b >= -1", _ids(lambda r: None not in (r["a"], r["b"]) and 2 * r["a"] - r["b"] < -1)),
    ("-a <= 0", set()),
    ("a / 2 < 2", _ids(lambda r: r["a"] == 5)),
    ("q != bad", _ids(lambda r: r["q"] == "bad")),
    ("select >= 1", _ids(lambda r: r["select"] == 0)),
    ("true", set()),
    ("(a = 0) = false", _ids(lambda r: r["a"] == 0)),
]


@pytest.mark.parametrize(("text", "violating"), CASES, ids=[t for t, _ in CASES])
def test_sql_check_semantics_on_duckdb(con: duckdb.DuckDBPyConnection, text: str, violating: set[int]) -> None:
    got, reference = _violations(con, text)
    assert got == reference == violating


def test_null_operand_never_violates(con: duckdb.DuckDBPyConnection) -> None:
    for text, _ in CASES:
        ast, _ = resolve(CONTRACT, text)
        assert ast is not None
        cols = n.columns(ast)
        if not cols or text in ("a is not null", "a is null only when q = bad", "a is null"):
            continue
        got, _ = _violations(con, text)
        all_null = _ids(lambda r, cols=cols: all(r[c] is None for c in cols))
        assert not (got & all_null), text


def test_catalog_forms_have_no_single_row_sql() -> None:
    ast, _ = resolve(CONTRACT, "a within catalog hard_bounds for q")
    assert ast is not None
    with pytest.raises(ValueError, match="no single-row SQL form"):
        to_sql(ast)


def test_quoting() -> None:
    assert ident("a") == "a"
    assert ident("select") == '"select"'
    assert ident("Mixed") == '"Mixed"'
    assert ident('we"ird') == '"we""ird"'
    assert ident("select", "bigquery") == "`select`"
    assert literal("it's") == "'it''s'"
    con = duckdb.connect()
    assert con.execute(f"SELECT {literal(chr(39) + '; DROP TABLE t; --')}").fetchone() == ("'; DROP TABLE t; --",)
