"""The ``p2p8s`` command: one click group; every expected failure is printed, not raised.

Each subcommand lives in its own module (its ``COMMANDS``) and is imported only when it
runs: ``p2p8s --help`` lists every command from :data:`LAZY` without importing one, and
``p2p8s rules`` does not load the network, the crypto or the runner.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any

import click

from p2p8s import __version__
from p2p8s.errors import Error


@dataclass(frozen=True, slots=True)
class Lazy:
    """A command not imported yet: the module under ``p2p8s.cli`` that defines it and
    the first paragraph of its help (the command list shows it; a test keeps the two
    the same)."""

    module: str
    summary: str


#: Every command by name.
LAZY: dict[str, Lazy] = {
    "audit": Lazy("audit_cmd", "Re-verify a table log offline: every signature, every "
                               "move, every round's audit."),
    "doctor": Lazy("doctor_cmd", "Check why machines cannot find each other, and say what "
                                 "to try."),
    "host": Lazy("net_cmd", "Open a table for friends on this network and print its code."),
    "join": Lazy("net_cmd", "Join a friend's table: INVITE is CODE, CODE@HOST:PORT or "
                            "p2p8s://CODE@HOST:PORT."),
    "play": Lazy("play_cmd", "Play a solo match against computer opponents (resumes a "
                             "saved match)."),
    "rules": Lazy("rules_cmd", "Print the rules of the game (table rules unless --rules or "
                             "--classic)."),
    "scenario": Lazy("scenario_cmd", "Run the round described in FILE (JSON; '-' reads "
                                     "stdin) and print its state as JSON."),
    "simulate": Lazy("simulate_cmd", "Play a tournament of full matches between computer "
                                     "players and print each bot's match win rate (95% "
                                     "Wilson interval), rounds won and points per round."),
    "tables": Lazy("net_cmd", "List the p2p8s tables on the local network (found by mDNS)."),
}


class _Group(click.Group):
    """Imports a command's module when the command is first looked up, and prints
    :class:`p2p8s.errors.Error` messages for people (exit 1, or 2 for bad input)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = LAZY.get(cmd_name)
        if cmd_name not in self.commands and lazy is not None:
            name = f"p2p8s.cli.{lazy.module}"
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise
                return None  # a build without that module
            for command in module.COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, from :data:`LAZY` for the commands not imported."""
        names = self.list_commands(ctx)
        rows = []
        limit = formatter.width - 6 - max(len(n) for n in names)
        for name in names:
            command = self.commands.get(name) or click.Command(name, help=LAZY[name].summary)
            if not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Error as exc:
            from p2p8s.cli.lines import echo
            from p2p8s.cli.words import PLAIN
            from p2p8s.errors import MalformedInput

            echo(f"p2p8s: {PLAIN.error(exc)}", err=True)  # wrapped like every line
            sys.exit(2 if isinstance(exc, MalformedInput) else 1)
        except KeyboardInterrupt:  # Ctrl-C before a command took over: plain words
            from p2p8s.cli.words import PLAIN
            from p2p8s.cli.words.net import Line

            click.echo(err=True)
            click.echo(PLAIN.say(Line.STOPPED), err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="p2p8s")
def cli() -> None:
    """Crazy Eights in the terminal: solo against the computer, or with friends on your
    local network — no server, no internet."""


def all_commands() -> dict[str, click.Command]:
    """Every command, imported (for the man page and completion checks)."""
    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


def main() -> None:
    """Console-script entry point."""
    cli()
