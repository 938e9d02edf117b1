"""``p2p8s scenario FILE``: run one round from a JSON scenario (protocol/scenario.md)."""

from __future__ import annotations

import json
import sys
from typing import IO

import click

from p2p8s.errors import MalformedInput
from p2p8s.scenario import ScenarioCode, load_scenario, play_scenario


@click.command("scenario")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--indent", type=int, default=None, help="Pretty-print the JSON output.")
def scenario(file: IO[str], indent: int | None) -> None:
    """Run the round described in FILE (JSON; '-' reads stdin) and print its state as JSON.

    Exit status: 0 when every action applied, 1 when one was illegal (the error names
    the action's index; the state is the state before it), 2 for a malformed file.
    """
    from p2p8s.cli.look import Look
    from p2p8s.cli.words import Speaker

    name = getattr(file, "name", "scenario")
    try:
        text = file.read()
    except UnicodeDecodeError:
        raise MalformedInput(ScenarioCode.FILE_NOT_TEXT, name=name) from None
    try:
        run = play_scenario(load_scenario(text))
    except MalformedInput as exc:
        raise MalformedInput(ScenarioCode.IN_FILE, name=name, error=exc) from None
    result = run.to_dict()
    if run.error is not None:  # the words for people beside the code (ASCII card names)
        result["error"]["message"] = Speaker(look=Look(ascii=True)).error(run.error)
    click.echo(json.dumps(result, indent=indent))
    if not run.ok:
        sys.exit(1)


COMMANDS = [scenario]
