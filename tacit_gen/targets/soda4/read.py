"""Read a Soda Core 4 data contract (generated or hand-edited) back into clauses.

Params come from the operative parts Soda executes: column `data_type` (+ precision and scale),
the schema check's `allow_extra_columns`, `valid_values`, `valid_min`/`valid_max`, a `valid_format`
regex (read back to the pattern body), duplicate
columns, freshness thresholds, and the SQL of `failed_rows` checks (param `sql`: the condition a
row must meet, i.e. the expression without its leading `NOT`, or the query without its marker line).
Clause ids come from each check's `qualifier`. Params follow `render.project`.
"""

from __future__ import annotations

from dataclasses import replace
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
from tacit_gen.targets.soda.queries import normalize_sql, strip_parens
from tacit_gen.targets.soda.writer import load_yaml
from tacit_gen.targets.soda4.render import CLAUSE_MARK, SCHEMA_QUALIFIER, type_text, unique_filter

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
        name = str(body.get("name") or "")
        if not cid:
            self.find(UNKNOWN_CHECK, f"a {kind} check on {column} has no qualifier (no clause id)")
            return
        self.threshold(cid, body)
        ck = _kind(cid)
        if kind == "missing":
            self.add(cid, (column,), name, column=column)
        elif kind == "invalid" and ck in ("accepted_values", "fixed_value"):
            values = tuple(str(v) for v in body.get("valid_values") or ())
            self.add(cid, (column,), name, column=column, values=values)
        elif kind == "invalid" and ck == "references":
            ref = body.get("valid_reference_data")
            ref = ref if isinstance(ref, dict) else {}
            self.add(cid, (column,), name, column=column,
                     to_relation=str(ref.get("dataset") or "").rsplit("/", 1)[-1] or None,
                     to_column=ref.get("column"))
        elif kind == "invalid" and ck == "pattern":
            fmt = body.get("valid_format")
            regex = str(fmt.get("regex") or "") if isinstance(fmt, dict) else ""
            self.add(cid, (column,), name, column=column, pattern=body_of(regex) or regex)
        elif kind == "invalid" and ck == "range":
            self.add(cid, (column,), name, column=column, min=_number(body.get("valid_min")),
                     max=_number(body.get("valid_max")))
        elif kind == "failed_rows":
            self.failed_rows(cid, name, body)
        else:
            self.find(UNKNOWN_CHECK, f"{kind} check {cid} on {column} is not one tacit-gen writes", cid)

    def failed_rows(self, cid: str, name: str, body: dict[str, Any]) -> None:
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
        name = str(body.get("name") or "")
        if kind == "schema":
            if body.get("allow_extra_columns") is False:
                self.add("no_unknown_columns", tuple(columns), "", columns=tuple(columns))
            return
        if not cid:
            self.find(UNKNOWN_CHECK, f"a {kind} check has no qualifier (no clause id)")
            return
        if kind == "duplicate":
            self.threshold(cid, body)
            cols = tuple(str(c) for c in body.get("columns") or ())
            self.add(cid, cols, name, columns=cols)
            want, found = unique_filter(cols, "duckdb"), body.get("filter")
            if found is not None and _unquoted(str(found)) != _unquoted(want):  # none: NULL keys count
                self.find(PARAM_CHANGED, f"{cid} filter is {found!r}: the contract's uniqueness compares the "
                          f"rows whose key holds no NULL ({want})", cid)
        elif kind == "freshness":
            col = str(body.get("column"))
            raw = body.get("threshold")
            t: dict[str, Any] = raw if isinstance(raw, dict) else {}
            if t.get("level", "fail") == "warn":
                self.warned.add(cid)
            elif t.get("level", "fail") != "fail":
                self.find(SEVERITY_WEAKENED, f"{cid} threshold level is {t.get('level')}, not fail", cid)
            self.add(cid, (col,), name, column=col, max_age_seconds=_seconds(t))
        elif kind == "failed_rows":
            self.threshold(cid, body)
            self.failed_rows(cid, name, body)
        else:
            self.find(UNKNOWN_CHECK, f"{kind} check {cid} is not one tacit-gen writes", cid)


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
