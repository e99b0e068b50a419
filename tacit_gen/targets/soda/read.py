"""Read SodaCL (generated or hand-written) back into clauses, from the operative parts of each check.

What each check says is recovered from what Soda executes: thresholds, `valid values`,
`valid min`/`valid max`, metric column lists, schema-check columns and types, the fail condition
of a `failed rows` check (param `sql`: the SQL that must hold, i.e. the condition without its
leading `NOT`) and the SQL of a fail query (param `sql`). Clause ids come from `identity:`, the
`-- tacit_clause:` line of a fail query, the name of a fail-condition check (`invariant:<name>`),
or are derived from the check itself (`missing_count(c)` is `not_null:c`). Params follow
`tacit_gen.targets.soda.render.project`: compare a read clause with `project(contract, plan_clause)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from tacit_gen.drift.base import (
    PARAM_CHANGED,
    SEVERITY_WEAKENED,
    UNKNOWN_CHECK,
    UNREADABLE,
    Finding,
    ReadResult,
)
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.header import parse_header
from tacit_gen.targets.kinds import Form, FormTable
from tacit_gen.targets.soda.names import CLAUSE_MARK, SCHEMA_IDENTITY, jinja_unescape
from tacit_gen.targets.soda.queries import normalize_sql, strip_parens
from tacit_gen.targets.soda.writer import Num, load_yaml

_METRIC = re.compile(
    r"^(?P<metric>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<args>.*)\))?\s*"
    r"(?:(?P<op><=|>=|!=|<>|=|<|>)\s*(?P<value>.+?))?\s*$"
)
_WHEN = re.compile(r"^\s*when\s*(?P<op><=|>=|!=|<>|=|<|>)\s*(?P<value>.+?)\s*$")
_LITERAL = re.compile(r"'((?:[^']|'')*)'")
_DURATION = re.compile(r"(\d+)\s*([dhms])")
_INVERSE = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "=": "!=", "!=": "=", "<>": "="}
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
# Types Soda's schema check treats as the same (its DuckDB SCHEMA_CHECK_TYPES_MAPPING).
_TYPE_SYNONYMS = {"character varying": "varchar", "double precision": "double"}


@dataclass
class CheckRead:
    """What one check states: clauses (partial for a min or max range check) and findings."""

    clauses: list[Clause] = field(default_factory=list)
    findings: list[tuple[str, str | None, str, str | None, str | None]] = field(
        default_factory=list
    )

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.clauses)


def unquote_ident(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] == '"':
        return t[1:-1].replace('""', '"')
    if len(t) >= 2 and t[0] == t[-1] == "`":
        return t[1:-1].replace("``", "`")
    return t


def split_args(args: str) -> list[str]:
    """Metric arguments split on commas outside double quotes, unquoted."""
    out, cur, quoted = [], "", False
    for ch in args:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [unquote_ident(a) for a in out]


def soda_type_text(value: Any) -> str | None:
    """A schema-check type as Soda compares it (stripped, lower-cased, Soda's own synonyms)."""
    if value is None:
        return None
    t = " ".join(str(value).split()).lower()
    return _TYPE_SYNONYMS.get(t, t)


def seconds(text: str) -> int | None:
    parts = _DURATION.findall(text)
    if not parts:
        return None
    return sum(int(n) * _SECONDS[u] for n, u in parts)


def _num_text(value: str) -> str:
    return str(value).strip()


def _plain(value: Any) -> Any:
    """A `valid values` entry as the plan writes it: bool, int, or str (quotes un-doubled)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, Num):
        return int(value) if re.fullmatch(r"-?\d+", value) else str(value)
    if value is None:
        return None
    return str(value).replace("''", "'")


def _pass_condition(
    op: str | None, value: str | None, cfg: dict[str, Any]
) -> tuple[str | None, str | None, bool]:
    """The pass condition (op, value) and whether it only warns (no fail threshold)."""
    if op is not None and value is not None:
        return ("=" if op == "<>" else op), value.strip(), False
    for key, warn_only in (("fail", False), ("warn", True)):
        text = cfg.get(key)
        if isinstance(text, str):
            m = _WHEN.match(text)
            if m:
                return _INVERSE[m.group("op")], m.group("value"), warn_only
    return None, None, False


def _zero(op: str | None, value: str | None) -> bool:
    """True when a count threshold tolerates no failing row."""
    if op is None or value is None:
        return False
    try:
        v = float(value)
    except ValueError:
        return False
    return (op == "=" and v == 0) or (op == "<" and v == 1) or (op == "<=" and v == 0)


class _Reader:
    def __init__(self) -> None:
        self.out = CheckRead()

    def add(self, cid: str, kind: str, cols: tuple[str, ...], text: str, **params: Any) -> None:
        self.out.clauses.append(Clause(cid, kind, cols, make_params(**params), text))

    def warns(self, cid: str) -> None:
        """The check of `cid` warns (`warn:` and no `fail:`): the clause's severity is warn,
        which `check` compares with the contract's."""
        self.out.clauses = [replace(c, severity="warn") if c.id == cid else c
                            for c in self.out.clauses]

    def finding(
        self,
        code: str,
        cid: str | None,
        msg: str,
        expected: str | None = None,
        found: str | None = None,
    ) -> None:
        self.out.findings.append((code, cid, msg, expected, found))

    def count_threshold(
        self,
        cid: str,
        op: str | None,
        value: str | None,
        cfg: dict[str, Any],
        default_zero: bool = False,
    ) -> None:
        pop, pval, warn_only = _pass_condition(op, value, cfg)
        if pop is None and default_zero:
            pop, pval = "=", "0"
        if warn_only:
            self.warns(cid)
        elif isinstance(cfg.get("warn"), str) and pop is None:
            self.finding(SEVERITY_WEAKENED, cid, "check only warns", "fail", "warn")
        if not _zero(pop, pval):
            self.finding(
                SEVERITY_WEAKENED,
                cid,
                "check tolerates failing rows",
                "= 0",
                f"{pop} {pval}" if pop else "no threshold",
            )


def _unescape(value: Any) -> Any:
    """Undo the Jinja escaping of `targets.soda.jinja_escape` (Soda renders these as Jinja)."""
    if isinstance(value, Num | bool) or value is None:
        return value
    if isinstance(value, str):
        return jinja_unescape(value)
    if isinstance(value, list):
        return [_unescape(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k == "identity" else _unescape(v) for k, v in value.items()}
    return value


def _identity(cfg: dict[str, Any]) -> str | None:
    ident = cfg.get("identity")
    return str(ident) if isinstance(ident, str | Num) else None


def _name_text(name: str, cid: str | None) -> str:
    """The contract text of a check name ``<clause id>: <text>`` (older files: the text alone)."""
    if cid:
        base = cid.split(" (")[0]
        for prefix in (f"{cid}: ", f"{base}: "):
            if name.startswith(prefix):
                return name[len(prefix):]
    return name


@dataclass(frozen=True)
class Check:
    """One SodaCL check as written: its line, parsed, and its configuration."""

    line: str
    cfg: dict[str, Any]
    name: str | None  # the `name:`, when a string
    identity: str | None
    text: str  # the contract text its name carries (else the line)
    metric: str | None = None  # `<metric>(<args>) <op> <value>`: the metric, its columns, threshold
    args: str | None = None
    cols: tuple[str, ...] = ()
    op: str | None = None
    value: str | None = None


def _form(check: Check) -> str | None:
    """The key of a check in `READ`: its line for the schema and failed-rows checks, the
    reference check, or its metric (of the columns it needs); None when it is none of those."""
    if check.line in ("schema", "failed rows"):
        return check.line
    if _REFERENCE.match(check.line) is not None:
        return REFERENCE_FORM
    if check.metric is None:
        return None
    if check.metric in _METRIC_COLUMNS:
        wanted = _METRIC_COLUMNS[check.metric]
        if len(check.cols) == wanted or (wanted == 0 and check.cols):
            return check.metric
    if check.args is None and isinstance(check.cfg.get(f"{check.metric} query"), str):
        return USER_METRIC
    return None


def read_check(line: str, cfg: Any) -> CheckRead:
    """What one SodaCL check (`line`, its nested configuration) states about the contract."""
    r = _Reader()
    line = str(line).strip()
    cfg = _unescape(cfg) if isinstance(cfg, dict) else {}
    name = cfg.get("name")
    identity = _identity(cfg)
    text = _name_text(str(name), identity) if isinstance(name, str) else line
    check = Check(line, cfg, name if isinstance(name, str) else None, identity, text)
    m = _METRIC.match(line)
    if m is not None:
        args = m.group("args")
        check = replace(check, metric=m.group("metric"), args=args, op=m.group("op"), value=m.group("value"),
                        cols=tuple(split_args(args)) if args is not None else ())
    key = _form(check)
    form = READ.get(key) if key is not None else None
    if form is None:
        r.finding(UNKNOWN_CHECK, identity, f"check '{line}' is not one the contract renders")
        return r.out
    derived = form.read(r, check)
    if derived and identity and identity != derived and identity.split(" (")[0] != derived:
        r.finding(
            PARAM_CHANGED,
            identity,
            f"identity '{identity}' but the check tests '{derived}'",
            identity,
            derived,
        )
    return r.out


# ---------------------------------------------------------------------------------------------
# one function per form: (reader, check) -> the clause id it derives, which its identity must
# name (None: nothing derived, or the form compares the identity itself)

FormReader = Callable[[_Reader, Check], "str | None"]
REFERENCE_FORM = "values in (...) must exist in"
USER_METRIC = "<metric> query"
# The metrics read as clauses, and how many columns each takes (0: one or more).
_METRIC_COLUMNS = {"missing_count": 1, "duplicate_count": 0, "invalid_count": 1, "min": 1, "max": 1,
                   "freshness": 0}


def _schema_form(r: _Reader, check: Check) -> None:
    _schema(r, check.cfg)


def _failed_rows_form(r: _Reader, check: Check) -> None:
    _failed_rows(r, check.cfg, check.name)


def _reference_form(r: _Reader, check: Check) -> None:
    ref = _REFERENCE.match(check.line)
    assert ref is not None
    _reference(r, ref, check.identity, check.text)


def _missing_count(r: _Reader, check: Check) -> str:
    derived = f"not_null:{check.cols[0]}"
    r.add(derived, "not_null", (check.cols[0],), check.text, column=check.cols[0])
    r.count_threshold(derived, check.op, check.value, check.cfg)
    return derived


def _duplicate_count(r: _Reader, check: Check) -> str:
    derived = "unique:" + ",".join(check.cols)
    r.add(derived, "unique", check.cols, check.text, columns=check.cols)
    r.count_threshold(derived, check.op, check.value, check.cfg)
    return derived


def _invalid_count_form(r: _Reader, check: Check) -> str | None:
    derived = _invalid_count(r, check.cols[0], check.cfg, check.identity, check.text)
    if derived:
        r.count_threshold(derived, check.op, check.value, check.cfg)
    return derived


def _min_max_form(r: _Reader, check: Check) -> str:
    assert check.metric is not None
    return _min_max(r, check.metric, check.cols[0], check.op, check.value, check.cfg, check.text)


def _freshness(r: _Reader, check: Check) -> str:
    derived = f"freshness:{check.cols[0]}"
    pop, pval, warn_only = _pass_condition(check.op, check.value, check.cfg)
    secs = seconds(pval) if pval else None
    if pop not in ("<", "<=") or secs is None:
        r.finding(PARAM_CHANGED, derived, f"freshness threshold '{check.line}' is not '< <duration>'")
    r.add(derived, "freshness", (check.cols[0],), check.text, column=check.cols[0], max_age_seconds=secs)
    if warn_only:
        r.warns(derived)
    return derived


def _user_metric(r: _Reader, check: Check) -> str | None:
    assert check.metric is not None
    derived = _unknown_columns(r, check.metric, check.cfg, check.identity, check.text)
    if derived:
        r.count_threshold(derived, check.op, check.value, check.cfg)
    return derived


# The kinds a `failed rows` fail query carries (its `-- tacit_clause:` line names the clause).
_FAIL_QUERY_KINDS = ("range", "references", "freshness", "cadence", "completeness", "catalog_unit",
                     "catalog_bounds", "plausible", "catalog_dimension", "revision_window", "revision_by",
                     "precision")
READ: FormTable[FormReader] = FormTable("soda", {
    "schema": Form(("column", "no_unknown_columns"), _schema_form),
    "failed rows": Form(("invariant", *_FAIL_QUERY_KINDS), _failed_rows_form),
    REFERENCE_FORM: Form(("references",), _reference_form),
    "missing_count": Form(("not_null",), _missing_count),
    "duplicate_count": Form(("unique",), _duplicate_count),
    "invalid_count": Form(("accepted_values", "fixed_value", "pattern", "range"), _invalid_count_form),
    "min": Form(("range",), _min_max_form),
    "max": Form(("range",), _min_max_form),
    "freshness": Form(("freshness",), _freshness),
    USER_METRIC: Form(("no_unknown_columns", "column"), _user_metric),
})


# `values in (c) must exist in rel (c2)`: Soda's reference check, a foreign key.
_REFERENCE = re.compile(r"^values\s+in\s*\((?P<cols>[^)]*)\)\s*must\s+(?P<neg>not\s+)?exist\s+in\s+"
                        r"(?P<rel>\S+)\s*\((?P<to>[^)]*)\)\s*$", re.I)


def _reference(r: _Reader, m: re.Match[str], identity: str | None, text: str) -> None:
    cols, to = split_args(m.group("cols")), split_args(m.group("to"))
    if len(cols) != 1 or len(to) != 1 or m.group("neg"):
        r.finding(UNKNOWN_CHECK, identity, f"reference check '{m.group(0)}' is not one the contract "
                  "renders (one column that must exist)")
        return
    derived = f"references:{cols[0]}"
    r.add(derived, "references", (cols[0],), text, column=cols[0],
          to_relation=unquote_ident(m.group("rel")), to_column=to[0])
    if identity and identity != derived:
        r.finding(PARAM_CHANGED, identity, f"identity '{identity}' but the check tests '{derived}'",
                  identity, derived)


def _invalid_count(
    r: _Reader, col: str, cfg: dict[str, Any], identity: str | None, text: str
) -> str | None:
    values = cfg.get("valid values")
    lo, hi = cfg.get("valid min"), cfg.get("valid max")
    kind_hint = (identity or "").split(":")[0]
    regex = cfg.get("valid regex")
    if isinstance(regex, str):
        from tacit_gen.sql.pattern import body_of

        cid = f"pattern:{col}"
        r.add(cid, "pattern", (col,), text, column=col,
              pattern=body_of(regex.replace("\\\\", "\\")) or regex)
        return cid
    if isinstance(values, list):
        plain = [_plain(v) for v in values]
        if kind_hint == "fixed_value" or (kind_hint != "accepted_values" and len(plain) == 1):
            cid = f"fixed_value:{col}"
            r.add(
                cid,
                "fixed_value",
                (col,),
                text,
                column=col,
                value=plain[0] if len(plain) == 1 else tuple(plain),
            )
            return cid
        cid = f"accepted_values:{col}"
        r.add(cid, "accepted_values", (col,), text, column=col, values=tuple(str(v) for v in plain))
        return cid
    if lo is not None or hi is not None:
        cid = f"range:{col}"
        r.add(
            cid,
            "range",
            (col,),
            text,
            column=col,
            min=_num_text(lo) if lo is not None else None,
            max=_num_text(hi) if hi is not None else None,
            min_inclusive=True,
            max_inclusive=True,
        )
        return cid
    r.finding(UNKNOWN_CHECK, identity, f"invalid_count({col}) without valid values or bounds")
    return None


def _min_max(
    r: _Reader,
    metric: str,
    col: str,
    op: str | None,
    value: str | None,
    cfg: dict[str, Any],
    text: str,
) -> str:
    cid = f"range:{col}"
    pop, pval, warn_only = _pass_condition(op, value, cfg)
    ok_ops = (">=", ">") if metric == "min" else ("<=", "<")
    if pop not in ok_ops or pval is None:
        r.finding(PARAM_CHANGED, cid, f"{metric}({col}) threshold '{pop} {pval}' is not a bound")
        return cid
    if metric == "min":
        r.add(
            cid,
            "range",
            (col,),
            text,
            column=col,
            min=pval,
            max=None,
            min_inclusive=pop == ">=",
            max_inclusive=True,
        )
    else:
        r.add(
            cid,
            "range",
            (col,),
            text,
            column=col,
            min=None,
            max=pval,
            min_inclusive=True,
            max_inclusive=pop == "<=",
        )
    if warn_only:
        r.warns(cid)
    return cid


def _unknown_columns(
    r: _Reader, metric: str, cfg: dict[str, Any], identity: str | None, text: str
) -> str | None:
    query = str(cfg.get(f"{metric} query"))
    if (metric.startswith("decimal_type_mismatch_") and identity and identity.startswith("column:")
            and "information_schema.columns" in query.lower()):
        # a decimal's precision and scale where the schema check cannot see them (PostgreSQL)
        col = identity.split(":", 1)[1]
        r.add(identity, "column", (col,), "", column=col, soda_type="numeric")
        return identity
    if identity != "no_unknown_columns" and "information_schema.columns" not in query.lower():
        r.finding(
            UNKNOWN_CHECK, identity, f"user-defined metric '{metric}' is not a contract clause"
        )
        return None
    m = re.search(r"NOT\s+IN\s*\((.*?)\)\s*$", query, re.I | re.S)
    cols = tuple(v.replace("''", "'") for v in _LITERAL.findall(m.group(1))) if m else ()
    r.add("no_unknown_columns", "no_unknown_columns", cols, text, columns=cols)
    return "no_unknown_columns"


def _schema(r: _Reader, cfg: dict[str, Any]) -> None:
    identity = _identity(cfg)
    if identity and identity != SCHEMA_IDENTITY:
        r.finding(
            PARAM_CHANGED,
            identity,
            f"schema check identity '{identity}'",
            SCHEMA_IDENTITY,
            identity,
        )
    types: dict[str, str | None] = {}
    order: list[str] = []
    severity: dict[str, str] = {}
    exact: list[str] | None = None
    for level in ("fail", "warn"):
        section = cfg.get(level)
        if not isinstance(section, dict):
            continue
        for key, value in section.items():
            if key == "when required column missing" and isinstance(value, list):
                cols = [str(v) for v in value]
                typed: dict[str, Any] = {}
            elif key in ("when wrong column type", "when mismatching columns") and isinstance(
                value, dict
            ):
                cols, typed = [str(k) for k in value], {str(k): v for k, v in value.items()}
                if key == "when mismatching columns":
                    exact = cols
            else:
                r.finding(
                    UNKNOWN_CHECK, None, f"schema validation '{key}' is not a contract clause"
                )
                continue
            for c in cols:
                if c not in order:
                    order.append(c)
                if c in typed:
                    types[c] = soda_type_text(typed[c])
                severity.setdefault(c, level)
                if level == "fail":
                    severity[c] = "fail"
    for c in order:
        cid = f"column:{c}"
        r.add(cid, "column", (c,), "", column=c, soda_type=types.get(c))
        if severity.get(c) == "warn":
            r.finding(
                SEVERITY_WEAKENED, cid, "schema check only warns on this column", "fail", "warn"
            )
    if exact is not None:
        r.add(
            "no_unknown_columns",
            "no_unknown_columns",
            tuple(exact),
            str(cfg.get("name", "schema")),
            columns=tuple(exact),
        )


def _failed_rows(r: _Reader, cfg: dict[str, Any], name: str | None) -> None:
    from tacit_gen.targets.soda.since import strip_condition, unwrap_query

    cond, query = cfg.get("fail condition"), cfg.get("fail query")
    cond = strip_condition(cond) if isinstance(cond, str) else cond  # the increment's part
    query = unwrap_query(query) if isinstance(query, str) else query
    if isinstance(cond, str):
        c = " ".join(cond.split())
        m = re.match(r"^NOT\s*(\(.*\))$", c, re.I | re.S)
        sql = strip_parens(m.group(1)) if m and _balanced_group(m.group(1)) else f"NOT ({c})"
        if name is not None and name.startswith("invariant:"):
            cid = name  # the name is the clause id
        else:  # older files: the name is the invariant's text
            cid = "invariant:" + (name if name is not None else c)
        r.add(cid, "invariant", (), cid.removeprefix("invariant:"), sql=normalize_sql(sql))
        r.count_threshold(cid, None, None, cfg, default_zero=True)
        return
    if isinstance(query, str):
        mark = clause_mark(query)
        if mark is None:
            r.finding(
                UNKNOWN_CHECK,
                None,
                f"failed rows query '{name or ''}' has no '{CLAUSE_MARK.strip()}' line",
            )
            return
        cid = mark
        kind = cid.split(":")[0]
        text = _name_text(name, cid) if name is not None else "failed rows"
        r.add(cid, kind, (), text, sql=normalize_sql(query))
        r.count_threshold(cid, None, None, cfg, default_zero=True)
        return
    r.finding(UNKNOWN_CHECK, None, "failed rows check without fail condition or fail query")


def _balanced_group(text: str) -> bool:
    from tacit_gen.targets.soda.queries import wrapped

    return wrapped(text)


def clause_mark(query: str) -> str | None:
    for ln in query.splitlines():
        s = ln.strip()
        if s.startswith(CLAUSE_MARK.strip()):
            return s[len(CLAUSE_MARK.strip()) :].strip() or None
    return None


def check_items(doc: Any) -> list[tuple[str, str, Any]]:
    """(section header, check line, configuration) for every check of a SodaCL document."""
    out: list[tuple[str, str, Any]] = []
    if not isinstance(doc, dict):
        return out
    for header, items in doc.items():
        if not str(header).startswith("checks for ") or not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, str):
                out.append((str(header), item, None))
            elif isinstance(item, dict) and len(item) == 1:
                ((line, cfg),) = item.items()
                out.append((str(header), str(line), cfg))
    return out


def _merge(a: Clause, b: Clause) -> Clause:
    """Fold a `max` range check into a `min` one (or the other way round)."""
    if a.kind != "range" or b.kind != "range":
        return a
    pa, pb = a.params_dict, b.params_dict
    merged = dict(pa)
    for side in ("min", "max"):
        if pa.get(side) is None and pb.get(side) is not None:
            merged[side] = pb[side]
            merged[f"{side}_inclusive"] = pb[f"{side}_inclusive"]
    return Clause(a.id, a.kind, a.columns, make_params(**merged), a.text,
                  severity="warn" if "warn" in (a.severity, b.severity) else "error")


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings read back from one SodaCL file."""
    p = str(path)
    head = parse_header(text)
    hc, hv, hh = head if head else (None, None, None)
    try:
        doc = load_yaml(text)
    except yaml.YAMLError as e:
        return ReadResult((), (Finding(UNREADABLE, p, f"not valid YAML: {e}"),), hc, hv, hh)
    items = check_items(doc)
    if not items:
        return ReadResult(
            (),
            (Finding(UNREADABLE, p, "no 'checks for <dataset>' section with checks"),),
            hc,
            hv,
            hh,
        )
    clauses: dict[str, Clause] = {}
    findings: list[Finding] = []
    for _header, line, cfg in items:
        cr = read_check(line, cfg)
        for c in cr.clauses:
            clauses[c.id] = _merge(clauses[c.id], c) if c.id in clauses else c
        for code, cid, msg, exp, found in cr.findings:
            findings.append(Finding(code, p, msg, cid, exp, found))
    return ReadResult(tuple(clauses.values()), tuple(findings), hc, hv, hh)
