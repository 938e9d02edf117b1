"""Hints: the expert's move with a one-line reason in the words of the strategy advice.

:func:`hint` asks the expert (:class:`~p2p8s.bots.expert.ExpertBot`) for its move and
explains it with the first strategy rule that fits ("Strategie" of the product
document): go out; counter or take a penalty (R-COUNTER); attack a player close to
going out with Q/2/A (R-QUEEN, R-TWO, R-ACE); dump an 8 when someone is about to go out;
change suit to the longest suit with an 8 (R-EIGHT); keep an 8 while a card follows
suit; shed several cards of a rank (R-MULTI) or an expensive card; keep the pile in a
suit the next player lacks; draw or pass when nothing fits (R-DRAW, R-PASS).

>>> import random
>>> from p2p8s.bots.base import view_of
>>> from p2p8s.cards import parse_cards, standard_deck
>>> from p2p8s.engine import OrderedDeck, Round
>>> from p2p8s.rules import Ruleset
>>> first = parse_cards("7H 2C 8S 9D 3H".split())
>>> order = first + [c for c in standard_deck() if c not in first]
>>> r = Round.deal(Ruleset(), players=2, dealer=0, deck=OrderedDeck(order), hand_size=2)
>>> h = hint(view_of(r, r.turn), r.legal_actions(), random.Random(1))
>>> str(h.action), h.reason.code, h.reason.params["card"]
('play 7H', <HintCode.KEEP_WILD: 'hint-keep-wild'>, Card.parse('7H'))

A reason is data (:class:`~p2p8s.bots.base.Note`: a :class:`HintCode` and its cards,
suits, seats and numbers); the CLI says it. What a card does (which cards counter a
penalty, attack the next player, reverse) comes from the rule table
(:mod:`p2p8s.ruletable`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2p8s.bots.base import View
from p2p8s.bots.knowledge import TableKnowledge, read_table
from p2p8s.cards import Card, Rank, Suit
from p2p8s.engine import Action, Draw, Lucky, Pass, Play, Take
from p2p8s.errors import Code, Note


class HintCode(Code):
    """The reason of a hint; the parameters are named after the colon. ``seat`` (and
    ``target``) name players, ``next`` is the next seat (said "the next player" when the
    speaker knows no names)."""

    NO_COUNTER = "hint-no-counter"  #: take the penalty: no card of ``counters`` ranks
    SHIELD = "hint-shield"  #: take the ``pending`` cards, keep a ``counters`` card
    DRAW_AGAIN = "hint-draw-again"
    DRAW = "hint-draw"
    KEEP_DRAWN = "hint-keep-drawn"  #: the drawn ``card``
    PASS = "hint-pass"
    GO_OUT = "hint-go-out"  #: ``cards``
    COUNTER = "hint-counter"  #: ``cards``; ``seat`` ``faces`` that many cards
    REVERSE_AWAY = "hint-reverse-away"  #: ``rank``; ``seat`` has ``left`` cards; ``target``
    ATTACK = "hint-attack"  #: ``rank``; ``seat`` has ``left`` cards
    DUMP_WILD = "hint-dump-wild"  #: ``card`` worth ``value``; ``seat`` has one card
    KEEP_WILD = "hint-keep-wild"  #: follow suit with ``card``; ``wild`` rank, ``own``
    MANY = "hint-many"  #: ``count`` of the ``hand`` cards at once
    VOID_NEXT = "hint-void-next"  #: ``cards``; ``seat`` drew on ``suit``
    BOTH = "hint-both"  #: ``cards``
    SHED = "hint-shed"  #: ``cards`` worth ``value``
    KEEP_SUIT = "hint-keep-suit"  #: ``cards`` keep ``suit``; ``held`` more of it
    FITS = "hint-fits"  #: ``cards``
    # the cards of RULES.md §11
    LUCKY = "hint-lucky"  #: turn the lucky card: ``good`` of the ``unseen`` cards help
    MISS_TURN = "hint-miss-turn"  #: facing a skip with no ``ranks`` card: miss the turn
    PASS_SKIP = "hint-pass-skip"  #: ``cards`` pass the skip on to ``seat``
    BLOCK = "hint-block"  #: ``cards`` block the ``pending`` penalty
    BOUNCE = "hint-bounce"  #: ``rank`` bounce: ``seat`` moves, then you again
    AIR_DRAW = "hint-air-draw"  #: in the air: draw first (R-ZW-OUT)
    GO_AIR = "hint-go-air"  #: ``cards`` empty the hand but leave you in the air
    PICK_PASS = "hint-pick-pass"  #: after taking, nothing worth playing: pass
    DRAW_INSTEAD = "hint-draw-instead"  #: draw although ``fits`` cards fit (R-DRAW-ANY)
    # declaring a suit with a wild card (``suit``)
    DECLARE_VOID_NEXT = "hint-declare-void-next"  #: ``seat`` drew on it
    DECLARE_ONLY_OTHER = "hint-declare-only-other"  #: the only other card is of it
    DECLARE_ALL_OTHER = "hint-declare-all-other"  #: all ``held`` other cards are of it
    DECLARE_HOLD = "hint-declare-hold"  #: ``held`` of it; ``longest``
    DECLARE_ONLY_WILD = "hint-declare-only-wild"  #: ``kept`` wild cards; ``wild``, ``own``
    DECLARE_VOID_LATER = "hint-declare-void-later"  #: none held; ``seat`` drew on it
    DECLARE_ON_PILE = "hint-declare-on-pile"  #: none held; ``gone`` on the pile
    DECLARE_LOOKAHEAD = "hint-declare-lookahead"  #: none held; the search chose it


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint:
    """A suggested ``action`` (one of the legal actions) and its ``reason``."""

    action: Action
    reason: Note


def hint(view: View, legal: Sequence[Action], rng: random.Random, *,
         playouts: int | None = None) -> Hint:
    """Suggest the expert's move for ``view`` from ``legal`` with its reason.

    ``playouts`` overrides the expert's budget. Pure given ``rng``. Raises ValueError if
    ``legal`` is empty.
    """
    if not legal:
        raise ValueError("no legal action to suggest")
    from p2p8s.bots.expert import ExpertBot

    expert = ExpertBot() if playouts is None else ExpertBot(playouts=playouts)
    action = expert.choose(view, legal, rng)
    return Hint(action=action, reason=explain(view, legal, action))


def _declare_reason(view: View, know: TableKnowledge, rest: Sequence[Card], suit: int
                    ) -> Note:
    """Why declare ``suit`` with a wild card, ``rest`` being the hand left after it.

    The reason always supports the suit: the cards of it you keep, else a player known
    to hold none of it (they drew or passed on it), else the cards of it already on the
    discard pile; it never claims you hold a suit you hold none of.
    """
    seat, n = view.seat, view.players
    wild = view.wild[seat]
    s = Suit(suit)
    plain = [c for c in rest if c.rank != wild]
    held = sum(1 for c in plain if c.suit == suit)
    nxt = (seat + view.direction) % n
    if know.void(nxt, suit):
        return Note.of(HintCode.DECLARE_VOID_NEXT, suit=s, seat=nxt, next=nxt)
    if held:
        if held == len(plain):
            if held == 1:
                return Note.of(HintCode.DECLARE_ONLY_OTHER, suit=s)
            return Note.of(HintCode.DECLARE_ALL_OTHER, suit=s, held=held)
        longest = all(held > sum(1 for c in plain if c.suit == t)
                      for t in range(4) if t != suit)
        return Note.of(HintCode.DECLARE_HOLD, suit=s, held=held, longest=longest)
    if not plain:
        return Note.of(HintCode.DECLARE_ONLY_WILD, suit=s, kept=len(rest), wild=Rank(wild),
                       own=wild != view.rules.rule_table.wild_rank)
    for other in sorted((o for o in range(n) if o not in (seat, nxt)),
                        key=lambda o: ((o - seat) * view.direction) % n):
        if know.void(other, suit):
            return Note.of(HintCode.DECLARE_VOID_LATER, suit=s, seat=other, next=nxt)
    gone = sum(1 for c in view.discard if c.suit == suit and c.rank != wild)
    if gone >= 4:
        return Note.of(HintCode.DECLARE_ON_PILE, suit=s, gone=gone)
    return Note.of(HintCode.DECLARE_LOOKAHEAD, suit=s)


def explain(view: View, legal: Sequence[Action], action: Action) -> Note:
    """The reason for playing ``action`` in ``view`` (see the module doc)."""
    seat = view.seat
    n = view.players
    table = view.rules.rule_table
    wild = view.wild[seat]
    own = wild != table.wild_rank
    hand = list(view.hand)
    nxt = (seat + view.direction) % n
    counters = sorted({c.rank for c in table.deck_cards if c.rank and table.counters(c)})
    if isinstance(action, Lucky):
        know_l = read_table(view)
        unseen = sum(know_l.unseen.values())
        good = sum(k for c, k in know_l.unseen.items()
                   if table.rule(c).block or table.rule(c).penalty)
        return Note.of(HintCode.LUCKY, good=good, unseen=unseen, pending=view.pending_draw)
    if isinstance(action, Pass) and view.pending_skip:
        skips = sorted({c.rank for c in table.deck_cards if c.rank and table.rule(c).skip})
        return Note.of(HintCode.MISS_TURN, ranks=skips)
    if isinstance(action, Pass) and view.picking:
        return Note.of(HintCode.PICK_PASS)
    if isinstance(action, Draw) and view.air and view.air[seat]:
        return Note.of(HintCode.AIR_DRAW)
    if (isinstance(action, Draw) and view.rules.draw_when_playable
            and any(isinstance(a, Play) for a in legal)):
        return Note.of(HintCode.DRAW_INSTEAD,
                       fits=len({a.cards[0] for a in legal if isinstance(a, Play)}))
    if isinstance(action, Take):
        if not any(table.counters(c) for c in hand):
            return Note.of(HintCode.NO_COUNTER, counters=counters)
        return Note.of(HintCode.SHIELD, pending=view.pending_draw, counters=counters)
    if isinstance(action, Draw):
        return Note.of(HintCode.DRAW_AGAIN if view.drawn else HintCode.DRAW)
    if isinstance(action, Pass):
        if view.drawn and view.last_drawn is not None and any(
                isinstance(a, Play) for a in legal):
            return Note.of(HintCode.KEEP_DRAWN, card=view.last_drawn)
        return Note.of(HintCode.PASS)
    assert isinstance(action, Play)
    cards = list(action.cards)
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    last = cards[-1]
    if not rest:
        if table.in_the_air and (table.special(last) or table.special(view.top)):
            return Note.of(HintCode.GO_AIR, cards=cards)  # R-ZW-OUT
        return Note.of(HintCode.GO_OUT, cards=cards)
    know: TableKnowledge = read_table(view)
    others = [s for s in range(n) if s != seat]
    closest = min(others, key=lambda s: (view.hand_sizes[s], (s - seat) % n))
    if view.pending_skip:
        return Note.of(HintCode.PASS_SKIP, cards=cards, seat=nxt, next=nxt)
    effect = table.effect(cards, n, action.declare)
    if view.pending_draw:
        if effect.block:
            return Note.of(HintCode.BLOCK, cards=cards, pending=view.pending_draw)
        faces = view.pending_draw + effect.penalty
        return Note.of(HintCode.COUNTER, cards=cards, seat=nxt, next=nxt, faces=faces)
    if effect.bounce and last.rank is not None:
        prev = (seat - view.direction) % n
        return Note.of(HintCode.BOUNCE, rank=last.rank, seat=prev, next=nxt)
    if table.rule(last).action and last.rank is not None:
        left = view.hand_sizes[nxt]
        if left <= 2:
            if table.effect((last,), n, action.declare).reverses:
                # R-ACE: the turn goes the other way, to the previous player
                target = (seat - view.direction) % n
                return Note.of(HintCode.REVERSE_AWAY, rank=last.rank, seat=nxt, next=nxt,
                               left=left, target=target)
            return Note.of(HintCode.ATTACK, rank=last.rank, seat=nxt, next=nxt, left=left)
    if last.rank == wild:
        if view.hand_sizes[closest] <= 1:
            return Note.of(HintCode.DUMP_WILD, card=last, seat=closest, next=nxt,
                           value=table.value(last))
        suit = int(action.suit) if action.suit is not None else int(last.suit or 0)
        return _declare_reason(view, know, rest, suit)
    if any(c.rank == wild for c in rest):
        return Note.of(HintCode.KEEP_WILD, card=cards[0], wild=Rank(wild), own=own)
    if len(cards) >= 3:
        return Note.of(HintCode.MANY, count=len(cards), hand=len(hand))
    suit = last.suit if last.suit is not None else -1  # a joker has no suit
    if suit >= 0 and know.void(nxt, suit):
        return Note.of(HintCode.VOID_NEXT, cards=cards, suit=suit, seat=nxt, next=nxt)
    value = table.hand_value(cards)
    if len(cards) == 2:
        return Note.of(HintCode.BOTH, cards=cards)
    if value >= 10 and not view.rules.countdown:
        return Note.of(HintCode.SHED, cards=cards, value=value)
    held = sum(1 for c in rest if c.suit == suit and c.rank != wild)
    if held >= 2:
        return Note.of(HintCode.KEEP_SUIT, cards=cards, suit=suit, held=held)
    return Note.of(HintCode.FITS, cards=cards)
