"""The command group, its exit codes, and the helpers every command shares (reports, usage errors, loading)."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from tacit_gen import __version__
from tacit_gen.textsafe import printable


def exit_codes(findings: str | None = None, *, verify: bool = False, missing: bool = False,
               usage: str = "usage error, or a contract that does not load") -> str:
    """A command's own exit codes for its --help: 0, 1 with what `findings` means for it (None:
    the command never exits 1), 2 (`usage`: what it means for this command), verify's 3 and 4
    (`verify`), 4 for a library it imports from an extra (`missing`), and 130."""
    lines = ["\b", "Exit codes:", "  0  success"]
    if findings:
        lines.append(f"  1  {findings}")
    lines.append(f"  2  {usage}")
    if verify:
        lines += ["  3  the engines disagree on a clause (please report it)",
                  "  4  an engine could not run (named, with why; no verdict from it)"]
    elif missing:
        lines.append("  4  a library it needs is not installed (named, with its install line)")
    lines.append("  130  interrupted (Ctrl-C, SIGINT)"
                 + (": the engines' processes are stopped" if verify else ""))
    return "\n".join(lines)


EXIT_CODES = """\b
Exit codes:
  0  success: clean, nothing stale, all engines pass
  1  findings: lint errors, stale or drifted artifacts, violations (engines agree),
     a version bump too small, an incompatible change
  2  usage error, or a contract that does not load
  3  verify: the engines disagree on a clause (please report it)
  4  a library the command needs is not installed (named, with its install line);
     verify: an engine could not run (named, with why; no verdict from it)
  130  interrupted (Ctrl-C, SIGINT): the engines' processes are stopped"""


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def fail_usage(message: str) -> NoReturn:
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(2)


def fail_missing(error: Exception) -> NoReturn:
    """What the command needs is not installed (`tacit_gen.extras.MissingExtra`): named with its
    install line, exit 4 (it could not run; not a usage error, not a verdict)."""
    click.echo(f"error: {printable(str(error))}", err=True)
    sys.exit(4)


def echo_text(text: str) -> None:
    """A report for a terminal: data values and engine messages can hold anything."""
    click.echo("\n".join(printable(line) for line in text.split("\n")))


def echo_diagnostics(diags: Any, err: bool = False, sources: dict[str, str] | None = None) -> None:
    """Diagnostics as a compiler shows them: the source line and a caret (tacit_gen.console)."""
    from tacit_gen.console import echo_diagnostics

    echo_diagnostics(diags, err=err, sources=sources)


def report_progress(label: str, verbose: bool = False) -> None:
    """Progress on stderr when it is a terminal (nothing otherwise); `verbose`: the engines' own
    logging reaches the terminal too."""
    from tacit_gen import console

    console.VERBOSE = verbose
    console.set_progress(console.Progress(label=label))


def load_or_exit(path: str) -> Any:
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import load
    from tacit_gen.plan import plan

    try:
        contract = load(path)
        plan(contract)  # what only the plan can check (severity names a clause)
        return contract
    except ContractError as e:
        echo_diagnostics(e.diagnostics, err=True)
        sys.exit(2)


def contract_paths_or_exit(given: tuple[str, ...], project: Any) -> tuple[str, ...]:
    """The contract paths a command reads: those given, else the project's (the settings'
    `contracts`, else contracts/). A default that does not exist is exit 2 saying so, not a
    diagnostic that reads as if the folder were a contract that cannot be read."""
    from pathlib import Path

    if given:
        return given
    missing = [p for p in project.paths if not Path(p).exists()]
    if missing:
        if project.settings.contracts:
            where = f"the settings' contracts path {', '.join(missing)} does not exist"
        else:
            where = f"no contract given, and the default folder {missing[0]}/ does not exist"
        fail_usage(f"{where}: give contract files or folders, or start a project with "
                   "`tacit-gen init`")
    return tuple(project.paths)


def targets_or_exit(spec: str | None) -> tuple[str, ...]:
    from tacit_gen import registry

    try:
        return registry.parse_targets(spec)
    except KeyError as e:
        fail_usage(str(e.args[0]))


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
        except ModuleNotFoundError as e:  # an optional library a command imports lazily
            from tacit_gen.extras import MissingExtra, extra_of

            extra = extra_of(e.name or "")
            if e.name is None or extra is None:
                raise
            fail_missing(MissingExtra(f"tacit-gen {ctx.invoked_subcommand or ''}".strip(),
                                      e.name, extra))
        except Exception as e:
            from tacit_gen.extras import MissingExtra

            if isinstance(e, MissingExtra):
                fail_missing(e)
            raise


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
