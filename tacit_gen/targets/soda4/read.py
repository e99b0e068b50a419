"""Read a Soda Core 4 data contract (generated or hand-edited) back into clauses.

Params come from the operative parts Soda executes: column `data_type` (+ precision and scale),
the schema check's `allow_extra_columns`, `valid_values`, `valid_min`/`valid_max`, a `valid_format`
regex (read back to the pattern body), duplicate
columns, freshness thresholds, and the SQL of `failed_rows` checks (param `sql`: the condition a
row must meet, i.e. the expression without its leading `NOT`, or the query without its marker line).
Clause ids come from each check's `qualifier`. Params follow `render.project`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from tacit_gen.drift.base import (
    PARAM_CHANGED,
    SEVERITY_WEAKENED,
    UNKNOWN_CHECK,
    UNREADABLE,
    Finding,
    ReadResult,
)
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.sql.pattern import body_of
from tacit_gen.targets.header import parse_header
from tacit_gen.targets.kinds import Form, FormTable
from tacit_gen.targets.soda.queries import normalize_sql, strip_parens
from tacit_gen.targets.soda.writer import load_yaml
from tacit_gen.targets.soda4.render import (
    CLAUSE_MARK,
    FAIL_QUERY_KINDS,
    SCHEMA_QUALIFIER,
    type_text,
    unique_filter,
)

if TYPE_CHECKING:
    from pathlib import Path

_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_KIND_OF = {"missing": "not_null", "duplicate": "unique", "freshness": "freshness"}


def _kind(qualifier: str) -> str:
    return qualifier.split(":", 1)[0]


def _number(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return format(Decimal(str(value)).normalize(), "f")
    except InvalidOperation:
        return str(value)


def _seconds(threshold: dict[str, Any]) -> int | None:
    value = threshold.get("must_be_less_than_or_equal")
    size = _UNIT_SECONDS.get(str(threshold.get("unit", "hour")))
    if value is None or size is None:
        return None
    return round(Decimal(str(value)) * size)


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.clauses: list[Clause] = []
        self.findings: list[Finding] = []
        self.warned: set[str] = set()  # clause ids whose check warns (threshold level warn)

    def find(self, code: str, message: str, clause_id: str | None = None) -> None:
        self.findings.append(Finding(code, self.path, message, clause_id=clause_id))

    def add(self, cid: str, cols: tuple[str, ...], text: str, **params: Any) -> None:
        self.clauses.append(Clause(cid, _kind(cid), cols, make_params(**params), text))

    def threshold(self, cid: str, body: dict[str, Any]) -> None:
        """A count check must flag one row: no threshold, or `must_be: 0` at level fail, or at
        level warn (the clause's severity is then warn, which `check` compares with the contract's)."""
        t = body.get("threshold")
        if t is None:
            return
        if not isinstance(t, dict) or t.get("level", "fail") not in ("fail", "warn"):
            self.find(SEVERITY_WEAKENED, f"{cid} threshold level is {t.get('level') if isinstance(t, dict) else t}, "
                      "not fail", cid)
        elif set(t) - {"level", "metric"} != {"must_be"} or _number(t.get("must_be")) != "0":
            self.find(SEVERITY_WEAKENED, f"{cid} threshold {t} lets failing rows pass", cid)
        elif t.get("level") == "warn":
            self.warned.add(cid)

    def column_check(self, column: str, kind: str, body: dict[str, Any]) -> None:
        cid = str(body.get("qualifier") or "")
        if not cid:
            self.find(UNKNOWN_CHECK, f"a {kind} check on {column} has no qualifier (no clause id)")
            return
        self.threshold(cid, body)
        form = READ.get(f"{COLUMN_CHECK} {kind}")
        if form is None or not form.read(self, Check(cid, str(body.get("name") or ""), body, column)):
            self.find(UNKNOWN_CHECK, f"{kind} check {cid} on {column} is not one tacit-gen writes", cid)

    def failed_rows(self, cid: str, name: str, body: dict[str, Any]) -> None:
        from tacit_gen.targets.soda.since import strip_condition, unwrap_query

        body = dict(body)  # the increment's part (variable tacit_since) aside
        if isinstance(body.get("expression"), str):
            body["expression"] = strip_condition(body["expression"])
        if isinstance(body.get("query"), str):
            body["query"] = unwrap_query(body["query"])
        if "expression" in body:
            text = strip_parens(str(body["expression"]).strip())
            if not text.upper().startswith("NOT"):
                self.find(PARAM_CHANGED, f"{cid} expression does not start with NOT", cid)
            self.add(cid, (), name, sql=normalize_sql(text[3:]))
        elif "query" in body:
            self.add(cid, (), name, sql=normalize_sql(str(body["query"])))
        else:
            self.find(UNKNOWN_CHECK, f"failed_rows check {cid} has neither expression nor query", cid)

    def dataset_check(self, kind: str, body: dict[str, Any], columns: list[str]) -> None:
        cid = str(body.get("qualifier") or "")
        check = Check(cid, str(body.get("name") or ""), body, None, tuple(columns))
        if kind == "schema":
            _schema(self, check)
            return
        if not cid:
            self.find(UNKNOWN_CHECK, f"a {kind} check has no qualifier (no clause id)")
            return
        form = READ.get(f"{DATASET_CHECK} {kind}")
        if form is None or not form.read(self, check):
            self.find(UNKNOWN_CHECK, f"{kind} check {cid} is not one tacit-gen writes", cid)


@dataclass(frozen=True)
class Check:
    """One check of a Soda 4 contract: its qualifier (the clause id), name and body, and the
    column it sits on (a column check) or the contract's columns (a dataset check)."""

    cid: str
    name: str
    body: dict[str, Any]
    column: str | None = None
    columns: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# one function per check form: (reader, check) -> whether it is one tacit-gen writes

FormReader = Callable[[_Reader, Check], bool]
COLUMN_CHECK, DATASET_CHECK = "columns[].checks", "checks"


def _missing(r: _Reader, ck: Check) -> bool:
    assert ck.column is not None
    r.add(ck.cid, (ck.column,), ck.name, column=ck.column)
    return True


def _values(r: _Reader, ck: Check, column: str) -> None:
    r.add(ck.cid, (column,), ck.name, column=column, values=tuple(str(v) for v in ck.body.get("valid_values") or ()))


def _reference(r: _Reader, ck: Check, column: str) -> None:
    ref = ck.body.get("valid_reference_data")
    ref = ref if isinstance(ref, dict) else {}
    r.add(ck.cid, (column,), ck.name, column=column,
          to_relation=str(ref.get("dataset") or "").rsplit("/", 1)[-1] or None, to_column=ref.get("column"))


def _format(r: _Reader, ck: Check, column: str) -> None:
    fmt = ck.body.get("valid_format")
    regex = str(fmt.get("regex") or "") if isinstance(fmt, dict) else ""
    r.add(ck.cid, (column,), ck.name, column=column, pattern=body_of(regex) or regex)


def _bounds(r: _Reader, ck: Check, column: str) -> None:
    r.add(ck.cid, (column,), ck.name, column=column, min=_number(ck.body.get("valid_min")),
          max=_number(ck.body.get("valid_max")))


# An `invalid` column check, by the kind of its qualifier: what its validity says.
_INVALID: dict[str, Callable[[_Reader, Check, str], None]] = {
    "accepted_values": _values, "fixed_value": _values, "references": _reference, "pattern": _format,
    "range": _bounds}


def _invalid(r: _Reader, ck: Check) -> bool:
    read = _INVALID.get(_kind(ck.cid))
    if read is None or ck.column is None:
        return False
    read(r, ck, ck.column)
    return True


def _failed_rows_column(r: _Reader, ck: Check) -> bool:
    r.failed_rows(ck.cid, ck.name, ck.body)
    return True


def _failed_rows_dataset(r: _Reader, ck: Check) -> bool:
    r.threshold(ck.cid, ck.body)
    r.failed_rows(ck.cid, ck.name, ck.body)
    return True


def _schema(r: _Reader, ck: Check) -> bool:
    if ck.body.get("allow_extra_columns") is False:
        r.add("no_unknown_columns", ck.columns, "", columns=ck.columns)
    return True


def _duplicate(r: _Reader, ck: Check) -> bool:
    cid = ck.cid
    r.threshold(cid, ck.body)
    cols = tuple(str(c) for c in ck.body.get("columns") or ())
    r.add(cid, cols, ck.name, columns=cols)
    want, found = unique_filter(cols, "duckdb"), ck.body.get("filter")
    if found is not None:  # the increment's part (variable tacit_since) aside
        from tacit_gen.targets.soda.since import strip_condition

        found = strip_condition(str(found))
    if found is not None and _unquoted(str(found)) != _unquoted(want):  # none: NULL keys count
        r.find(PARAM_CHANGED, f"{cid} filter is {found!r}: the contract's uniqueness compares the "
               f"rows whose key holds no NULL ({want})", cid)
    return True


def _freshness(r: _Reader, ck: Check) -> bool:
    col = str(ck.body.get("column"))
    raw = ck.body.get("threshold")
    t: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if t.get("level", "fail") == "warn":
        r.warned.add(ck.cid)
    elif t.get("level", "fail") != "fail":
        r.find(SEVERITY_WEAKENED, f"{ck.cid} threshold level is {t.get('level')}, not fail", ck.cid)
    r.add(ck.cid, (col,), ck.name, column=col, max_age_seconds=_seconds(t))
    return True


# A failed_rows check's expression or query: the qualifier names the clause.
_FAILED_ROWS_KINDS = ("invariant", "range", "fixed_value", *FAIL_QUERY_KINDS)
READ: FormTable[FormReader] = FormTable("soda4", {
    f"{COLUMN_CHECK} missing": Form(("not_null",), _missing),
    f"{COLUMN_CHECK} invalid": Form(tuple(_INVALID), _invalid),
    f"{COLUMN_CHECK} failed_rows": Form(_FAILED_ROWS_KINDS, _failed_rows_column),
    f"{DATASET_CHECK} schema": Form(("no_unknown_columns",), _schema),
    f"{DATASET_CHECK} duplicate": Form(("unique",), _duplicate),
    f"{DATASET_CHECK} freshness": Form(("freshness",), _freshness),
    f"{DATASET_CHECK} failed_rows": Form(_FAILED_ROWS_KINDS, _failed_rows_dataset),
}, elsewhere={"column": "a column's data_type (and precision, scale) under the schema check"})


def _items(checks: Any) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for item in checks or ():
        if isinstance(item, dict) and len(item) == 1:
            kind, body = next(iter(item.items()))
            out.append((str(kind), body if isinstance(body, dict) else {}))
    return out


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one Soda 4 contract file."""
    header = parse_header(text)
    r = _Reader(path)
    try:
        doc = load_yaml(text)
    except Exception as exc:  # yaml.YAMLError and its subclasses
        r.find(UNREADABLE, f"not readable YAML: {' '.join(str(exc).split())}")
        doc = None
    if isinstance(doc, dict):
        names: list[str] = []
        types: list[Clause] = []
        for col in doc.get("columns") or ():
            if not isinstance(col, dict) or "name" not in col:
                continue
            name = str(col["name"])
            names.append(name)
            if col.get("data_type") is not None:
                types.append(Clause(f"column:{name}", "column", (name,), make_params(
                    column=name, soda4_type=type_text(str(col["data_type"]),
                                                      _number(col.get("numeric_precision")),
                                                      _number(col.get("numeric_scale")))), ""))
            for kind, body in _items(col.get("checks")):
                r.column_check(name, kind, body)
        for kind, body in _items(doc.get("checks")):
            r.dataset_check(kind, body, names)
        # Column types are checked only by the schema check: without it, no column clause holds.
        if any(k == "schema" for k, _ in _items(doc.get("checks"))):
            r.clauses[:0] = types
    elif doc is not None:
        r.find(UNREADABLE, "not a Soda 4 contract (no mapping at the top)")
    clauses = tuple(replace(c, severity="warn") if c.id in r.warned else c for c in r.clauses)
    return ReadResult(clauses, tuple(r.findings), *(header or (None, None, None)))


__all__ = ["CLAUSE_MARK", "SCHEMA_QUALIFIER", "read"]


def _unquoted(sql_text: str) -> str:
    """SQL text compared without identifier quotes, case or spacing (a filter of any dialect)."""
    return " ".join(sql_text.replace('"', "").replace("`", "").lower().split())
