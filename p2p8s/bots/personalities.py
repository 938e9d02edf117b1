"""The regulars: heuristic computer players built from the strategy advice.

Every regular is a :class:`Regular` with a :class:`Style` — weights over the same
features of a candidate play (its value, the suit it leaves on the pile, whether it
spends a wild card or an action card, how close the next player is to going out,
what the table revealed). The styles differ where a player notices:

* **Hanna** (hoarder) never plays an 8 while any other card fits; her 8s go last.
* **Karl** (shedder) plays the most expensive fitting card first, 8s included when
  somebody is close to going out.
* **Vera** (attacker) saves queens, 2s and aces and fires them at a player with one
  or two cards left (R-QUEEN, R-TWO, R-ACE), reversing away from danger.

What a card does (its value, whether it is an action card that skips, reverses or
adds a penalty) is read from the ruleset's rule table (:mod:`p2p8s.ruletable`).
* **Max** (counter) reads draws, passes and declarations (:mod:`p2p8s.bots.knowledge`)
  and steers the pile into suits the next player lacks, away from suits they called.

All choices are deterministic given the ``rng`` (used only to break ties).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2p8s.bots.base import View
from p2p8s.bots.knowledge import TableKnowledge, read_table
from p2p8s.cards import Card
from p2p8s.engine import Action, Draw, Lucky, Play, Take
from p2p8s.ruletable import Declare


@dataclass(frozen=True, slots=True, kw_only=True)
class Style:
    """Weights of a regular's move score (see :func:`score_play`).

    ``shed``: per point of card value played. ``wild_cost``: penalty for spending a
    wild card while a non-wild play exists (``inf``-like for the hoarder).
    ``wild_danger``: bonus for dumping a wild when an opponent has one card left
    (R-PTS-TABLE: 50 points). ``multi``: per extra card in a multi-play (R-MULTI).
    ``suit_keep``: per own card of the suit the play leaves active. ``attack``: bonus
    for a Q/2/A against a next player with <= 2 cards; ``hold``: penalty for spending
    one when nobody is close. ``reads``: uses :class:`TableKnowledge`.
    """

    name: str
    shed: float = 0.0
    wild_cost: float = 12.0
    wild_danger: float = 10.0
    multi: float = 2.0
    suit_keep: float = 1.5
    attack: float = 0.0
    hold: float = 0.0
    reads: bool = False
    noise: float = 0.01


HANNA = Style(name="Hanna", wild_cost=10_000.0, wild_danger=0.0)
KARL = Style(name="Karl", shed=2.0, wild_cost=15.0, wild_danger=40.0, multi=1.0,
             suit_keep=0.5)
VERA = Style(name="Vera", attack=30.0, hold=8.0)
MAX = Style(name="Max", reads=True, suit_keep=2.0)

STYLES: dict[str, Style] = {s.name.lower(): s for s in (HANNA, KARL, VERA, MAX)}


@dataclass(slots=True)
class _Context:
    view: View
    hand: list[int]
    next_seat: int
    prev_seat: int
    min_other: int
    has_plain_play: bool
    know: TableKnowledge | None


def _next_seat(view: View, steps: int = 1, direction: int | None = None) -> int:
    d = view.direction if direction is None else direction
    return (view.seat + d * steps) % view.players


def score_play(style: Style, ctx: _Context, play: Play) -> float:
    """Score of ``play`` for ``style`` (higher is better); pure function of its inputs."""
    view = ctx.view
    cards = play.cards
    rest = list(ctx.hand)
    for c in cards:
        rest.remove(c)
    if not rest:  # R-OUT: going out beats everything (nopick still denies a pick-play)
        return 1e6 + (1.0 if play.declare is Declare.NOPICK else 0.0)
    wild = view.wild[view.seat]
    table = view.rules.rule_table
    value = table.hand_value(cards)
    score = style.shed * value + style.multi * (len(cards) - 1)
    last = Card(cards[-1])
    rank = last.rank  # None for a joker (R-ZW-DECK)
    if rank == wild:
        if ctx.has_plain_play:
            score -= style.wild_cost
        if ctx.min_other <= 1:
            score += style.wild_danger
    # the suit the play leaves active: declared, the last card's, or (a joker) the same
    suit = int(play.suit) if play.suit is not None else (
        int(last.suit) if last.suit is not None else int(view.suit))
    same_suit = sum(1 for c in rest if Card(c).suit == suit and Card(c).rank != wild)
    score += style.suit_keep * same_suit
    if rank is not None and rank != wild and any(Card(c).rank == rank for c in rest):
        score += 0.5  # the same rank can follow later
    rule = table.rule(last)
    if rule.action:
        n = view.players
        sizes = view.hand_sizes
        target = ctx.next_seat
        effect = table.effect((last,), n, play.declare)
        if rule.block and view.pending_draw:
            score += 5.0  # R-ZW-PENALTY: the ace cancels what would be taken
        if effect.bounce:
            # R-ZW-JACK: the previous player moves once, then the turn comes back
            threat = sizes[ctx.prev_seat] <= 2
            score += 0.0 if threat else 2.0
        elif effect.reverses:
            # R-ACE, R-WC-SKIP, R-ZW-JACK: the next turn goes to the previous player
            threat = sizes[target] <= 2 and sizes[ctx.prev_seat] > sizes[target]
        else:
            threat = sizes[target] <= 2
        if threat:
            score += style.attack * (3 - sizes[target]) * len(cards)
        else:
            score -= style.hold * len(cards)
        if rule.penalty and ctx.know is not None and ctx.know.unseen_counters() == 0:
            score += 3.0  # nobody can counter it any more
    if play.declare is Declare.NOPICK:
        score += 1.0  # R-ZW-PICKPLAY: the taker may not play on
    if style.reads and ctx.know is not None:
        know = ctx.know
        nxt = ctx.next_seat
        if know.void(nxt, suit):
            score += 4.0
        if know.declared[nxt] == suit:
            score -= 4.0
    return score


class Regular:
    """A heuristic player with a :class:`Style`; satisfies the Bot protocol."""

    def __init__(self, style: Style) -> None:
        self.style = style
        self.name = style.name

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick the best-scoring legal action; ``legal`` must be non-empty.

        Under a penalty a 2 is played if held (R-COUNTER); after a draw a playable
        drawn card is played (R-DRAW); otherwise the best :func:`score_play`.
        """
        if len(legal) == 1:
            return legal[0]
        ctx = self._ctx(view, legal)
        best: Action = legal[0]
        best_score = float("-inf")
        for a in legal:
            s = self._score(view, a, ctx) + rng.random() * self.style.noise
            if s > best_score:
                best, best_score = a, s
        return best

    def scores(self, view: View, legal: Sequence[Action]) -> list[float]:
        """The score of every legal action (no noise), for hints and the expert."""
        ctx = self._ctx(view, legal)
        return [self._score(view, a, ctx) for a in legal]

    def _ctx(self, view: View, legal: Sequence[Action]) -> _Context:
        wild = view.wild[view.seat]
        plain = any(isinstance(a, Play) and Card(a.cards[0]).rank != wild for a in legal)
        others = [view.hand_sizes[s] for s in range(view.players) if s != view.seat]
        know = read_table(view) if (self.style.reads or view.rules.action_cards) else None
        return _Context(view=view, hand=list(view.hand), next_seat=_next_seat(view),
                        prev_seat=_next_seat(view, direction=-view.direction),
                        min_other=min(others), has_plain_play=plain, know=know)

    def _score(self, view: View, action: Action, ctx: _Context) -> float:
        if isinstance(action, Play):
            s = score_play(self.style, ctx, action)
            if view.pending_draw:
                s += 100.0  # counter the penalty rather than take it
            return s
        if isinstance(action, Take):
            return 0.0
        if isinstance(action, Lucky):
            return _lucky_score(view, ctx)
        if view.drawn and view.rules.draw_when_playable:
            # R-DRAW-ANY: another draw rather than a pass, less so with each card drawn
            return -60.0 - 10.0 * view.drawn if isinstance(action, Draw) else -150.0
        return -1000.0 if view.drawn == 0 else -50.0  # draw/pass: only when no play fits


def _lucky_score(view: View, ctx: _Context) -> float:
    """The lucky card against taking the penalty (R-ZW-LUCKY), in cards saved: an unseen
    ace, 2 or joker turns the penalty away; anything else costs one card more."""
    table = view.rules.rule_table
    pending = view.pending_draw
    unseen = ctx.know.unseen if ctx.know is not None else None
    if not unseen:
        return -1.0
    total = sum(unseen.values())
    lucky = sum(k for c, k in unseen.items()
                if table.rule(c).block or table.rule(c).penalty)
    p = lucky / total if total else 0.0
    return p * pending - (1 - p) * 1.0


def regular(key: str) -> Regular | None:
    """The regular named ``key`` (lower case), or None."""
    style = STYLES.get(key)
    return Regular(style) if style is not None else None
