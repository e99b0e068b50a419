"""`engines setup`: the cached environments of the engines that cannot share this one."""

from __future__ import annotations

import sys
from typing import Any

import click

from tacit_gen.cli.base import exit_codes, main


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


@engines.command("setup", epilog=exit_codes("the environment could not be built (why is said)",
                                            usage="usage error (an engine without an "
                                                  "environment of its own)"))
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
