"""The increment in Soda v3 checks (docs/increments.md): the scan variable ``tacit_since``.

Soda resolves ``${name}`` in a check's SQL against the scan's variables, an unset one reading
as an empty string. Each condition below is true for every row when the variable is unset (the
checks read the whole dataset, as without it), and otherwise keeps the rows whose time column is
at or after it (or NULL: not_null reports those):

- metric checks of row clauses (missing, invalid, duplicate counts): ``filter:``;
- a fail condition (invariants): ``<condition> AND <increment>``;
- a fail query (cadence, catalog and row clauses, the revision window): the query's rows whose
  time column lies in the increment, the query itself unchanged inside (cadence steps each
  point from its predecessor wherever that is, so a gap straddling the start is reported);
- completeness's fail query: its windows that end after the start (``window_end_ms``), each
  counting all of its readings.

`unwrap_query` and `strip_condition` undo these for the reader (`check` compares the clause).
"""

from __future__ import annotations

import re

SINCE_VARIABLE = "tacit_since"
REF = "${" + SINCE_VARIABLE + "}"  # Soda v3: a scan variable
REF4 = "${var." + SINCE_VARIABLE + "}"  # Soda 4: a contract variable (declared, default empty)
_ALIAS = "tacit_increment"
_NEW = "tacit_new"

# The instant's SQL type per dialect (a zoned timestamp where the dialect has one).
_TYPES = {"spark": "TIMESTAMP", "databricks": "TIMESTAMP", "bigquery": "TIMESTAMP",
          "snowflake": "TIMESTAMP_TZ"}

# Clauses on each row alone: their checks read the increment's rows.
ROW_KINDS = frozenset({
    "not_null", "accepted_values", "fixed_value", "pattern", "range", "invariant",
    "catalog_unit", "catalog_bounds", "plausible", "catalog_dimension", "revision_by",
    "precision", "revision_window", "references",
})
# Clauses whose fail query reads each point with its predecessor: filtered on its output.
STEP_KINDS = frozenset({"cadence"})
# Clauses whose fail query returns windows (``window_end_ms``): those that end after the start.
WINDOW_KINDS = frozenset({"completeness"})


def condition(column: str, dialect: str, ref: str = REF) -> str:
    """The increment's rows, or every row when ``tacit_since`` is unset (`ref`: how the Soda
    version spells the variable)."""
    var = f"'{ref}'"
    instant = f"CAST(NULLIF({var}, '') AS {_TYPES.get(dialect, 'TIMESTAMPTZ')})"
    return f"({var} = '' OR {column} >= {instant} OR {column} IS NULL)"


def window_condition(dialect: str, ref: str = REF) -> str:
    """The windows (rows with ``window_end_ms``) that end after the increment's start, or every
    window when ``tacit_since`` is unset."""
    from tacit_gen.sql import shapes

    var = f"'{ref}'"

    def build(_: list[str]) -> str:  # a constant of the dialect: a template, no sqlglot later
        from tacit_gen.sql.build import epoch_ms, generate, parse

        instant = parse(f"CAST(NULLIF({var}, '') AS {_TYPES.get(dialect, 'TIMESTAMPTZ')})", dialect)
        return f"({var} = '' OR window_end_ms > {generate(epoch_ms(instant, dialect), dialect)})"

    return shapes.text("soda-since-windows", f"{dialect}\n{ref}", [], build)


# What Soda 4's aggregation query names the dataset it reads (a CTE of the filtered dataset).
SODA4_DATASET = "_soda_filtered_dataset"


def key_condition(table: str, key: list[str], column: str, dialect: str, ref: str = REF,
                  outer: str | None = None) -> str:
    """A duplicate check's rows for a key without the time column: those whose key occurs in the
    increment (a correlated semi-join on `table`; `outer`: what the check's own query names the
    dataset, `table` by default), or every row when ``tacit_since`` is unset. Every repeated
    key among them involves a row of the increment."""
    var = f"'{ref}'"
    instant = f"CAST(NULLIF({var}, '') AS {_TYPES.get(dialect, 'TIMESTAMPTZ')})"
    same = " AND ".join(f"{_NEW}.{k} = {outer or table}.{k}" for k in key)
    return (f"({var} = '' OR EXISTS (SELECT 1 FROM {table} AS {_NEW} WHERE ({_NEW}.{column} >= "
            f"{instant} OR {_NEW}.{column} IS NULL) AND {same}))")


def and_condition(fail_condition: str, column: str, dialect: str, ref: str = REF) -> str:
    return f"{fail_condition} AND {condition(column, dialect, ref)}"


def wrap_query(query: str, column: str | None, dialect: str, mark: str, ref: str = REF) -> str:
    """A fail query (its first line the clause mark) keeping only its rows in the increment
    (`column` None: the windows that end after its start, `window_condition`)."""
    where = condition(column, dialect, ref) if column is not None else window_condition(dialect, ref)
    first, _, rest = query.partition("\n")
    if not first.startswith(mark):
        first, rest = "", query
    inner = rest.rstrip("\n")
    return (f"{first}\nSELECT * FROM (\n{inner}\n) AS {_ALIAS}\n"
            f"WHERE {where}\n").lstrip("\n")


_V = r"\$\{(?:var\.)?" + SINCE_VARIABLE + r"\}"
_COND = (r"\('" + _V + r"' = '' OR (?P<a>\S+) >= CAST\(NULLIF\('" + _V
         + r"', ''\) AS \w+\) OR (?P<b>\S+) IS NULL\)")
_WRAPPED = re.compile(r"^(?P<first>[^\n]*\n)?SELECT \* FROM \(\n(?P<inner>.*)\n\) AS " + _ALIAS
                      + r"\nWHERE " + _COND + r"\n?$", re.S)
_WINDOWED = re.compile(r"^(?P<first>[^\n]*\n)?SELECT \* FROM \(\n(?P<inner>.*)\n\) AS " + _ALIAS
                       + r"\nWHERE \('" + _V + r"' = '' OR window_end_ms > [^\n]*" + _V
                       + r"[^\n]*\)\n?$", re.S)
_AND = re.compile(r"^(?P<rest>.*) AND " + _COND + r"$", re.S)
_KEYED = r"\('" + _V + r"' = '' OR EXISTS \(SELECT 1 FROM \S+ AS " + _NEW + r" WHERE .*\)\)"
_AND_KEYED = re.compile(r"^(?P<rest>.*) AND " + _KEYED + r"$", re.S)


def is_condition(text: object) -> bool:
    """Whether a check's `filter:` is the increment's own (no weakening)."""
    m = re.fullmatch(_COND, str(text).strip())
    return m is not None and m.group("a") == m.group("b")


def unwrap_query(query: str) -> str:
    """The fail query inside `wrap_query`'s (the query itself when it is not wrapped)."""
    w = _WINDOWED.match(query)
    if w is not None:
        return (w.group("first") or "") + w.group("inner") + "\n"
    m = _WRAPPED.match(query)
    if m is None or m.group("a") != m.group("b"):
        return query
    return (m.group("first") or "") + m.group("inner") + "\n"


def strip_condition(fail_condition: str) -> str:
    """The fail condition (or filter) without `and_condition`'s or `key_condition`'s increment."""
    k = _AND_KEYED.match(fail_condition.strip())
    if k is not None:
        return k.group("rest")
    m = _AND.match(fail_condition.strip())
    if m is None or m.group("a") != m.group("b"):
        return fail_condition
    return m.group("rest")
