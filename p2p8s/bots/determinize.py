"""Determinization: one complete :class:`~p2p8s.engine.Round` consistent with a view.

The seat's own hand, the discard pile, the top card, active suit, penalty, direction,
turn and every hand size are copied from the :class:`~p2p8s.bots.base.View`; the
unseen cards (:class:`~p2p8s.bots.knowledge.TableKnowledge`) are dealt at random into
the other hands and the stock, so that

* a seat never receives a card it provably lacks (its *forbidden* set, from draws and
  passes, R-DRAW/R-PASS) while the unseen cards allow it — the most constrained seat
  is dealt first and a seat is topped up from any card only when no other fits;
* a seat that declared a suit with an 8 (R-EIGHT) is dealt cards of that suit
  ``declared_weight`` times as likely (weighted sampling without replacement,
  Efraimidis–Spirakis keys ``u ** (1 / w)``).

The stock is shuffled; later reshuffles (R-RESHUFFLE) draw from the same ``rng``.

The Round is built with ``Round.__new__`` and its slots set directly, as
:meth:`Round.copy` does: the dealt hands cannot in general be reproduced by
:meth:`Round.deal` (cards were played and drawn since the deal). Its ``log`` is empty.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2p8s.bots.base import View
from p2p8s.bots.knowledge import TableKnowledge, read_table
from p2p8s.cards import Card
from p2p8s.engine import OrderedDeck, Round


class _Shuffler:
    """A reshuffler (R-RESHUFFLE) drawing its order from ``rng``."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, cards: Sequence[Card]) -> list[Card]:
        order = list(cards)
        self.rng.shuffle(order)
        return order


def sample_hands(view: View, know: TableKnowledge, rng: random.Random,
                 declared_weight: float = 3.0) -> tuple[list[list[Card]], list[Card]]:
    """Deal the unseen cards: ``(hands, stock)`` with ``hands[view.seat]`` the own hand.

    ``stock`` is top first and has ``view.stock_size`` cards. Pure given ``rng``.
    """
    pool: list[Card] = sorted(know.unseen.elements())
    hands: list[list[Card]] = [[] for _ in range(view.players)]
    hands[view.seat] = list(view.hand)
    others = [s for s in range(view.players) if s != view.seat]
    others.sort(key=lambda s: (-len(know.forbidden[s]), s))
    for s in others:
        k = view.hand_sizes[s]
        if k == 0:
            continue
        forb = know.forbidden[s]
        suit = know.declared[s]
        keyed: list[tuple[float, int]] = []
        spill: list[tuple[float, int]] = []
        for i, c in enumerate(pool):
            u = rng.random()
            if c in forb:
                spill.append((u, i))
            elif suit is not None and Card(c).suit == suit:
                keyed.append((u ** (1.0 / declared_weight), i))
            else:
                keyed.append((u, i))
        keyed.sort(reverse=True)
        chosen = [i for _, i in keyed[:k]]
        if len(chosen) < k:  # the constraints cannot all hold: relax them
            spill.sort(reverse=True)
            chosen += [i for _, i in spill[:k - len(chosen)]]
        take = set(chosen)
        hands[s] = [pool[i] for i in chosen]
        pool = [c for i, c in enumerate(pool) if i not in take]
    rng.shuffle(pool)
    return hands, pool[:view.stock_size]


def determinize(view: View, rng: random.Random, know: TableKnowledge | None = None) -> Round:
    """A fully known Round consistent with ``view`` (see the module docstring).

    ``know`` may be passed to save re-reading the log. The turn state ``drawn`` /
    ``last_drawn`` is copied when ``view.seat`` is on turn and reset otherwise.
    Pure given ``rng``; the returned Round owns a private ``random.Random`` for
    reshuffles seeded from ``rng``.
    """
    if know is None:
        know = read_table(view)
    hands, stock = sample_hands(view, know, rng)
    r = Round.__new__(Round)
    r.rules = view.rules
    r.players = view.players
    r.dealer = view.dealer
    r.deck = OrderedDeck(stock, _Shuffler(random.Random(rng.getrandbits(64))))
    r.hands = list(hands)  # type: ignore[arg-type]
    r.discard = list(view.discard)
    r.suit = view.suit
    r.declared = view.declared
    r.direction = view.direction
    r.turn = view.turn
    r.pending_draw = view.pending_draw
    own = view.turn == view.seat
    r.drawn = view.drawn if own else 0
    r.last_drawn = view.last_drawn if own else None
    r.passes = know.passes
    r.wild = list(view.wild)
    r.ended_by = None
    r.winner = None
    r.reshuffles = know.reshuffles
    r.log = []
    # the public turn state of RULES.md §11 (table, classic: always the defaults)
    r.pending_skip, r.bounce_seat = view.pending_skip, view.bounce_seat
    r.nopick, r.picking = view.nopick, view.picking and own
    r.air, r.loser = list(view.air) or [False] * view.players, None
    return r
