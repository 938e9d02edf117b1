"""Bit-mask tables and helpers shared by the two playout loops (:mod:`p2p8s.playout`,
:mod:`p2p8s.playout_house`): a set of cards is an int, bit ``c`` = ``Card(c)``; and
their result, :class:`Outcome` (re-exported by :mod:`p2p8s.playout`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from p2p8s.actions import EndedBy


class Outcome(NamedTuple):
    """How a playout ended: per-seat round points (as :meth:`Round.points`), the way
    the round ended, the seat that went out (``None`` if blocked) the number of
    actions applied (play, draw, pass, take, lucky), whether the step cap ended it and
    the round's loser (R-ZW-SCORE; ``None`` for other presets, as :attr:`Round.loser`)."""

    points: list[int]
    ended_by: EndedBy
    winner: int | None
    decisions: int
    #: True if the playout hit the step cap (:data:`p2p8s.playout.MAX_DECISIONS`) and
    #: was scored as a blocked round instead of being played to its end.
    capped: bool = False
    loser: int | None = None


#: SUIT_MASK[s] (s = 0..3, C D H S): the 13 cards of suit s.
SUIT_MASK: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
#: RANK_MASK[r] (r = 1..13): the four cards of rank r; index 0 is empty.
RANK_MASK: tuple[int, ...] = (0, *(sum(1 << (s * 13 + r - 1) for s in range(4))
                                   for r in range(1, 14)))


def mask(cards: Sequence[int] | range) -> int:
    """The set of ``cards`` (card indices) as a bit mask."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def refill(stock: list[int], discard: list[int], shuffle: Callable[[list[int]], None]
           ) -> None:
    """R-RESHUFFLE: the discards under the top card, shuffled, become the stock (top at
    the end); ``stock`` is refilled in place, so a bound ``stock.pop`` stays valid."""
    stock[:] = discard[:-1]
    del discard[:-1]
    shuffle(stock)
    stock.reverse()
