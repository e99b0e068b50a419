"""Read dbt model properties back into clauses (semantic drift).

Params come from the operative parts of the file: `data_type`, `constraints`, the enforced
contract flag and the test arguments. Meta (`tacit_clause`, `tacit_text`, `tacit_type`...) only
names the clause and disambiguates lossy types (``timestamptz`` holds every timestamp precision,
the string type holds enums). A hand-written file without tacit meta is read too: tests map to
clause ids by test type and column.

Invariants are read back as the param ``sql`` (the `expression` argument), to be compared with
``tacit_gen.sql.to_sql`` of the plan's clause for the file's adapter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

from tacit_gen.drift.base import (
    SEVERITY_WEAKENED,
    UNKNOWN_CHECK,
    UNREADABLE,
    Finding,
    ReadResult,
)
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.dbt.text import is_unique_where, jinja_unsafe, strip_since_where, unident
from tacit_gen.targets.header import parse_header
from tacit_gen.targets.kinds import Form, FormTable

_TS_TYPES = ("timestamp_us_utc", "timestamp_ms_utc", "timestamp_s_utc", "timestamp_ns_utc")
_TZ_NAMES = {"timestamptz", "timestamp with time zone", "timestamp_tz", "timestamp_ltz"}
_INSTANT_TIMESTAMP_ADAPTERS = {"bigquery", "databricks", "spark"}
# normalised data_type -> canonical types it can hold (the first is the default)
_SIMPLE: dict[str, tuple[str, ...]] = {
    "varchar": ("string", "enum"),
    "text": ("string", "enum"),
    "string": ("string", "enum"),
    "character varying": ("string", "enum"),
    "nvarchar": ("string", "enum"),
    "boolean": ("bool",),
    "bool": ("bool",),
    "integer": ("int32",),
    "int": ("int32",),
    "int4": ("int32",),
    "bigint": ("int64",),
    "int8": ("int64",),
    "long": ("int64",),
    "int64": ("int64", "int32"),
    "float": ("float32", "float64"),
    "real": ("float32",),
    "float4": ("float32",),
    "double": ("float64",),
    "double precision": ("float64",),
    "float8": ("float64",),
    "float64": ("float64", "float32"),
    "date": ("date",),
}
_DECIMAL = re.compile(r"^(?:decimal|numeric|number|bignumeric)\((\d+),(\d+)\)$")
_REF = re.compile(r"""^\s*(?:\{\{\s*)?(?:ref|source)\((.*)\)\s*(?:\}\})?\s*$""", re.S)
_STR_ARG = re.compile(r"""'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)\"""")
_TEST_KEYS = ("name", "arguments", "config", "test_name", "description", "column_name")
_WEAKENING_CONFIG = ("severity", "warn_if", "error_if", "where", "limit", "enabled")


def canonical_type(data_type: str | None, hint: str | None, adapter: str | None) -> str | None:
    """The contract type a `data_type` holds; `hint` (meta tacit_type) picks among lossy matches."""
    if data_type is None:
        return None
    t = re.sub(r"\s+", " ", str(data_type).strip().lower())
    t = re.sub(r"\s*([(),])\s*", r"\1", t)
    hint_kind = None
    if hint:
        hint_kind = "enum" if hint.startswith("enum[") else hint
        if hint.startswith("timestamp_"):
            hint_kind = hint
    m = _DECIMAL.match(t)
    if m:
        return f"decimal({int(m.group(1))},{int(m.group(2))})"
    if t in _TZ_NAMES or (t == "timestamp" and adapter in _INSTANT_TIMESTAMP_ADAPTERS):
        return hint if hint in _TS_TYPES else "timestamp_us_utc"
    if re.match(r"^varchar\(\d+\)$", t):
        t = "varchar"
    options = _SIMPLE.get(t)
    if options is None:
        return t  # not a contract type (a naive timestamp, a json column...): reported as drift
    if hint_kind in options:
        return hint
    return options[0]


def _decimal_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    text = repr(value) if isinstance(value, float) else str(jinja_unsafe(value)).strip()
    try:
        d = Decimal(text)
    except InvalidOperation:
        return text
    if d == d.to_integral_value() and "e" not in text.lower():
        return str(int(d))
    return text


_SQL_TOKEN = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_$]*"
)
_SQL_WORDS = frozenset(
    [
        "and",
        "or",
        "not",
        "is",
        "null",
        "in",
        "between",
        "true",
        "false",
        "like",
        "ilike",
        "case",
        "when",
        "then",
        "else",
        "end",
        "cast",
        "as",
        # the exact arithmetic and division of `tacit_gen.sql.condition`
        "decimal",
        "numeric",
        "bignumeric",
        "nullif",
    ]
)


def sql_columns(sql: str) -> tuple[str, ...]:
    """Column names an invariant's SQL reads, in first-seen order (keywords and literals skipped)."""
    seen: list[str] = []
    after_collate = False
    for tok in _SQL_TOKEN.findall(sql):
        if after_collate:  # `x COLLATE "C"`: a collation's name, no column
            after_collate = False
            continue
        if tok.lower() == "collate":
            after_collate = True
            continue
        if tok.startswith("'") or tok.lower() in _SQL_WORDS:
            continue
        name = unident(tok)
        if name not in seen:
            seen.append(name)
    return tuple(seen)


def _sql_value(text: str) -> Any:
    """A SQL literal written by hand (accepted_values with quote: false) as a value."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] == "'":
        return t[1:-1].replace("''", "'")
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    if re.match(r"^-?\d+$", t):
        return int(t)
    return t


def _session_params(a: dict[str, Any]) -> dict[str, Any]:
    """The calendar and sessions relation a test's arguments name (none: no calendar)."""
    if a.get("sessions_relation") is None:
        return {}
    out = {"calendar": a.get("calendar"), "sessions_relation": _relation(a.get("sessions_relation")),
           **{k: _col(a.get(k)) for k in ("sessions_calendar", "sessions_session",
                                          "sessions_open", "sessions_close")}}
    if a.get("calendar_catalog") is not None:  # a per-series calendar
        out["calendar_catalog"] = _relation(a.get("calendar_catalog"))
        out.update({k: _col(a.get(k)) for k in ("calendar_catalog_key", "calendar_catalog_column",
                                                "calendar_series")})
    return out


def _relation(value: Any) -> str | None:
    """The relation name of ``ref('x')`` / ``source('s', 'x')``."""
    if value is None:
        return None
    text = str(jinja_unsafe(value))
    m = _REF.match(text)
    if not m:
        return text
    args = [a or b for a, b in _STR_ARG.findall(m.group(1))]
    return args[-1] if args else text


def _cols(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    return tuple(unident(str(jinja_unsafe(v))) for v in value)


def _col(value: Any) -> str | None:
    return None if value is None else unident(str(jinja_unsafe(value)))


def _catalog_join(column: str, a: dict[str, Any]) -> dict[str, Any]:
    """The params every catalog test shares: the column, the model's key and the catalog
    relation and key it joins (catalog_unit, catalog_dimension, catalog_bounds, plausible)."""
    return {"column": column, "key": _col(a.get("key")), "relation": _relation(a.get("catalog")),
            "catalog_key": _col(a.get("catalog_key"))}


class Reader:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.findings: list[Finding] = []
        self.clauses: dict[str, Clause] = {}

    def finding(
        self,
        code: str,
        message: str,
        clause_id: str | None = None,
        expected: str | None = None,
        found: str | None = None,
    ) -> None:
        self.findings.append(Finding(code, self.path, message, clause_id, expected, found))

    def add(self, cid: str, kind: str, params: dict[str, Any], text: str,
            severity: str = "error") -> None:
        cols: list[str] = list(sql_columns(params["sql"])) if kind == "invariant" else []
        for key in ("column", "columns", "series", "key"):
            v = params.get(key)
            for c in v if isinstance(v, tuple) else (v,):
                if isinstance(c, str) and c not in cols:
                    cols.append(c)
        prev = self.clauses.get(cid)
        if prev is not None:  # one clause written as several tests (a range split per side)
            merged = prev.params_dict
            for k, v in params.items():
                if v is not None or k not in merged:
                    merged[k] = v
            params = merged
            text = prev.text or text
            severity = "warn" if "warn" in (prev.severity, severity) else severity
        self.clauses[cid] = Clause(cid, kind, tuple(cols), make_params(**params), text,
                                   severity=severity)

    # ---- models -------------------------------------------------------------------------

    def model(self, m: dict[str, Any]) -> None:
        config = m.get("config") or {}
        meta = {**(m.get("meta") or {}), **(config.get("meta") or {})}
        adapter = meta.get("tacit_adapter")
        contract = config.get("contract", m.get("contract")) or {}
        enforced = bool(contract.get("enforced")) if isinstance(contract, dict) else False
        model_texts = meta.get("tacit_clauses") or {}
        name = m.get("name", "?")
        if not enforced:
            self.finding(
                SEVERITY_WEAKENED,
                f"model {name}: contract not enforced (config.contract.enforced is not true): "
                "column types and unknown columns are not checked",
                "no_unknown_columns",
                "enforced: true",
                f"enforced: {str(contract.get('enforced')).lower() if isinstance(contract, dict) else None}",
            )
        columns = m.get("columns") or []
        names: list[str] = []
        for col in columns:
            if not isinstance(col, dict) or "name" not in col:
                self.finding(UNREADABLE, f"model {name}: a column entry has no name")
                continue
            cname = str(col["name"])
            names.append(cname)
            self.column(cname, col, enforced, adapter)
        if enforced:
            text = str(jinja_unsafe(model_texts.get("no_unknown_columns", "")))
            self.add("no_unknown_columns", "no_unknown_columns", {"columns": tuple(names)}, text)
        for t in m.get("data_tests") or m.get("tests") or []:
            self.test(t, None)

    def column(self, cname: str, col: dict[str, Any], enforced: bool, adapter: str | None) -> None:
        cmeta = {**(col.get("meta") or {}), **((col.get("config") or {}).get("meta") or {})}
        texts = {
            str(jinja_unsafe(k)): str(jinja_unsafe(v))
            for k, v in (cmeta.get("tacit_clauses") or {}).items()
        }
        if enforced:
            hint = cmeta.get("tacit_type")
            params: dict[str, Any] = {
                "column": cname,
                "type": canonical_type(col.get("data_type"), hint, adapter),
            }
            if (
                hint is not None
            ):  # rendered by tacit-gen: units live in meta, the only place dbt has
                params["unit"] = jinja_unsafe(cmeta.get("tacit_unit"))
                params["dimension"] = jinja_unsafe(cmeta.get("tacit_dimension"))
            self.add(f"column:{cname}", "column", params, texts.get(f"column:{cname}", ""))
        for c in col.get("constraints") or []:
            if isinstance(c, dict) and c.get("type") == "not_null":
                cid = f"not_null:{cname}"
                self.add(cid, "not_null", {"column": cname}, texts.get(cid, ""))
                if c.get("warn_unenforced") is False or c.get("warn_unsupported") is False:
                    pass
        for t in col.get("data_tests") or col.get("tests") or []:
            self.test(t, cname)

    # ---- tests --------------------------------------------------------------------------

    def test(self, entry: Any, column: str | None) -> None:
        if isinstance(entry, str):
            ttype, body = entry, {}
        elif isinstance(entry, dict) and "test_name" in entry:
            ttype, body = str(entry["test_name"]), entry
        elif isinstance(entry, dict) and len(entry) == 1:
            ttype, raw = next(iter(entry.items()))
            body = raw if isinstance(raw, dict) else {}
        else:
            self.finding(UNREADABLE, f"unreadable test entry: {entry!r}")
            return
        args = dict(body.get("arguments") or {})
        config = dict(body.get("config") or {})
        for k, v in body.items():  # legacy: arguments and config keys at the top level
            if k in _TEST_KEYS:
                continue
            if k in _WEAKENING_CONFIG or k in ("meta", "tags", "store_failures"):
                config.setdefault(k, v)
            else:
                args.setdefault(k, v)
        column = _col(args.pop("column_name", None)) or column
        meta = config.get("meta") or {}
        cid_meta = meta.get("tacit_clause")
        text = str(jinja_unsafe(meta.get("tacit_text", "")))
        short = ttype.split(".")[-1]
        kind, params, default_id = self.params_for(short, ttype, args, column, cid_meta)
        if kind is None:
            self.finding(
                UNKNOWN_CHECK,
                f"test {ttype}{' on ' + column if column else ''} is not a test tacit-gen maps to a clause",
                str(jinja_unsafe(cid_meta)) if cid_meta else None,
                found=ttype,
            )
            return
        cid = str(jinja_unsafe(cid_meta)) if cid_meta else default_id
        if config.get("enabled") is False:
            self.finding(
                SEVERITY_WEAKENED,
                f"test {body.get('name', ttype)} is disabled (enabled: false)",
                cid,
                "enabled",
                "enabled: false",
            )
            return
        # `severity: warn` is the clause's severity, compared with the contract's by `check`
        severity = "warn" if str(config.get("severity", "error")).strip().lower() == "warn" else "error"
        config = dict(config)
        if "where" in config:  # var('tacit_since') selecting the increment: no weakening
            rest = strip_since_where(config["where"])
            if rest is None:
                del config["where"]
            else:
                config["where"] = rest
        # the combination test's own where (whole keys only); without it (a hand-written test)
        # NULL keys group together: the same verdict whenever not_null holds on the key
        if (kind == "unique" and short != "unique" and "where" in config
                and is_unique_where(config["where"], [str(c) for c in args.get("combination_of_columns") or ()])):
            del config["where"]
        for key in ("warn_if", "error_if", "where", "limit"):
            if key in config:
                self.finding(
                    SEVERITY_WEAKENED,
                    f"test {body.get('name', ttype)} has {key}: {config[key]}",
                    cid,
                    f"no {key}",
                    f"{key}: {config[key]}",
                )
        self.add(cid, kind, params, text, severity)

    def params_for(
        self, short: str, ttype: str, a: dict[str, Any], column: str | None, cid_meta: Any
    ) -> tuple[str | None, dict[str, Any], str]:
        """(kind, params, default clause id) of a test, through `READ`; (None, {}, "") when it
        is not a test tacit-gen maps to a clause."""
        form = READ.get(short)
        meta_kind = str(jinja_unsafe(cid_meta)).split(":", 1)[0] if cid_meta else None
        found = form.read(a, column, meta_kind) if form is not None else None
        return found if found is not None else (None, {}, "")


# ---------------------------------------------------------------------------------------------
# one function per test: (arguments, column, the kind meta names) -> (kind, params, default id)

Found = tuple[str, dict[str, Any], str]
TestReader = Callable[[dict[str, Any], "str | None", "str | None"], "Found | None"]


def _on_column(read: Callable[[dict[str, Any], str, str | None], Found | None]) -> TestReader:
    """A column test: read only where the test has a column."""
    def on_column(a: dict[str, Any], column: str | None, meta_kind: str | None) -> Found | None:
        return read(a, column, meta_kind) if column else None

    return on_column


@_on_column
def _not_null(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    return "not_null", {"column": c}, f"not_null:{c}"


@_on_column
def _unique(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    return "unique", {"columns": (c,)}, f"unique:{c}"


def _unique_combination(a: dict[str, Any], column: str | None, meta_kind: str | None) -> Found:
    cols = _cols(a.get("combination_of_columns"))
    return "unique", {"columns": cols}, "unique:" + ",".join(cols)


@_on_column
def _accepted_values(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    raw = list(a.get("values") or [])
    quote = a.get("quote", True) is not False
    values = [jinja_unsafe(v) for v in raw]
    if not quote:
        values = [_sql_value(str(v)) if isinstance(v, str) else v for v in values]
    fixed = meta_kind == "fixed_value" or (meta_kind is None and len(values) == 1)
    if fixed:
        v = values[0] if values else None
        if isinstance(v, float):
            v = _decimal_text(v)
        return "fixed_value", {"column": c, "value": v}, f"fixed_value:{c}"
    return "accepted_values", {"column": c, "values": tuple(str(v) for v in values)}, f"accepted_values:{c}"


@_on_column
def _accepted_range(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    inclusive = a.get("inclusive", True) is not False
    lo, hi = a.get("min_value"), a.get("max_value")
    p: dict[str, Any] = {"column": c}  # absent sides are filled in by `_finish`
    if lo is not None:
        p["min"] = _decimal_text(lo)
        p["min_inclusive"] = a.get("min_inclusive", inclusive) is not False
    if hi is not None:
        p["max"] = _decimal_text(hi)
        p["max_inclusive"] = a.get("max_inclusive", inclusive) is not False
    return "range", p, f"range:{c}"


def _expression(a: dict[str, Any], column: str | None, meta_kind: str | None) -> Found:
    """An expression test: a pattern, a precision or a revision_by where meta names one and the SQL is
    their shape, else an invariant (its SQL)."""
    expr = str(jinja_unsafe(a.get("expression", "")))
    if meta_kind == "pattern":
        from tacit_gen.sql import read_pattern_match

        if (pm := read_pattern_match(expr)) is not None:
            return "pattern", {"column": pm[0], "pattern": pm[1]}, f"pattern:{pm[0]}"
    if meta_kind == "precision":
        from tacit_gen.plan_types import PRECISION_US
        from tacit_gen.sql import read_precision

        units = {us: name for name, us in PRECISION_US.items()}
        if (pu := read_precision(expr)) is not None and pu[1] in units:
            return "precision", {"column": pu[0], "precision": units[pu[1]]}, f"precision:{pu[0]}"
    if meta_kind == "revision_by":
        from tacit_gen.sql import read_revision_by

        if (rb := read_revision_by(expr)) is not None:
            return ("revision_by", {"column": rb[0], "revision_column": rb[1], "values": rb[2]},
                    f"revision_by:{rb[0]}")
    sql = f"{column} {expr}" if column and "column_name" in a else expr
    return "invariant", {"sql": sql}, f"invariant:{sql}"


@_on_column
def _freshness_days(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    days = a.get("max_age_days")
    return ("freshness", {"column": c, "max_age_seconds": int(days) * 86400 if isinstance(days, int) else days,
                          "whole_days": True}, f"freshness:{c}")


@_on_column
def _freshness(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    return "freshness", {"column": c, "max_age_seconds": a.get("max_age_seconds")}, f"freshness:{c}"


@_on_column
def _cadence(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    from_catalog = a.get("catalog") is not None
    p = {
        "column": c,
        "series": _cols(a.get("series")),
        "interval_seconds": a.get("interval_seconds"),
        "from_catalog": from_catalog,
        "tolerance_pct": _decimal_text(a.get("tolerance_pct", 0)),
        "gaps_allowed": bool(a.get("gaps_allowed", False)),
    }
    if from_catalog:
        p["relation"] = _relation(a.get("catalog"))
        p["catalog_key"] = _col(a.get("catalog_key"))
        p["catalog_column"] = _col(a.get("catalog_column"))
    if a.get("sessions") is not None:
        p["sessions"] = str(a.get("sessions"))
        p.update(_session_params(a))
    return "cadence", p, f"cadence:{c}"


@_on_column
def _completeness(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    rels = {k: str(a[k]) for k in ("outages", "sessions", "calendar_catalog") if a.get(k) is not None}
    return "completeness", {"sql": str(jinja_unsafe(a.get("windows_sql", ""))), **rels}, f"completeness:{c}"


@_on_column
def _catalog_unit(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    return ("catalog_unit", {**_catalog_join(c, a), "catalog_column": _col(a.get("catalog_column"))},
            f"catalog_unit:{c}")


@_on_column
def _catalog_dimension(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    units = a.get("units")
    return ("catalog_dimension", {
        **_catalog_join(c, a),
        "catalog_column": _col(a.get("catalog_column")),
        "dimension": a.get("dimension"),
        "units": tuple(str(u) for u in units) if isinstance(units, list) else units,
    }, f"catalog_dimension:{c}")


def _bounds(kind: str) -> TestReader:
    """The catalog's bounds tests: hard bounds (`catalog_bounds`) or plausible ones."""
    @_on_column
    def read(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
        return (kind, {**_catalog_join(c, a), "min_column": _col(a.get("min_column")),
                       "max_column": _col(a.get("max_column"))}, f"{kind}:{c}")

    return read


@_on_column
def _relationships(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    """A foreign key (dbt's built-in test)."""
    return ("references", {"column": c, "to_relation": _relation(a.get("to")),
                           "to_column": _col(a.get("field"))}, f"references:{c}")


@_on_column
def _revision_window(a: dict[str, Any], c: str, meta_kind: str | None) -> Found:
    return ("revision_window", {
        "column": c,
        "time_column": _col(a.get("time_column")),
        "ingest_column": _col(a.get("ingest_column")),
        "allowed": bool(a.get("allowed", True)),
        "window_seconds": a.get("window_seconds"),
        "business_days": a.get("business_days"),
        **_session_params(a),
    }, "revision_window")


_EXPRESSION: Form[TestReader] = Form(("pattern", "precision", "revision_by", "invariant"), _expression)
READ: FormTable[TestReader] = FormTable("dbt", {
    "not_null": Form(("not_null",), _not_null),
    "unique": Form(("unique",), _unique),
    "unique_combination_of_columns": Form(("unique",), _unique_combination),
    "tacit_unique_combination_of_columns": Form(("unique",), _unique_combination),
    "accepted_values": Form(("accepted_values", "fixed_value"), _accepted_values),
    "accepted_range": Form(("range",), _accepted_range),
    "tacit_accepted_range": Form(("range",), _accepted_range),
    "expression_is_true": _EXPRESSION,
    "tacit_expression_is_true": _EXPRESSION,
    "tacit_freshness_days": Form(("freshness",), _freshness_days),
    "tacit_freshness": Form(("freshness",), _freshness),
    "tacit_cadence": Form(("cadence",), _cadence),
    "tacit_completeness": Form(("completeness",), _completeness),
    "tacit_catalog_unit": Form(("catalog_unit",), _catalog_unit),
    "tacit_catalog_dimension": Form(("catalog_dimension",), _catalog_dimension),
    "tacit_catalog_bounds": Form(("catalog_bounds",), _bounds("catalog_bounds")),
    "tacit_plausible": Form(("plausible",), _bounds("plausible")),
    "relationships": Form(("references",), _relationships),
    "tacit_revision_window": Form(("revision_window",), _revision_window),
}, elsewhere={
    "column": "a column's data_type (and meta tacit_type) in an enforced model contract",
    "no_unknown_columns": "the model's config.contract.enforced",
})


def _finish(clause: Clause) -> Clause:
    """Fill a range's absent side (unbounded, inclusive flag True as in the plan)."""
    if clause.kind != "range":
        return clause
    p = clause.params_dict
    for side in ("min", "max"):
        p.setdefault(side, None)
        p.setdefault(f"{side}_inclusive", True)
    return Clause(clause.id, clause.kind, clause.columns, make_params(**p), clause.text,
                  severity=clause.severity)


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one dbt artifact (a properties YAML; the macros file has none)."""
    head = parse_header(text)
    hc, hv, hh = head if head else (None, None, None)
    if Path(path).suffix == ".sql":
        return ReadResult(
            clauses=(), findings=(), header_contract=hc, header_version=hv, header_hash=hh
        )
    r = Reader(Path(path))
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        r.finding(UNREADABLE, f"not valid YAML: {e}".replace("\n", " "))
        return ReadResult((), tuple(r.findings), hc, hv, hh)
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, list):
        r.finding(UNREADABLE, "no `models:` list")
        return ReadResult((), tuple(r.findings), hc, hv, hh)
    for m in models:
        if isinstance(m, dict):
            r.model(m)
        else:
            r.finding(UNREADABLE, f"model entry is not a mapping: {m!r}")
    return ReadResult(
        clauses=tuple(_finish(c) for c in r.clauses.values()),
        findings=tuple(r.findings),
        header_contract=hc,
        header_version=hv,
        header_hash=hh,
    )
