"""The deal of a round at a table: dealer, batched deal, starter search (sans-IO).

Once the sessions agree on the joint round id, every node declares the same operations
in the same order (protocol/table.md, "A round"): the batched deal of positions
``(0, 0..H-1)`` in R-DEALORDER, then ``open`` of the next position as the starter; a
forbidden starter (R-STARTER) stays face up, is buried at ``len(stock)//2`` and the next
one opened. When every operation is done :class:`Deal` builds the engine round over a
:class:`~p2p8s.table.deck.TableDeck` that replays exactly those positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial

from p2p8s import ruletable
from p2p8s.cards import Card
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.session import Session
from p2p8s.engine import Round
from p2p8s.rules import Ruleset, deal_sizes
from p2p8s.table.context import Ctx
from p2p8s.table.deck import TableDeck
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.sessions import LocalSessions

DEALER_TAG = b"p2p8s/v1/dealer"


def first_dealer(round_id: bytes, players: int) -> int:
    """R-DEALER from the joint round id of round 1: ``H(tag ‖ round_id) mod players``."""
    return ruletable.first_dealer(DEALER_TAG + round_id, players)


def deal_order(sizes: Sequence[int], dealer: int) -> list[int]:
    """The seat receiving each dealt card, top of the stock first (R-DEALORDER)."""
    return list(ruletable.deal_order(sizes, dealer))


def forbidden_starter(card: Card, action_cards: bool) -> bool:
    """R-STARTER: the rule table's cards that may not start the pile."""
    return not Ruleset(action_cards=action_cards).rule_table.starter(card)


class DealStep(Enum):
    """What one :meth:`Deal.step` did."""

    WAIT = "wait"  #: nothing to do until messages arrive
    MOVED = "moved"  #: an operation was declared (or a result taken in)
    DISPUTED = "disputed"  #: the starter decoded to no card: the round ends, the audit tells
    DEALT = "dealt"  #: the engine round is dealt (:attr:`Deal.dealt`)


@dataclass(frozen=True, slots=True)
class Dealt:
    """A dealt round: the engine ``round`` (starter on the discard pile), its ``deck``
    of positions, and the joint ``round_id``."""

    round: Round
    deck: TableDeck
    round_id: bytes


@dataclass(frozen=True, slots=True)
class Opening:
    """The starter candidate being opened: operation ``op`` turns position ``position``."""

    op: int
    position: Position


class Deal:
    """The deal of the current round on this node (see the module docstring).

    ``dealer``, ``sizes`` (hand sizes by seat) and ``wild`` (the countdown's wild rank by
    seat, else ``None``) are known once the round id is. No timer (``get_timer``).
    """

    def __init__(self, ctx: Ctx, sessions: LocalSessions) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self.begin()

    def begin(self) -> None:
        """A new round: nothing dealt."""
        self.round_id: bytes | None = None
        self.dealer = 0
        self.sizes: list[int] = []
        self.wild: list[int] | None = None
        self.hand_op: int | None = None
        self._sim: list[Position] = []  # the stock during the starter search, top first
        self._faceup: dict[Position, Card] = {}
        self._opening: Opening | None = None
        self.dealt: Dealt | None = None

    def get_timer(self) -> float | None:
        """The deal waits for messages, never for the clock."""
        return None

    def step(self) -> DealStep:
        """Take the next step of the deal. Raises :class:`~p2p8s.table.errors.TableError`
        (``NO_STARTER``) when no card of the stock may start the pile (R-STARTER)."""
        ctx, sessions = self._ctx, self._sessions
        primary = sessions.primary
        if self.round_id is None:
            if primary.round_id is None:
                return DealStep.WAIT
            self.round_id = primary.round_id
            if ctx.number == 1:
                ctx.match.dealer = first_dealer(self.round_id, ctx.players)
            self.dealer = ctx.match.dealer
            rules = ctx.config.rules
            self.sizes = deal_sizes(rules, ctx.players, ctx.match.numbers)
            if rules.countdown:
                self.wild = list(ctx.match.numbers)
            return DealStep.MOVED
        if not all(s.epoch_size(0) for s in sessions.by_seat.values()):
            return DealStep.WAIT
        if self.hand_op is None:
            order = deal_order(self.sizes, self.dealer)
            items: list[tuple[Position, int | None]] = [
                ((0, i), seat) for i, seat in enumerate(order)]
            self.hand_op = primary.ops
            sessions.each(lambda s: s.deal(items))
            self._sim = [(0, i) for i in range(len(order), ctx.config.deck_size)]
            return DealStep.MOVED
        # R-STARTER: open the top of the stock until a card may start the pile
        if self._opening is not None:
            if not sessions.all_done(self._opening.op):
                return DealStep.WAIT
            k = primary.known_card(self._opening.position)
            if k is None:  # it decoded to no card: disputed, the audit will tell
                return DealStep.DISPUTED
            self._faceup[self._opening.position] = card_face(k, ctx.config.deck_size)
            self._opening = None
        for _ in range(len(self._sim) + 1):
            top = self._sim[0]
            if top not in self._faceup:
                self._opening = Opening(primary.ops, top)
                sessions.each(partial(Session.open, positions=[top]))
                return DealStep.MOVED
            if ctx.config.rules.rule_table.starter(self._faceup[top]):
                break
            self._sim.pop(0)
            self._sim.insert(ruletable.bury_index(len(self._sim)), top)
        else:
            raise TableError(TableCode.NO_STARTER, seat=None)
        if not sessions.all_done(self.hand_op):
            return DealStep.WAIT
        self.dealt = self._deal_engine()
        return DealStep.DEALT

    def _deal_engine(self) -> Dealt:
        ctx, sessions = self._ctx, self._sessions
        deck = TableDeck([(0, i) for i in range(ctx.config.deck_size)], know=sessions.know,
                         give=sessions.give)
        deck.faceup = dict(self._faceup)
        rnd = ctx.match.start_round(deck)
        assert deck.turned is not None and self.round_id is not None
        deck.discard = [deck.turned]
        deck.turned = None
        deck.drawn.clear()
        return Dealt(round=rnd, deck=deck, round_id=self.round_id)
