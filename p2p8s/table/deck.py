"""The engine's :class:`~p2p8s.engine.Deck` at a table: crypto positions, not cards.

The stock is a list of mental-poker positions ``(epoch, index)``, top first. Before the
engine draws, the table has already run the crypto operation for the position on top
(the drawer knows the card, the others know the strips finished), so :meth:`draw`
answers at once: the card if this node may see it, else ``None``. A starter that was
turned face up and buried (R-STARTER) stays a face-up position: when it is drawn later
every node knows it and hands it over with ``Session.give``. :meth:`refill` takes the
stock the table prepared by a finished crypto reshuffle (R-RESHUFFLE).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2p8s.cards import Card
from p2p8s.crypto.deck import Position
from p2p8s.errors import MalformedInput
from p2p8s.table.errors import TableCode


class TableDeck:
    """Positions for the engine (see the module docstring).

    ``know(position)`` gives the card if this node may see it; ``give(position, seat)``
    tells the crypto sessions a face-up card went into ``seat``'s hand.
    ``end_draws_at_audit``: the engine leaves the round end's draws (players in the air,
    the loser's tie draws, R-ZW-OUT, R-ZW-SCORE) to the audit's replay, where every card
    is known (:mod:`p2p8s.table.roundend`).
    """

    end_draws_at_audit = True

    __slots__ = ("_give", "_know", "discard", "drawn", "faceup", "refills", "stock", "turned")

    def __init__(self, stock: Sequence[Position], *, know: Callable[[Position], Card | None],
                 give: Callable[[Position, int], None]) -> None:
        self.stock: list[Position] = list(stock)
        #: positions of the discard pile, bottom first, parallel to ``Round.discard``
        self.discard: list[Position] = []
        #: face-up positions not in a hand or the discard pile (buried starters)
        self.faceup: dict[Position, Card] = {}
        #: the position last turned face up by ``draw(None)``
        self.turned: Position | None = None
        #: stocks prepared by finished reshuffles, used by :meth:`refill` in order
        self.refills: list[list[Position]] = []
        #: every position drawn into a hand, in order (``(position, seat)``)
        self.drawn: list[tuple[Position, int]] = []
        self._know = know
        self._give = give

    def __len__(self) -> int:
        return len(self.stock)

    def draw(self, seat: int | None) -> Card | None:
        p = self.stock.pop(0)
        if seat is None:
            self.turned = p
            return self.faceup.pop(p, None)
        self.drawn.append((p, seat))
        if p in self.faceup:
            self._give(p, seat)
            return self.faceup.pop(p)
        return self._know(p)

    def bury(self, card: Card, index: int) -> None:
        if self.turned is None:
            raise MalformedInput(TableCode.NOTHING_TURNED)
        self.faceup[self.turned] = card
        self.stock.insert(index, self.turned)
        self.turned = None

    def refill(self, cards: Sequence[Card]) -> None:
        if not self.refills or len(self.refills[0]) != len(cards) or len(cards) != len(
                self.discard) - 1:
            raise MalformedInput(TableCode.NO_REFILL)
        self.stock = self.refills.pop(0)
        self.discard = self.discard[-1:]

    def copy(self) -> TableDeck:
        twin = TableDeck(self.stock, know=self._know, give=lambda p, s: None)
        twin.discard = list(self.discard)
        twin.faceup = dict(self.faceup)
        twin.turned = self.turned
        twin.refills = [list(r) for r in self.refills]
        twin.drawn = list(self.drawn)
        return twin
