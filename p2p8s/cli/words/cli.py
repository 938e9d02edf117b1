"""The words of the terminal's own refusals (:class:`~p2p8s.cli.errors.CliCode`): an
answer at the move prompt that is not understood, the end of the input, ``simulate``'s
options.

>>> from p2p8s.cli.errors import CliCode
>>> from p2p8s.cli.words import PLAIN
>>> PLAIN.say(CliCode.NO_SUCH_NUMBER, n=9, size=7)
'there is no card 9: your cards are numbered 1 to 7'
"""

from __future__ import annotations

from enum import Enum

from p2p8s.cli.errors import CliCode
from p2p8s.cli.moves import quoted, shorten
from p2p8s.cli.words import Template
from p2p8s.cli.words.phrases import derive

_QUOTED = {"q": lambda p: quoted(p["word"])}

TEMPLATES: dict[Enum, Template] = {
    CliCode.EMPTY_ANSWER: "type a card number, d to draw, hint, or help",
    CliCode.NO_SUCH_NUMBER: derive(
        lambda p: ("there is no card {n}: you hold one card, number 1" if p["size"] == 1
                   else "there is no card {n}: your cards are numbered 1 to {size}")),
    CliCode.NUMBER_TWICE: "card {n} is listed twice",
    CliCode.NOT_IN_HAND: derive("{w} is not in your hand", w=lambda p: shorten(p["word"])),
    CliCode.WORD_ALONE: derive("{q} works on its own, not with cards", **_QUOTED),
    CliCode.NOT_A_SUIT: derive("{q} is not a suit (c, d, h, s)", **_QUOTED),
    CliCode.NOT_UNDERSTOOD: derive("{q} is not a card number or a command (type help for "
                                   "the list)", **_QUOTED),
    CliCode.INPUT_ENDED: "the input ended",
    CliCode.QUIT: "quit",
    CliCode.SAVE_STUCK: ("{cause}, and it could not be moved aside ({problem}); move or "
                         "delete {path} to start a new match"),
    CliCode.NO_BOTS: "--bots needs at least one bot name",
    CliCode.TOO_MANY_BOTS: "{bots} bots do not fit {seats} seats",
}
