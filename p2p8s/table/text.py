"""The ``text`` of :class:`~p2p8s.table.events.Applied`, while that field exists.

The words are the one narration of the CLI (:mod:`p2p8s.cli.words.narration`), read
from the effect the engine recorded on the event; this module only keeps the table's
import working until ``Applied`` carries the engine event instead of a sentence (then it
goes, with the table's last import of the CLI).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.cli.words import Speaker
from p2p8s.cli.words.narration import turn_line
from p2p8s.engine import Event
from p2p8s.rules import Ruleset


def describe(event: Event, *, names: Sequence[str], me: int, rules: Ruleset, direction: int,
             out: bool) -> str:
    """One sentence for an applied engine ``event`` (``me`` is "You" and sees its own
    drawn cards; ``out``: the play emptied the hand). ``direction`` is not needed any
    more: the event records its effect."""
    del direction
    return turn_line([event], Speaker(names, me), rules=rules, final=out)
