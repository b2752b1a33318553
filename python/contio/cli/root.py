"""The root `contio` command group; each command module adds its commands to it.

The group imports a command's module only when that command runs (or `--help` lists
them all): the modules behind `contio run` import scipy, pandas and the report, about
two seconds on a quiet machine, which `contio --version`, `contio qos set` or an agent
started over SSH on a storage host should not pay.
"""

from __future__ import annotations

import importlib

import click

from contio import __version__

COMMAND_MODULES = {
    "advise": "contio.cli.advise",
    "backend": "contio.cli.backend",
    "cleanup": "contio.cli.cleanup",
    "cluster": "contio.cli.cluster",
    "compare": "contio.cli.report",
    "export": "contio.cli.report",
    "images": "contio.cli.images",
    "plan": "contio.cli.plan",
    "profile": "contio.cli.profile",
    "qos": "contio.cli.qos",
    "report": "contio.cli.report",
    "results": "contio.cli.results",
    "run": "contio.cli.run",
}
"""Each command, and the module whose import adds it to `cli`."""


class LazyGroup(click.Group):
    """A group whose commands are added by importing their module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMAND_MODULES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(COMMAND_MODULES[cmd_name])
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="contio")
def cli() -> None:
    """Measure and control the storage I/O of containerized applications."""
