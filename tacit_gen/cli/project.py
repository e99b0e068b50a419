"""The project a command runs on: the settings file merged with the flags, and the flags targets declare."""

from __future__ import annotations

import sys
from typing import Any

import click

from tacit_gen.cli.base import echo_diagnostics, targets_or_exit


def settings_or_exit() -> Any:
    """The project settings (tacit-gen.toml / [tool.tacit-gen]); a bad file is exit 2."""
    from tacit_gen import settings

    try:
        return settings.discover()
    except settings.SettingsError as e:
        echo_diagnostics(e.diagnostics, err=True)
        sys.exit(2)


def target_flags() -> list[tuple[str, Any, Any]]:
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


class WithTargetFlags(click.Command):
    """A command that also takes the flags every registered target declares (`--dbt-adapter`...).

    They are added when the command runs or shows its help, so start-up imports no target. A flag
    not given is None: the settings file's `[<target>]` value applies, else the field's default.
    """

    _added = False

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if not self._added:
            self._added = True
            for flag, target, f in target_flags():
                choices = f.metadata.get("choices") or ()
                self.params.append(click.Option(
                    [flag], default=None,
                    type=click.Choice(list(choices)) if choices else str,
                    help=f"[{target.name}] {f.metadata.get('help', '')}"))
        return super().get_params(ctx)


class Project:
    """Settings merged with the flags (a flag wins): what render, check and verify run with."""

    def __init__(self, paths: tuple[str, ...] = (), out: str | None = None,
                 target_spec: str | None = None, templates: str | None = None,
                 dialect: str | None = None, flags: dict[str, Any] | None = None) -> None:
        from tacit_gen.targets.base import RenderOptions

        s = self.settings = settings_or_exit()
        self.paths: tuple[str, ...] = paths or tuple(s.path(c) for c in (s.contracts or ("contracts",)))
        self.out = out or (s.path(s.out) if s.out else "generated")
        self.targets = targets_or_exit(target_spec) if target_spec else (s.targets or targets_or_exit(None))
        self.options = RenderOptions(
            templates_dir=templates or (s.path(s.templates) if s.templates else None),
            out_dir=self.out,
            dialect=dialect,
            targets=self._target_options(flags or {}),
        )

    def _target_options(self, flags: dict[str, Any]) -> tuple[Any, ...]:
        """Each target's options object: its flag, else its settings-file value, else default."""
        from tacit_gen.settings import target_options

        return target_options(self.settings, flags, self.out)
