"""`tacit-gen publish`: a data file checked against a published table and appended to it only
when every clause passes (the runtime's `Schema.publish`, docs/how-to/publish.md).

The file is read as `verify --data` reads it (`tacit_gen.engines.load.load_data`: typed per the
contract, every value that does not convert reported, never nulled) into a scratch DuckDB file;
the contract's runtime Schema comes from the registered target that replays data
(`Target.replays`: the module `tacit-gen render` writes), rendered into a scratch folder.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract
    from tacit_gen.runtime.errors import ValidationError
    from tacit_gen.runtime.schema import Schema
    from tacit_gen.targets.base import RenderOptions

__all__ = ["PublishOutcome", "publish_file", "runtime_schema"]


@dataclass(frozen=True)
class PublishOutcome:
    """What `publish_file` did: the rows appended, or the error that kept the batch out."""

    contract: str
    into: str
    rows: int = 0
    since: datetime | None = None
    error: ValidationError | None = None
    warnings: tuple[Any, ...] = ()  # ClauseFailure of violated `severity: warn` clauses
    load_notes: tuple[str, ...] = field(default=())

    @property
    def published(self) -> bool:
        return self.error is None

    @property
    def exit_code(self) -> int:
        """0 published (or an empty batch), 1 refused (a clause failed: structure, conversion
        or a constraint), 4 a check the engine could not evaluate."""
        from tacit_gen.runtime.errors import CheckExecutionError

        if self.error is None:
            return 0
        return 4 if isinstance(self.error, CheckExecutionError) else 1

    def as_json(self) -> dict[str, Any]:
        err = self.error
        return {
            "contract": self.contract,
            "into": self.into,
            "published": self.published,
            "rows": self.rows,
            "since": self.since.isoformat() if self.since is not None else None,
            "error": type(err).__name__ if err is not None else None,
            "failures": [_failure_json(f) for f in err.failures] if err is not None else [],
            "warnings": [_failure_json(f) for f in self.warnings],
            "load": list(self.load_notes),
            "exit_code": self.exit_code,
        }

    def render_text(self) -> str:
        lines = [f"data: {m}" for m in self.load_notes]
        if self.error is None:
            where = f" (checked from {self.since.isoformat()})" if self.since is not None else ""
            lines.append(f"published {self.rows} row(s) into {self.into}{where}"
                         if self.rows else f"nothing to publish: the batch is empty; {self.into} "
                         "is unchanged")
            lines += [f"warn {f.describe()}" for f in self.warnings]
        else:
            n = len(self.error.failures)
            what = "failed or could not be evaluated" if self.exit_code == 4 else "violated"
            lines.append(f"not published: {n} clause(s) {what}; {self.into} is unchanged")
            lines.append(str(self.error))
        return "\n".join(lines)


def _failure_json(f: Any) -> dict[str, Any]:
    return {"clause": f.clause_id, "kind": f.kind, "message": f.message, "count": f.count,
            "rows": [{k: _text(v) for k, v in r.items()} for r in f.rows]}


def _text(v: Any) -> Any:
    return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)


def runtime_schema(contract: Contract, options: RenderOptions, workdir: Path) -> type[Schema]:
    """The contract's runtime Schema: the module of the target that replays data, rendered
    into `workdir` and imported from there."""
    from tacit_gen import registry
    from tacit_gen.engines.base import load_module
    from tacit_gen.render import render_contract
    from tacit_gen.runtime.schema import Schema

    readers = tuple(name for name in registry.names() if registry.get(name).replays)
    if not readers:
        raise ValueError("no registered target gives a runtime Schema (Target.replays)")
    artifacts, _ = render_contract(contract, readers[:1], options)
    module = next((a for a in artifacts if a.path.endswith(".py")), None)
    if module is None:
        raise ValueError(f"the {readers[0]} target rendered no Python module for {contract.name}")
    path = workdir / Path(module.path).name
    path.write_text(module.content, encoding="utf-8")
    loaded = load_module(path, "_tacit_publish")
    found = [v for v in vars(loaded).values()
             if isinstance(v, type) and issubclass(v, Schema) and v is not Schema]
    if len(found) != 1:
        raise ValueError(f"expected one Schema in {module.path}, found {len(found)}")
    return found[0]


def connect(database: str | None, dsn: str | None) -> Any:
    """The ibis backend of the published table: a DuckDB file or a PostgreSQL server (its
    sessions in UTC)."""
    import ibis

    if database is not None:
        return ibis.duckdb.connect(database)
    from tacit_gen.engines.postgres_server import utc_dsn

    return ibis.connect(utc_dsn(str(dsn)))


def _relations(con: Any, reports: list[Any]) -> dict[str, Any]:
    import ibis

    return {r.table: ibis.memtable(con.execute(f'SELECT * FROM "{r.table}"').fetch_arrow_table())
            for r in reports if r is not None}


def publish_file(contract: Contract, data: Path, into: Any, schema: type[Schema], name: str, *,
                 catalog: Path | None = None, calendar: Path | None = None,
                 outages: Path | None = None, now: datetime | None = None) -> PublishOutcome:
    """Load `data` (and the relations the contract reads) as `verify` does, then
    `schema.publish(batch, into=into)`; `name` is the table as the user named it.

    Raises:
        LoadError: a file cannot be read.
        UsageError: `into` is not a DuckDB or PostgreSQL table.
    """
    import warnings

    import duckdb

    from tacit_gen.engines.load import load_data
    from tacit_gen.runtime.errors import ContractWarning, ValidationError

    with tempfile.TemporaryDirectory(prefix="tacit-publish-") as tmp:
        db = Path(tmp) / "batch.duckdb"
        report = load_data(contract, data, db, catalog_path=catalog, sessions_path=calendar,
                           outages_path=outages)
        con = duckdb.connect(str(db), read_only=True)
        try:
            batch = con.execute(f'SELECT * FROM "{report.table}"').fetch_arrow_table()
            cat = _relations(con, [report.catalog])
            ses = _relations(con, [report.sessions])
            out = _relations(con, [report.outages])
            refs = _relations(con, list(report.refs))
        finally:
            con.close()
    notes = tuple(report.messages())
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ContractWarning)
            done = schema.publish(batch, into=into, catalog=cat or None, now=now,
                                  sessions=ses or None, refs=refs or None,
                                  outages=next(iter(out.values()), None))
    except ValidationError as e:
        return PublishOutcome(contract.name, name, error=e, warnings=e.warnings,
                              load_notes=notes)
    warned = tuple(f for w in caught if isinstance(w.message, ContractWarning)
                   for f in w.message.failures)
    return PublishOutcome(contract.name, name, done.rows, done.since, None, warned, notes)
