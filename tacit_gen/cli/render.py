"""`render` and `check`: artifacts written, or compared with a fresh render."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tacit_gen.cli.base import (
    contract_paths_or_exit,
    echo_diagnostics,
    echo_json,
    exit_codes,
    fail_usage,
    main,
)
from tacit_gen.cli.project import Project, WithTargetFlags
from tacit_gen.sql.dialects import DIALECTS as SQL_DIALECTS  # no sqlglot import
from tacit_gen.textsafe import printable


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


@main.command(epilog=exit_codes("with --check: stale or orphaned artifacts"), cls=WithTargetFlags)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@_with_render_flags
@click.option("--check", is_flag=True, help="Write nothing to the project; print a diff of what would "
              "change; exit 1 if stale. (The render cache may be written: see --no-cache.)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--verbose", "-v", is_flag=True,
              help="Also warn, per contract and target, of the clauses a target cannot express "
                   "(always in --format json; `explain --targets` shows them too).")
def render(paths: tuple[str, ...], out: str | None, target_spec: str | None, templates: str | None,
           dialect: str | None, no_cache: bool, check: bool, fmt: str, verbose: bool,
           **flags: Any) -> None:
    """Render contracts into artifacts: settings first (tacit-gen.toml), then flags; default
    contracts/ into generated/.

    Quiet by default: the files written and a one-line summary (with --check: the diff and a
    summary). What a target cannot express (a wire schema most clauses) is said with --verbose.
    """
    from tacit_gen import render as r

    proj = Project(paths, out, target_spec, templates, dialect, flags)
    files = r.find_contracts(contract_paths_or_exit(paths, proj))
    if not files:
        fail_usage("no contract files to render")
    targets = proj.targets
    try:
        run = r.render_all(files, targets, proj.options, _render_cache(no_cache))
    except ValueError as e:  # a --templates folder that would be ignored
        fail_usage(str(e))
    echo_diagnostics(run.errors, err=True)
    if run.errors:
        sys.exit(2)
    if verbose:
        _echo_unsupported(run.unsupported)
    for warning in r.warnings(run, targets, proj.settings.root, proj.options):
        click.echo(f"warning: {warning}", err=True)
    outdir = Path(proj.out)
    if check:
        rep = r.stale(outdir, run, targets)
        if fmt == "json":
            echo_json({"stale": [p for p, _ in rep.changed], "orphaned": rep.orphaned,
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
        fail_usage(f"{e}; nothing was written")
    orphaned = [o.as_posix() for o in r.orphans(outdir, run.artifacts, targets, run)]
    if fmt == "json":
        echo_json({"written": written, "artifacts": [a.path for a in run.artifacts],
                    "orphaned": orphaned,
                    "unsupported": [u.__dict__ for u in run.unsupported]})
    else:
        for w in written:
            click.echo(f"wrote {w}")
        for o in orphaned:
            click.echo(f"orphaned: {o} (its contract is gone; delete it)")
        click.echo(f"{len(files)} contract(s), {len(run.artifacts)} artifact(s), {len(written)} written")


@main.command(epilog=exit_codes("stale, drifted or orphaned artifacts, or a version bump "
                                "too small"), cls=WithTargetFlags)
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

    proj = Project(paths, out, target_spec, templates, dialect, flags)
    try:
        report = run_check(list(contract_paths_or_exit(paths, proj)), Path(proj.out), proj.targets, proj.options,
                           artifact=artifact, bump_gate=not no_bump_gate, base=base,
                           root=proj.settings.root,
                           cache=_render_cache(no_cache))
    except ValueError as e:
        fail_usage(str(e))
    if fmt == "json":
        echo_json(report.as_json())
    else:
        for f in report.findings:
            click.echo(printable(f.render()))
        for note in report.notes:
            click.echo(f"note: {note}")
        n = len(report.findings)
        click.echo(f"{len(report.checked)} artifact(s) checked: " + ("clean" if not n else f"{n} finding(s)"))
    sys.exit(report.exit_code)
