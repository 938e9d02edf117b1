"""The named computer players: the regulars, the expert and the random baseline.

>>> from p2p8s.bots.registry import REGULARS, get_bot
>>> len(REGULARS) >= 4
True
>>> get_bot("expert").name
'Expert'
>>> describe("Vera")
<BotCode.VERA: 'bot-vera'>
"""

from __future__ import annotations

from p2p8s.bots.base import Bot, RandomBot
from p2p8s.errors import Code, MalformedInput

#: The regulars' names, in the order a solo table seats them.
REGULARS: tuple[str, ...] = ("Hanna", "Karl", "Vera", "Max")


class BotCode(Code):
    """A computer player's one-line description (said by the CLI), and the refusal of an
    unknown name (MalformedInput: ``name`` given, ``known`` names)."""

    HANNA = "bot-hanna"
    KARL = "bot-karl"
    VERA = "bot-vera"
    MAX = "bot-max"
    EXPERT = "bot-expert"
    RANDOM = "bot-random"
    UNKNOWN = "bot-unknown"


_DESCRIPTIONS: dict[str, BotCode] = {
    "hanna": BotCode.HANNA, "karl": BotCode.KARL, "vera": BotCode.VERA, "max": BotCode.MAX,
    "expert": BotCode.EXPERT, "random": BotCode.RANDOM,
}


def known_names() -> tuple[str, ...]:
    """Every name :func:`get_bot` accepts (display spelling)."""
    return (*REGULARS, "Expert", "Random")


def _unknown(name: object) -> MalformedInput:
    return MalformedInput(BotCode.UNKNOWN, name=name, known=known_names())


def get_bot(name: str) -> Bot:
    """A fresh bot for ``name`` (case-insensitive: a regular, ``expert`` or ``random``).

    Raises :class:`~p2p8s.errors.MalformedInput` (:attr:`BotCode.UNKNOWN`, listing the
    known names) for an unknown one.
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
        raise _unknown(name)
    return bot


def describe(name: str) -> BotCode:
    """The code of a bot's one-line description; raises MalformedInput for an unknown
    name."""
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in _DESCRIPTIONS:
        raise _unknown(name)
    return _DESCRIPTIONS[key]
