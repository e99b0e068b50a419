"""Read a GX 1.x suite JSON back into clauses (semantic drift), without importing GX.

Clauses are recovered from the operative parts (expectation types and kwargs). Expectations
carrying ``meta.tacit_clause`` are grouped by it; others (a hand-written suite) get a clause id
inferred from their type and kwargs. Invariants and custom-SQL clauses are checked by rendering
the clause again from its id (invariants) or ``meta.tacit_params`` and comparing the kwargs: an
edit shows as a changed ``expr`` param or a D202 finding.

Reader findings: D204 for an expectation type GX does not know (GX drops those silently when it
loads a suite), D203 for ``mostly`` < 1 or a severity other than ``critical``, D205 when the JSON
does not parse or is not a suite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.plan_types import KINDS, Clause, make_params
from tacit_gen.sql import dialects as sql_dialects
from tacit_gen.targets.base import float_text
from tacit_gen.targets.gx.queries import gx_unquery
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from pathlib import Path

    from tacit_gen.expr import nodes as n

# Every expectation type registered by great-expectations 1.24 (sorted). Generated once from
# `great_expectations.expectations.registry._registered_expectations`; a test checks it against
# the installed GX, so reading a suite never has to import GX (11 s).
KNOWN_TYPES: frozenset[str] = frozenset((
    "expect_column_distinct_values_to_be_in_set",
    "expect_column_distinct_values_to_contain_set",
    "expect_column_distinct_values_to_equal_set",
    "expect_column_kl_divergence_to_be_less_than",
    "expect_column_max_to_be_between",
    "expect_column_mean_to_be_between",
    "expect_column_median_to_be_between",
    "expect_column_min_to_be_between",
    "expect_column_most_common_value_to_be_in_set",
    "expect_column_pair_values_a_to_be_greater_than_b",
    "expect_column_pair_values_to_be_equal",
    "expect_column_pair_values_to_be_in_set",
    "expect_column_proportion_of_non_null_values_to_be_between",
    "expect_column_proportion_of_unique_values_to_be_between",
    "expect_column_quantile_values_to_be_between",
    "expect_column_stdev_to_be_between",
    "expect_column_sum_to_be_between",
    "expect_column_to_exist",
    "expect_column_type_to_be",
    "expect_column_unique_value_count_to_be_between",
    "expect_column_value_lengths_to_be_between",
    "expect_column_value_lengths_to_equal",
    "expect_column_value_z_scores_to_be_less_than",
    "expect_column_values_to_be_between",
    "expect_column_values_to_be_dateutil_parseable",
    "expect_column_values_to_be_decreasing",
    "expect_column_values_to_be_in_set",
    "expect_column_values_to_be_in_type_list",
    "expect_column_values_to_be_increasing",
    "expect_column_values_to_be_json_parseable",
    "expect_column_values_to_be_null",
    "expect_column_values_to_be_of_type",
    "expect_column_values_to_be_unique",
    "expect_column_values_to_match_json_schema",
    "expect_column_values_to_match_like_pattern",
    "expect_column_values_to_match_like_pattern_list",
    "expect_column_values_to_match_regex",
    "expect_column_values_to_match_regex_list",
    "expect_column_values_to_match_strftime_format",
    "expect_column_values_to_not_be_in_set",
    "expect_column_values_to_not_be_null",
    "expect_column_values_to_not_be_outliers",
    "expect_column_values_to_not_match_like_pattern",
    "expect_column_values_to_not_match_like_pattern_list",
    "expect_column_values_to_not_match_regex",
    "expect_column_values_to_not_match_regex_list",
    "expect_compound_columns_to_be_unique",
    "expect_multicolumn_sum_to_equal",
    "expect_multicolumn_values_to_be_equal",
    "expect_query_results_to_match_comparison",
    "expect_select_column_values_to_be_unique_within_record",
    "expect_table_column_count_to_be_between",
    "expect_table_column_count_to_equal",
    "expect_table_columns_to_match_ordered_list",
    "expect_table_columns_to_match_set",
    "expect_table_row_count_to_be_between",
    "expect_table_row_count_to_equal",
    "expect_table_row_count_to_equal_other_table",
    "unexpected_rows_expectation",
))

_INVARIANT_SQL = re.compile(r"^SELECT \* FROM \{batch\}(?: AS b)? WHERE NOT \((?P<sql>.*)\)$", re.S)
_FRESHNESS = re.compile(
    r"max\((?P<col>.+?)\) AS latest FROM \{batch\}.* INTERVAL '(?P<secs>\d+)(?:' SECOND| SECOND')$",
    re.S | re.I
)
# a date column's freshness: whole days before the UTC date of now
_FRESHNESS_DAYS = re.compile(
    r"max\((?P<col>.+?)\) AS latest FROM \{batch\}.* INTERVAL '(?P<days>\d+)(?:' DAY| DAY')$",
    re.S | re.I
)


def _kind_of(cid: str) -> str:
    if cid == "no_unknown_columns" or cid == "revision_window":
        return cid
    return cid.split(":", 1)[0]


def _infer_id(e: dict[str, Any]) -> str:
    """A clause id for an expectation without meta.tacit_clause (hand-written suites)."""
    t, kw = e.get("type"), e.get("kwargs") or {}
    col = kw.get("column")
    if t == "expect_column_values_to_not_be_null" and not kw.get("row_condition"):
        return f"not_null:{col}"
    if t == "expect_compound_columns_to_be_unique":
        return "unique:" + ",".join(map(str, kw.get("column_list") or []))
    if t == "expect_column_values_to_be_unique":
        return f"unique:{col}"
    if t == "expect_column_values_to_be_in_set":
        vs = kw.get("value_set") or []
        return f"{'fixed_value' if len(vs) == 1 else 'accepted_values'}:{col}"
    if t == "expect_column_values_to_be_between":
        return f"range:{col}"
    if t == "expect_table_columns_to_match_set":
        return "no_unknown_columns"
    if t in ("expect_column_values_to_be_in_type_list", "expect_column_values_to_be_of_type",
             "expect_column_to_exist"):
        return f"column:{col}"
    if t == "expect_column_pair_values_a_to_be_greater_than_b":
        op = "<=" if kw.get("or_equal") else "<"
        return f"invariant:{kw.get('column_B')} {op} {kw.get('column_A')}"
    if t == "expect_column_pair_values_to_be_equal":
        return f"invariant:{kw.get('column_A')} = {kw.get('column_B')}"
    return f"gx:{t}" + (f":{col}" if col else "")


def _strip(kw: dict[str, Any]) -> dict[str, Any]:
    """Kwargs that decide the verdict, without GX's run options (reported separately)."""
    return {k: v for k, v in kw.items() if k not in ("mostly", "result_format", "catch_exceptions")}


def _resolve(node: n.Node, columns: set[str]) -> n.Node:
    """Names of the parsed invariant -> Column when a suite column, else EnumLiteral."""
    from tacit_gen.expr import nodes as nn

    def leaf(x: nn.Node) -> nn.Node | None:
        if not isinstance(x, nn.Name):
            return None
        if x.name in columns:
            return nn.Column(x.name, offset=x.offset)
        return nn.EnumLiteral(x.name, offset=x.offset)

    return nn.rebuild(node, leaf)


def _expected(clause: Clause, has_revision: bool, dialect: str = "duckdb") -> list[dict[str, Any]] | None:
    from tacit_gen.targets.gx.compile import expectations_for
    from tacit_gen.targets.gx.invariants import NoNative

    try:
        return [{"type": e["type"], "kwargs": e["kwargs"]}
                for e in expectations_for(clause, has_revision, dialect)]
    except (ValueError, NoNative):
        return None


def _same(found: list[dict[str, Any]], want: list[dict[str, Any]]) -> bool:
    def norm(es: list[dict[str, Any]]) -> list[str]:
        return sorted(json.dumps({"type": e.get("type"), "kwargs": _strip(e.get("kwargs") or {})},
                                 sort_keys=True) for e in es)

    return norm(found) == norm(want)


def _describe(es: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{e.get('type')} {json.dumps(_strip(e.get('kwargs') or {}), sort_keys=True)}" for e in es
    )


def read(path: Path, text: str) -> ReadResult:
    """Clauses and findings of one suite JSON."""
    from tacit_gen.targets.gx.compile import SEVERITY, WARN_SEVERITY

    where = str(path)
    try:
        doc = json.loads(text)
    except ValueError as err:
        return ReadResult((), (Finding(d.UNREADABLE, where, f"not JSON: {err}"),))
    if not isinstance(doc, dict) or not isinstance(doc.get("expectations"), list):
        return ReadResult((), (Finding(d.UNREADABLE, where, "not a GX suite: no 'expectations' list"),))

    findings: list[Finding] = []
    meta: dict[str, Any] = doc["meta"] if isinstance(doc.get("meta"), dict) else {}
    header: dict[str, Any] = meta["tacit_gen"] if isinstance(meta.get("tacit_gen"), dict) else {}
    dialect = str(meta.get("tacit_dialect") or "duckdb")
    if dialect not in sql_dialects.DIALECTS:
        findings_pre = [Finding(d.UNREADABLE, where, f"meta.tacit_dialect {dialect!r} is not a dialect")]
        return ReadResult((), tuple(findings_pre))

    groups: dict[str, list[dict[str, Any]]] = {}
    warned: set[str] = set()
    # what the suite says once per clause (its text, a custom-SQL clause's params)
    texts: dict[str, str] = {k: v for k, v in _mapping(meta, "tacit_clauses").items()
                             if isinstance(v, str)}
    shared_params = _mapping(meta, "tacit_params")
    columns: set[str] = set()
    for i, e in enumerate(doc["expectations"]):
        if not isinstance(e, dict) or not isinstance(e.get("type"), str):
            findings.append(Finding(d.UNREADABLE, where, f"expectation {i} has no type"))
            continue
        etype = e["type"]
        emeta: dict[str, Any] = e["meta"] if isinstance(e.get("meta"), dict) else {}
        kw: dict[str, Any] = e["kwargs"] if isinstance(e.get("kwargs"), dict) else {}
        cid: str = emeta["tacit_clause"] if isinstance(emeta.get("tacit_clause"), str) else _infer_id(e)
        if isinstance(shared_params.get(cid), dict) and "tacit_params" not in emeta:
            emeta = {**emeta, "tacit_params": shared_params[cid]}
        if etype not in KNOWN_TYPES:
            findings.append(Finding(
                d.UNKNOWN_CHECK, where,
                f"expectation type '{etype}' is unknown to GX 1.24: GX drops it silently, nothing is checked",
                clause_id=cid, found=etype))
            continue
        mostly = kw.get("mostly")
        if isinstance(mostly, int | float) and not isinstance(mostly, bool) and mostly < 1:
            findings.append(Finding(d.SEVERITY_WEAKENED, where,
                                    f"{etype} has mostly: {mostly}: violating rows may pass",
                                    clause_id=cid, expected="1", found=str(mostly)))
        sev = e.get("severity")
        if sev is not None and sev not in (SEVERITY, WARN_SEVERITY):
            findings.append(Finding(d.SEVERITY_WEAKENED, where,
                                    f"{etype} has severity {sev!r}, the render says {SEVERITY!r}",
                                    clause_id=cid, expected=SEVERITY, found=str(sev)))
        if sev == WARN_SEVERITY:  # the clause's severity, compared with the contract's by `check`
            warned.add(cid)
        groups.setdefault(cid, []).append({"type": etype, "kwargs": kw, "meta": emeta})
        if isinstance(emeta.get("tacit_text"), str):
            texts.setdefault(cid, emeta["tacit_text"])
        if etype == "expect_table_columns_to_match_set":
            columns.update(c for c in kw.get("column_set") or [] if isinstance(c, str))
        for key in ("column", "column_A", "column_B"):
            if isinstance(kw.get(key), str):
                columns.add(kw[key])
        for c in kw.get("column_list") or []:
            if isinstance(c, str):
                columns.add(c)

    # enum values for `column:` of enum type come from the column's accepted values
    enum_values: dict[str, tuple[str, ...]] = {}
    for cid, es in groups.items():
        if cid.startswith("accepted_values:"):
            for ex in es:
                if ex["type"] == "expect_column_values_to_be_in_set":
                    enum_values[str(ex["kwargs"].get("column"))] = tuple(
                        str(v) for v in ex["kwargs"].get("value_set") or [])

    suite = _Suite(where, dialect, "revision" in columns, columns, enum_values, findings)
    clauses: list[Clause] = []
    for cid, es in groups.items():
        kind = _kind_of(cid)
        group = _Group(cid, kind, es, {e["type"]: e["kwargs"] for e in es})
        rule = READ.get(kind)
        params, cols = rule(suite, group) if rule is not None else ({"gx": _describe(es)}, ())
        clauses.append(Clause(cid, kind if kind in KINDS else "invariant", cols,
                              make_params(**params), texts.get(cid, ""),
                              severity="warn" if cid in warned else "error"))
    return ReadResult(
        tuple(clauses), tuple(findings),
        header_contract=header.get("contract"), header_version=header.get("version"),
        header_hash=header.get("sha256"),
    )


def _mapping(meta: dict[str, Any], key: str) -> dict[str, Any]:
    value = meta.get(key)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class _Suite:
    """What reading one clause's expectations needs from the whole suite."""

    where: str
    dialect: str
    has_revision: bool
    columns: set[str]
    enum_values: dict[str, tuple[str, ...]]  # an enum column's values, from its accepted values
    findings: list[Finding]

    def rerender(self, group: _Group) -> None:
        _check_rerender(group.cid, group.es, self.has_revision, self.where, self.findings, self.dialect)


@dataclass(frozen=True)
class _Group:
    """The expectations of one clause id (its `by_type`: expectation type -> kwargs)."""

    cid: str
    kind: str
    es: list[dict[str, Any]]
    by_type: dict[str, dict[str, Any]]

    def tacit_params(self) -> dict[str, Any] | None:
        return next((e["meta"].get("tacit_params") for e in self.es
                     if isinstance(e["meta"].get("tacit_params"), dict)), None)


# ---------------------------------------------------------------------------------------------
# one function per kind: (suite, the clause's expectations) -> (params, columns)

Read = tuple[dict[str, Any], tuple[str, ...]]
Reader = Callable[[_Suite, _Group], Read]


def _column(suite: _Suite, g: _Group) -> Read:
    from tacit_gen.targets.gx.compile import type_from_list
    from tacit_gen.targets.gx.queries import CUSTOM_SQL, decimal_from_query, is_timestamp_tz_query

    col = g.cid.split(":", 1)[1]
    tkw: dict[str, Any] | None = g.by_type.get("expect_column_values_to_be_in_type_list")
    params: dict[str, Any] = {"column": col}
    if tkw is not None:
        tl = tkw.get("type_list")
        meta_type = next((e["meta"].get("tacit_type") for e in g.es
                          if e["type"] == "expect_column_values_to_be_in_type_list"), None)
        t = type_from_list(tl, suite.enum_values.get(col), meta_type if isinstance(meta_type, str) else None)
        if t is not None and t.startswith("decimal") and suite.dialect == "duckdb":
            # precision and scale come from the operative SQL check, not from meta
            q = gx_unquery(str(g.by_type.get(CUSTOM_SQL, {}).get("unexpected_rows_query") or ""))
            t = decimal_from_query(q) or "decimal (precision and scale unchecked)"
        elif t is not None and t.startswith("timestamp_") and suite.dialect == "duckdb":
            # the type list admits a naive TIMESTAMP on SQL: the custom SQL is what checks the zone
            q = gx_unquery(str(g.by_type.get(CUSTOM_SQL, {}).get("unexpected_rows_query") or ""))
            if not is_timestamp_tz_query(q):
                t += " (time zone unchecked)"
        params["type"] = t if t is not None else "gx type_list " + json.dumps(tl)
    elif "expect_column_values_to_be_of_type" in g.by_type:
        params["type"] = "gx type " + str(g.by_type["expect_column_values_to_be_of_type"].get("type_"))
    else:
        params["type"] = None
    if "expect_column_to_exist" not in g.by_type:
        suite.findings.append(Finding(d.PARAM_CHANGED, suite.where, f"{g.cid}: expect_column_to_exist was removed",
                                      clause_id=g.cid, expected="expect_column_to_exist", found="none"))
    return params, (col,)


def _no_unknown_columns(suite: _Suite, g: _Group) -> Read:
    kw = g.by_type.get("expect_table_columns_to_match_set", {})
    columns = tuple(kw.get("column_set") or ())
    if kw.get("exact_match") is not True:
        suite.findings.append(Finding(d.SEVERITY_WEAKENED, suite.where,
                                      f"{g.cid}: exact_match is {kw.get('exact_match')!r}: unknown columns pass",
                                      clause_id=g.cid, expected="true", found=str(kw.get("exact_match"))))
    return {"columns": columns}, columns


def _not_null(suite: _Suite, g: _Group) -> Read:
    kw = g.by_type.get("expect_column_values_to_not_be_null", {})
    params: dict[str, Any] = {"column": kw.get("column")}
    if kw.get("row_condition"):
        params["row_condition"] = json.dumps(kw["row_condition"], sort_keys=True)
    return params, (str(kw.get("column")),)


def _unique(suite: _Suite, g: _Group) -> Read:
    if "expect_compound_columns_to_be_unique" in g.by_type:
        # any ignore_row_if: rows with a NULL in the key differ only while not_null fails
        columns = tuple(g.by_type["expect_compound_columns_to_be_unique"].get("column_list") or ())
    else:
        columns = (g.by_type.get("expect_column_values_to_be_unique", {}).get("column"),)
    return {"columns": columns}, tuple(map(str, columns))


def _accepted_values(suite: _Suite, g: _Group) -> Read:
    kw = g.by_type.get("expect_column_values_to_be_in_set", {})
    return {"column": kw.get("column"), "values": tuple(kw.get("value_set") or ())}, (str(kw.get("column")),)


def _fixed_value(suite: _Suite, g: _Group) -> Read:
    kw = g.by_type.get("expect_column_values_to_be_in_set", {})
    vs = list(kw.get("value_set") or [])
    value = (float_text(vs[0]) if isinstance(vs[0], float) else vs[0]) if len(vs) == 1 else tuple(vs)
    return {"column": kw.get("column"), "value": value}, (str(kw.get("column")),)


def _range(suite: _Suite, g: _Group) -> Read:
    from tacit_gen.targets.gx.numbers import number_text
    from tacit_gen.targets.gx.queries import CUSTOM_SQL

    if CUSTOM_SQL in g.by_type:  # a bound GX's floats would move
        tp = g.tacit_params()
        if tp is None:
            return {"gx": _describe(g.es)}, ()
        suite.rerender(g)
        return dict(tp), (str(tp.get("column")),)
    kw = g.by_type.get("expect_column_values_to_be_between", {})
    return {"column": kw.get("column"), "min": number_text(kw.get("min_value")),
            "max": number_text(kw.get("max_value")),
            "min_inclusive": not bool(kw.get("strict_min", False)),
            "max_inclusive": not bool(kw.get("strict_max", False))}, (str(kw.get("column")),)


def _pattern(suite: _Suite, g: _Group) -> Read:
    from tacit_gen.sql.pattern import body_of

    kw = g.by_type.get("expect_column_values_to_match_regex", {})
    return ({"column": kw.get("column"), "pattern": body_of(str(kw.get("regex"))) or kw.get("regex")},
            (str(kw.get("column")),))


def _invariant(suite: _Suite, g: _Group) -> Read:
    return _read_invariant(g.cid, g.es, suite.columns, suite.has_revision, suite.dialect), ()


def _freshness(suite: _Suite, g: _Group) -> Read:
    from tacit_gen.targets.gx.queries import CUSTOM_SQL

    if CUSTOM_SQL not in g.by_type:
        return _custom(suite, g)
    params: dict[str, Any] = {}
    q = gx_unquery(str(g.by_type[CUSTOM_SQL].get("unexpected_rows_query") or ""))
    m = _FRESHNESS.search(q)
    days = _FRESHNESS_DAYS.search(q) if m is None else None
    if days is not None:
        params["column"] = days.group("col").strip('"')
        params["max_age_seconds"] = int(days.group("days")) * 86400
        params["whole_days"] = True
    else:
        params["column"] = m.group("col").strip('"') if m else None
        params["max_age_seconds"] = int(m.group("secs")) if m else None
    suite.rerender(g)
    return params, ()


def _custom(suite: _Suite, g: _Group) -> Read:
    """A clause checked by custom SQL: its params from meta.tacit_params, the query rendered
    again from them (an edit is a finding); a revision window that allows no revision is the
    `revision` column's accepted value 0."""
    tp = g.tacit_params()
    if g.kind == "revision_window" and "expect_column_values_to_be_in_set" in g.by_type:
        kw = g.by_type["expect_column_values_to_be_in_set"]
        return {"column": kw.get("column"), "allowed": kw.get("value_set") != [0]}, ()
    if tp is None:
        return {"gx": _describe(g.es)}, ()
    suite.rerender(g)
    return {k: tuple(v) if isinstance(v, list) else v for k, v in tp.items()}, ()


READ: KindTable[Reader] = KindTable("gx", "read", {
    "column": _column,
    "no_unknown_columns": _no_unknown_columns,
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _accepted_values,
    "fixed_value": _fixed_value,
    "pattern": _pattern,
    "references": _custom,
    "range": _range,
    "invariant": _invariant,
    "precision": _custom,
    "freshness": _freshness,
    "cadence": _custom,
    "completeness": _custom,
    "catalog_unit": _custom,
    "catalog_bounds": _custom,
    "plausible": _custom,
    "catalog_dimension": _custom,
    "revision_window": _custom,
    "revision_by": _custom,
})


def _check_rerender(cid: str, es: list[dict[str, Any]], has_revision: bool, where: str,
                    findings: list[Finding], dialect: str = "duckdb") -> None:
    """Render the clause again from meta.tacit_params; a different query is a hand edit."""
    tp = next((e["meta"].get("tacit_params") for e in es if isinstance(e["meta"].get("tacit_params"), dict)), None)
    if tp is None:
        return
    clause = Clause(cid, _kind_of(cid), (), make_params(**tp), "", types=_types(es))
    want = _expected(clause, has_revision, dialect)
    if want is not None and not _same(es, want):
        findings.append(Finding(d.PARAM_CHANGED, where, f"{cid}: the expectation was edited",
                                clause_id=cid, expected=_describe(want), found=_describe(es)))


def _types(es: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The column types a custom-SQL range or invariant carries in ``meta.tacit_types`` (the
    render chose custom SQL because GX's float bounds would move the verdict for them)."""
    found: dict[str, Any] = next(
        (e["meta"]["tacit_types"] for e in es if isinstance(e["meta"].get("tacit_types"), dict)), {})
    return tuple((str(k), str(v)) for k, v in found.items())


def _read_invariant(cid: str, es: list[dict[str, Any]], columns: set[str],
                    has_revision: bool, dialect: str = "duckdb") -> dict[str, Any]:
    """`expr` (canonical text when the expectations are what the text renders to) and `sql`."""
    from tacit_gen.expr.parser import parse
    from tacit_gen.expr.printer import to_text
    from tacit_gen.targets.gx.queries import CUSTOM_SQL

    out: dict[str, Any] = {}
    for e in es:
        if e["type"] == CUSTOM_SQL:
            m = _INVARIANT_SQL.match(gx_unquery(str(e["kwargs"].get("unexpected_rows_query") or "")))
            if m:
                out["sql"] = m.group("sql")
    text = cid.split(":", 1)[1]
    try:
        expr = _resolve(parse(text), columns)
    except ValueError:
        out["expr"] = "gx: " + _describe(es)
        return out
    clause = Clause(cid, "invariant", (), make_params(expr=to_text(expr)), text, expr=expr, types=_types(es))
    want = _expected(clause, has_revision, dialect)
    out["expr"] = to_text(expr) if want is not None and _same(es, want) else "gx: " + _describe(es)
    return out
