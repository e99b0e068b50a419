"""`engines setup`: the cached environments of the engines that cannot share this one."""

from __future__ import annotations

import sys

import click

from tacit_gen.cli.base import main


@main.group()
def engines() -> None:
    """Environments of the engines that cannot share tacit-gen's own (Spark, Soda 4)."""


@engines.command("setup")
@click.argument("engine", type=click.Choice(["spark", "soda4"]))
@click.option("--rebuild", is_flag=True, help="Remove the cached environment and build it again.")
def engines_setup(engine: str, rebuild: bool) -> None:
    """Create (or find) the cached environment of ENGINE and print where it is.

    `verify --engine spark` (or the soda4 target's engine) creates it on first use; this does it
    ahead of time. The folder is $TACIT_GEN_SPARK_ENV / $TACIT_GEN_SODA4_ENV, else
    $XDG_CACHE_HOME/tacit-gen/envs/<engine>-<hash of the lock>.
    """
    from tacit_gen.engines.envs import EnvError

    if engine == "soda4":
        from tacit_gen.engines.soda4.env import ENV
    else:
        from tacit_gen.engines.spark.env import ENV

    try:
        env = ENV.ensure(rebuild=rebuild)
    except EnvError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    how = f"created with {env.installer} in {env.seconds:.0f} s" if env.created else "cached"
    click.echo(f"{engine}: {env.path} ({how})")
