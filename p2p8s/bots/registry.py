"""The named computer players: the regulars, the expert and the random baseline.

>>> from p2p8s.bots.registry import REGULARS, get_bot
>>> len(REGULARS) >= 4
True
>>> get_bot("expert").name
'Expert'
"""

from __future__ import annotations

from p2p8s.bots.base import Bot, RandomBot
from p2p8s.errors import MalformedInput

#: The regulars' names, in the order a solo table seats them.
REGULARS: tuple[str, ...] = ("Hanna", "Karl", "Vera", "Max")

_DESCRIPTIONS: dict[str, str] = {
    "hanna": "Hoards her 8s for the last card or the tightest spot.",
    "karl": "Sheds his expensive cards first: kings, queens and action cards never linger.",
    "vera": "Goes after whoever is about to go out with queens, 2s and aces.",
    "max": "Counts cards and reads the table: who drew, who passed, which suit was called.",
    "expert": "Thinks ahead: plays out hundreds of possible futures before every move.",
    "random": "Plays any legal move at random — the baseline.",
}


def known_names() -> tuple[str, ...]:
    """Every name :func:`get_bot` accepts (display spelling)."""
    return (*REGULARS, "Expert", "Random")


def get_bot(name: str) -> Bot:
    """A fresh bot for ``name`` (case-insensitive: a regular, ``expert`` or ``random``).

    Raises :class:`~p2p8s.errors.MalformedInput` listing the known names for an
    unknown one.
    """
    key = name.strip().lower() if isinstance(name, str) else ""
    if key == "random":
        return RandomBot()
    if key == "expert":
        from p2p8s.bots.expert import ExpertBot

        return ExpertBot()
    from p2p8s.bots.personalities import regular

    bot = regular(key)
    if bot is None:
        raise MalformedInput(
            f"no computer player called {name!r} (known: {', '.join(known_names())})"
        )
    return bot


def describe(name: str) -> str:
    """The one-line description of a bot; raises MalformedInput for an unknown name."""
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in _DESCRIPTIONS:
        raise MalformedInput(
            f"no computer player called {name!r} (known: {', '.join(known_names())})"
        )
    return _DESCRIPTIONS[key]
