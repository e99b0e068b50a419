"""Run the generated dbt artifacts for real: a throwaway dbt project on DuckDB, `dbt build` in process.

The project lives in ``inp.workdir/project``: the generated properties YAML and macros file, a
model ``<model>.sql`` selecting from the input table of ``inp.database`` (ATTACHed read-only as
``tacit_src``), a view model for the catalog relation when a clause joins it, and the offline
``dbt_utils`` stand-in installed as a local package.

Verdicts come from dbt's own results (``run_results.json`` + the manifest's test meta):

- ``column:<c>`` / ``no_unknown_columns``: the enforced model contract. A mismatch fails the model
  build before any insert; the mismatch table in dbt's error names the columns. The model is then
  rebuilt with the contract fitted to the data (mismatched types replaced, unknown columns added,
  missing columns and the tests that read them dropped) so every other clause gets its own verdict.
- ``not_null:<c>``: dbt-duckdb enforces the not_null constraints at insert time, so one NULL fails
  the model and skips every test. The failing column is read from DuckDB's constraint error, that
  constraint is removed and the model rebuilt, until it builds.
- every other clause: its data test (pass, or fail with dbt's ``failures`` count).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen.engines.base import (
    SAMPLE_ROWS,
    EngineRun,
    PgLocation,
    SampleRows,
    Verdict,
    VerifyInput,
)
from tacit_gen.targets.dbt.failures import audit_reader, store_failed_tests
from tacit_gen.targets.dbt.fit import self_fit_contract
from tacit_gen.targets.dbt.flags import flag_source_from_frames
from tacit_gen.targets.dbt.jinja_cache import compile_templates_once
from tacit_gen.targets.dbt.names import case_properties, load_yaml
from tacit_gen.targets.dbt.render import (
    LEGACY_MACROS_PATH,
    MACROS_PATH,
    ident,
    jinja_unsafe,
    model_name,
    properties_yaml,
    templates_root,
)
from tacit_gen.targets.dbt.results import build_files

if TYPE_CHECKING:
    from collections.abc import Callable

    from tacit_gen.plan_types import Clause

TARGET = "dbt"
SOURCE_ALIAS = "tacit_src"
# How verify builds the model under test: a table (the default), or a view, dbt's own default
# materialization, where dbt ignores a not_null constraint (the parity suites run both).
MATERIALIZED_ENV = "TACIT_GEN_DBT_MATERIALIZED"
MATERIALIZATIONS = ("table", "view")


def materialized() -> str:
    """The materialization of the model under test (`MATERIALIZED_ENV`, default ``table``)."""
    got = os.environ.get(MATERIALIZED_ENV, "table").strip() or "table"
    if got not in MATERIALIZATIONS:
        raise ValueError(f"{MATERIALIZED_ENV}={got!r}: expected one of {', '.join(MATERIALIZATIONS)}")
    return got
_RUNNER: Any = None
_MISMATCH_ROW = re.compile(
    r"^\s*\|\s*(?P<col>[^|]*?)\s*\|\s*(?P<defn>[^|]*?)\s*\|\s*(?P<contract>[^|]*?)\s*\|\s*(?P<reason>[^|]*?)\s*\|\s*$"
)
_NOT_NULL = re.compile(
    r"NOT NULL constraint failed: (?:[^.\s]+\.)?(?P<col>\S+)"  # DuckDB
    r'|null value in column (?P<pgcol>"(?:[^"]|"")+") of relation'  # PostgreSQL
)


# The process the dbt state of this module (the runner, dbt-duckdb's environment) belongs to.
_PID: int | None = None
# DuckDB handles inherited by fork: kept referenced, never closed or freed in this process.
_INHERITED: list[Any] = []


def _forget_inherited_duckdb() -> None:
    """dbt-duckdb keeps one DuckDB environment per process as class state (``_ENV``). A process
    forked from one that ran dbt inherits it, and dbt-duckdb closes it on its first connection
    with other credentials: closing a DuckDB instance copied by fork aborts the process (SIGABRT
    in ``LocalEnvironment.close``). The child drops it without closing it."""
    import sys

    mod = sys.modules.get("dbt.adapters.duckdb.connections")
    manager = getattr(mod, "DuckDBConnectionManager", None) if mod is not None else None
    env = getattr(manager, "_ENV", None)
    if manager is None or env is None:
        return
    _INHERITED.append((env, getattr(env, "conn", None)))
    if hasattr(env, "conn"):
        env.conn = None  # its __del__ has nothing left to close
    manager._ENV = None


def _in_process_fixes() -> None:
    """dbt-common's two costs that grow with a process's imports and a project's nodes, mended
    once per process before dbt runs in it (docs/engines/dbt.md, Traps met): the stack walk of
    its behavior flags and the compilation of every Jinja text for every node."""
    flag_source_from_frames()
    compile_templates_once()


def _runner() -> Any:
    """One dbtRunner per process (dbt costs ~6 s to import, ~3 s a build after that); on its
    first use in a process, a DuckDB environment already there (inherited by fork from a
    process that ran dbt) is dropped first."""
    global _RUNNER, _PID
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    if os.getpid() != _PID:  # first use here: an environment already present came by fork
        _forget_inherited_duckdb()
    _PID = os.getpid()
    if _RUNNER is None:
        from dbt.cli.main import dbtRunner

        _in_process_fixes()
        _RUNNER = dbtRunner()
    return _RUNNER


def warm() -> None:
    """verify's early start (`tacit_gen.verify.WarmEngine`): dbt and its DuckDB adapter imported,
    the runner made, while verify loads the data."""
    _runner()
    import dbt.adapters.duckdb  # noqa: F401


def standin_dir() -> Path:
    """The offline dbt_utils stand-in package shipped with tacit-gen."""
    return templates_root() / "dbt_utils"


def write_project(project: Path, database: Path, output: dict[str, Any] | None = None,
                  model_config: dict[str, Any] | None = None) -> None:
    """dbt_project.yml, profiles.yml (by default a DuckDB file in the project with the input
    database attached; `output` replaces that profile output) and the local dbt_utils stand-in
    (`link_packages` installs it as `dbt deps` would). `model_config` adds model configs
    (``+file_format``...)."""
    (project / "models").mkdir(parents=True, exist_ok=True)
    (project / "macros").mkdir(parents=True, exist_ok=True)
    (project / "dbt_project.yml").write_text(
        properties_yaml(
            {
                "name": "tacit_verify",
                "version": "1.0",
                "config-version": 2,
                "profile": "tacit_verify",
                "model-paths": ["models"],
                "macro-paths": ["macros"],
                "models": {"tacit_verify": {"+materialized": materialized(), **(model_config or {})}},
                "flags": {"send_anonymous_usage_stats": False, "partial_parse": False},
            }
        ),
        encoding="utf-8",
    )
    (project / "profiles.yml").write_text(
        properties_yaml(
            {
                "tacit_verify": {
                    "target": "verify",
                    "outputs": {
                        "verify": output or {
                            "type": "duckdb",
                            "path": str(project / "verify.duckdb"),
                            "threads": 1,
                            "settings": {"TimeZone": "UTC"},
                            "attach": [
                                {
                                    "path": str(Path(database).resolve()),
                                    "alias": SOURCE_ALIAS,
                                    "read_only": True,
                                }
                            ],
                        }
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    standin = project / "tacit_dbt_utils"
    if not standin.exists():
        shutil.copytree(standin_dir(), standin)
    (project / "packages.yml").write_text(
        properties_yaml({"packages": [{"local": "tacit_dbt_utils"}]}), encoding="utf-8"
    )


def link_packages(project: Path) -> str | None:
    """Install the one package of `project`, the local dbt_utils stand-in, as `dbt deps` does
    for a local package (``dbt_packages/dbt_utils``, a link to ``tacit_dbt_utils``; a copy where
    links cannot be made), without a dbt invocation of its own (half a second of a 15-row
    verify). dbt reads the folder; packages.yml still names the package. None, or why not."""
    installed = project / "dbt_packages" / "dbt_utils"
    if installed.is_dir():
        return None
    try:
        installed.parent.mkdir(parents=True, exist_ok=True)
        try:
            installed.symlink_to(project / "tacit_dbt_utils", target_is_directory=True)
        except OSError:
            shutil.copytree(project / "tacit_dbt_utils", installed)
    except OSError as e:
        return f"{type(e).__name__}: {e}"
    return None


def invoke(project: Path, *args: str, manifest: Any = None) -> Any:
    """Run one dbt command in process against the project; with `manifest` (a `parse`'s, of the
    project as it is now), dbt runs on it instead of parsing the project again."""
    paths = [] if args[0] == "deps" else ["--target-path", str(project / "target")]
    if manifest is not None:
        from dbt.cli.main import dbtRunner

        _in_process_fixes()
        runner = dbtRunner(manifest=manifest)
    else:
        runner = _runner()
    return runner.invoke(
        [
            *args,
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project),
            "--quiet",
            "--log-level",
            "none",
            "--log-level-file",
            "none",
            "--no-use-colors",
            "--log-path",
            str(project / "logs"),
            *paths,
        ]
    )


def _source_sql(relation: str, view: bool = False) -> str:
    cfg = "{{ config(materialized='view') }}\n" if view else ""
    return f"{cfg}select * from {SOURCE_ALIAS}.main.{ident(relation)}\n"


class _Model:
    """The properties YAML of the model under test, edited between rounds."""

    def __init__(self, text: str) -> None:
        doc = load_yaml(text)
        self.doc = doc
        self.model: dict[str, Any] = doc["models"][0]

    @property
    def enforced(self) -> bool:
        c = (self.model.get("config") or {}).get("contract") or {}
        return bool(c.get("enforced"))

    def columns(self) -> list[dict[str, Any]]:
        return list(self.model.get("columns") or [])

    def not_null_columns(self) -> list[str]:
        return [
            str(c["name"])
            for c in self.columns()
            if any(
                isinstance(k, dict) and k.get("type") == "not_null"
                for k in c.get("constraints") or []
            )
        ]

    def drop_constraint(self, column: str) -> None:
        for c in self.model.get("columns") or []:
            if c.get("name") == column:
                c["constraints"] = [
                    k
                    for k in c.get("constraints") or []
                    if not (isinstance(k, dict) and k.get("type") == "not_null")
                ]

    def text(self) -> str:
        return properties_yaml(self.doc)


def _clause_of(node: dict[str, Any]) -> str | None:
    meta = (node.get("config") or {}).get("meta") or node.get("meta") or {}
    cid = meta.get("tacit_clause")
    if cid is not None:
        return str(jinja_unsafe(cid))
    tm = node.get("test_metadata") or {}
    kwargs = dict(tm.get("kwargs") or {})
    column = node.get("column_name")
    from tacit_gen.targets.dbt.read import Reader

    kind, _, default_id = Reader(Path("manifest")).params_for(
        str(tm.get("name", "")), str(tm.get("name", "")), kwargs, column, None
    )
    return default_id if kind else None


def _parse_mismatch(message: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in message.splitlines():
        m = _MISMATCH_ROW.match(line)
        if not m or m.group("col") in ("column_name",) or set(m.group("col")) <= {"-"}:
            continue
        rows.append((m.group("col"), m.group("defn"), m.group("contract"), m.group("reason")))
    return rows


def _worst(verdicts: list[Verdict]) -> Verdict:
    rank = {"error": 4, "fail": 3, "warn": 2, "n/a": 1, "pass": 0}
    worst = max(verdicts, key=lambda v: rank[v.status])
    if worst.status in ("fail", "warn"):
        total = sum(v.failures or 0 for v in verdicts if v.status == worst.status)
        rows = tuple(row for v in verdicts if v.status == worst.status for row in v.rows)
        return Verdict(worst.clause_id, worst.status, total or worst.failures, worst.detail,
                       rows[:SAMPLE_ROWS])
    return worst


def _postgres_output(pg: PgLocation) -> dict[str, Any]:
    """The profile output on the verify server: models built in a schema of their own beside the
    data's; sessions in UTC through PGTZ, which `verify` sets (dbt-postgres takes no session
    options)."""
    p = pg.params
    return {"type": "postgres", "host": p["host"], "port": p["port"], "user": p["user"],
            "password": p["password"], "dbname": p["database"], "schema": pg.schema + "_dbt",
            "threads": 1}


def _pg_source(pg: PgLocation) -> Callable[..., str]:
    """`source_sql(relation, view=False)`: the model SQL selecting a relation of the data's
    schema on the server."""
    from tacit_gen.sql import qualified

    def pg_source(relation: str, view: bool = False) -> str:
        cfg = "{{ config(materialized='view') }}\n" if view else ""
        return f"{cfg}select * from {qualified(relation, pg.schema, 'postgres')}\n"

    return pg_source


def parsed(project: Path, vars_arg: str) -> Any:
    """The project parsed (``dbt parse`` with the build's `vars_arg`): its manifest, which the
    build and the rerun of its failed tests (`store_failed_tests`) share, so dbt parses the project
    (its own and the adapter's macros: most of a small build's CPU) once for both; None when the
    parse fails, and the build then parses for itself and reports what failed, as before.
    ``--no-write-json``: the build writes ``manifest.json`` (with ``run_results.json``) when it
    ends, so the parse's own copy was serialized only to be overwritten (docs/engines/dbt.md)."""
    from tacit_gen.targets.dbt import seed

    result = invoke(project, "parse", "--no-write-json", "--vars", vars_arg,
                    *seed.parse_args(project, invoke))
    return result.result if getattr(result, "success", False) else None


def run(inp: VerifyInput) -> EngineRun:
    """Build the model and its tests with dbt on the input data; one verdict per clause."""
    project = Path(inp.workdir) / "project"
    pg = inp.postgres
    if pg is not None:
        write_project(project, inp.database, _postgres_output(pg))
        return build_verdicts(inp, project, _pg_source(pg))
    write_project(project, inp.database)
    return build_verdicts(inp, project, _source_sql)


def build_verdicts(inp: VerifyInput, project: Path, source_sql: Callable[..., str],
                   read_failures: Callable[[str], list[dict[str, Any]]] | None = None) -> EngineRun:
    """Build the model and its tests in `project` (profile and dbt_utils stand-in written);
    `source_sql(relation, view=False)` is the model SQL selecting a relation of the input data;
    `read_failures(query)`: the rows of a query on the adapter's connection (default: the
    project's DuckDB file or the PostgreSQL server, `audit_reader`), for the failed tests' rows
    (`store_failed_tests`)."""
    b = ModelBuild(inp, project, source_sql)
    if b.error is not None:
        return b.error
    why = link_packages(project)
    if why is not None:
        return b.deps_failed(why)
    vars_arg = dbt_vars(inp.now.isoformat(), inp.since.isoformat() if inp.since else None)
    manifest = None
    while b.rounds_left():
        b.write()
        manifest = parsed(project, vars_arg)
        invoke(project, "build", "--vars", vars_arg, "--threads", "1", manifest=manifest)
        if not b.after_build():
            break
    if b.built:
        store_failed_tests([b], project, vars_arg, read_failures or audit_reader(project, inp.postgres),
                           functools.partial(invoke, manifest=manifest))
    return b.verdicts()


def relations(clauses: tuple[Clause, ...]) -> list[str]:
    """The other relations the clauses read (catalog, sessions, referenced, outages): a view
    model each."""
    return sorted({str(c.param(k)) for c in clauses
                   for k in ("calendar_catalog", "outages_relation", "relation", "sessions_relation",
                             "to_relation")
                   if c.param(k)})


class ModelBuild:
    """One contract's model in a dbt project, built round after round until it builds (a round
    that fails the enforced contract or a not_null constraint settles those clauses and fits the
    model so the next round gets every other clause a verdict); then its verdicts.

    Several may share one project (`build_together`): `only_own_tests` then keeps the results
    of the tests that depend on this model. `prefix` names everything of this model in the
    project ``<prefix><name>`` (the model, its view models, its tests, the ``ref()`` of its tests:
    :func:`tacit_gen.targets.dbt.names.case_properties`), so many datasets of ONE contract share
    a project (the Spark parity batch)."""

    def __init__(self, inp: VerifyInput, project: Path, source_sql: Callable[..., str],
                 only_own_tests: bool = False, prefix: str = "") -> None:
        self.inp, self.project, self.only_own_tests = inp, project, only_own_tests
        contract, clauses = inp.contract, inp.clauses
        self.model = model_name(contract)
        self.prefix, self.name = prefix, prefix + self.model
        self.error: EngineRun | None = None
        yml_path = Path(inp.artifact_dir) / "dbt" / f"{contract.name}.yml"
        macros = Path(inp.artifact_dir) / MACROS_PATH
        if not macros.is_file():  # artifacts rendered before the macros moved out of dbt/
            macros = Path(inp.artifact_dir) / LEGACY_MACROS_PATH
        self.notes: list[str] = []
        if not yml_path.is_file():
            self.error = EngineRun(
                TARGET, tuple(Verdict(c.id, "error", None, f"{yml_path} not found") for c in clauses)
            )
            return
        self.props = props = _Model(yml_path.read_text(encoding="utf-8"))
        if macros.is_file():
            shutil.copyfile(macros, project / "macros" / "tacit_tests.sql")
        (project / "models" / f"{self.name}.sql").write_text(source_sql(inp.table), encoding="utf-8")
        refs = case_properties(props.text(), prefix)[1] if prefix else set()
        for rel in sorted(set(relations(clauses)) | refs):
            if rel != self.model:
                (project / "models" / f"{prefix}{rel}.sql").write_text(
                    source_sql(rel, view=True), encoding="utf-8"
                )
        self.by_id = {c.id: c for c in clauses}
        self.fixed: dict[str, Verdict] = {}  # verdicts settled by a failed round
        self.enforced = props.enforced
        self.yml_columns = [str(c.get("name")) for c in props.columns()]
        self.not_null_in_artifact = set(props.not_null_columns())
        self.missing_cols: set[str] = set()
        self.contract_checked = False
        self.model_uid = f"model.tacit_verify.{self.name}"
        self.results: dict[str, Any] = {}
        self.manifest: dict[str, Any] = {}
        self.built = False
        self.stored: dict[str, SampleRows] = {}  # failed tests' rows (`store_failed_tests`)
        self.last_error = ""
        self._rounds = len(self.yml_columns) + 4

    def deps_failed(self, why: object) -> EngineRun:
        return EngineRun(TARGET, tuple(
            Verdict(c.id, "error", None, f"installing the dbt_utils stand-in failed: {why}")
            for c in self.inp.clauses))

    def rounds_left(self) -> bool:
        return self._rounds > 0

    def write(self) -> None:
        """This round's properties YAML of the model."""
        self._rounds -= 1
        text = self.props.text()
        if self.prefix:
            text = case_properties(text, self.prefix)[0]
        (self.project / "models" / f"{self.name}.yml").write_text(text, encoding="utf-8")

    def after_build(self) -> bool:
        """Read the round's results; True when the model needs another round."""
        props, fixed = self.props, self.fixed
        read = build_files(self.project)
        if read is None:
            self.last_error = "dbt build wrote no run_results.json"
            return False
        results, self.manifest = read
        self.results = results
        mres = results.get(self.model_uid)
        if mres is None:
            self.last_error = f"dbt did not build model {self.model}"
            return False
        if mres["status"] == "success":
            self.built = True
            return False
        message = str(mres.get("message") or "")
        self.last_error = message
        rows = _parse_mismatch(message) if "enforced contract" in message else []
        if rows and not self.contract_checked:
            self.contract_checked = True
            if self.inp.postgres is not None:
                # dbt names the data's types the agate way (DATETIME, ...), which PostgreSQL does
                # not know: fit the contract with the types the relation really has
                actual = _pg_types(self.inp.postgres, self.inp.table)
                rows = [(c, actual.get(c, d), w, r) for c, d, w, r in rows]
            self_fit = self_fit_contract(props.model, rows, self.by_id)
            for col, defn, want, reason in rows:
                if reason == "missing in contract":
                    fixed["no_unknown_columns"] = Verdict(
                        "no_unknown_columns",
                        "fail",
                        None,
                        f"column {col} ({defn}) is not in the enforced contract",
                    )
                else:
                    detail = (
                        f"column {col} is missing from the data"
                        if reason == "missing in definition"
                        else f"data type {defn}, contract says {want}"
                    )
                    fixed[f"column:{col}"] = Verdict(
                        f"column:{col}", "fail", None, f"enforced contract: {detail}"
                    )
            self.missing_cols |= self_fit
            for mc in sorted(self_fit):
                self.notes.append(f"column {mc} missing: clauses reading it are n/a")
            return True
        m = _NOT_NULL.search(message)
        if m:
            col = unquote(m.group("col") or m.group("pgcol"))
            cid = f"not_null:{col}"
            fixed[cid] = Verdict(
                cid,
                "fail",
                None,
                f"not_null constraint failed at insert: {message.splitlines()[-1].strip()}",
            )
            if col not in props.not_null_columns():
                return False
            props.drop_constraint(col)
            self.notes.append(f"rebuilt {self.model} without the not_null constraint on {col}")
            return True
        return False

    def owns(self, node: dict[str, Any]) -> bool:
        return not self.only_own_tests or self.model_uid in (
            (node.get("depends_on") or {}).get("nodes") or [])

    def verdicts(self) -> EngineRun:
        """One verdict per clause, from the last round's results."""
        clauses, fixed, notes, model = self.inp.clauses, self.fixed, self.notes, self.model
        enforced, built, last_error = self.enforced, self.built, self.last_error
        contract_checked, yml_columns = self.contract_checked, self.yml_columns
        verdicts: list[Verdict] = []
        test_verdicts: dict[str, list[Verdict]] = {}
        stored = self.stored
        if built:
            for uid, r in self.results.items():
                node = self.manifest.get("nodes", {}).get(uid) or {}
                if node.get("resource_type") != "test" or not self.owns(node):
                    continue
                test_cid = _clause_of(node)
                if test_cid is None:
                    notes.append(f"test {node.get('name')} maps to no clause")
                    continue
                status = r["status"]
                if status == "pass":
                    v = Verdict(test_cid, "pass", 0)
                elif status in ("fail", "warn"):  # dbt's own status: a `severity: warn` test warns
                    v = Verdict(test_cid, status, r.get("failures"), r.get("message") or "",
                                stored.get(uid, ()))
                else:
                    v = Verdict(test_cid, "error", None, str(r.get("message") or status))
                test_verdicts.setdefault(test_cid, []).append(v)

        for c in clauses:
            if c.id in fixed:
                verdicts.append(fixed[c.id])
                continue
            reads_missing = sorted(set(c.columns) & self.missing_cols)
            if c.kind == "column":
                col = str(c.param("column"))
                if not enforced:
                    verdicts.append(
                        Verdict(c.id, "n/a", None, "the artifact does not enforce the model contract")
                    )
                elif col not in yml_columns:
                    verdicts.append(Verdict(c.id, "n/a", None, f"column {col} is not in the artifact"))
                elif contract_checked or built or not_null_failed(fixed):
                    verdicts.append(Verdict(c.id, "pass", None, "enforced contract"))
                else:
                    verdicts.append(Verdict(c.id, "error", None, last_error))
            elif c.kind == "no_unknown_columns":
                if not enforced:
                    verdicts.append(
                        Verdict(c.id, "n/a", None, "the artifact does not enforce the model contract")
                    )
                elif contract_checked or built or not_null_failed(fixed):
                    verdicts.append(Verdict(c.id, "pass", None, "enforced contract"))
                else:
                    verdicts.append(Verdict(c.id, "error", None, last_error))
            elif reads_missing:
                verdicts.append(
                    Verdict(
                        c.id,
                        "n/a",
                        None,
                        f"reads column(s) missing from the data: {', '.join(reads_missing)}",
                    )
                )
            elif c.kind == "not_null" and c.id not in test_verdicts:
                col = str(c.param("column"))
                if col not in self.not_null_in_artifact:
                    verdicts.append(
                        Verdict(c.id, "n/a", None, f"no not_null constraint on {col} in the artifact")
                    )
                elif built:
                    verdicts.append(Verdict(c.id, "pass", 0, "not_null constraint held at insert"))
                else:
                    verdicts.append(Verdict(c.id, "error", None, last_error))
            elif c.id in test_verdicts:
                verdicts.append(_worst(test_verdicts[c.id]))
            elif not built:
                verdicts.append(
                    Verdict(c.id, "error", None, f"model {model} did not build: {last_error}")
                )
            else:
                verdicts.append(
                    Verdict(c.id, "n/a", None, "no dbt test for this clause in the artifact")
                )
        for cid in sorted(set(test_verdicts) - set(self.by_id)):
            notes.append(f"artifact test for {cid} is not a clause of the plan")
        return EngineRun(TARGET, tuple(verdicts), tuple(notes))


def _pg_types(pg: PgLocation, table: str) -> dict[str, str]:
    """Column -> type as PostgreSQL spells it (``format_type``) for a relation of the schema."""
    import psycopg2

    con = psycopg2.connect(pg.dsn)
    try:
        with con.cursor() as cur:
            cur.execute(
                "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped",
                (pg.schema, table))
            return {str(r[0]): str(r[1]) for r in cur.fetchall()}
    finally:
        con.close()


def not_null_failed(fixed: dict[str, Verdict]) -> bool:
    """A not_null failure means dbt got past the contract check (it runs before the insert)."""
    return any(k.startswith("not_null:") for k in fixed)


def unquote(name: str) -> str:
    n = name.strip().rstrip(".,;")
    if len(n) >= 2 and n[0] == n[-1] == '"':
        return n[1:-1].replace('""', '"')
    return n


# --------------------------------------------------------- many datasets: one project, one build
# `verify --data-dir` (tacit_gen/verify/many.py) and a batch of datasets (`verify_cases`: the
# parity and hardening suites) hand the engine every dataset at once. Each dataset's DuckDB file
# is ATTACHed read-only under an alias of its own (``tacit_src_<i>``; on PostgreSQL its model
# selects from its own schema), and its model (and the views of the catalog or sessions relation
# its clauses read) select from it. The first round builds every model and test at once; a model
# whose build fails (the enforced contract, a not_null constraint) is fitted as for one dataset
# (`ModelBuild`) and only the failed models are rebuilt, together, with ``--select``. Datasets
# share a project when they share `now` and the macros file; one whose model names (the
# contract's model and the relations' views) clash with the project's gets a prefix of its own
# (``c<i>__``, as the Spark batch does: `tacit_gen.targets.dbt.batch`). dbt parses the project
# once a build (about 2.5 s of CPU, most of it its own macros): once for the batch, not per case.

BATCH_ALIAS = "tacit_src_{}"


def macros_text(inp: VerifyInput) -> str:
    """The text of the input's generated macros file ("" when it has none)."""
    for rel in (MACROS_PATH, LEGACY_MACROS_PATH):
        path = Path(inp.artifact_dir) / rel
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return ""


def _names(inp: VerifyInput) -> set[str]:
    return {model_name(inp.contract), *relations(inp.clauses)}


def batch_groups(inputs: list[VerifyInput]) -> list[list[tuple[int, str]]]:
    """The inputs that share one project, in order, each with the prefix of its dbt names: one
    project per pinned now, increment start and macros file; an input whose model or relation views clash with
    names already in its project (datasets of ONE contract: a parity batch) gets the prefix
    ``c<i>__`` (`ModelBuild.prefix`), the others none."""
    out: dict[tuple[str, str, str], tuple[list[tuple[int, str]], set[str]]] = {}
    for i, inp in enumerate(inputs):
        names = _names(inp)
        key = (inp.now.isoformat(), macros_text(inp), inp.since.isoformat() if inp.since else "")
        members, used = out.setdefault(key, ([], set()))
        prefix = f"c{i}__" if names & used else ""
        members.append((i, prefix))
        used |= {prefix + n for n in names}
    return [members for members, _ in out.values()]


def _source(alias: str) -> Callable[..., str]:
    def source_sql(relation: str, view: bool = False) -> str:
        cfg = "{{ config(materialized='view') }}\n" if view else ""
        return f"{cfg}select * from {alias}.main.{ident(relation)}\n"

    return source_sql


def _project(inputs: list[VerifyInput], prefixes: list[str], project: Path) -> list[EngineRun]:
    """The inputs' models in one project, built together (`prefixes`: each one's dbt names')."""
    pg = inputs[0].postgres
    if pg is not None:  # one server: the models in the first input's dbt schema, each selecting
        write_project(project, inputs[0].database, _postgres_output(pg))  # its own data's schema
        sources = [_pg_source(inp.postgres or pg) for inp in inputs]
    else:
        output: dict[str, Any] = {
            "type": "duckdb", "path": str(project / "verify.duckdb"), "threads": 1,
            "settings": {"TimeZone": "UTC"},
            "attach": [{"path": str(Path(inp.database).resolve()), "alias": BATCH_ALIAS.format(i),
                        "read_only": True} for i, inp in enumerate(inputs)],
        }
        write_project(project, inputs[0].database, output)
        sources = [_source(BATCH_ALIAS.format(i)) for i in range(len(inputs))]
    builds = [ModelBuild(inp, project, source, only_own_tests=True, prefix=prefix)
              for inp, source, prefix in zip(inputs, sources, prefixes, strict=True)]
    since = inputs[0].since
    return build_together(builds, project, inputs[0].now.isoformat(),
                          since.isoformat() if since else None)


def dbt_vars(now: str, since: str | None = None) -> str:
    """``--vars`` of a build: the pinned now, and the increment's start when there is one
    (var('tacit_since'): the generated tests check the increment, docs/increments.md)."""
    return json.dumps({"tacit_now": now, **({"tacit_since": since} if since else {})})


def build_together(builds: list[ModelBuild], project: Path, now: str,
                   since: str | None = None,
                   read_failures: Callable[[str], list[dict[str, Any]]] | None = None,
                   ) -> list[EngineRun]:
    """Models sharing one project (written, profile and stand-in in place) and one pinned now:
    ONE ``dbt build`` of all, then a build of only the models that need another round
    (``--select`` them) until none does; then the failed tests' rows (`store_failed_tests`,
    read through `read_failures`, by default `audit_reader`); each model's verdicts, in order."""
    pending = [b for b in builds if b.error is None]
    why = link_packages(project)
    if why is not None:
        return [b.error or b.deps_failed(why) for b in builds]
    vars_arg = dbt_vars(now, since)
    first = True
    manifest = None
    while pending:
        for b in pending:
            b.write()
        select = [] if first else ["--select", *(b.name for b in pending)]
        manifest = parsed(project, vars_arg)
        invoke(project, "build", "--vars", vars_arg, "--threads", "1", *select, manifest=manifest)
        first = False
        pending = [b for b in pending if b.after_build() and b.rounds_left()]
    built = [b for b in builds if b.error is None and b.built]
    if built:
        store_failed_tests(built, project, vars_arg,
                           read_failures or audit_reader(project, built[0].inp.postgres),
                           functools.partial(invoke, manifest=manifest))
    return [b.error or b.verdicts() for b in builds]


def run_cases(inputs: list[VerifyInput]) -> list[EngineRun]:
    """Every input's verdicts, in order: one project and one build per group of inputs
    (`batch_groups`), on DuckDB and on PostgreSQL alike."""
    out: dict[int, EngineRun] = {}
    for g in batch_groups(inputs):
        mine = [inputs[i] for i, _ in g]
        # the group's project lives in its first input's work folder
        runs = _project(mine, [prefix for _, prefix in g], Path(mine[0].workdir) / "project")
        out.update(zip((i for i, _ in g), runs, strict=True))
    return [out[i] for i in range(len(inputs))]
