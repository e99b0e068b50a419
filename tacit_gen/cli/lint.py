"""`lint`, `explain` and `fmt`: reading contracts, no artifacts."""

from __future__ import annotations

import sys

import click

from tacit_gen.cli.base import (
    contract_paths_or_exit,
    echo_diagnostics,
    echo_json,
    exit_codes,
    fail_usage,
    load_or_exit,
    main,
)
from tacit_gen.cli.project import Project
from tacit_gen.textsafe import printable


@main.command(epilog=exit_codes("lint errors (with --strict, warnings too)"))
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def lint(paths: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Load and check contracts (default: the settings' contracts, else contracts/):
    `path:line:col: severity: message [code]`."""
    from tacit_gen.contract.loader import load_report
    from tacit_gen.render import find_contracts

    paths = contract_paths_or_exit(paths, Project())
    files = find_contracts(paths)
    if not files:
        fail_usage(f"no contract files (*.yaml, *.yml) under {', '.join(paths)}")
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
        echo_json({"ok": code == 0, "files": [str(f) for f in files],
                    "diagnostics": [d.as_json() for d in diags]})
    else:
        echo_diagnostics(diags)
        click.echo(f"{len(files)} contract(s): {errors} error(s), {warnings} warning(s)")
    sys.exit(code)


@main.command(epilog=exit_codes())
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--targets", "show_targets", is_flag=True,
              help="Print the support matrix: how each clause lands in each target.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def explain(contract: str, show_targets: bool, fmt: str) -> None:
    """The clause plan as a table: id, kind, columns, line, verbatim text."""
    from tacit_gen.plan import plan

    c = load_or_exit(contract)
    clauses = plan(c)
    if show_targets:
        from tacit_gen.explain import support_matrix

        matrix = support_matrix(c, clauses, Project().options)  # as the settings render
        if fmt == "json":
            echo_json(matrix)
        else:
            from tacit_gen.console import terminal_width
            from tacit_gen.explain import render_matrix

            click.echo(render_matrix(matrix, terminal_width()))
        return
    if fmt == "json":
        echo_json({
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


@main.command(epilog=exit_codes("with --check: a file not in canonical form"))
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file is not in canonical form.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text",
              help="json: the files read and those reformatted (or, with --check, to reformat).")
def fmt(paths: tuple[str, ...], check: bool, out_format: str) -> None:
    """Rewrite contracts (default: the settings' contracts, else contracts/) into canonical
    form: plain YAML, quoted types, ordered keys, comments kept."""
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import display_path
    from tacit_gen.contract.yamlpos import YamlSyntaxError, read_text
    from tacit_gen.fmt import format_text
    from tacit_gen.render import WriteError, find_contracts, write_atomic

    files = find_contracts(contract_paths_or_exit(paths, Project()))
    changed: list[str] = []
    for f in files:
        try:
            text = read_text(f)
        except YamlSyntaxError as e:
            from tacit_gen.diagnostics import Diagnostic

            echo_diagnostics([Diagnostic(display_path(f), e.line, e.col, "error", e.code, str(e))],
                              err=True)
            sys.exit(2)
        try:
            new = format_text(text, display_path(f))
        except ContractError as e:
            echo_diagnostics(e.diagnostics, err=True)
            sys.exit(2)
        if new != text:
            changed.append(str(f))
            if not check:
                try:
                    write_atomic(f, new)
                except WriteError as e:
                    fail_usage(str(e))
            if out_format == "text":
                click.echo(f"{'would reformat' if check else 'reformatted'} {printable(str(f))}")
    if out_format == "json":
        echo_json({"check": check, "files": [str(f) for f in files],
                   ("unformatted" if check else "reformatted"): changed})
    sys.exit(1 if check and changed else 0)
