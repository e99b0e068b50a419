"""The `tacit-gen` command line: parse flags, call the library, print a report, exit with its code.

Heavy engines are imported inside commands only, so `tacit-gen --help` stays fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from tacit_gen import __version__
from tacit_gen.textsafe import printable

EXIT_CODES = """\b
Exit codes:
  0  success: clean, nothing stale, all engines pass
  1  findings: lint errors, stale or drifted artifacts, violations (engines agree),
     a version bump too small, an incompatible change
  2  usage error, or a contract that does not load
  3  verify: the engines disagree on a clause (please report it)
  4  verify: an engine could not run (named, with why; no verdict from it)
  130  interrupted (Ctrl-C, SIGINT): the engines' processes are stopped"""


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def _fail_usage(message: str) -> NoReturn:
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(2)


def _fail_missing(error: Exception) -> NoReturn:
    """What the command needs is not installed (`tacit_gen.extras.MissingExtra`): named with its
    install line, exit 4 (it could not run; not a usage error, not a verdict)."""
    click.echo(f"error: {printable(str(error))}", err=True)
    sys.exit(4)


def _echo_text(text: str) -> None:
    """A report for a terminal: data values and engine messages can hold anything."""
    click.echo("\n".join(printable(line) for line in text.split("\n")))


def _echo_diagnostics(diags: Any, err: bool = False, sources: dict[str, str] | None = None) -> None:
    """Diagnostics as a compiler shows them: the source line and a caret (tacit_gen.console)."""
    from tacit_gen.console import echo_diagnostics

    echo_diagnostics(diags, err=err, sources=sources)


def _report_progress(label: str, verbose: bool = False) -> None:
    """Progress on stderr when it is a terminal (nothing otherwise); `verbose`: the engines' own
    logging reaches the terminal too."""
    from tacit_gen import console

    console.VERBOSE = verbose
    console.set_progress(console.Progress(label=label))


def _load_or_exit(path: str) -> Any:
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan

    try:
        contract = load(path)
        plan(contract)  # what only the plan can check (severity names a clause)
        return contract
    except ContractError as e:
        _echo_diagnostics(e.diagnostics, err=True)
        sys.exit(2)


def _targets(spec: str | None) -> tuple[str, ...]:
    from tacit_gen import registry

    try:
        return registry.parse_targets(spec)
    except KeyError as e:
        _fail_usage(str(e.args[0]))


class _Main(click.Group):
    """The command group: an interrupt is exit 130 (128 + SIGINT, as a shell reports it), never
    click's exit 1, which here means findings (a CI step that was cancelled did not find
    violations)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            ctx.exit(130)


@click.group(
    cls=_Main,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES,
)
@click.version_option(__version__, "--version", prog_name="tacit-gen")
@click.option("--max-contract-bytes", type=click.IntRange(1), default=4 * 1024 * 1024, show_default=True,
              envvar="TACIT_GEN_MAX_CONTRACT_BYTES",
              help="Refuse contract files larger than this (env TACIT_GEN_MAX_CONTRACT_BYTES).")
def main(max_contract_bytes: int) -> None:
    """One data contract per dataset, rendered verbatim into dbt, Soda, Great Expectations,
    pandera and a native ibis runtime, and checked in CI.

    Contracts live in contracts/ and render into generated/ by default.
    """
    from tacit_gen.contract import yamlpos

    yamlpos.LIMITS.max_bytes = max_contract_bytes


# --------------------------------------------------------------------------------------- lint
@main.command(epilog=EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def lint(paths: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Load and check contracts (default: the settings' contracts, else contracts/):
    `path:line:col: severity: message [code]`."""
    from tacit_gen.contract.loader import load_report
    from tacit_gen.render import find_contracts

    paths = paths or _Project().paths
    files = find_contracts(paths)
    if not files:
        _fail_usage(f"no contract files (*.yaml, *.yml) under {', '.join(paths)}")
    diags = []
    for f in files:
        c, ds = load_report(f)
        diags.extend(ds)
        if c is not None and c.severity:  # severity names clauses: only the plan knows them
            import dataclasses

            from tacit_gen.contract.loader import display_path
            from tacit_gen.plan import plan, severity_problems

            c_plain = dataclasses.replace(c, severity=())
            diags.extend(severity_problems(c, plan(c_plain), display_path(f)))
    errors = sum(d.severity == "error" for d in diags)
    warnings = sum(d.severity == "warning" for d in diags)
    code = 1 if errors or (strict and warnings) else 0
    if fmt == "json":
        _echo_json({"ok": code == 0, "files": [str(f) for f in files],
                    "diagnostics": [d.as_json() for d in diags]})
    else:
        _echo_diagnostics(diags)
        click.echo(f"{len(files)} contract(s): {errors} error(s), {warnings} warning(s)")
    sys.exit(code)


# ------------------------------------------------------------------------------------ explain
@main.command(epilog=EXIT_CODES)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--targets", "show_targets", is_flag=True,
              help="Print the support matrix: how each clause lands in each target.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def explain(contract: str, show_targets: bool, fmt: str) -> None:
    """The clause plan as a table: id, kind, columns, line, verbatim text."""
    from tacit_gen.plan import plan

    c = _load_or_exit(contract)
    clauses = plan(c)
    if show_targets:
        from tacit_gen.explain import support_matrix

        matrix = support_matrix(c, clauses, _Project().options)  # as the settings render
        if fmt == "json":
            _echo_json(matrix)
        else:
            from tacit_gen.console import terminal_width
            from tacit_gen.explain import render_matrix

            click.echo(render_matrix(matrix, terminal_width()))
        return
    if fmt == "json":
        _echo_json({
            "contract": c.name,
            "version": c.version,
            "clauses": [
                {"id": cl.id, "kind": cl.kind, "columns": list(cl.columns), "line": cl.line,
                 "text": cl.text, "severity": cl.severity, "params": {k: v for k, v in cl.params}}
                for cl in clauses
            ],
            "lint_waivers": [{"field": f.name, "allow": list(f.lint_allow), "reason": f.lint_reason}
                             for f in c.fields if f.lint_allow],
        })
        return
    from tacit_gen.console import terminal_width
    from tacit_gen.explain import render_plan

    click.echo(render_plan(c, clauses, terminal_width()))


# ------------------------------------------------------------------------------------- render
def _settings() -> Any:
    """The project settings (tacit-gen.toml / [tool.tacit-gen]); a bad file is exit 2."""
    from tacit_gen import settings

    try:
        return settings.discover()
    except settings.SettingsError as e:
        _echo_diagnostics(e.diagnostics, err=True)
        sys.exit(2)


def _target_flags() -> list[tuple[str, Any, Any]]:
    """Every CLI flag a registered target declares: (flag, its target, the options field)."""
    import dataclasses

    from tacit_gen import registry

    out = []
    for name in registry.names():
        target = registry.get(name)
        for f in dataclasses.fields(target.options):
            if "flag" in f.metadata:
                out.append((f.metadata["flag"], target, f))
    return out


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


class _WithTargetFlags(click.Command):
    """A command that also takes the flags every registered target declares (`--dbt-adapter`...).

    They are added when the command runs or shows its help, so start-up imports no target. A flag
    not given is None: the settings file's `[<target>]` value applies, else the field's default.
    """

    _added = False

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if not self._added:
            self._added = True
            for flag, target, f in _target_flags():
                choices = f.metadata.get("choices") or ()
                self.params.append(click.Option(
                    [flag], default=None,
                    type=click.Choice(list(choices)) if choices else str,
                    help=f"[{target.name}] {f.metadata.get('help', '')}"))
        return super().get_params(ctx)


def _echo_unsupported(unsupported: list[Any]) -> None:
    """One warning per contract, target and reason (a wire schema declares most clauses
    unsupported), each line whole as a compiler's: ``<file>: warning: <target> cannot express
    <clause ids>: <reason>``, so a repository's render says which contract, and grep finds it."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for u in unsupported:
        ids = groups.setdefault((u.contract, u.target, u.reason), [])
        if u.clause_id not in ids:
            ids.append(u.clause_id)
    for (where, target, reason), ids in groups.items():
        prefix = f"{where}: " if where else ""
        click.echo(f"{prefix}warning: {target} cannot express {', '.join(ids)}: {reason}", err=True)


class _Project:
    """Settings merged with the flags (a flag wins): what render, check and verify run with."""

    def __init__(self, paths: tuple[str, ...] = (), out: str | None = None,
                 target_spec: str | None = None, templates: str | None = None,
                 dialect: str | None = None, flags: dict[str, Any] | None = None) -> None:
        from tacit_gen.targets.base import RenderOptions

        s = self.settings = _settings()
        self.paths: tuple[str, ...] = paths or tuple(s.path(c) for c in (s.contracts or ("contracts",)))
        self.out = out or (s.path(s.out) if s.out else "generated")
        self.targets = _targets(target_spec) if target_spec else (s.targets or _targets(None))
        self.options = RenderOptions(
            templates_dir=templates or (s.path(s.templates) if s.templates else None),
            out_dir=self.out,
            dialect=dialect,
            targets=self._target_options(flags or {}),
        )
        self.dbt_project = s.path(s.dbt.project) if s.dbt.project else None

    def _target_options(self, flags: dict[str, Any]) -> tuple[Any, ...]:
        """Each target's options object: its flag, else its settings-file value, else default."""
        import dataclasses

        values: dict[Any, dict[str, Any]] = {}
        for flag, target, f in _target_flags():
            section = getattr(self.settings, target.name, None)
            values.setdefault(target.options, {})
            given = flags.get(_dest(flag))
            if given is None and section is not None and f.name != "macros":
                given = getattr(section, f.name, None)
            if given is not None:
                values.setdefault(target.options, {})[f.name] = given
        out = []
        for cls, kw in values.items():
            opts = cls(**kw)
            if cls.__name__ == "DbtOptions":
                opts = dataclasses.replace(opts, **self._dbt_paths(flags, opts))
            out.append(opts)
        return tuple(out)

    def _dbt_paths(self, flags: dict[str, Any], opts: Any) -> dict[str, Any]:
        """The dbt macros folder relative to the output root, and the dbt-core version the YAML
        is for (installed, when neither flag nor settings say)."""
        import os

        from tacit_gen.settings import installed_dbt_version

        s = self.settings
        if flags.get("dbt_macros") is not None:
            macros_abs = Path(flags["dbt_macros"]).resolve()
        elif s.dbt.macros is not None:
            macros_abs = (s.root / s.dbt.macros).resolve()
        else:
            macros_abs = Path(self.out).resolve() / "dbt_macros"
        macros = Path(os.path.relpath(macros_abs, Path(self.out).resolve())).as_posix()
        return {"macros": macros, "version": opts.version or installed_dbt_version()}


from tacit_gen.sql.dialects import DIALECTS as SQL_DIALECTS  # noqa: E402  (no sqlglot import)

_render_flags = [
    click.option("--out", default=None, type=click.Path(file_okay=False),
                 help="Output root: one folder per target. [settings: out; default: generated]"),
    click.option("--target", "target_spec", default=None,
                 help="Comma-separated targets. [settings: targets; default: all]"),
    click.option("--templates", default=None, type=click.Path(file_okay=False, exists=True),
                 help="A folder of template overrides, one subfolder per target."),
    click.option("--dialect", default=None, type=click.Choice(SQL_DIALECTS),
                 help="SQL dialect of the Soda and GX artifacts (queries, type names); a contract's "
                      "targets.<t>.dialect wins. Default: the dbt adapter's dialect."),
    click.option("--no-cache", is_flag=True,
                 help="Render every artifact anew: the render cache ($TACIT_GEN_CACHE_DIR, else "
                      "$XDG_CACHE_HOME/tacit-gen, in render/) is neither read nor written."),
]


def _render_cache(no_cache: bool) -> Any:
    """The render cache of `render` and `check` (`tacit_gen.rendercache`), or None (--no-cache)."""
    if no_cache:
        return None
    from tacit_gen.rendercache import RenderCache

    return RenderCache()


def _with_render_flags(f: Any) -> Any:
    for opt in reversed(_render_flags):
        f = opt(f)
    return f


@main.command(epilog=EXIT_CODES, cls=_WithTargetFlags)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@_with_render_flags
@click.option("--check", is_flag=True, help="Write nothing to the project; print a diff of what would "
              "change; exit 1 if stale. (The render cache may be written: see --no-cache.)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def render(paths: tuple[str, ...], out: str | None, target_spec: str | None, templates: str | None,
           dialect: str | None, no_cache: bool, check: bool, fmt: str, **flags: Any) -> None:
    """Render contracts into artifacts: settings first (tacit-gen.toml), then flags; default
    contracts/ into generated/."""
    from tacit_gen import render as r

    proj = _Project(paths, out, target_spec, templates, dialect, flags)
    files = r.find_contracts(proj.paths)
    if not files:
        _fail_usage("no contract files to render")
    targets = proj.targets
    try:
        run = r.render_all(files, targets, proj.options, _render_cache(no_cache))
    except ValueError as e:  # a --templates folder that would be ignored
        _fail_usage(str(e))
    _echo_diagnostics(run.errors, err=True)
    if run.errors:
        sys.exit(2)
    _echo_unsupported(run.unsupported)
    if "dbt" in targets:
        from tacit_gen.dbt_project import dbt_utils_warning

        warning = dbt_utils_warning(run.artifacts, proj.settings.root, proj.dbt_project)
        if warning:
            click.echo(f"warning: {warning}", err=True)
    outdir = Path(proj.out)
    if check:
        rep = r.stale(outdir, run, targets)
        if fmt == "json":
            _echo_json({"stale": [p for p, _ in rep.changed], "orphaned": rep.orphaned,
                        "unsupported": [u.__dict__ for u in run.unsupported]})
        else:
            for _, diff in rep.changed:
                click.echo(diff, nl=False)
            for o in rep.orphaned:
                click.echo(f"orphaned: {o} (its contract is gone; delete it)")
            if rep.changed or rep.orphaned:
                click.echo(f"{len(rep.changed)} stale, {len(rep.orphaned)} orphaned: run `tacit-gen render`")
            else:
                click.echo(f"{len(run.artifacts)} artifact(s) up to date")
        sys.exit(1 if rep.changed or rep.orphaned else 0)
    try:
        written = r.write(outdir, run)
    except r.WriteError as e:  # nothing of the set was changed
        _fail_usage(f"{e}; nothing was written")
    orphaned = [o.as_posix() for o in r.orphans(outdir, run.artifacts, targets, run)]
    if fmt == "json":
        _echo_json({"written": written, "artifacts": [a.path for a in run.artifacts],
                    "orphaned": orphaned,
                    "unsupported": [u.__dict__ for u in run.unsupported]})
    else:
        for w in written:
            click.echo(f"wrote {w}")
        for o in orphaned:
            click.echo(f"orphaned: {o} (its contract is gone; delete it)")
        click.echo(f"{len(files)} contract(s), {len(run.artifacts)} artifact(s), {len(written)} written")


# -------------------------------------------------------------------------------------- check
@main.command(epilog=EXIT_CODES, cls=_WithTargetFlags)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@_with_render_flags
@click.option("--artifact", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Check one (hand-written) artifact against the contract given as PATH.")
@click.option("--no-bump-gate", is_flag=True,
              help="Do not compare contracts with their last committed version.")
@click.option("--base", default=None,
              help="Git revision for the version-bump gate, used through its merge base with "
                   "HEAD. Default: HEAD outside CI; with CI=true the merge base with the default "
                   "branch (origin/$GITHUB_BASE_REF, else origin/HEAD). An unknown revision or a "
                   "history too shallow to find it is exit 2.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def check(paths: tuple[str, ...], out: str | None, target_spec: str | None,
          templates: str | None, dialect: str | None, no_cache: bool, artifact: str | None, no_bump_gate: bool,
          base: str | None, fmt: str, **flags: Any) -> None:
    """Prove the committed artifacts still say what the contracts say.

    Byte drift (a fresh render differs), semantic drift (each artifact read back into clauses
    and compared with the plan: a deleted test, a changed bound or type, a loosened nullable, an
    added severity: warn, a removed column), orphaned files, and a contract change whose version
    bump is too small against git (--base).
    """
    from tacit_gen.checking import run_check

    proj = _Project(paths, out, target_spec, templates, dialect, flags)
    try:
        report = run_check(list(proj.paths), Path(proj.out), proj.targets, proj.options,
                           artifact=artifact, bump_gate=not no_bump_gate, base=base,
                           dbt_project=proj.dbt_project, root=proj.settings.root,
                           cache=_render_cache(no_cache))
    except ValueError as e:
        _fail_usage(str(e))
    if fmt == "json":
        _echo_json(report.as_json())
    else:
        for f in report.findings:
            click.echo(printable(f.render()))
        for note in report.notes:
            click.echo(f"note: {note}")
        n = len(report.findings)
        click.echo(f"{len(report.checked)} artifact(s) checked: " + ("clean" if not n else f"{n} finding(s)"))
    sys.exit(report.exit_code)


# ------------------------------------------------------------------------------------- verify
@main.command(epilog=EXIT_CODES)
@click.argument("contracts", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--data", default=None, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the dataset (one contract).")
@click.option("--data-dir", default=None, type=click.Path(exists=True, file_okay=False),
              help="Many contracts (files or folders) in one run: each one's data is "
                   "DIR/<contract name>.csv or .parquet (catalog <name>.catalog.*, sessions "
                   "<name>.sessions.*, outages <name>.outages.* when present); each engine runs once for all of them.")
@click.option("--jobs", default=None, type=click.IntRange(1),
              help="Engine processes at once, on DuckDB and PostgreSQL, the costliest engine first (default: "
                   "the CPU count; 1 runs them one after another).")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False),
              help="CSV or Parquet file of the catalog relation.")
@click.option("--calendar", "calendar_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The exchange sessions (tacit-gen calendar writes them) for a contract with "
                   "time.calendar; default: generated from exchange_calendars for the data's dates.")
@click.option("--outages", "outages_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The outages (series key columns, start, end, type) a completeness clause with "
                   "allowed gap types reads; default: none (no gap is excused).")
@click.option("--target", "target_spec", default=None, help="Comma-separated engines (default: all).")
@click.option("--now", default=None, help="Pin 'now' (ISO-8601 with offset) for freshness.")
@click.option("--artifacts", default=None, type=click.Path(file_okay=False, exists=True),
              help="Run these artifacts (e.g. generated/) instead of a fresh render.")
@click.option("--keep", default=None, type=click.Path(file_okay=False),
              help="Keep the engines' work folder here (dbt project, database) for inspection.")
@click.option("--engine", default="duckdb", show_default=True,
              type=click.Choice(["duckdb", "postgres", "spark"]),
              help="Where the data is loaded and every target runs: an embedded DuckDB; "
                   "PostgreSQL (a throwaway local server unless --dsn); or Spark local (pyspark 4 "
                   "on Java 17, in its own cached environment: see `tacit-gen engines setup "
                   "spark`). The artifacts are rendered for that engine.")
@click.option("--dsn", default=None, metavar="URL",
              help="postgresql://user:password@host:port/database of an existing server "
                   "(--engine postgres); the data goes into a fresh schema, dropped afterwards.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              help="html: write a verdict page to --out (and print the text report).")
@click.option("--out", "out_file", default=None, type=click.Path(dir_okay=False),
              help="The file --format html writes (one page, no external assets).")
@click.option("--verbose", is_flag=True,
              help="Let the engines' own logging through to the terminal (by default it goes to "
                   "engine.log in each engine's work folder; see --keep).")
def verify(contracts: tuple[str, ...], data: str | None, data_dir: str | None, jobs: int | None,
           catalog: str | None, calendar_path: str | None, outages_path: str | None,
           target_spec: str | None, now: str | None, artifacts: str | None, keep: str | None,
           engine: str, dsn: str | None, fmt: str, out_file: str | None, verbose: bool) -> None:
    """Run every target's artifact in its real engine on the same data; a verdict per clause.

    Exit 0 when every engine passes every clause, 1 when violations are found and all engines
    agree, 3 when engines disagree on a clause, 4 when an engine could not run at all (an import
    that fails, a crash): it is named with the reason and gives no verdict; the others' stand;
    also 4 when a clause errors in every engine that runs it (the data stops its expression).
    """
    from tacit_gen import registry
    from tacit_gen.verify import parse_now, run_verify

    if (fmt == "html") != (out_file is not None):
        _fail_usage("--format html and --out FILE go together (the verdict page is a file)")
    _report_progress("verify ", verbose)
    if data_dir is not None or len(contracts) != 1 or Path(contracts[0]).is_dir():
        _verify_many(contracts, data, data_dir, jobs, catalog, calendar_path, outages_path,
                     target_spec, now, artifacts, keep, engine, dsn, fmt, out_file)
    if data is None:
        _fail_usage("--data FILE is required for one contract (or --data-dir DIR for many)")
    contract = contracts[0]
    c = _load_or_exit(contract)
    proj = _Project(target_spec=target_spec)
    # a target may declare engines on some backends only (`Target.engines`)
    without = registry.without_engine(proj.targets, engine)
    if without and target_spec not in (None, "all"):
        _fail_usage(f"target(s) {', '.join(without)} have no engine to verify with on {engine}")
    targets = tuple(t for t in proj.targets if t not in without)
    try:
        pinned = parse_now(now)
    except ValueError as e:
        _fail_usage(str(e))
    from tacit_gen.engines.load import LoadError
    from tacit_gen.engines.postgres_server import ServerError
    from tacit_gen.extras import MissingExtra

    try:
        report = run_verify(c, Path(data), Path(catalog) if catalog else None, targets, pinned,
                            Path(artifacts) if artifacts else None, Path(keep) if keep else None,
                            options=proj.options, engine=engine, source=Path(contract),
                            dsn=dsn, calendar=Path(calendar_path) if calendar_path else None,
                            outages=Path(outages_path) if outages_path else None, jobs=jobs)
    except LoadError as e:  # the data file itself cannot be read: a usage error, not a verdict
        _fail_usage(str(e))
    except ValueError as e:  # --dsn without --engine postgres, a DSN that is not a URL
        _fail_usage(str(e))
    except ServerError as e:  # no PostgreSQL programs here, or the server did not start
        _fail_usage(f"cannot start a PostgreSQL server: {e}")
    except MissingExtra as e:  # the backend's driver (duckdb, psycopg2) is not installed
        _fail_missing(e)
    if out_file is not None:
        from tacit_gen.render import write_atomic
        from tacit_gen.site.pages import verdict_page

        try:
            write_atomic(Path(out_file), verdict_page(report))
        except OSError as e:
            _fail_usage(f"cannot write {out_file}: {e}")
    if fmt == "json":
        _echo_json(report.as_json())
    else:
        from tacit_gen.console import terminal_width

        _echo_text(report.render_text(terminal_width()))
    if out_file is not None:
        click.echo(f"verdict page: {Path(out_file).as_posix()}")
    sys.exit(report.exit_code)


def _verify_many(paths: tuple[str, ...], data: str | None, data_dir: str | None, jobs: int | None,
                 catalog: str | None, calendar_path: str | None, outages_path: str | None,
                 target_spec: str | None, now: str | None, artifacts: str | None, keep: str | None, engine: str,
                 dsn: str | None, fmt: str, out_file: str | None) -> NoReturn:
    """`verify CONTRACTS... --data-dir DIR` (tacit_gen/verify/many.py): every contract's data
    matched by name, each engine run once for all of them; one exit code."""
    from tacit_gen import registry
    from tacit_gen.render import find_contracts
    from tacit_gen.verify import VerifyCase, parse_now
    from tacit_gen.verify.many import ManyError, match_data, verify_many

    if data_dir is None:
        _fail_usage("several contracts (or a folder) need --data-dir DIR (their data by name)")
    given = [f for f, v in (("--data", data), ("--catalog", catalog), ("--calendar", calendar_path),
                            ("--outages", outages_path), ("--format html", out_file))
             if v is not None]
    if given:
        _fail_usage(f"{', '.join(given)}: one contract's options; with --data-dir each contract's "
                    "files are found by name in the folder")
    files = find_contracts(paths)
    if not files:
        _fail_usage(f"no contract (*.yaml, *.yml) in {', '.join(paths)}")
    loaded = [(f, _load_or_exit(str(f))) for f in files]
    proj = _Project(target_spec=target_spec)
    without = registry.without_engine(proj.targets, engine)
    if without and target_spec not in (None, "all"):
        _fail_usage(f"target(s) {', '.join(without)} have no engine to verify with on {engine}")
    targets = tuple(t for t in proj.targets if t not in without)
    try:
        pinned = parse_now(now)
        found = match_data(loaded, Path(str(data_dir)))
    except ValueError as e:  # ManyError too: a contract without data is named, never skipped
        _fail_usage(str(e))
    cases = [VerifyCase(c, d, cat, pinned, targets, f, cal, out)
             for (f, c), (d, cat, cal, out) in zip(loaded, found, strict=True)]
    from tacit_gen.engines.load import LoadError
    from tacit_gen.engines.postgres_server import ServerError
    from tacit_gen.extras import MissingExtra

    try:
        report = verify_many(cases, jobs, Path(keep) if keep else None, proj.options,
                             Path(artifacts) if artifacts else None, engine, dsn)
    except (LoadError, ManyError, ValueError) as e:
        _fail_usage(str(e))
    except ServerError as e:
        _fail_usage(f"cannot start a PostgreSQL server: {e}")
    except MissingExtra as e:
        _fail_missing(e)
    if fmt == "json":
        _echo_json(report.as_json())
    else:
        from tacit_gen.console import terminal_width

        _echo_text(report.render_text(terminal_width()))
    sys.exit(report.exit_code)


# ------------------------------------------------------------------------------------ engines
@main.group()
def engines() -> None:
    """Environments of the engines that cannot share tacit-gen's own (Spark, a target's own)."""


def _environments() -> dict[str, str]:
    """Each engine with an environment of its own -> the module holding its ``ENV``: the Spark
    backend's, and every registered target whose engines declare one (`Engine.environment`)."""
    from tacit_gen import registry

    own = {t: e.environment for t in registry.names()
           for e in registry.get(t).engines.values() if e.environment}
    return {"spark": "tacit_gen.engines.spark.env", **own}


class _LazyChoice(click.Choice):
    """A `click.Choice` whose choices are computed when first shown or checked (the registry
    imports every target: not at the CLI's start)."""

    def __init__(self, compute: Any) -> None:
        self._compute = compute
        super().__init__(())

    def _load(self) -> None:
        if not self.choices:
            self.choices = tuple(self._compute())

    def get_metavar(self, *args: Any, **kwargs: Any) -> str | None:
        self._load()
        return super().get_metavar(*args, **kwargs)

    def convert(self, *args: Any, **kwargs: Any) -> Any:
        self._load()
        return super().convert(*args, **kwargs)


@engines.command("setup")
@click.argument("engine", type=_LazyChoice(_environments))
@click.option("--rebuild", is_flag=True, help="Remove the cached environment and build it again.")
def engines_setup(engine: str, rebuild: bool) -> None:
    """Create (or find) the cached environment of ENGINE and print where it is: spark (every
    engine of `verify --engine spark`) or a target whose engine runs in an environment of its own.

    verify creates it on first use; this does it ahead of time. The folder is the variable the
    environment names ($TACIT_GEN_SPARK_ENV, $TACIT_GEN_<TARGET>_ENV), else
    $XDG_CACHE_HOME/tacit-gen/envs/<engine>-<hash of the lock>.
    """
    import importlib

    from tacit_gen.engines.envs import EnvError

    env_module = importlib.import_module(_environments()[engine])
    try:
        env = env_module.ENV.ensure(rebuild=rebuild)
    except EnvError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    how = f"created with {env.installer} in {env.seconds:.0f} s" if env.created else "cached"
    click.echo(f"{engine}: {env.path} ({how})")


# ----------------------------------------------------------------------------------- calendar
@main.command(epilog=EXIT_CODES)
@click.argument("codes", nargs=-1, required=True)
@click.option("--start", required=True, help="First date (YYYY-MM-DD).")
@click.option("--end", required=True, help="Last date (YYYY-MM-DD), inclusive.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="The CSV file to write (default: stdout).")
def calendar(codes: tuple[str, ...], start: str, end: str, out_path: str | None) -> None:
    """The sessions of exchange calendars CODES (XNYS, XLON, ...) as a table: calendar, session
    date, open and close as UTC instants (early closes and DST included), from exchange_calendars.

    Load it as a dbt seed or a table named as the contract's `calendar:` section says (default
    `trading_sessions`); `verify --calendar FILE` reads it. Refresh it each year
    (docs/contract-language.md, "Calendar").
    """
    from datetime import date

    from tacit_gen.semantics.sessions import CalendarError, exchange_sessions, sessions_csv

    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError as e:
        _fail_usage(f"--start/--end: {e} (write YYYY-MM-DD)")
    rows = []
    try:
        for code in codes:
            rows += exchange_sessions(code, first, last)
    except CalendarError as e:
        _fail_usage(str(e))
    text = sessions_csv(rows)
    if out_path is None:
        sys.stdout.write(text)
        return
    from tacit_gen.render import write_atomic

    write_atomic(Path(out_path), text)
    click.echo(f"wrote {Path(out_path).as_posix()} ({len(rows)} sessions)", err=True)


# ------------------------------------------------------------------------------------- sample
@main.command(epilog=EXIT_CODES)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--rows", default=100, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--violate", default=None, help="A clause id to break (and nothing else).")
@click.option("--now", default=None, help="Pin 'now' (ISO-8601 with offset); default: fixed epoch.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="CSV or Parquet file (by extension); the catalog goes beside it. Default: CSV on stdout.")
def sample(contract: str, rows: int, seed: int, violate: str | None, now: str | None,
           out_path: str | None) -> None:
    """Deterministic synthetic data that satisfies every clause, or breaks exactly one."""
    from tacit_gen import sample as s
    from tacit_gen.plan import plan
    from tacit_gen.verify import parse_now

    c = _load_or_exit(contract)
    clauses = plan(c)
    if violate is not None and violate not in {cl.id for cl in clauses}:
        import difflib

        close = difflib.get_close_matches(violate, [cl.id for cl in clauses], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        _fail_usage(f"'{violate}' is not a clause of {c.name}{hint} (see `tacit-gen explain`)")
    try:
        pinned = parse_now(now) if now else None
    except ValueError as e:
        _fail_usage(str(e))
    if out_path is not None and Path(out_path).suffix.lower() not in (".csv", ".parquet", ".pq"):
        _fail_usage(f"--out {out_path}: write a .csv or .parquet file")
    from tacit_gen.console import Progress, ticking

    shown = Progress(label="sample ", enabled=None if rows >= 100_000 else False)
    try:
        with ticking(f"{rows} rows", shown):
            data = s.sample(c, clauses, rows=rows, seed=seed, violate=violate, now=pinned)
    except s.SampleError as e:
        _fail_usage(str(e))
    if violate is not None:
        click.echo(f"{violate}: {data.description}", err=True)
        if any(cl.warn for cl in clauses if cl.id == violate):  # plausible:, severity: warn
            click.echo(f"expected verdict: WARN ({violate} is severity warn: verify reports it "
                       "apart and exits 0 on it)", err=True)
        extra = [v for v in data.violated if v != violate]
        if extra:
            click.echo("warning: this violation also breaks " + ", ".join(extra)
                       + " (they cannot be separated in this contract)", err=True)
    click.echo(f"now: {data.now.isoformat()} (pass it to verify --now)", err=True)
    if out_path is None:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            csv_path, cat_path = s.write(data, Path(tmp) / f"{c.name}.csv")
            sys.stdout.write(csv_path.read_text(encoding="utf-8"))
            if cat_path is not None:
                click.echo("note: this contract has a catalog; use --out FILE to write it beside the data", err=True)
            if data.refs:
                click.echo("note: this contract references " + ", ".join(sorted(data.refs))
                           + "; use --out FILE to write each beside the data", err=True)
        return
    try:
        with ticking(f"write {Path(out_path).name}", shown):
            data_path, catalog_path = s.write(data, out_path)
    except s.SampleError as e:
        _fail_usage(str(e))
    click.echo(f"wrote {data_path.as_posix()}", err=True)
    if catalog_path is not None:
        click.echo(f"wrote {catalog_path.as_posix()}", err=True)
    for rel in sorted(data.refs):  # `references:` relations, beside the data
        click.echo(f"wrote {s.ref_path_for(data_path, rel).as_posix()}", err=True)


# ------------------------------------------------------------------------------------ profile
@main.command(epilog=EXIT_CODES)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--data", "data_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="History: CSV or Parquet, as verify reads it.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Catalog CSV: created, or merged into (plausible_min/plausible_max set per series).")
@click.option("--column", default=None, help="The measurement (default: the catalog-bounded one).")
@click.option("--min-count", default=20, show_default=True, type=click.IntRange(1),
              help="Fewer values than this: no bounds for the series.")
@click.option("--method", default="quantiles", show_default=True,
              type=click.Choice(["quantiles", "mean-sd"]),
              help="quantiles: the 1st and 99th percentiles; mean-sd: the mean -/+ --sigmas sample "
                   "standard deviations.")
@click.option("--sigmas", default=None, help="With --method mean-sd: how many standard deviations "
              "(default 3).")
@click.option("--window", default=None, help="Only each series' last DURATION of history, up to its "
              "newest reading (30d, 12h, 2 weeks); default: all of it.")
def profile(contract: str, data_path: str, out_path: str, column: str | None, min_count: int,
            method: str, sigmas: str | None, window: str | None) -> None:
    """Propose plausibility bounds per series from history: by default the 1st and 99th
    percentiles of each series' values (or the mean -/+ K standard deviations, over a trailing
    window if given), widened to the column's scale, written to the catalog as plausible_min /
    plausible_max; the method is stated on stderr (see docs/contract-language.md)."""
    from tacit_gen import profile as prof
    from tacit_gen.sample.writing import atomic_write

    c = _load_or_exit(contract)
    out = Path(out_path)
    try:
        how = prof.parse_method(method, sigmas, window)
        result = prof.profile(c, Path(data_path), column, min_count, how)
        text = prof.catalog_text(result, out.read_text(encoding="utf-8") if out.exists() else None)
    except (prof.ProfileError, OSError) as e:
        _fail_usage(str(e))
    atomic_write(out, text.encode("utf-8"))
    judged = sum(1 for b in result.bounds if b.low is not None)
    click.echo(f"wrote {out.as_posix()}: {result.column} bounds for {judged} of "
               f"{len(result.bounds)} series ({result.method.describe()}; fewer than "
               f"{min_count} values: no bounds)", err=True)


# --------------------------------------------------------------------------------------- diff
def _load_file_or_revision(spec: str) -> Any:
    """A contract from a file, or from git as ``REV:path`` (``origin/main:contracts/x.yaml``)."""
    if Path(spec).is_file() or ":" not in spec:
        if not Path(spec).is_file():
            _fail_usage(f"'{spec}' is not a file (to read one from git, write REV:path)")
        return _load_or_exit(spec)
    from tacit_gen import evolution
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import load

    try:
        text = evolution.read_at_revision(spec)
    except evolution.HistoryError as e:
        _fail_usage(str(e))
    try:
        return load(spec, text=text)
    except ContractError as e:
        _echo_diagnostics(e.diagnostics, err=True, sources={d.path: text for d in e.diagnostics})
        sys.exit(2)


@main.command(epilog=EXIT_CODES)
@click.argument("old")
@click.argument("new")
@click.option("--changelog", is_flag=True, help="Print a Markdown changelog entry instead.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def diff(old: str, new: str, changelog: bool, fmt: str) -> None:
    """Classify every change between two versions of a contract; exit 1 if the bump is too small.

    OLD and NEW are files, or ``REV:path`` read from git (``origin/main:contracts/orders.yaml``;
    ``REV:./path`` is relative to the current folder).
    """
    from tacit_gen import evolution

    report = evolution.diff(_load_file_or_revision(old), _load_file_or_revision(new))
    if changelog:
        click.echo(evolution.changelog(report), nl=False)
    elif fmt == "json":
        _echo_json(report.as_json())
    else:
        click.echo(report.render_text())
    sys.exit(0 if report.ok else 1)


# ------------------------------------------------------------------------------------- compat
@main.command(epilog=EXIT_CODES)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--mode", default=None, type=click.Choice(
    ["BACKWARD", "FORWARD", "FULL", "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL_TRANSITIVE"],
    case_sensitive=False), help="Default: the contract's evolution.compatibility.")
@click.option("--history", default=None, type=click.Path(file_okay=False, exists=True),
              help="A folder of earlier versions (default: the file's git history).")
@click.option("--replay", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Also validate stored data of an older version through this contract's runtime.")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False))
@click.option("--now", default=None, help="Pin 'now' for freshness during --replay.")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="The generated folder holding the protobuf field-number lock (default: generated/).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def compat(contract: str, mode: str | None, history: str | None, replay: str | None,
           catalog: str | None, now: str | None, out: str | None, fmt: str) -> None:
    """Check compatibility with earlier versions (BACKWARD, FORWARD, FULL, *_TRANSITIVE).

    Also as the registries see it: each pair's Avro schemas through Avro's resolution rules (the
    avro package's compatibility checker), its Protobuf messages for field-number reuse, type
    changes outside a wire type and reserved names, its JSON Schemas by validating each version's
    sample rows against the other. --replay DATA also encodes the stored rows with each earlier
    version's Avro and Protobuf schemas and decodes them with today's, then parses them with
    today's runtime.
    """
    from tacit_gen import evolution

    current = _load_or_exit(contract)
    chosen: str = (mode or current.evolution.compatibility).upper()
    if chosen == "NONE":
        click.echo(f"{current.name} declares compatibility NONE: nothing to check (lint TG217)")
        sys.exit(0)
    skipped: list[str] = []
    try:
        earlier = (evolution.history_from_dir(history) if history
                   else evolution.history_from_git(contract, skipped=skipped))
    except (OSError, ValueError, RuntimeError) as e:
        _fail_usage(str(e))
    for s in skipped:
        click.echo(f"note: skipped an earlier revision that does not load: {printable(s)}", err=True)
    report = evolution.compat([*earlier, current], chosen)
    payload = report.as_json()
    code = 0 if report.ok else 1
    from tacit_gen.evolution import wire

    lock_dir = _Project(out=out).out
    try:
        wire_findings, wire_notes = wire.registry_compat([*earlier, current], chosen, lock_dir)
    except ImportError as e:
        wire_findings, wire_notes = [], [f"registry checks need tacit-gen[wire]: {e}"]
    payload["registries"] = {"findings": [f.as_json() for f in wire_findings], "notes": wire_notes}
    errors = [f for f in wire_findings if f.severity == "error"]
    code = code or (1 if errors else 0)
    wire_text = "\n".join(
        ([f"registries (avro, protobuf, jsonschema): {len(errors)} incompatibilit"
          f"{'y' if len(errors) == 1 else 'ies'}"] if errors
         else ["registries (avro, protobuf, jsonschema): ok"] if report.checked else [])
        + [f.render() for f in wire_findings] + [f"  note: {n}" for n in wire_notes])
    replay_text = ""
    if replay:
        from tacit_gen.console import Progress, ticking
        from tacit_gen.engines.load import LoadError
        from tacit_gen.verify import parse_now

        shown = Progress(label="compat ")
        try:
            with ticking("replay through the runtime", shown):
                rep = evolution.replay(current, replay, catalog_path=catalog, now=parse_now(now))
        except (LoadError, ValueError) as e:
            _fail_usage(str(e))
        try:
            with ticking("wire replay (avro, protobuf)", shown):
                wired = wire.replay_wire([*earlier, current], replay, lock_dir, catalog,
                                         parse_now(now))
        except (LoadError, ValueError) as e:
            _fail_usage(str(e))
        except ImportError as e:
            wired = []
            click.echo(f"note: the wire replay needs tacit-gen[wire]: {e}", err=True)
        payload["replay_wire"] = [w.as_json() for w in wired]
        if all(w.skipped for w in wired):
            # the data fits no earlier version: read it as it is, through today's runtime
            payload["replay"] = rep.as_json()
            replay_text = rep.render_text()
            code = code or (0 if rep.ok else 1)
        for w in wired:
            if w.skipped:
                replay_text += f"\nwire replay from {w.version}: skipped, the data was {w.skipped}"
                continue
            bad = bool([f for f in w.findings if f.severity == "error"] or w.runtime_failures)
            code = code or (1 if bad else 0)
            replay_text += (f"\nwire replay: {w.rows} rows written under {w.version}, read with "
                            f"{current.version}'s Avro and Protobuf readers: "
                            + ("FAIL" if bad else "ok"))
            replay_text += "".join("\n" + f.render() for f in w.findings)
            replay_text += "".join(f"\n  runtime {c}: {st}" + (f" ({n} rows)" if n is not None else "")
                                   for c, st, n in w.runtime_failures)
    if fmt == "json":
        _echo_json(payload)
    else:
        click.echo(report.render_text())
        if wire_text:
            click.echo(wire_text)
        if replay_text:
            click.echo(replay_text.lstrip("\n"))
    sys.exit(code)


# ------------------------------------------------------------------------------ import/export
@main.group("import")
def import_group() -> None:
    """Adopt what a team has: dbt properties or an ODCS v3 document, as contracts
    (docs/import-export.md). Exit 0 all mapped, 1 something not mapped (listed, kept as x-*)."""


def _finish_import(report: Any, force: bool, fmt: str) -> NoReturn:
    from tacit_gen.adopt.report import write
    from tacit_gen.render import WriteError

    try:
        write(report, force)
    except WriteError as e:
        _fail_usage(str(e))
    if fmt == "json":
        _echo_json(report.as_json())
    else:
        _echo_text(report.text())
    sys.exit(report.exit_code)


@import_group.command("dbt", epilog=EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--model", "names", multiple=True, help="Only this model (repeatable).")
@click.option("--manifest", default=None, type=click.Path(exists=True, dir_okay=False),
              help="dbt's target/manifest.json: models and tests as dbt resolved them.")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False),
              help="dbt's target/catalog.json: column types the properties do not declare.")
@click.option("--adapter", default=None, type=click.Choice(
    ["duckdb", "postgres", "snowflake", "bigquery", "databricks", "spark"]),
              help="Read types as this warehouse names them [default: the manifest's, else duckdb].")
@click.option("--out", default="contracts", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite a contract file that exists and differs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def import_dbt(paths: tuple[str, ...], names: tuple[str, ...], manifest: str | None,
               catalog: str | None, adapter: str | None, out: str, force: bool, fmt: str) -> None:
    """dbt properties files (or folders, or a manifest) to one contract per model."""
    from tacit_gen.adopt.dbt import DbtInputError, import_dbt

    if not paths and not manifest:
        _fail_usage("give properties files or folders, or --manifest")
    try:
        report = import_dbt(paths, names, manifest, catalog, adapter, Path(out))
    except DbtInputError as e:
        _fail_usage(str(e))
    _finish_import(report, force, fmt)


@import_group.command("odcs", epilog=EXIT_CODES)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default="contracts", show_default=True, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite a contract file that exists and differs.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def import_odcs(file: str, out: str, force: bool, fmt: str) -> None:
    """An ODCS v3.x document to one contract per schema object."""
    from tacit_gen.adopt.odcs import OdcsInputError, import_odcs

    try:
        report = import_odcs(file, Path(out))
    except OdcsInputError as e:
        _fail_usage(str(e))
    _finish_import(report, force, fmt)


@main.group("export")
def export_group() -> None:
    """Write a contract in another standard's form (docs/import-export.md)."""


@export_group.command("odcs", epilog=EXIT_CODES)
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="Write the document here (atomically) instead of to stdout.")
def export_odcs(contract: str, out_path: str | None) -> None:
    """A contract as an ODCS v3.1.0 document (validates against the ODCS JSON Schema)."""
    from tacit_gen.adopt.odcs_export import export_odcs as to_text
    from tacit_gen.render import WriteError, write_atomic

    text = to_text(_load_or_exit(contract))
    if out_path is None:
        click.echo(text, nl=False)
        return
    try:
        write_atomic(Path(out_path), text)
    except WriteError as e:
        _fail_usage(str(e))


# ---------------------------------------------------------------------------------------- fmt
@main.command(epilog=EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file is not in canonical form.")
def fmt(paths: tuple[str, ...], check: bool) -> None:
    """Rewrite contracts (default: the settings' contracts, else contracts/) into canonical
    form: plain YAML, quoted types, ordered keys, comments kept."""
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import display_path
    from tacit_gen.contract.yamlpos import YamlSyntaxError, read_text
    from tacit_gen.fmt import format_text
    from tacit_gen.render import WriteError, find_contracts, write_atomic

    changed = 0
    for f in find_contracts(paths or _Project().paths):
        try:
            text = read_text(f)
        except YamlSyntaxError as e:
            from tacit_gen.diagnostics import Diagnostic

            _echo_diagnostics([Diagnostic(display_path(f), e.line, e.col, "error", e.code, str(e))],
                              err=True)
            sys.exit(2)
        try:
            new = format_text(text, display_path(f))
        except ContractError as e:
            _echo_diagnostics(e.diagnostics, err=True)
            sys.exit(2)
        if new != text:
            changed += 1
            if check:
                click.echo(f"would reformat {printable(str(f))}")
            else:
                try:
                    write_atomic(f, new)
                except WriteError as e:
                    _fail_usage(str(e))
                click.echo(f"reformatted {printable(str(f))}")
    sys.exit(1 if check and changed else 0)


# --------------------------------------------------------------------------------------- docs
@main.command(epilog=EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--out", default="site", show_default=True, type=click.Path(file_okay=False),
              help="Folder to write the site into (index.html, contracts/<name>.html).")
def docs(paths: tuple[str, ...], out: str) -> None:
    """A static HTML catalog (default: the settings' contracts, else contracts/): one page per
    contract (fields, units, clauses and the targets that enforce them, what is not checked, the
    version history from git with diff's classification) and an index. No external assets."""
    from tacit_gen.render import find_contracts
    from tacit_gen.site.catalog import contract_doc
    from tacit_gen.site.pages import SiteError, write_site

    proj = _Project(paths)
    files = find_contracts(proj.paths)
    if not files:
        _fail_usage(f"no contract files (*.yaml, *.yml) under {', '.join(proj.paths)}")
    pages = [contract_doc(_load_or_exit(str(f)), f, proj.options) for f in files]
    try:
        written = write_site(Path(out), pages)
    except (SiteError, OSError) as e:
        _fail_usage(str(e))
    click.echo(f"wrote {len(written)} page(s) to {Path(out).as_posix()}/ "
               f"({len(pages)} contract(s)); open {(Path(out) / 'index.html').as_posix()}")


@main.command("schema")
def schema_cmd() -> None:
    """Print the JSON Schema of the contract format (for editors)."""
    from tacit_gen.contract.jsonschema import contract_schema

    _echo_json(contract_schema())


if __name__ == "__main__":  # pragma: no cover
    main()
