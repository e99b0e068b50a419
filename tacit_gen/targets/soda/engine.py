"""Run the generated SodaCL with Soda v3 (soda-core-duckdb) on the verify database.

Two scans (docs/engines/soda.md): a missing column makes Soda's shared aggregate query fail and
the whole scan report nothing, so the schema check and the unknown-columns metric run first, on
their own; the other checks run in a second scan, leaving out those that read a column the data
lacks. If a scan still errors, each check without an outcome is run again in a scan of its own.
Verdicts are Soda's outcomes; failing row counts come from Soda's diagnostics.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen import sql
from tacit_gen.engines.base import (
    SAMPLE_ROWS,
    EngineRun,
    PgLocation,
    SampleRows,
    Status,
    Verdict,
    VerifyInput,
    sample_text,
)
from tacit_gen.targets.soda.names import NAME, NOW_VARIABLE, artifact_path, ident
from tacit_gen.targets.soda.read import check_items, read_check
from tacit_gen.targets.soda.render import build
from tacit_gen.targets.soda.since import SINCE_VARIABLE
from tacit_gen.targets.soda.writer import dump, load_yaml

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tacit_gen.plan_types import Clause

DATA_SOURCE = "tacit"
ROWS_KEY = "_tacit_rows"  # a failed check's sampled rows, beside its Soda result
SODA_CONFIG = "send_anonymous_usage_stats: false\nuser_cookie_id: tacit-gen\n"
COUNT_KINDS = frozenset(
    {
        "not_null",
        "unique",
        "accepted_values",
        "fixed_value",
        "invariant",
        "pattern",
        "plausible",
        "references",
        "cadence",
        "catalog_unit",
        "catalog_bounds",
        "catalog_dimension",
        "completeness",
        "revision_window",
        "revision_by",
        "precision",
    }
)


@dataclass
class _Check:
    """One check of the artifact: its section, line, configuration and the clauses it states."""

    header: str
    line: str
    cfg: Any
    ids: tuple[str, ...]
    kinds: tuple[str, ...]
    columns: tuple[str, ...] = ()

    def key(self) -> str:
        return dump([{self.line: self.cfg}] if self.cfg is not None else [self.line])


@dataclass
class _Outcome:
    check: _Check
    outcome: str | None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    rows: SampleRows = ()  # the first failed rows Soda sampled


def _rows_sampler() -> Any:
    """A Soda sampler that keeps the first failed rows of each check, by check name (Soda v3
    fetches a failed-rows sample of a failing missing/invalid/duplicate/failed-rows check
    whatever the sampler; the default one drops it)."""
    from soda.sampler.sample_ref import SampleRef
    from soda.sampler.sampler import Sampler

    class RowsSampler(Sampler):  # type: ignore[misc]
        def __init__(self) -> None:
            self.rows: dict[str, list[dict[str, Any]]] = {}

        def store_sample(self, sample_context: Any) -> Any:
            sample = sample_context.sample
            schema = sample.get_schema()
            names = [c.name for c in schema.columns]
            kept = self.rows.setdefault(str(sample_context.check_name), [])
            for row in sample.get_rows()[:SAMPLE_ROWS]:
                kept.append(dict(zip(names, row, strict=False)))
            count = sample.get_rows_count()
            return SampleRef(name=sample_context.sample_name, schema=schema,
                             total_row_count=count, stored_row_count=count,
                             type=SampleRef.TYPE_NOT_PERSISTED, message="kept by tacit-gen verify")

    return RowsSampler()


@contextmanager
def _in_dir(path: Path) -> Iterator[None]:
    """chdir into `path` (where `.soda/config.yml` turns telemetry off), then back."""
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _telemetry_off() -> str | None:
    """Soda reads its config once, at first import; make sure usage stats stay off."""
    from soda.telemetry.soda_telemetry import SodaTelemetry

    tel = SodaTelemetry.get_instance()
    if getattr(tel, "_SodaTelemetry__send", False):
        tel._SodaTelemetry__send = False  # type: ignore[attr-defined]
        return (
            "Soda's config (imported earlier, or ~/.soda/config.yml) had usage stats on: forced off"
        )
    return None


class DuckDBSource:
    """Where Soda scans: an open DuckDB connection (soda-core-duckdb)."""

    def __init__(self, con: Any) -> None:
        self.con = con

    def attach(self, scan: Any) -> None:
        scan.add_duckdb_connection(self.con, data_source_name=DATA_SOURCE)

    def columns(self, relation: str) -> set[str]:
        rows = self.con.execute(f"DESCRIBE SELECT * FROM {ident(relation)}").fetchall()
        return {str(r[0]) for r in rows}

    def alias(self, name: str, relation: str) -> None:
        self.con.execute(f"CREATE TEMP VIEW {ident(name)} AS SELECT * FROM {ident(relation)}")


def _scan(con: Any, checks: list[_Check], now: str,
          since: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Run one Soda scan; its check results and error log lines. `since`: the scan variable
    ``tacit_since`` (the checks read the increment, `tacit_gen.targets.soda.since`)."""
    from soda.scan import Scan

    by_header: dict[str, list[Any]] = {}
    for c in checks:
        by_header.setdefault(c.header, []).append({c.line: c.cfg} if c.cfg is not None else c.line)
    scan = Scan()
    scan.set_scan_definition_name("tacit_gen_verify")
    scan.set_data_source_name(DATA_SOURCE)
    con.attach(scan)
    scan.add_variables({NOW_VARIABLE: now, **({SINCE_VARIABLE: since} if since else {})})
    scan.add_sodacl_yaml_str(dump(by_header))
    sampler = scan.sampler = _rows_sampler()
    try:
        scan.execute()
    finally:
        if hasattr(con, "release"):
            con.release(scan)
    results = scan.get_scan_results()
    errors = [ln for ln in (scan.get_logs_text() or "").splitlines() if ln.startswith("ERROR")]
    checks_out = list(results.get("checks", []))
    for res in checks_out:  # each failed check's first rows, beside its result
        if res.get("outcome") in ("fail", "warn") and res.get("name") in sampler.rows:
            res[ROWS_KEY] = sample_text(sampler.rows[str(res["name"])])
    return checks_out, errors


def _match(results: list[dict[str, Any]], checks: list[_Check]) -> dict[int, _Outcome]:
    """Soda results matched back to the checks (by their definition, not by order)."""
    keys = {c.key(): i for i, c in enumerate(checks)}
    out: dict[int, _Outcome] = {}
    for res in results:
        try:
            items = check_items(load_yaml(res.get("definition") or "", fast=True))
        except Exception:  # a definition Soda wrote that we cannot read: leave it unmatched
            continue
        for header, line, cfg in items:
            k = dump([{line: cfg}] if cfg is not None else [line])
            i = keys.get(k)
            if i is None:
                # Soda rewrites the definition; fall back to the clause ids it states.
                ids = read_check(line, cfg).ids
                cand = [j for j, c in enumerate(checks) if c.ids == ids and c.header == header]
                i = cand[0] if len(cand) == 1 else None
            if i is not None:
                out[i] = _Outcome(checks[i], res.get("outcome"), res.get("diagnostics") or {},
                                  rows=res.get(ROWS_KEY) or ())
    return out


def _run_all(con: Any, checks: list[_Check], now: str,
             since: str | None = None) -> tuple[dict[int, _Outcome], list[str]]:
    """Scan the checks together; rerun one by one those without an outcome when errors occurred."""
    if not checks:
        return {}, []
    results, errors = _scan(con, checks, now, since)
    got = _match(results, checks)
    notes: list[str] = []
    if errors:
        notes.append(f"scan errors, checks rerun one by one: {errors[0]}")
        for i, c in enumerate(checks):
            if i in got and got[i].outcome is not None:
                continue
            res, errs = _scan(con, [c], now, since)
            one = _match(res, [c])
            if 0 in one:
                got[i] = one[0]
            else:
                got[i] = _Outcome(c, None, {}, errs[0] if errs else "")
    return got, notes


def _failures(o: _Outcome) -> int | None:
    if o.outcome is None:
        return None
    kinds = set(o.check.kinds)
    counts = bool(kinds & COUNT_KINDS) or (
        "range" in kinds and o.check.line.startswith("invalid_count")
    )
    if not counts:
        return None
    for block in o.diagnostics.get("blocks") or []:
        if isinstance(block, dict) and block.get("totalFailingRows") is not None:
            return int(block["totalFailingRows"])
    value = o.diagnostics.get("value")
    return int(value) if isinstance(value, int | float) else None


def _combine(cid: str, outs: list[_Outcome]) -> Verdict:
    statuses = [o.outcome for o in outs]
    fails = [f for f in (_failures(o) for o in outs) if f is not None]
    failures = sum(fails) if fails else None
    rows = tuple(r for o in outs if o.outcome in ("fail", "warn") for r in o.rows)[:SAMPLE_ROWS]
    if "fail" in statuses:
        return Verdict(cid, "fail", failures, rows=rows)
    if "warn" in statuses:  # Soda's own outcome: a `warn:` threshold was crossed
        return Verdict(cid, "warn", failures, rows=rows)
    if all(s == "pass" for s in statuses):
        return Verdict(cid, "pass", failures)
    errs = [o.error for o in outs if o.error]
    if errs:
        return Verdict(cid, "error", None, errs[0])
    return Verdict(
        cid, "n/a", None, "Soda reported no outcome (e.g. min/max over no non-null value)"
    )


def _column_verdicts(clauses: tuple[Clause, ...], schema: list[_Outcome]) -> dict[str, Verdict]:
    out: dict[str, Verdict] = {}
    for c in clauses:
        if c.kind != "column":
            continue
        col = c.param("column")
        mine = [o for o in schema if c.id in o.check.ids]
        if not mine:
            continue
        if any(o.outcome is None for o in mine):
            err = next((o.error for o in mine if o.error), "")
            out[c.id] = Verdict(c.id, "error", None, err or "schema check gave no outcome")
            continue
        problems = []
        for o in mine:
            d = o.diagnostics
            if col in (d.get("missing_column_names") or []):
                problems.append("column missing")
            mm = (d.get("column_type_mismatches") or {}).get(col)
            if mm:
                problems.append(f"type {mm.get('actual_type')}, expected {mm.get('expected_type')}")
        out[c.id] = Verdict(c.id, "fail" if problems else "pass", None, "; ".join(problems))
    return out


class PostgresSource:
    """Where Soda scans on PostgreSQL: soda-core-postgres on the verify schema (Soda sets
    `search_path` to it, so the file's unqualified names resolve there)."""

    def __init__(self, pg: PgLocation) -> None:
        self.pg = pg

    def attach(self, scan: Any) -> None:
        p = self.pg.params
        scan.add_configuration_yaml_str(dump({f"data_source {DATA_SOURCE}": {
            "type": "postgres", "host": p["host"], "port": str(p["port"]), "username": p["user"],
            "password": p["password"], "database": p["database"], "schema": self.pg.schema}}))

    def release(self, scan: Any) -> None:
        """Soda leaves its psycopg2 connection open inside a transaction, which holds locks on
        the schema (verify's DROP SCHEMA would wait for ever): close it."""
        import contextlib

        for source in scan._data_source_manager.data_sources.values():
            conn: Any = getattr(source, "connection", None)
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()

    def _execute(self, statement: str, args: tuple[Any, ...] = ()) -> list[Any]:
        import psycopg2

        conn = psycopg2.connect(self.pg.with_search_path())
        try:
            with conn, conn.cursor() as cur:
                cur.execute(statement, args)
                return list(cur.fetchall()) if cur.description else []
        finally:
            conn.close()

    def columns(self, relation: str) -> set[str]:
        rows = self._execute("SELECT column_name FROM information_schema.columns "
                             "WHERE table_schema = %s AND table_name = %s",
                             (self.pg.schema, relation))
        return {str(r[0]) for r in rows}

    def alias(self, name: str, relation: str) -> None:
        # a view in the schema: a temporary one would be invisible to Soda's own connection
        self._execute(f"CREATE OR REPLACE VIEW {sql.qualified(name, self.pg.schema, 'postgres')}"
                      f" AS SELECT * FROM {sql.qualified(relation, self.pg.schema, 'postgres')}")


def run(inp: VerifyInput) -> EngineRun:
    """Verdicts of Soda v3 on the verify database, one per clause of the plan."""
    import duckdb

    if inp.postgres is not None:
        return scan_verdicts(inp, PostgresSource(inp.postgres))

    con = duckdb.connect(str(inp.database), read_only=True)
    try:
        return scan_verdicts(inp, DuckDBSource(con))
    finally:
        con.close()


def scan_verdicts(inp: VerifyInput, source: Any) -> EngineRun:
    """Run the Soda artifact on `source` (:class:`DuckDBSource`, or another engine's object with
    ``attach(scan)``, ``columns(relation)`` and ``alias(name, relation)``); a verdict per clause."""
    notes: list[str] = []
    path = inp.artifact_dir / artifact_path(inp.contract)
    doc = load_yaml(path.read_text(encoding="utf-8"), fast=True)
    by_id = {c.id: c for c in inp.clauses}
    checks: list[_Check] = []
    for header, line, cfg in check_items(doc):
        cr = read_check(line, cfg)
        cols: list[str] = []
        for cl in cr.clauses:
            src = by_id.get(cl.id, cl)
            cols.extend(x for x in src.columns if x not in cols)
        checks.append(
            _Check(header, line, cfg, cr.ids, tuple(c.kind for c in cr.clauses), tuple(cols))
        )
    _, unsupported = build(inp.contract, inp.clauses)
    unsupported_reason = {u.clause_id: u.reason for u in unsupported}

    workdir = Path(inp.workdir)
    (workdir / ".soda").mkdir(parents=True, exist_ok=True)
    (workdir / ".soda" / "config.yml").write_text(SODA_CONFIG, encoding="utf-8")
    con = source
    with _in_dir(workdir):
        note = _telemetry_off()
        if note:  # housekeeping, not a finding: to the engine's log (engine.log), not the report
            import logging

            logging.getLogger("tacit_gen.soda").warning(note)
        datasets = {h.removeprefix("checks for ").strip() for h in {c.header for c in checks}}
        for ds in sorted(datasets):
            if ds != inp.table:
                con.alias(ds, inp.table)
        present = con.columns(inp.table)
        missing = {c for c in inp.contract.column_names if c not in present}
        first = [
            c
            for c in checks
            if c.line == "schema" or set(c.kinds) & {"column", "no_unknown_columns"}
        ]
        rest = [c for c in checks if c not in first]
        runnable = [c for c in rest if not set(c.columns) & missing]
        now = inp.now.isoformat()
        since = inp.since.isoformat() if inp.since else None
        got1, n1 = _run_all(con, first, now, since)
        got2, n2 = _run_all(con, runnable, now, since)
        notes.extend(n1 + n2)

    outcomes: dict[str, list[_Outcome]] = {}
    schema_outs: list[_Outcome] = []
    for got, pool in ((got1, first), (got2, runnable)):
        for i, c in enumerate(pool):
            o = got.get(i) or _Outcome(c, None, {}, "")
            if c.line == "schema":
                schema_outs.append(o)
                continue
            for cid in c.ids:
                outcomes.setdefault(cid, []).append(o)
    col_verdicts = _column_verdicts(inp.clauses, schema_outs)
    skipped = {cid for c in rest if c not in runnable for cid in c.ids}

    verdicts: list[Verdict] = []
    for cl in inp.clauses:
        cid = cl.id
        if cl.kind == "column" and cid in col_verdicts:
            v = col_verdicts[cid]
            extra = [o for o in outcomes.get(cid, []) if o.outcome in ("fail", "warn")]
            if extra and v.status == "pass":  # the decimal metric: precision or scale differ
                v = Verdict(cid, "fail", None, "not numeric with the contract's precision and scale")
            verdicts.append(v)
        elif cid in outcomes:
            verdicts.append(_combine(cid, outcomes[cid]))
        elif cid in skipped:
            gone = ", ".join(c for c in cl.columns if c in missing)
            verdicts.append(
                Verdict(
                    cid,
                    "n/a",
                    None,
                    f"not run: column {gone} missing from the "
                    "data (a failure of the column clause)",
                )
            )
        elif cid in unsupported_reason:
            verdicts.append(Verdict(cid, "n/a", None, f"unsupported: {unsupported_reason[cid]}"))
        else:
            verdicts.append(Verdict(cid, "n/a", None, "no check for this clause in the artifact"))
    return EngineRun(NAME, tuple(verdicts), tuple(notes))


__all__ = ["Status", "run"]
