"""The `contio` command line. One module per command group, registered here."""

from __future__ import annotations

# Each command group lives in its own module, which adds its commands to `cli` when
# imported: on first use (root.COMMAND_MODULES).
from contio.cli.root import cli
from contio.exit_codes import run_command

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point: run the CLI and map contio's errors to exit codes (2 = bad input)."""
    run_command(cli)
