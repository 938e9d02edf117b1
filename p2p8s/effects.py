"""The card effects of RULES.md §11 as the engine applies them: declared choices,
in the air, the lucky card, pick-and-play and the round's end (R-WC-*, R-ZW-*).

Functions of a :class:`~p2p8s.engine.Round` that :mod:`p2p8s.engine` calls; they read
and change the round's state like its own methods (the engine is their only caller).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from p2p8s.actions import LUCKY, EngineCode, Event, Play
from p2p8s.cards import JOKERS, Card, Suit
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.ruletable import Declare

if TYPE_CHECKING:
    from p2p8s.engine import Round

#: Per card index: its rank 1..13, or for a joker a rank of its own (14..17) that no
#: other card shares (R-ZW-DECK: no rank match); its suit 0..3, or -1 for a joker.
_RANK: tuple[int, ...] = tuple(c % 13 + 1 if c < 52 else 14 + c - 52 for c in range(56))
_SUIT: tuple[int, ...] = tuple(c // 13 if c < 52 else -1 for c in range(56))


def _rank(c: int) -> int:
    return _RANK[c]


def _suit(c: int) -> int:
    return _SUIT[c]


def _suit_of(card: Card, active: Suit) -> Suit:
    """The active suit after ``card``: its suit; a joker keeps ``active`` (R-ZW-PENALTY)."""
    return active if card.suit is None else card.suit


def ends_round(r: Round, seat: int, cards: Sequence[Card]) -> bool:
    """True if playing ``cards`` ends the round: they empty the hand (R-OUT) and,
    with in the air, are regular cards on a regular top card (R-ZW-OUT)."""
    if len(cards) != len(r.hands[seat]):
        return False
    table = r.rules.rule_table
    if not table.in_the_air:
        return True
    return not table.special(r.discard[-1]) and not any(
        table.special(c) for c in cards)


def declared_plays(r: Round, seat: int, cards: tuple[Card, ...]) -> Iterator[Play]:
    """The plays of ``cards`` with each allowed suit and declaration (R-EIGHT,
    R-ZW-EIGHT, R-WC-SKIP, R-ZW-JACK, R-ZW-PICKPLAY)."""
    if ends_round(r, seat, cards):
        yield Play(cards)
        return
    table = r.rules.rule_table
    first = cards[0]
    suits: list[Suit | None] = [None]
    if _rank(first) == r.wild[seat] and not wild_on_wild(r, seat):
        suits = list(Suit)
    rule = table.rule(first)
    declares: list[Declare | None] = list(rule.choices) or [None]
    if rule.nopick and not rule.choices:
        declares.append(Declare.NOPICK)
    for suit in suits:
        for d in declares:
            yield Play(cards, suit, d)


def wild_on_wild(r: Round, seat: int) -> bool:
    """True if a wild card played now declares nothing: R-ZW-EIGHT's 8 on a
    declared 8."""
    return (not r.rules.rule_table.wild_on_wild_declares and r.declared
            and _rank(r.discard[-1]) == r.wild[seat])


def check_declarations(r: Round, seat: int, play: Play, wild: bool) -> None:
    first = play.cards[0]
    out = ends_round(r, seat, play.cards)
    if (play.suit is not None or play.declare is not None) and out:
        raise IllegalAction(EngineCode.OUT_DECLARES_NOTHING, rule="R-OUT")
    if wild and not out:
        if wild_on_wild(r, seat):
            if play.suit is not None:
                raise IllegalAction(EngineCode.WILD_ON_WILD, rule="R-ZW-EIGHT",
                                    card=first)
        elif play.suit is None:
            raise IllegalAction(EngineCode.NEEDS_SUIT, rule="R-EIGHT", card=first)
    if play.suit is not None and not wild:
        raise IllegalAction(EngineCode.ONLY_WILD_DECLARES, rule="R-EIGHT", card=first)
    table = r.rules.rule_table
    rule = table.rule(first)
    allowed = table.declarations(first)
    rule_id = "R-WC-SKIP" if Declare.SKIP in allowed else (
        "R-ZW-JACK" if rule.choices else "R-ZW-PICKPLAY")
    if play.declare is None:
        if rule.choices and not out:
            raise IllegalAction(EngineCode.NEEDS_CHOICE, rule=rule_id, card=first,
                                choices=list(rule.choices))
    elif play.declare not in allowed:
        raise IllegalAction(EngineCode.BAD_CHOICE, rule=rule_id, card=first,
                            declare=play.declare, choices=list(allowed))


def skip_pending(r: Round) -> IllegalAction:
    table = r.rules.rule_table
    counters = sorted({_RANK[c] for c in range(52) if table.rule(c).skip})
    return IllegalAction(EngineCode.SKIP_PENDING, rule="R-ZW-SEVEN",
                         skips=r.pending_skip, counters=counters)


def lucky_error(r: Round) -> IllegalAction | None:
    if not r.pending_draw or not r.rules.rule_table.lucky:
        return IllegalAction(EngineCode.NO_LUCKY, rule="R-ZW-LUCKY")
    if not r.can_draw():
        return IllegalAction(EngineCode.NOTHING_TO_DRAW, rule="R-RESHUFFLE")
    return None


def take(r: Round, seat: int, count: int) -> list[Card | None]:
    """Take ``count`` penalty cards (what there is, R-COUNTER); then pick and play
    unless ``nopick`` (R-ZW-PICKPLAY), else the turn ends."""
    got = []
    for _ in range(count):
        if not r.can_draw():
            break
        got.append(r._draw_one(seat))
    r.pending_draw = 0
    r.passes = 0
    if got:
        r.air[seat] = False
    pick = r.rules.rule_table.pick_play and not r.nopick and bool(r.hands[seat])
    r.nopick = False
    if pick:
        r.picking = True
    else:
        r._end_turn(1)
    return got


def lucky(r: Round, seat: int) -> Event:
    """R-ZW-LUCKY: turn the stock's top card; an ace blocks, a penalty card adds,
    anything else is taken with the penalty."""
    before = r.reshuffles
    card = r._draw_one(None)
    if card is None:
        raise MalformedInput(EngineCode.STARTER_HIDDEN)
    rule = r.rules.rule_table.rule(card)
    if rule.block or rule.penalty:
        r.discard.append(card)
        r.suit, r.declared = _suit_of(card, r.suit), False
        r.pending_draw = 0 if rule.block else r.pending_draw + rule.penalty
        r.nopick = False
        r.passes = 0
        r._end_turn(1)
        return Event(seat, LUCKY, (), r.reshuffles - before, r.pending_draw,
                     next_turn=r.turn, direction=r.direction, lucky=card,
                     lucky_played=True, blocked=rule.block)
    r.hands[seat].append(card)
    r.air[seat] = False  # holding the lucky card, even if no penalty card is left
    got = [card, *take(r, seat, r.pending_draw)]
    return Event(seat, LUCKY, tuple(got), r.reshuffles - before, 0,
                 next_turn=r.turn, direction=r.direction, lucky=card,
                 pick_play=r.picking)


def finish(r: Round) -> tuple[tuple[int, Card | None], ...] | None:
    """At the end of a round: every player in the air draws one card (R-ZW-OUT),
    then the loser is found, ties drawing one card each until one hand is
    strictly highest (R-ZW-SCORE). Returns the cards drawn, ``(seat, card)`` in
    order, or None for a preset without either rule or when the deck's
    ``end_draws_at_audit`` is True (the table's deck: the loser depends on every hand,
    so these draws wait for the replay with every card known, R-AUDIT)."""
    table = r.rules.rule_table
    if not (table.in_the_air or table.loser) or getattr(r.deck, "end_draws_at_audit", False):
        # a friends' table draws these at its audit, every card known then
        return None
    draws: list[tuple[int, Card | None]] = []
    for s in range(r.players):
        if r.air[s] and r.can_draw():
            draws.append((s, r._draw_one(s)))
        r.air[s] = False
    if table.loser:
        while True:
            values = [r.hand_value(s) for s in range(r.players)]
            top = max(values)
            tied = [s for s in range(r.players) if values[s] == top]
            if len(tied) == 1:
                r.loser = tied[0]
                break
            if not r.can_draw():
                break
            for s in tied:
                if r.can_draw():
                    draws.append((s, r._draw_one(s)))
    return tuple(draws)

def penalty_pending(r: Round) -> IllegalAction:
    table = r.rules.rule_table
    counters = sorted({_RANK[c] for c in range(52) if table.counters(c)})
    return IllegalAction(EngineCode.PENALTY_PENDING, rule="R-COUNTER",
                         penalty=r.pending_draw, counters=counters,
                         jokers=table.jokers and table.counters(JOKERS[0]))
