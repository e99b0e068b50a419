"""ibis target: one Python module per contract (`ibis/<contract>.py`) for `tacit_gen.runtime`.

The module defines one `Schema` subclass (class name: the contract name in PascalCase, or
``targets: {ibis: {class_name: ...}}``) whose annotated attributes are the columns::

    open: Annotated[Decimal, Column(
        type='decimal(18,8)', nullable=False, unit='quote_currency',
        text='open:     {type: decimal(18,8), unit: quote_currency, nullable: false}', line=14,
    )]

and whose ``__clauses__`` holds the clauses the annotations do not imply, one
``clause(id=..., <params>, text=..., line=...)`` call each (`tacit_gen.plan_types.clause`; a full
`Clause` literal where that form cannot state the clause exactly). The runtime derives
``column:``, ``not_null:`` and ``no_unknown_columns`` from the annotations; a derived clause the
contract words differently is listed too. `cast()` checks the annotations; `parse()` evaluates
every clause. The runtime expresses every clause kind, so nothing is reported unsupported. Every contract string is written with ``repr()``; the
module needs only ``tacit_gen.runtime`` at import. No ibis import here: rendering is string work.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from tacit_gen.contract.types import parse_type
from tacit_gen.plan_types import CLAUSE_DEFAULTS, KINDS, clause, make_params
from tacit_gen.targets.base import (
    Artifact,
    ContractKey,
    ContractProblem,
    Engine,
    NoOptions,
    RenderOptions,
    RenderResult,
    Target,
    Unsupported,
    sql_projection,
)
from tacit_gen.targets.header import comment_header
from tacit_gen.targets.kinds import KindTable

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.plan_types import Clause

NAME = "ibis"
TEMPLATE = "module.py.j2"

# Contract type kind -> Python annotation (what a row value is in Python).
PY_TYPES: dict[str, str] = {
    "string": "str",
    "bool": "bool",
    "int32": "int",
    "int64": "int",
    "float32": "float",
    "float64": "float",
    "decimal": "Decimal",
    "date": "date",
    "timestamp": "datetime",
}
# Python name -> the import line that provides it.
IMPORTS: dict[str, str] = {
    "date": "from datetime import date",
    "datetime": "from datetime import datetime",
    "Decimal": "from decimal import Decimal",
}
# Attribute names a column may not take: the Schema API (type checkers would see an override).
RESERVED = frozenset(
    {"cast", "parse", "evaluate", "columns", "column_names", "clauses", "mro"}
)
def class_name(contract: Contract) -> str:
    """The Schema class name: the ``class_name`` option, else the contract name in PascalCase."""
    override = contract.target_option(NAME, "class_name")
    if override is not None:
        text = str(override)
        if not text.isidentifier() or keyword.iskeyword(text):
            raise ValueError(f"targets.ibis.class_name {text!r} is not a Python class name")
        return text
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", contract.name) if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Contract"
    if not name.isidentifier() or name[0].isdigit():
        name = "Contract" + name
    return name


_NOT_WORD = re.compile(r"[^A-Za-z0-9_]")  # each character that is not an ASCII letter, digit or _


def attribute_name(column: str, taken: set[str]) -> str:
    """A Python attribute name for a data column (``col_`` prefix when it is not usable)."""
    if (
        column.isidentifier()
        and not keyword.iskeyword(column)
        and not column.startswith("_")
        and column not in RESERVED
        and column.isascii()
    ):
        name = column
    else:
        cleaned = _NOT_WORD.sub("_", column).strip("_")
        name = "col_" + cleaned if cleaned else "col"
    base, k = name, 2
    while name in taken:
        name = f"{base}_{k}"
        k += 1
    taken.add(name)
    return name


WIDTH = 100  # the project's line width: a call longer than this wraps its keywords


def _call(
    func: str, pairs: list[tuple[str, Any]], indent: str, close: str = ")", prefix: str = ""
) -> str:
    """``func(k=v, ...)`` in keyword form on one line when it fits in `WIDTH`, else its keywords
    packed into lines under it (`prefix`: what precedes the call on its first line)."""
    args = [f"{k}={v!r}" for k, v in pairs]
    one = f"{indent}{prefix}{func}(" + ", ".join(args) + close
    if len(one) <= WIDTH:
        return one
    inner, lines, cur = indent + "    ", [], ""
    for a in args:
        if cur and len(inner) + len(cur) + len(a) + 2 > WIDTH:
            lines.append(inner + cur.rstrip())
            cur = ""
        cur += a + ", "
    lines.append(inner + cur.rstrip())
    return f"{indent}{prefix}{func}(\n" + "\n".join(lines) + f"\n{indent}{close}"


def _column_source(
    contract: Contract, clauses: tuple[Clause, ...], clause: Clause, attr: str
) -> tuple[str, set[str], dict[str, Any]]:
    """The annotated attribute's source (`clause`: the column's ``column`` clause), the names it
    needs imported, and the ``Column(...)`` keywords it states."""
    name = str(clause.param("column"))
    type_text = str(clause.param("type"))
    field = contract.field(name)
    dtype = parse_type(type_text)
    if dtype.kind == "enum":
        py = "Literal[" + ", ".join(repr(v) for v in dtype.values) + "]"
        needs = {"Literal"}
    else:
        py = PY_TYPES[dtype.kind]
        needs = {py} & set(IMPORTS)
    nullable = f"not_null:{name}" not in {c.id for c in clauses}
    if nullable:
        py += " | None"
    given: dict[str, Any] = {
        "type": type_text, "nullable": nullable, "unit": clause.param("unit"),
        "dimension": clause.param("dimension"), "name": name if attr != name else None,
        "description": (field.description or None) if field is not None else None,
        "note": (field.note or None) if field is not None else None,
        "text": clause.text or None, "line": clause.line or None,
    }
    col = {k: given[k] for k in _COLUMN_KEYWORDS if given[k] is not None}
    src = _call("Column", list(col.items()), "    ", ")]", prefix=f"{attr}: Annotated[{py}, ")
    return src[4:], needs, col  # the template indents the first line


# Column keywords in the order a module states them (documentation ones after the checked ones).
_COLUMN_KEYWORDS = ("type", "nullable", "unit", "dimension", "name", "description", "note",
                    "text", "line")


def _clause_source(c: Clause) -> str:
    """``clause(...)``: the keyword form, defaults left out (`tacit_gen.runtime.clause`); a
    clause that form cannot state exactly is a ``Clause(...)`` literal."""
    defaults = CLAUSE_DEFAULTS.get(c.kind, {})
    params = [(k, v) for k, v in c.params if k not in defaults or defaults[k] != v
              or type(defaults[k]) is not type(v)]
    derived = (c.param("column"),) if "column" in c.params_dict else c.param("columns", ())
    pairs: list[tuple[str, Any]] = [("id", c.id), *params]
    if tuple(c.columns) != tuple(derived or ()):
        pairs.append(("reads", tuple(c.columns)))
    pairs += [("text", c.text), ("line", c.line)]
    if c.warn:  # parse() reports it as a ContractWarning, never raises for it
        pairs.append(("severity", c.severity))
    if c.id.split(":", 1)[0] == c.kind and not {"id", "text", "line", "severity", "reads"} & {
            k for k, _ in c.params}:
        try:
            again = clause(**dict(pairs))
        except (TypeError, KeyError):
            again = None
        if again is not None and again == c and (again.line, again.params) == (c.line, c.params):
            return _call("clause", pairs, " " * 8, "),")
    full: list[tuple[str, Any]] = [("id", c.id), ("kind", c.kind), ("columns", tuple(c.columns)),
                                   ("params", tuple(c.params)), ("text", c.text), ("line", c.line)]
    if c.warn:
        full.append(("severity", c.severity))
    return _call("Clause", full, " " * 8, "),")


def _derived_by_runtime(c: Clause, columns: Mapping[str, dict[str, Any]]) -> bool:
    """Whether the runtime derives `c` from the annotations exactly (text and line included),
    so ``__clauses__`` need not state it."""
    if c.kind == "column":
        return True  # the annotation states it (its text and line too)
    col = columns.get(c.columns[0]) if len(c.columns) == 1 else None
    if c.kind == "not_null" and col is not None:
        return (not c.warn and c.text == col.get("text", f"{c.columns[0]}: nullable: false")
                and c.line == col.get("line", 0))
    if c.kind == "accepted_values" and col is not None:
        return not c.warn and c.text == f"{c.columns[0]}: {parse_type(col['type'])}" and c.line == 0
    return False


def _no_unknown_source(c: Clause, names: tuple[str, ...]) -> str:
    """``no_unknown_columns``: its text and line; the runtime takes the columns from the
    annotations (a plan whose list differs states it whole)."""
    if tuple(c.columns) == names and c.params == make_params(columns=names) and not c.warn:
        return _call("clause", [("id", c.id), ("text", c.text), ("line", c.line)], " " * 8, "),")
    return _clause_source(c)


# The runtime evaluates every kind: each clause is a ``Clause(...)`` literal of ``__clauses__``
# (a ``column`` one also an annotated attribute, `_column_source`).
RENDER: KindTable[Callable[[Clause], str]] = KindTable(NAME, "render", {
    kind: _clause_source for kind in KINDS})


class IbisTarget(Target):
    """Renders and reads `ibis/<contract>.py`."""

    name = NAME
    options = NoOptions
    contract_keys = (ContractKey("class_name", "name of the generated runtime class", kind="class"),)
    artifact_name_option = "class_name"
    reader = "tacit_gen.targets.ibis.read:read_module"
    replays = True  # the runtime a consumer parses records with: `compat --replay` reads through it
    engines: ClassVar[Mapping[str, Engine]] = {
        "duckdb": Engine("tacit_gen.targets.ibis.engine", ("ibis",), "ibis", cost=30),
        "postgres": Engine("tacit_gen.targets.ibis.engine", ("ibis", "psycopg2"), "postgres", cost=30),
        "spark": Engine("tacit_gen.targets.ibis.spark", ("ibis", "pyspark"), cost=30, session=True),
    }
    templates = True
    increments = True  # var tacit_since / parse(since=)

    def project(self, contract: Contract, clause: Clause, options: RenderOptions) -> Clause | None:
        """The plan's clause, plus invariant SQL in the dialect `options` give this target; a
        column clause says whether it is the module's ``__time__`` (the time column)."""
        projected = sql_projection(clause, options.dialect_for(NAME, contract))
        if projected is not None and clause.kind == "column":
            time = _time_column(contract)
            params = {**dict(projected.params), "time": clause.param("column") == time}
            projected = dataclasses.replace(projected, params=make_params(**params))
        return projected

    def check_contract(self, name: str, keys: Mapping[str, Any]) -> tuple[ContractProblem, ...]:
        """The class a contract name becomes (PascalCase) must be a Python class name the
        module can define, unless `class_name` names the class (TG115)."""
        from tacit_gen.contract import names

        if "class_name" in keys:
            return ()
        problem = names.class_problem(names.pascal_case(name), "the Python class name")
        if problem is None:
            return ()
        return (ContractProblem("TG115", f"contract name '{name}' makes {problem}; rename the contract "
                                "or set targets.ibis.class_name", name),)

    def artifact_paths(self, contract: Contract) -> tuple[str, ...]:
        return (f"{NAME}/{contract.name}.py",)

    def render(
        self, contract: Contract, clauses: tuple[Clause, ...], options: RenderOptions
    ) -> RenderResult:
        unsupported = tuple(Unsupported(NAME, c.id, RENDER.unsupported[c.kind])
                            for c in clauses if RENDER.get(c.kind) is None)
        clauses = tuple(c for c in clauses if RENDER.get(c.kind) is not None)
        cls = class_name(contract)
        taken: set[str] = set()
        columns: list[str] = []
        stated: dict[str, dict[str, Any]] = {}
        used: set[str] = {"Annotated"}
        for c in clauses:
            if c.kind != "column":
                continue
            name = str(c.param("column"))
            src, needs, col = _column_source(contract, clauses, c, attribute_name(name, taken))
            columns.append(src)
            stated[name] = col
            used |= needs
        names = tuple(stated)
        body = [_no_unknown_source(c, names) if c.kind == "no_unknown_columns"
                else RENDER.rules[c.kind](c) for c in clauses if not _derived_by_runtime(c, stated)]
        imports = [IMPORTS[k] for k in ("date", "datetime", "Decimal") if k in used]
        typing_names = ", ".join(k for k in ("Annotated", "Literal") if k in used)
        imports.append(f"from typing import {typing_names}")
        imports.append("")
        runtime_names = ["Clause"] if any(b.lstrip().startswith("Clause(") for b in body) else []
        runtime_names += ["Column", "Schema"]
        if any(b.lstrip().startswith("clause(") for b in body):
            runtime_names.append("clause")
        imports.append("from tacit_gen.runtime import " + ", ".join(runtime_names))
        text = _template(options).render(
            header=comment_header(contract),
            imports=imports,
            class_name=cls,
            class_name_repr=repr(cls),
            docstring=repr(contract.description or f"Contract {contract.name} {contract.version}."),
            contract_repr=repr(contract.name),
            version_repr=repr(contract.version),
            time_repr=repr(t) if (t := _time_column(contract)) else None,
            columns=columns,
            clauses=body,
            unsupported=[repr((u.clause_id, u.reason)) for u in unsupported],
        )
        return RenderResult(
            artifacts=(Artifact(f"{NAME}/{contract.name}.py", text),), unsupported=unsupported
        )


def _time_column(contract: Contract) -> str | None:
    """The contract's time column (``__time__``: what ``since=`` selects on), or None."""
    return contract.time.column if contract.time is not None and contract.time.column else None


def _template(options: RenderOptions) -> Any:
    """The module template (see `tacit_gen.targets.templates` for the lookup order)."""
    from tacit_gen.targets.templates import jinja_template

    return jinja_template(NAME, TEMPLATE, options)
