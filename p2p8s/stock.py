"""Where the engine's cards come from: the :class:`Deck` protocol and the
:class:`OrderedDeck` of solo play and the tests (R-RESHUFFLE, R-STARTER).

:mod:`p2p8s.engine` re-exports every name; import them from there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from p2p8s.actions import EngineCode
from p2p8s.cards import Card
from p2p8s.errors import MalformedInput


class Deck(Protocol):
    """Where the engine's cards come from: the stock, face down.

    ``draw(seat)`` removes the top card and returns it as ``seat`` may see it (``None``
    when this node may not see it; ``seat=None`` turns it face up for everyone).
    ``bury(card, index)`` puts a face-up card back at ``index`` from the top (R-STARTER).
    ``refill(cards)`` makes a new stock from discards given oldest first (R-RESHUFFLE);
    the deck decides the new order.
    """

    def __len__(self) -> int: ...

    def draw(self, seat: int | None) -> Card | None: ...

    def bury(self, card: Card, index: int) -> None: ...

    def refill(self, cards: Sequence[Card]) -> None: ...

    def copy(self) -> Deck: ...


Reshuffler = Callable[[Sequence[Card]], Sequence[Card]]


def keep_order(cards: Sequence[Card]) -> list[Card]:
    """The default reshuffle: the discards keep their order, oldest on top."""
    return list(cards)


class OrderedDeck:
    """A stock whose order is known: ``cards`` top first.

    ``reshuffler`` gives each new stock order (top first) from the discards (oldest
    first); it must return a permutation of them. The default keeps their order.
    """

    __slots__ = ("_cards", "reshuffler")

    def __init__(self, cards: Sequence[Card], reshuffler: Reshuffler = keep_order) -> None:
        self._cards = list(reversed(cards))  # top at the end: draw is pop()
        self.reshuffler = reshuffler

    def __len__(self) -> int:
        return len(self._cards)

    def draw(self, seat: int | None) -> Card:
        return self._cards.pop()

    def bury(self, card: Card, index: int) -> None:
        self._cards.insert(len(self._cards) - index, card)

    def refill(self, cards: Sequence[Card]) -> None:
        order = list(self.reshuffler(cards))
        if Counter(order) != Counter(cards):
            raise MalformedInput(EngineCode.RESHUFFLE_ORDER)
        self._cards = order[::-1]

    def copy(self) -> OrderedDeck:
        twin = OrderedDeck.__new__(OrderedDeck)
        twin._cards = list(self._cards)
        twin.reshuffler = self.reshuffler
        return twin

    def top_first(self) -> list[Card]:
        """The stock, top first."""
        return self._cards[::-1]


