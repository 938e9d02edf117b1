"""Bit-mask tables and helpers shared by the two playout loops (:mod:`p2p8s.playout`,
:mod:`p2p8s.playout_house`): a set of cards is an int, bit ``c`` = ``Card(c)``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
