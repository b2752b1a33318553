"""How a contio command ends: exit code 2 for bad input, 1 for a failure, 130 when
interrupted. Shared by the `contio` CLI and the middleware's light service entry point
(`python -m contio.middleware.services`), which must not import the whole CLI."""

from __future__ import annotations

import errno
import sys

import click

from contio.errors import ContioError, UsageError


def too_long(exc: OSError) -> str:
    """ENAMETOOLONG said as a user reads it, naming the path (shortened)."""
    name = str(exc.filename or "")
    shown = name if len(name) <= 80 else f"{name[:40]}…{name[-30:]} ({len(name)} characters)"
    return (
        f"file name too long: {shown!r}: a name (between slashes) is at most 255 bytes, "
        "a path at most 4096"
    )


def run_command(group: click.Group) -> None:
    """Run `group` on sys.argv and map contio's errors to exit codes and one-line messages."""
    try:
        group.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except UsageError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except ContioError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # A path a user gave that Linux refuses, wherever it was first used.
        click.echo(f"error: {too_long(exc)}", err=True)
        sys.exit(2)
