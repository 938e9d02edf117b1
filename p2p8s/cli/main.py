"""The ``p2p8s`` command: one click group; every expected failure is printed, not raised.

Each subcommand lives in its own module and is registered here.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from p2p8s import __version__
from p2p8s.errors import Error


class _Group(click.Group):
    """Prints :class:`p2p8s.errors.Error` messages for people and exits 1 or 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Error as exc:
            from p2p8s.cli.words import PLAIN
            from p2p8s.errors import MalformedInput

            click.echo(f"p2p8s: {PLAIN.error(exc)}", err=True)
            sys.exit(2 if isinstance(exc, MalformedInput) else 1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="p2p8s")
def cli() -> None:
    """Crazy Eights in the terminal: solo against the computer, or with friends on your
    local network — no server, no internet."""


def _register() -> None:
    import importlib

    for module in ("scenario_cmd", "rules_cmd", "play_cmd", "simulate_cmd", "net_cmd"):
        try:
            mod = importlib.import_module(f"p2p8s.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"p2p8s.cli.{module}":
                raise
            continue
        for command in getattr(mod, "COMMANDS", ()):
            cli.add_command(command)


_register()


def main() -> None:
    """Console-script entry point."""
    cli()
