"""Read a generated pandera module back into clauses, with `ast` only (never imported or run).

What is read is the operative code: the ``pa.DataFrameSchema(...)`` call returned by
``schema()`` (column dtypes, ``nullable``, check builtins and their arguments, ``unique``,
``strict``) and the compiled invariant lambdas, decompiled into the expression AST and printed
canonically: the ``expr`` param of an invariant is re-derived from the code that runs, not from the
embedded error text. ``raise_warning=True`` is the clause's severity (warn). Weakenings the plan
cannot show (``strict=False``,
``coerce=True``, unnamed or unknown checks) become findings.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tacit_gen.drift import base as d
from tacit_gen.drift.base import Finding, ReadResult
from tacit_gen.expr import nodes as n
from tacit_gen.expr.printer import to_text
from tacit_gen.plan_types import Clause, make_params
from tacit_gen.targets.header import parse_header
from tacit_gen.targets.kinds import Form, FormTable

# pyarrow constructor name -> contract type (the inverse of targets.pandera.ARROW_TYPES).
ARROW_NAMES = {
    "string": "string",
    "bool_": "bool",
    "int32": "int32",
    "int64": "int64",
    "float32": "float32",
    "float64": "float64",
    "date32": "date",
}
RANGE_BUILTINS = ("in_range", "ge", "gt", "le", "lt")
# Dataframe checks of `tacit_gen.pandera_checks` -> the clause kind each is read back as.
TIME_HELPERS = {
    "freshness_check": "freshness",
    "cadence_check": "cadence",
    "catalog_unit_check": "catalog_unit",
    "catalog_bounds_check": "catalog_bounds",
    "catalog_dimension_check": "catalog_dimension",
    "completeness_check": "completeness",
    "revision_window_check": "revision_window",
    "session_cadence_check": "cadence",
    "session_window_check": "revision_window",
    "session_completeness_check": "completeness",
    "revision_by_check": "revision_by",
    "references_check": "references",
    "precision_check": "precision",
}
# Keyword arguments of the time helpers that are runtime inputs, not clause params.
RUNTIME_ARGS = ("name", "error", "now", "catalog", "revision_column", "frame", "outages", "refs")
_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_BOOL = {"and_": n.And, "or_": n.Or, "only_when": n.OnlyWhen}


_DUPLICATED = re.compile(r"~df\.duplicated\(subset=(\[[^]]*\]), keep=False\)(?: \| "
                         r"df\[(\[[^]]*\])\]\.isna\(\)\.any\(axis=1\))?")


def _lambda_text(check: ast.Call) -> str:
    body = check.args[0] if check.args else _kw(check, "check_fn")
    return ast.unparse(body) if isinstance(body, ast.Lambda) else ""


class _Unreadable(ValueError):
    """A part of the module that is not in the shape the renderer writes."""


def _func_name(node: ast.expr) -> str:
    """Dotted name of a call target: ``pa.Check.isin`` -> 'pa.Check.isin'."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_func_name(node.value)}.{node.attr}"
    return ""


def _kw(call: ast.Call, key: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == key:
            return k.value
    return None


def _const(node: ast.expr | None, default: Any = None) -> Any:
    """A literal value; ``Decimal('x')`` as its text 'x'; ``-5`` as -5."""
    if node is None:
        return default
    if isinstance(node, ast.Call) and _func_name(node.func) == "Decimal" and node.args:
        return str(ast.literal_eval(node.args[0]))
    try:
        return ast.literal_eval(node)
    except ValueError as e:
        raise _Unreadable(f"not a literal: {ast.unparse(node)}") from e


def _number_text(node: ast.expr | None) -> str | None:
    value = _const(node)
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


# -- decompiling invariant code into the expression AST --------------------------------------
def decompile(node: ast.expr) -> n.Node:
    """The expression AST of a compiled invariant body (see `targets.pandera.compile_expr`)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return n.Bool(node.value)
        if isinstance(node.value, int):
            return n.Number(str(node.value))
        if isinstance(node.value, str):
            return n.String(node.value)
        raise _Unreadable(f"unexpected literal {node.value!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = decompile(node.operand)
        if isinstance(inner, n.Number):
            return n.Number("-" + inner.text)
        raise _Unreadable("unary minus on a non-number")
    if not isinstance(node, ast.Call):
        raise _Unreadable(f"unexpected code {ast.unparse(node)}")
    fn = _func_name(node.func)
    args = node.args
    if fn == "Decimal":
        return n.Number(str(ast.literal_eval(args[0])))
    if fn == "col" and len(args) in (2, 3):  # (df, name) or (df, name, contract type)
        return n.Column(str(ast.literal_eval(args[1])))
    if fn == "enum":
        return n.EnumLiteral(str(ast.literal_eval(args[0])))
    if fn == "neg":
        return n.Neg(decompile(args[0]))
    if fn in _ARITH:
        return n.BinOp(_ARITH[fn], decompile(args[0]), decompile(args[1]))
    if fn == "cmp":
        operands = tuple(decompile(a) for a in args[::2])
        ops = tuple(str(ast.literal_eval(a)) for a in args[1::2])
        return n.Compare(operands, ops)
    if fn in ("is_null", "is_not_null"):
        return n.IsNull(decompile(args[0]), negated=fn == "is_not_null")
    if fn in ("in_", "not_in"):
        return n.InList(decompile(args[0]), tuple(decompile(a) for a in args[1:]), negated=fn == "not_in")
    if fn in ("between", "not_between"):
        x, lo, hi = (decompile(a) for a in args)
        return n.Between(x, lo, hi, negated=fn == "not_between")
    if fn == "not_":
        return n.Not(decompile(args[0]))
    if fn in _BOOL:
        return _BOOL[fn](decompile(args[0]), decompile(args[1]))
    raise _Unreadable(f"unknown helper {fn}")


def _dtype_type(node: ast.expr | None) -> str | None:
    """Contract type text of a ``pd.ArrowDtype(pyarrow.X(...))`` dtype; None for ``None``."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    if (
        isinstance(node, ast.Call)
        and _func_name(node.func) in ("pd.ArrowDtype", "pandas.ArrowDtype")
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Call)
    ):
        inner = node.args[0]
        name = _func_name(inner.func).rsplit(".", 1)[-1]
        if name in ARROW_NAMES and not inner.args:
            return ARROW_NAMES[name]
        if name == "decimal128" and len(inner.args) == 2:
            p, s = (ast.literal_eval(a) for a in inner.args)
            return f"decimal({p},{s})"
    return ast.unparse(node)  # anything else: reported as a changed type


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.clauses: list[Clause] = []
        self.findings: list[Finding] = []

    def finding(self, code: str, message: str, clause_id: str | None = None, found: str | None = None) -> None:
        self.findings.append(Finding(code, self.path, message, clause_id=clause_id, found=found))

    def add(self, cid: str, cols: tuple[str, ...], text: str, severity: str = "error",
            **params: Any) -> None:
        kind = cid.split(":", 1)[0]
        self.clauses.append(Clause(cid, kind, cols, make_params(**params), text, severity=severity))

    # -- the schema call ----------------------------------------------------------------
    def schema_call(self, tree: ast.Module) -> ast.Call:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "schema":
                for sub in ast.walk(node):
                    if (
                        isinstance(sub, ast.Return)
                        and isinstance(sub.value, ast.Call)
                        and _func_name(sub.value.func).endswith("DataFrameSchema")
                    ):
                        return sub.value
        raise _Unreadable("no `def schema(...)` returning pa.DataFrameSchema(...)")

    def read_schema(self, call: ast.Call) -> None:
        columns = _kw(call, "columns")
        if columns is None and call.args:
            columns = call.args[0]
        names: list[str] = []
        if isinstance(columns, ast.Dict):
            for key, value in zip(columns.keys, columns.values, strict=True):
                if key is None or not isinstance(value, ast.Call):
                    self.finding(d.UNKNOWN_CHECK, "a column entry is not `'name': pa.Column(...)`")
                    continue
                name = str(ast.literal_eval(key))
                names.append(name)
                self.read_column(name, value)
        strict = _const(_kw(call, "strict"), False)
        if strict is True:
            self.add("no_unknown_columns", tuple(names), "", columns=tuple(names))
        else:
            self.finding(d.SEVERITY_WEAKENED, f"strict={strict!r}: columns not in the contract pass",
                         "no_unknown_columns", f"strict={strict!r}")
        unique = _const(_kw(call, "unique"))
        if unique:
            cols = tuple(unique) if isinstance(unique, list | tuple) else (str(unique),)
            # (pandera's `unique=` also counts NULL keys: a different verdict only while
            # not_null fails on a key column, which the schema checks too)
            self.add("unique:" + ",".join(cols), cols, "", columns=cols)
        if _const(_kw(call, "coerce"), False):
            self.finding(d.SEVERITY_WEAKENED, "coerce=True: data is converted instead of type-checked",
                         found="coerce=True")
        checks = _kw(call, "checks")
        if isinstance(checks, ast.List):
            for check in checks.elts:
                self.read_frame_check(check)

    def read_column(self, name: str, call: ast.Call) -> None:
        dtype_node = call.args[0] if call.args else _kw(call, "dtype")
        type_text = _dtype_type(dtype_node)
        type_clause_text = ""
        nullable = _const(_kw(call, "nullable"), False)  # pandera's default is not nullable
        if nullable is False:
            self.add(f"not_null:{name}", (name,), "", column=name)
        if _const(_kw(call, "coerce"), False):
            self.finding(d.SEVERITY_WEAKENED, f"column {name}: coerce=True converts instead of checking",
                         f"column:{name}", "coerce=True")
        checks = _kw(call, "checks")
        for check in checks.elts if isinstance(checks, ast.List | ast.Tuple) else []:
            if isinstance(check, ast.Call) and _func_name(check.func) == "column_type":
                cid, text, ttext = (str(_const(a)) for a in check.args[:3])
                if cid == f"column:{name}":
                    type_text, type_clause_text = ttext, text
                    continue
            self.read_column_check(name, check)
        meta = _const(_kw(call, "metadata"), None) or {}
        if type_text is None:
            self.finding(d.UNKNOWN_CHECK, f"column {name} has no dtype and no type check", f"column:{name}")
            return
        self.add(f"column:{name}", (name,), type_clause_text, column=name, type=type_text,
                 unit=meta.get("unit"), dimension=meta.get("dimension"))

    def _named(self, check: ast.Call, where: str, warn: bool = False) -> tuple[str, str, str] | None:
        """(clause id, text, severity) of a named check; ``raise_warning=True`` (or the
        `warn(...)` wrapper, `warn`) is severity warn, which `check` compares with the plan."""
        name = _const(_kw(check, "name"))
        if not isinstance(name, str) or not name:
            self.finding(d.UNKNOWN_CHECK, f"{where}: unnamed check {ast.unparse(check)[:80]}",
                         found=ast.unparse(check)[:200])
            return None
        warn = warn or bool(_const(_kw(check, "raise_warning"), False))
        return name, str(_const(_kw(check, "error"), "")), "warn" if warn else "error"

    def read_column_check(self, column: str, check: ast.expr) -> None:
        if not isinstance(check, ast.Call):
            self.finding(d.UNKNOWN_CHECK, f"column {column}: check is not a call")
            return
        named = self._named(check, f"column {column}")
        if named is None:
            return
        cid, text, sev = named
        fn = _func_name(check.func)
        builtin = fn.rsplit(".", 1)[-1] if fn.startswith(("pa.Check.", "pandera.Check.")) else ""
        form = READ.get(f"pa.Check.{builtin}" if builtin else _lambda_form(check) if fn in (
            "pa.Check", "pandera.Check") else "")
        if form is None:
            self.finding(d.UNKNOWN_CHECK, f"{cid}: check {fn or ast.unparse(check.func)} is not one "
                         "tacit-gen writes", cid, ast.unparse(check)[:200])
            return
        try:
            self.add(cid, (column,), text, sev, column=column, **form.read(builtin, check))
        except (_Unreadable, IndexError, TypeError) as e:
            self.finding(d.UNKNOWN_CHECK, f"{cid}: {e}", cid, ast.unparse(check)[:200])

    def read_frame_check(self, check: ast.expr) -> None:
        if not isinstance(check, ast.Call):
            self.finding(d.UNKNOWN_CHECK, "a dataframe check is not a call")
            return
        wrapped = False
        if _func_name(check.func) == "warn" and len(check.args) == 1 and isinstance(check.args[0], ast.Call):
            check, wrapped = check.args[0], True  # `warn(helper(...))`: the helper's check warns
        named = self._named(check, "dataframe", wrapped)
        if named is None:
            return
        cid, text, sev = named
        fn = _func_name(check.func)
        if fn in TIME_HELPERS:
            kind = TIME_HELPERS[fn]
            params = {k.arg: _const(k.value) for k in check.keywords
                      if k.arg and k.arg not in RUNTIME_ARGS}
            if kind == "cadence":
                params["from_catalog"] = _kw(check, "catalog") is not None
                params["series"] = tuple(params.get("series") or ())
            if kind == "completeness":
                params["series"] = tuple(params.get("series") or ())
                params["allowed_gaps"] = tuple(params.get("allowed_gaps") or ())
            if kind == "revision_by":
                params["revision_column"] = params.pop("revision", None)
                params["values"] = tuple(params.get("values") or ())
            self.add(cid, _frame_columns(kind, params), text, sev, **params)
            return
        body = check.args[0] if check.args else _kw(check, "check_fn")
        if isinstance(body, ast.Lambda) and cid.startswith("unique:"):  # a unique that warns
            dup = ast.unparse(body.body)
            m = _DUPLICATED.fullmatch(dup)
            if m is not None and m.group(2) in (None, m.group(1)):
                cols = tuple(ast.literal_eval(m.group(1)))
                self.add(cid, cols, text, sev, columns=cols)
                return
        if (
            isinstance(body, ast.Lambda)
            and isinstance(body.body, ast.Call)
            and _func_name(body.body.func) == "holds"
            and len(body.body.args) == 2
        ):
            try:
                expr = decompile(body.body.args[1])
            except (_Unreadable, IndexError, ValueError) as e:
                self.finding(d.UNKNOWN_CHECK, f"{cid}: {e}", cid, ast.unparse(body)[:200])
                self.add(cid, (), text, expr=ast.unparse(body.body.args[1]))
                return
            self.add(cid, n.columns(expr), text, sev, expr=to_text(expr))
            if _const(_kw(check, "ignore_na"), True) is not False:
                self.finding(d.SEVERITY_WEAKENED, f"{cid}: ignore_na is not False", cid, "ignore_na")
            return
        self.finding(d.UNKNOWN_CHECK, f"{cid}: dataframe check {ast.unparse(check)[:80]} is not one "
                     "tacit-gen writes", cid, ast.unparse(check)[:200])


def _lambda_call(check: ast.Call, helper: str, arity: tuple[int, ...]) -> ast.Call | None:
    """The ``helper(s, ...)`` call of a ``pa.Check(lambda s: helper(...), ...)``, or None."""
    body = check.args[0] if check.args else None
    if (isinstance(body, ast.Lambda) and isinstance(body.body, ast.Call)
            and _func_name(body.body.func) == helper and len(body.body.args) in arity):
        return body.body
    return None


def _lambda_form(check: ast.Call) -> str:
    """The form of a ``pa.Check(lambda s: ...)`` column check tacit-gen writes ('' for another)."""
    for helper, arity in (("in_range", (5, 6)), ("equals", (3,)), ("matches", (2,))):
        if _lambda_call(check, helper, arity) is not None:
            return helper
    return "s.notna()" if _lambda_text(check) == "lambda s: s.notna()" else ""


def _in_range_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    """A float or decimal range: ``in_range(s, low, high, include_low, include_high[, type])``."""
    call = _lambda_call(check, "in_range", (5, 6))
    assert call is not None
    lo, hi, lo_inc, hi_inc = call.args[1:5]
    return {
        "min": _number_text(lo),
        "max": _number_text(hi),
        "min_inclusive": bool(_const(lo_inc, True)),
        "max_inclusive": bool(_const(hi_inc, True)),
    }


def _equals_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    """A fixed decimal value: ``equals(s, Decimal('x'), type)``."""
    call = _lambda_call(check, "equals", (3,))
    assert call is not None
    return {"value": _const(call.args[1])}


def _matches_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    """A pattern: ``matches(s, '^(...)$')``."""
    from tacit_gen.sql.pattern import body_of

    call = _lambda_call(check, "matches", (2,))
    assert call is not None
    regex = str(_const(call.args[1]))
    return {"pattern": body_of(regex) or regex}


def _isin_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    values = _const(check.args[0] if check.args else _kw(check, "allowed_values"))
    return {"values": tuple(str(v) for v in values)}


def _eq_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    return {"value": _const(check.args[0] if check.args else _kw(check, "value"))}


def _pattern_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    from tacit_gen.sql.pattern import body_of

    regex = str(_const(check.args[0] if check.args else _kw(check, "pattern")))
    return {"pattern": body_of(regex) or regex}


def _range_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    args = list(check.args)
    if builtin == "in_range":
        lo = args[0] if len(args) > 0 else _kw(check, "min_value")
        hi = args[1] if len(args) > 1 else _kw(check, "max_value")
        return {
            "min": _number_text(lo),
            "max": _number_text(hi),
            "min_inclusive": bool(_const(args[2] if len(args) > 2 else _kw(check, "include_min"), True)),
            "max_inclusive": bool(_const(args[3] if len(args) > 3 else _kw(check, "include_max"), True)),
        }
    key = "min_value" if builtin in ("ge", "gt") else "max_value"
    value = _number_text(args[0] if args else _kw(check, key))
    if builtin in ("ge", "gt"):
        return {"min": value, "min_inclusive": builtin == "ge", "max": None, "max_inclusive": True}
    return {"max": value, "max_inclusive": builtin == "le", "min": None, "min_inclusive": True}


def _helper_params(builtin: str, check: ast.Call) -> dict[str, Any]:
    """A dataframe check of the checks module: no column params; `read_frame_check` reads the
    clause params from the call's keyword arguments."""
    return {}


_Params = Callable[[str, ast.Call], dict[str, Any]]
# How the module states each clause kind (a column check, a dataframe check of the checks
# module) -> the kinds reading it yields; the rest is the schema's structure (`elsewhere`).
# tests/targets/test_kind_tables.py holds the table to every kind of `plan_types.KINDS`.
READ: FormTable[_Params] = FormTable("pandera", rules={
    "pa.Check.isin": Form(("accepted_values",), _isin_params),
    "pa.Check.eq": Form(("fixed_value",), _eq_params),
    "pa.Check.str_matches": Form(("pattern",), _pattern_params),
    **{f"pa.Check.{b}": Form(("range",), _range_params) for b in RANGE_BUILTINS},
    "in_range": Form(("range",), _in_range_params),
    "equals": Form(("fixed_value",), _equals_params),
    "matches": Form(("pattern",), _matches_params),
    "s.notna()": Form(("not_null",), lambda builtin, check: {}),  # a not_null that warns
    **{helper: Form((kind,), _helper_params) for helper, kind in TIME_HELPERS.items()},
    "warn(catalog_bounds_check)": Form(("plausible",), _helper_params),
}, elsewhere={
    "column": "column_type(...) in the column's checks",
    "not_null": "nullable=False",
    "no_unknown_columns": "strict=True",
    "unique": "pa.Check(lambda df: ~df.duplicated(...))",
    "invariant": "pa.Check(lambda df: holds(df, ...))",
})


def _frame_columns(kind: str, params: dict[str, Any]) -> tuple[str, ...]:
    if kind in ("cadence", "completeness"):
        return (params.get("column"), *params.get("series", ()))  # type: ignore[return-value]
    if kind in ("catalog_unit", "catalog_bounds", "catalog_dimension"):
        return (params.get("column"), params.get("key"))  # type: ignore[return-value]
    if kind == "revision_window":
        return tuple(c for c in ("revision", params.get("time_column"), params.get("ingest_column")) if c)
    if kind == "revision_by":
        return (params.get("revision_column"), params.get("column"))  # type: ignore[return-value]
    return (params.get("column"),)  # type: ignore[return-value]


def read(path: Path, text: str) -> ReadResult:
    """Clauses recovered from a generated pandera module's source, plus reader findings."""
    header = parse_header(text)
    name, version, digest = header if header else (None, None, None)
    reader = _Reader(path)
    try:
        tree = ast.parse(text)
        reader.read_schema(reader.schema_call(tree))
    except (SyntaxError, _Unreadable, ValueError) as e:
        reader.finding(d.UNREADABLE, f"cannot read the pandera module: {e}")
    return ReadResult(tuple(reader.clauses), tuple(reader.findings), name, version, digest)
