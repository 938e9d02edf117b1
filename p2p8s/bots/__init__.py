"""Computer players: what one seat can see (:class:`View`) -> an action.

Bots are pure: ``choose(view, legal, rng)`` gets the seat's view, the legal actions and a
seeded :class:`random.Random`, and returns one of the legal actions.
:mod:`~p2p8s.bots.registry` names the regulars, the expert and the random baseline;
:mod:`~p2p8s.bots.hints` suggests a move with a reason.
"""

from p2p8s.bots.base import Bot, RandomBot, View, view_of
from p2p8s.bots.hints import Hint, hint
from p2p8s.bots.registry import REGULARS, describe, get_bot

__all__ = ["REGULARS", "Bot", "Hint", "RandomBot", "View", "describe", "get_bot", "hint",
           "view_of"]
