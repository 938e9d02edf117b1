"""Computer players: what one seat can see (:class:`View`) -> an action.

Bots are pure: ``choose(view, legal, rng)`` gets the seat's view, the legal actions and a
seeded :class:`random.Random`, and returns one of the legal actions.
"""

from p2p8s.bots.base import Bot, RandomBot, View, view_of

__all__ = ["Bot", "RandomBot", "View", "view_of"]
