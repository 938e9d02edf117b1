"""Reading the table: what one seat can infer from its :class:`~p2p8s.bots.base.View`.

The strategy advice ("Den Tisch lesen") as code:

* a player who draws (or passes without drawing) had no playable card at that moment:
  none of the active suit, none of the top rank (unless a suit was declared), no wild
  card (R-DRAW with ``draw_when_playable`` off, R-PASS);
* a player who declares a suit with an 8 likely holds several of it (R-EIGHT);
* the unseen cards are the deck minus the own hand minus the discard pile.

A seat's *forbidden* set is the set of card indices (0..51) it provably holds none of.
It is renewed at each such revealing draw or pass and forgotten when the seat takes
cards it did not have to show unplayable (a taken penalty, R-COUNTER, or a playable
drawn card kept with a pass, R-PASS).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from p2p8s.bots.base import View
from p2p8s.cards import Card, Suit
from p2p8s.cards import decks_for as _decks_for
from p2p8s.engine import Draw, Pass, Play, Take


@dataclass(frozen=True, slots=True)
class TableKnowledge:
    """What a seat knows beyond its view's plain fields.

    ``unseen``: card -> copies not in the own hand nor the discard pile (those are in
    other hands or the stock). ``forbidden[s]``: cards seat ``s`` provably does not
    hold (empty for the own seat). ``declared[s]``: the suit seat ``s`` last declared
    with a wild card, or ``None``. ``passes``: seats in a row that passed without
    drawing (R-BLOCKED counter). ``reshuffles``: reshuffles so far this round.
    ``wild_rank``: the rule table's wild rank (R-EIGHT); ``counters``: the cards that
    answer a draw penalty (R-COUNTER).
    """

    unseen: Counter[Card]
    forbidden: tuple[frozenset[int], ...]
    declared: tuple[Suit | None, ...]
    passes: int
    reshuffles: int
    wild_rank: int
    counters: frozenset[int]

    def void(self, seat: int, suit: Suit | int) -> bool:
        """True if ``seat`` provably holds no card of ``suit`` but the wild one."""
        base = int(suit) * 13
        forb = self.forbidden[seat]
        return all(base + r in forb for r in range(13) if r != self.wild_rank - 1)

    def unseen_counters(self) -> int:
        """Unseen cards that could still answer a draw penalty (R-COUNTER): the 2s."""
        return sum(k for c, k in self.unseen.items() if c in self.counters)


def _playable_set(suit: int, top_rank: int | None, declared: bool, wild: int) -> frozenset[int]:
    cards = {suit * 13 + r for r in range(13)}
    cards.update(s * 13 + wild - 1 for s in range(4))
    if top_rank is not None and not declared:
        cards.update(s * 13 + top_rank - 1 for s in range(4))
    return frozenset(cards)


def read_table(view: View) -> TableKnowledge:
    """Replay the public log of ``view`` into :class:`TableKnowledge` (pure, O(log))."""
    n = view.players
    deck = Counter(view.rules.rule_table.deck_cards * _decks_for(n))
    deck.subtract(view.hand)
    deck.subtract(view.discard)
    unseen = +deck
    forbidden: list[frozenset[int]] = [frozenset()] * n
    declared: list[Suit | None] = [None] * n
    reshuffles = sum(e.reshuffled for e in view.log)
    # the starter is known while no reshuffle has removed it from the discard pile
    suit: int | None = None
    top_rank: int | None = None
    is_declared = False
    if reshuffles == 0 and view.discard:
        suit = Card(view.discard[0]).suit
        top_rank = Card(view.discard[0]).rank
    pending = 0
    draws = [0] * n
    passes = 0
    limit = view.rules.draw_limit
    infer = not view.rules.draw_when_playable
    for e in view.log:
        s = e.seat
        a = e.action
        if isinstance(a, Play):
            last = Card(a.cards[-1])
            top_rank = last.rank  # None for a joker: it keeps the active suit
            suit = int(a.suit) if a.suit is not None else (
                int(last.suit) if last.suit is not None else suit)
            is_declared = a.suit is not None
            if a.suit is not None:
                declared[s] = a.suit
            pending = e.penalty
            draws[s] = 0
            passes = 0
        elif isinstance(a, Draw):
            if draws[s] == 0 and pending == 0 and infer and suit is not None:
                forbidden[s] = _playable_set(suit, top_rank, is_declared, view.wild[s])
            draws[s] += 1
            passes = 0
        elif isinstance(a, Pass):
            if draws[s]:
                if not limit or draws[s] < limit:
                    forbidden[s] = frozenset()  # kept a playable drawn card (or stock ran dry)
                passes = 0
            else:
                passes += 1
                if suit is not None:
                    forbidden[s] = _playable_set(suit, top_rank, is_declared, view.wild[s])
            draws[s] = 0
        elif isinstance(a, Take):
            forbidden[s] = frozenset()
            pending = 0
            draws[s] = 0
            passes = 0
    forbidden[view.seat] = frozenset()
    table = view.rules.rule_table
    counters = frozenset(c for c in table.deck_cards if table.counters(c))
    return TableKnowledge(unseen, tuple(forbidden), tuple(declared), passes, reshuffles,
                          table.wild_rank, counters)
