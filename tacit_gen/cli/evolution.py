"""`diff` and `compat`: what changed between versions, and whether it is allowed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tacit_gen.cli.base import (
    echo_diagnostics,
    echo_json,
    exit_codes,
    fail_usage,
    load_or_exit,
    main,
)
from tacit_gen.cli.project import Project
from tacit_gen.textsafe import printable


def _load_file_or_revision(spec: str) -> Any:
    """A contract from a file, or from git as ``REV:path`` (``origin/main:contracts/x.yaml``)."""
    if Path(spec).is_file() or ":" not in spec:
        if not Path(spec).is_file():
            fail_usage(f"'{spec}' is not a file (to read one from git, write REV:path)")
        return load_or_exit(spec)
    from tacit_gen import evolution
    from tacit_gen.contract.errors import ContractError
    from tacit_gen.contract.loader import load

    try:
        text = evolution.read_at_revision(spec)
    except evolution.HistoryError as e:
        fail_usage(str(e))
    try:
        return load(spec, text=text)
    except ContractError as e:
        echo_diagnostics(e.diagnostics, err=True, sources={d.path: text for d in e.diagnostics})
        sys.exit(2)


@main.command(epilog=exit_codes("the version bump is too small for the change"))
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
        echo_json(report.as_json())
    else:
        click.echo(report.render_text())
    sys.exit(0 if report.ok else 1)


@main.command(epilog=exit_codes("an incompatible change, or replayed rows that do not read back"))
@click.argument("contract", type=click.Path(exists=True, dir_okay=False))
@click.option("--mode", default=None, type=click.Choice(
    ["BACKWARD", "FORWARD", "FULL", "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL_TRANSITIVE"],
    case_sensitive=False), metavar="MODE",
    help="BACKWARD, FORWARD, FULL or one of them _TRANSITIVE; default: the contract's "
         "evolution.compatibility.")
@click.option("--history", default=None, type=click.Path(file_okay=False, exists=True),
              help="A folder of earlier versions (default: the file's git history).")
@click.option("--replay", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Also validate stored data of an older version through this contract's runtime.")
@click.option("--catalog", default=None, type=click.Path(exists=True, dir_okay=False))
@click.option("--now", default=None, help="Pin 'now' for freshness during --replay.")
@click.option("--artifacts", default=None, type=click.Path(file_okay=False),
              help="The generated folder holding the protobuf field-number lock (default: "
                   "generated/), as `verify --artifacts` reads it.")
@click.option("--out", "old_out", default=None, type=click.Path(file_okay=False), hidden=True,
              help="Deprecated spelling of --artifacts (an input: --out names what is written).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def compat(contract: str, mode: str | None, history: str | None, replay: str | None,
           catalog: str | None, now: str | None, artifacts: str | None, old_out: str | None,
           fmt: str) -> None:
    """Check compatibility with earlier versions (BACKWARD, FORWARD, FULL, *_TRANSITIVE).

    Also as the registries see it: each pair's Avro schemas through Avro's resolution rules (the
    avro package's compatibility checker), its Protobuf messages for field-number reuse, type
    changes outside a wire type and reserved names, its JSON Schemas by validating each version's
    sample rows against the other. --replay DATA also encodes the stored rows with each earlier
    version's Avro and Protobuf schemas and decodes them with today's, then parses them with
    today's runtime.
    """
    from tacit_gen import evolution

    if old_out is not None:
        if artifacts is not None:
            fail_usage("--out is the old spelling of --artifacts: give one of them")
        click.echo("warning: `compat --out` is deprecated: the folder is read, not written; "
                   "write --artifacts", err=True)
        artifacts = old_out
    current = load_or_exit(contract)
    chosen: str = (mode or current.evolution.compatibility).upper()
    if chosen == "NONE":
        click.echo(f"{current.name} declares compatibility NONE: nothing to check (lint TG217)")
        sys.exit(0)
    skipped: list[str] = []
    try:
        earlier = (evolution.history_from_dir(history) if history
                   else evolution.history_from_git(contract, skipped=skipped))
    except (OSError, ValueError, RuntimeError) as e:
        fail_usage(str(e))
    for s in skipped:
        click.echo(f"note: skipped an earlier revision that does not load: {printable(s)}", err=True)
    report = evolution.compat([*earlier, current], chosen)
    payload = report.as_json()
    code = 0 if report.ok else 1
    from tacit_gen.evolution import wire

    lock_dir = Project(out=artifacts).out
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
            fail_usage(str(e))
        try:
            with ticking("wire replay (avro, protobuf)", shown):
                wired = wire.replay_wire([*earlier, current], replay, lock_dir, catalog,
                                         parse_now(now))
        except (LoadError, ValueError) as e:
            fail_usage(str(e))
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
        echo_json(payload)
    else:
        click.echo(report.render_text())
        if wire_text:
            click.echo(wire_text)
        if replay_text:
            click.echo(replay_text.lstrip("\n"))
    sys.exit(code)
