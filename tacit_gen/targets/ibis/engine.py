"""ibis engine: import the generated `ibis/<contract>.py` by file path and run `parse()` on DuckDB.

The verdicts come from the runtime's own result: `Schema.parse()` raises one error listing every
failed clause (StructuralError / CoercionError / ConstraintError / CheckExecutionError); each
listed clause is ``fail`` (with its failing-row count) or ``error`` (could not be evaluated, e.g.
a column it reads is missing); every clause of the module not listed passed. The module's own
clause list is used (``Schema.clauses()``), so an edited artifact is run as edited.

``column:`` and ``no_unknown_columns`` are judged structurally, by ``Schema.cast()`` (no
conversion), as dbt's enforced contract, Soda's schema check, GX and pandera judge them: a DOUBLE
column where the contract says ``decimal(18,2)`` fails ``column:`` here too, although ``parse()``
converts it and goes on to evaluate the other clauses on the converted values.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tacit_gen.engines import base
from tacit_gen.engines.base import EngineRun, Verdict, VerifyInput

if TYPE_CHECKING:
    from collections.abc import Callable

    from tacit_gen.runtime.schema import Schema

NAME = "ibis"


def load_module(path: Path) -> ModuleType:
    """Import the generated module from its file (see `tacit_gen.engines.base.load_module`)."""
    return base.load_module(path, "_tacit_generated_ibis")

def schema_class(module: ModuleType) -> type[Schema]:
    """The module's Schema subclass (the one named in ``__all__``, else the only one)."""
    from tacit_gen.runtime.schema import Schema

    names = list(getattr(module, "__all__", ())) or list(vars(module))
    found = [
        obj for n in names
        if isinstance(obj := getattr(module, n, None), type)
        and issubclass(obj, Schema) and obj is not Schema
    ]
    if len(found) != 1:
        raise ImportError(f"expected one Schema subclass in {module.__file__}, found {len(found)}")
    return found[0]


def run(inp: VerifyInput) -> EngineRun:
    """Run the ibis artifact of `inp.contract` on `inp.database` and return verdicts per clause."""
    import ibis

    pg = inp.postgres
    if pg is not None:
        p = pg.params  # ibis opens its PostgreSQL sessions in UTC
        pcon: Any = ibis.postgres.connect(host=p["host"], port=p["port"], user=p["user"],
                                          password=p["password"] or None, database=p["database"])
        try:
            there = set(pcon.list_tables(database=pg.schema))
            return parse_verdicts(inp, lambda name: pcon.table(name, database=pg.schema)
                                  if name in there else None)
        finally:
            pcon.disconnect()
    con = ibis.duckdb.connect(str(inp.database), read_only=True)
    try:
        present = set(con.list_tables())
        return parse_verdicts(inp, lambda name: con.table(name) if name in present else None)
    finally:
        con.disconnect()


def sample_rows(rows: tuple[dict[str, Any], ...]) -> base.SampleRows:
    """The runtime's failing rows as text (None for null): picklable, printable by `verify`."""
    return base.sample_text(rows)


def parse_verdicts(inp: VerifyInput, table: Callable[[str], Any]) -> EngineRun:
    """`parse()` of the generated Schema on the relation `table(inp.table)` of any backend.

    Args:
        inp: the engine input (contract, artifact folder, now).
        table: a relation's ibis Table by name, or None when the backend has no such relation.
    """
    import warnings

    from tacit_gen.runtime.errors import ContractWarning, ValidationError

    path = inp.artifact_dir / NAME / f"{inp.contract.name}.py"
    notes: list[str] = []
    try:
        schema = schema_class(load_module(path))
    except Exception as e:
        return EngineRun(
            NAME,
            tuple(Verdict(c.id, "error", None, f"cannot load {path.name}: {e}") for c in inp.clauses),
        )
    data = table(inp.table)
    relations = sorted({str(c.param(k)) for c in schema.clauses()
                        for k in ("relation", "calendar_catalog") if c.param(k)})
    catalog = {r: t for r in relations if (t := table(r)) is not None}
    named = sorted({str(c.param("sessions_relation")) for c in schema.clauses()
                    if c.param("sessions_relation")})
    sessions = {r: t for r in named if (t := table(r)) is not None}
    # the relations `references:` clauses read (loaded beside the data; a self reference is it)
    wanted = sorted({str(c.param("to_relation")) for c in schema.clauses() if c.kind == "references"})
    refs = {r: t for r in wanted if (t := table(r)) is not None}
    outage_rel = next((str(c.param("outages_relation")) for c in schema.clauses()
                       if c.param("outages_relation")), None)
    outages = table(outage_rel) if outage_rel is not None else None
    status: dict[str, Verdict] = {}
    structural: dict[str, Verdict] = {}
    try:
        schema.cast(data)
    except ValidationError as exc:
        for f in exc.failures:
            structural[f.clause_id] = Verdict(f.clause_id, "fail", f.count,
                                              f"{f.message} (structural, as cast() checks it)")
    warned: tuple[Any, ...] = ()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ContractWarning)
            schema.parse(data, catalog=catalog or None, now=inp.now, sessions=sessions or None,
                         refs=refs or None, outages=outages, since=inp.since)
        warned = tuple(f for w in caught if isinstance(w.message, ContractWarning)
                       for f in w.message.failures)
    except ValidationError as exc:
        warned = exc.warnings
        for f in exc.failures:
            status[f.clause_id] = Verdict(
                f.clause_id,
                "error" if f.error is not None else "fail",
                f.count,
                f.message if f.error is None else f"{f.message} ({f.error})",
                sample_rows(f.rows),
            )
    for f in warned:  # `severity: warn` clauses: the runtime's ContractWarning, not an error
        status[f.clause_id] = Verdict(f.clause_id, "warn", f.count, f"{f.message} (ContractWarning)",
                                      sample_rows(f.rows))
    for cid, v in structural.items():  # cast() is the judge of structure; parse() converts
        if cid.startswith("column:") or cid == "no_unknown_columns":
            status[cid] = v
    verdicts = [status.get(c.id) or Verdict(c.id, "pass", 0) for c in schema.clauses()]
    known = {c.id for c in schema.clauses()}
    for c in inp.clauses:
        if c.id not in known:
            verdicts.append(Verdict(c.id, "n/a", None, "not in the ibis artifact"))
    notes.extend(f"unsupported {cid}: {why}" for cid, why in schema.__unsupported__)
    return EngineRun(NAME, tuple(verdicts), tuple(notes))
