"""The rules engine for one round of Crazy Eights (RULES.md §3–§6, §8).

A :class:`Round` is the complete state of one round. :meth:`Round.legal_actions` lists
what the seat on turn may do; :meth:`Round.apply` performs an action or raises
:class:`~p2p8s.errors.IllegalAction` and leaves the state exactly as it was. The engine
never knows which seat is "us": the same rules apply to every seat.

Cards come from a :class:`Deck` the caller provides; the engine never shuffles.
Solo play passes an :class:`OrderedDeck` built from a seeded RNG; the network game
passes a deck whose cards are revealed by the cryptographic shuffle, card by card.
Such a deck returns ``None`` for a card this node may not see, and the engine holds
``None`` in that hand slot: every check that needs the card's face is skipped for it
(peers check those claims at the round audit, R-AUDIT) and a played card is taken
from a face-down slot when the hand does not show it.

Readings of RULES.md where it leaves room (also printed by ``p2p8s rules``):

- after drawing, only the drawn card may start a play (R-DRAW); same-rank cards from
  the hand may follow it with multi-play;
- after an unplayable draw under the limit the player must draw again (R-DRAW, R-PASS);
- an all-wild multi-play means nothing by its order: :meth:`Round.legal_actions` lists
  it sorted, :meth:`Round.canonical` maps any order to that form, and :meth:`Round.apply`
  plays it in that order;
- countdown: after a declared suit only that suit or the player's own wild rank
  matches (R-COUNTDOWN, R-MATCH);
- a play that empties the hand leaves the active suit at its last card's suit,
  undeclared, and the pending penalty at 0 (R-OUT, R-ACTION-OUT).

What each card does (wild, penalty, skip, reverse), which cards may start the pile,
the hand sizes and the scoring are read from the ruleset's rule table
(:mod:`p2p8s.ruletable`); this module holds the turn's mechanics. Refusals carry an
:class:`EngineCode` and the rule id, never a sentence (the CLI says them).

>>> from p2p8s.cards import parse_cards
>>> from p2p8s.rules import Ruleset
>>> order = parse_cards("7H QS 2C 9D 3S 4H 5C 6D KH".split())
>>> r = Round.deal(Ruleset(), players=2, dealer=0, deck=OrderedDeck(order + order[:0]),
...                hand_size=2)
>>> r.turn, [str(c) for c in r.hands[1]], str(r.top)
(1, ['7H', '2C'], '3S')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from p2p8s.actions import (
    DRAW,
    LUCKY,
    PASS,
    TAKE,
    Action,
    Draw,
    EndedBy,
    EngineCode,
    Event,
    Lucky,
    Pass,
    Play,
    Take,
    format_action,
    parse_action,
)
from p2p8s.cards import Card, Suit
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.rules import Ruleset, check_players, deal_sizes, round_points
from p2p8s.ruletable import Declare, bury_index, deal_order
from p2p8s.stock import Deck, OrderedDeck, Reshuffler, keep_order

__all__ = [
    "DRAW",
    "LUCKY",
    "PASS",
    "TAKE",
    "Action",
    "Deck",
    "Declare",
    "Draw",
    "EndedBy",
    "EngineCode",
    "Event",
    "Lucky",
    "OrderedDeck",
    "Pass",
    "Play",
    "Reshuffler",
    "Round",
    "Take",
    "format_action",
    "keep_order",
    "parse_action",
]


# ----------------------------------------------------------------------------- round

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


class Round:
    """One round: hands, stock, discard pile, turn, direction, penalty (RULES.md §3–§6).

    Attributes (read them, never assign them): ``rules``, ``players``, ``dealer``,
    ``hands`` (one list per seat; ``None`` for a card this node cannot see),
    ``discard`` (bottom first; ``top`` is the last), ``suit`` (the active suit),
    ``declared`` (the active suit was declared with a wild card), ``direction``
    (+1 clockwise, -1 counter-clockwise), ``turn``, ``pending_draw``, ``drawn``
    (cards drawn so far this turn), ``wild`` (wild rank per seat: 8, or the player's
    number in the countdown variant), ``ended_by``, ``winner``, ``log`` (events),
    ``last_drawn`` (the card drawn last this turn, ``None`` if none or face down),
    ``passes`` (passes in a row without a draw, R-BLOCKED), ``reshuffles`` (count).
    """

    __slots__ = (
        "dealer",
        "deck",
        "declared",
        "direction",
        "discard",
        "drawn",
        "ended_by",
        "hands",
        "last_drawn",
        "log",
        "passes",
        "pending_draw",
        "players",
        "reshuffles",
        "rules",
        "suit",
        "turn",
        "wild",
        "winner",
    )

    rules: Ruleset
    players: int
    dealer: int
    deck: Deck
    hands: list[list[Card | None]]
    discard: list[Card]
    suit: Suit
    declared: bool
    direction: int
    turn: int
    pending_draw: int
    drawn: int
    last_drawn: Card | None
    passes: int
    wild: list[int]
    ended_by: EndedBy | None
    winner: int | None
    reshuffles: int
    log: list[Event]

    # ------------------------------------------------------------------ the deal

    @classmethod
    def deal(
        cls,
        rules: Ruleset,
        *,
        players: int,
        dealer: int,
        deck: Deck,
        hand_size: int | Sequence[int] | None = None,
        wild: Sequence[int] | None = None,
    ) -> Round:
        """Deal a round from ``deck`` (R-DEALORDER), turn the starter (R-STARTER).

        ``hand_size`` is one size for everyone or one per seat (countdown); the default
        follows R-HAND. ``wild`` gives each seat's wild rank (default: the rule table's,
        the 8; countdown: the player's number, R-COUNTDOWN). Raises MalformedInput
        (an :class:`EngineCode`) if the deck is too small.
        """
        check_players(players)
        if not 0 <= dealer < players:
            raise MalformedInput(EngineCode.DEALER, players=players)
        table = rules.rule_table
        sizes = _sizes(rules, players, hand_size)
        wilds = list(wild) if wild is not None else [table.wild_rank] * players
        if len(wilds) != players or not all(1 <= w <= 13 for w in wilds):
            raise MalformedInput(EngineCode.WILD_RANKS)
        if len(deck) < sum(sizes) + 1:
            raise MalformedInput(EngineCode.DECK_TOO_SMALL, cards=len(deck),
                                 needed=sum(sizes) + 1)
        r = cls.__new__(cls)
        r.rules, r.players, r.dealer, r.deck = rules, players, dealer, deck
        r.hands = [[] for _ in range(players)]
        for seat in deal_order(sizes, dealer):
            r.hands[seat].append(deck.draw(seat))
        for _ in range(len(deck) + 1):
            starter = deck.draw(None)
            if starter is None:
                raise MalformedInput(EngineCode.STARTER_HIDDEN)
            if table.starter(starter):
                break
            deck.bury(starter, bury_index(len(deck)))
        else:
            raise MalformedInput(EngineCode.NO_STARTER)
        r.discard = [starter]
        r.suit = Suit(_suit(starter))
        r.declared = False
        r.direction = 1
        r.turn = (dealer + 1) % players
        r.pending_draw = 0
        r.drawn = 0
        r.last_drawn = None
        r.passes = 0
        r.wild = wilds
        r.ended_by = None
        r.winner = None
        r.reshuffles = 0
        r.log = []
        return r

    def copy(self, *, log: bool = True) -> Round:
        """An independent copy (the deck is copied too); ``log=False`` starts it empty."""
        r = Round.__new__(Round)
        r.rules, r.players, r.dealer = self.rules, self.players, self.dealer
        r.deck = self.deck.copy()
        r.hands = [list(h) for h in self.hands]
        r.discard = list(self.discard)
        r.suit, r.declared = self.suit, self.declared
        r.direction, r.turn = self.direction, self.turn
        r.pending_draw, r.drawn, r.last_drawn = self.pending_draw, self.drawn, self.last_drawn
        r.passes, r.wild = self.passes, list(self.wild)
        r.ended_by, r.winner = self.ended_by, self.winner
        r.reshuffles = self.reshuffles
        r.log = list(self.log) if log else []
        return r

    # ------------------------------------------------------------------ queries

    @property
    def top(self) -> Card:
        """The top card of the discard pile."""
        return self.discard[-1]

    @property
    def over(self) -> bool:
        """True once the round has ended (out or blocked)."""
        return self.ended_by is not None

    @property
    def stock_size(self) -> int:
        """Cards in the stock."""
        return len(self.deck)

    def can_draw(self) -> bool:
        """True if a card can be drawn now (stock, or a reshuffle of the discards)."""
        return len(self.deck) > 0 or (self.rules.reshuffle and len(self.discard) > 1)

    def playable(self, card: Card, seat: int | None = None) -> bool:
        """Whether ``card`` may start a play by ``seat`` (default: on turn) now.

        R-MATCH, R-EIGHT; under a pending penalty only a card that adds to it, a 2
        (R-COUNTER).
        """
        if self.pending_draw:
            return self.rules.rule_table.counters(card)
        s = self.turn if seat is None else seat
        rank = _rank(card)
        if rank == self.wild[s] or _suit(card) == self.suit:
            return True
        return not self.declared and rank == _rank(self.discard[-1])

    def playable_cards(self, seat: int | None = None) -> list[Card]:
        """The known cards of a hand that may start a play now (after a draw: the drawn
        card only, if playable)."""
        s = self.turn if seat is None else seat
        if self.drawn and s == self.turn:
            d = self.last_drawn
            return [d] if d is not None and self.playable(d, s) else []
        return [c for c in self.hands[s] if c is not None and self.playable(c, s)]

    def is_wild(self, card: Card, seat: int | None = None) -> bool:
        """True if ``card`` is wild for ``seat`` (an 8; countdown: the player's number)."""
        return _rank(card) == self.wild[self.turn if seat is None else seat]

    def hand_value(self, seat: int) -> int:
        """Value of a hand (R-PTS-TABLE or R-PTS-CLASSIC); hidden cards count 0."""
        return self.rules.rule_table.hand_value(c for c in self.hands[seat] if c is not None)

    def points(self) -> list[int]:
        """This round's score change per seat; all zero while the round is on.

        Table rules: each seat's hand value (R-PTS-TABLE). Classic: the winner collects
        the other hands (R-PTS-CLASSIC); a blocked round pays the lowest hand(s) the
        differences (R-BLOCKED-CLASSIC). Countdown: no points (R-COUNTDOWN).
        """
        if self.ended_by is None:
            return [0] * self.players
        return round_points(self.rules, [self.hand_value(s) for s in range(self.players)],
                            self.winner)

    # ------------------------------------------------------------------ legal actions

    def canonical(self, action: Action) -> Action:
        """The form of ``action`` that :meth:`legal_actions` lists.

        An all-wild play carries no meaning in its order, so it is listed sorted; any
        other action is its own canonical form.
        """
        if isinstance(action, Play):
            return self._canonical_play(action)
        return action

    def _canonical_play(self, play: Play) -> Play:
        if play.cards and all(_rank(c) == self.wild[self.turn] for c in play.cards):
            return Play(tuple(sorted(play.cards)), play.suit)
        return play

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat on turn; empty once the round is over.

        A list of :class:`Play` (each in canonical form, each listed once — identical
        cards of a two-deck game do not repeat an action; a wild play once per
        declarable suit), then ``DRAW`` and/or ``PASS`` when legal, or ``TAKE`` under a
        pending penalty (R-COUNTER). Hidden cards of the seat on turn are not
        enumerated (only its own node can).
        """
        if self.ended_by is not None:
            return []
        seat = self.turn
        if self.pending_draw:
            return [*self._plays(seat, self.playable_cards(seat)), TAKE]
        first = self.playable_cards(seat)
        actions: list[Action] = list(self._plays(seat, first))
        if self._draw_error(seat) is None:
            actions.append(DRAW)
        if self._pass_error(seat) is None:
            actions.append(PASS)
        return actions

    def _plays(self, seat: int, firsts: list[Card]) -> Iterator[Play]:
        """Every play starting with one of ``firsts``, each listed once.

        R-MULTI: further cards share the first card's rank; only the last card matters
        (it sets the suit), so the middle is sorted. An all-wild play is listed sorted
        (its order means nothing); a play that empties the hand declares no suit (R-OUT).
        Identical cards of a two-deck game (R-DECK) give one action, not two.
        """
        hand = self.hands[seat]
        known = [c for c in hand if c is not None]
        size = len(hand)
        seen: set[tuple[Card, ...]] = set()
        for f in sorted(set(firsts)):
            rest = list(known)
            rest.remove(f)
            same = (sorted(c for c in rest if _rank(c) == _rank(f))
                    if self.rules.multi_play else [])
            wild = _rank(f) == self.wild[seat]
            for k in range(len(same) + 1):
                for combo in combinations(same, k):
                    if wild:
                        variants = [tuple(sorted((f, *combo)))]
                    else:
                        variants = [(f, *combo[:i], *combo[i + 1:], combo[i])
                                    for i in range(k)] or [(f,)]
                    for cards in variants:
                        if cards in seen:
                            continue
                        seen.add(cards)
                        if wild and len(cards) < size:
                            for s in Suit:
                                yield Play(cards, s)
                        else:
                            yield Play(cards)

    # ------------------------------------------------------------------ apply

    def check(self, action: Action) -> None:
        """Raise :class:`~p2p8s.errors.IllegalAction` if ``action`` is illegal now.

        The error's ``rule`` names the rule id broken (``None`` for a card the seat does
        not hold or an empty play); the state is never changed. Exactly the actions of
        :meth:`legal_actions` (and their equivalent forms, :meth:`canonical`) pass,
        except that face-down cards of the seat on turn are given the benefit of the
        doubt (checked at the audit, R-AUDIT).
        """
        if self.ended_by is not None:
            raise IllegalAction(EngineCode.ROUND_OVER, rule="R-OUT")
        seat = self.turn
        if isinstance(action, Play):
            self._check_play(seat, action)
        elif isinstance(action, Draw):
            err = self._draw_error(seat)
            if err:
                raise err
        elif isinstance(action, Pass):
            err = self._pass_error(seat)
            if err:
                raise err
        elif isinstance(action, Take):
            if not self.pending_draw:
                raise IllegalAction(EngineCode.NO_PENALTY, rule="R-COUNTER")
        else:
            raise IllegalAction(EngineCode.NOT_AN_ACTION, value=repr(action)[:40])

    def apply(self, action: Action) -> Event:
        """Perform ``action`` for the seat on turn and return its :class:`Event`.

        Raises :class:`~p2p8s.errors.IllegalAction` (state unchanged) if it is illegal.
        A refill of the stock may raise what the :class:`Deck` raises (an
        :class:`OrderedDeck` raises MalformedInput for a bad reshuffle order); the
        discard pile is then left whole.
        """
        self.check(action)
        seat = self.turn
        if isinstance(action, Play):
            event = self._do_play(seat, self._canonical_play(action))
        elif isinstance(action, Draw):
            before = self.reshuffles
            card = self._draw_one(seat)
            self.drawn += 1
            self.last_drawn = card
            self.passes = 0
            event = Event(seat, action, (card,), self.reshuffles - before, self.pending_draw,
                          next_turn=self.turn, direction=self.direction)
        elif isinstance(action, Pass):
            self.passes = 0 if self.drawn else self.passes + 1
            self._end_turn(1)
            if self.passes >= self.players:
                self.ended_by = EndedBy.BLOCKED
            event = Event(seat, action, (), 0, 0,
                          next_turn=None if self.ended_by else self.turn,
                          direction=self.direction)
        else:
            before = self.reshuffles
            got = []
            for _ in range(self.pending_draw):
                if not self.can_draw():
                    break
                got.append(self._draw_one(seat))
            self.pending_draw = 0
            self.passes = 0
            self._end_turn(1)
            event = Event(seat, action, tuple(got), self.reshuffles - before, 0,
                          next_turn=self.turn, direction=self.direction)
        self.log.append(event)
        return event

    def _check_play(self, seat: int, play: Play) -> None:
        cards = play.cards
        if not cards:
            raise IllegalAction(EngineCode.EMPTY_PLAY)
        if len(cards) > 1 and not self.rules.multi_play:
            raise IllegalAction(EngineCode.MULTI_OFF, rule="R-MULTI")
        first = cards[0]
        rank = first.rank
        if any(c.rank != rank for c in cards):
            raise IllegalAction(EngineCode.RANKS_DIFFER, rule="R-MULTI")
        if self.pending_draw:
            if not all(self.rules.rule_table.counters(c) for c in cards):
                raise self._penalty_pending()
        elif self.drawn:
            d = self.last_drawn
            all_wild = rank == self.wild[seat]
            if d is not None and (d not in cards if all_wild else first != d):
                raise IllegalAction(EngineCode.ONLY_DRAWN, rule="R-DRAW", card=d)
            if d is not None and not self.playable(d, seat):
                raise self._no_match(first)
        elif not self.playable(first, seat):
            raise self._no_match(first)
        hand = self.hands[seat]
        have = Counter(hand)
        hidden = have.pop(None, 0)
        want = Counter(cards)
        missing = sum(max(0, k - have[c]) for c, k in want.items())
        if missing > hidden:
            lacking = next(c for c, k in want.items() if k > have[c])
            raise IllegalAction(EngineCode.NOT_IN_HAND, card=lacking, seat=seat)
        wild = rank == self.wild[seat]
        out = len(cards) == len(hand)
        if wild and not out and play.suit is None:
            raise IllegalAction(EngineCode.NEEDS_SUIT, rule="R-EIGHT", card=first)
        if play.suit is not None and not wild:
            raise IllegalAction(EngineCode.ONLY_WILD_DECLARES, rule="R-EIGHT", card=first)
        if play.suit is not None and out:
            raise IllegalAction(EngineCode.OUT_DECLARES_NOTHING, rule="R-OUT")

    def _no_match(self, card: Card) -> IllegalAction:
        return IllegalAction(EngineCode.NO_MATCH, rule="R-MATCH", card=card,
                             top=self.discard[-1], suit=self.suit, declared=self.declared)

    def _penalty_pending(self) -> IllegalAction:
        table = self.rules.rule_table
        counters = sorted({_RANK[c] for c in table.deck_cards if table.counters(c)})
        return IllegalAction(EngineCode.PENALTY_PENDING, rule="R-COUNTER",
                             penalty=self.pending_draw, counters=counters)

    def _draw_error(self, seat: int) -> IllegalAction | None:
        if self.pending_draw:
            return self._penalty_pending()
        if not self.can_draw():
            return IllegalAction(EngineCode.NOTHING_TO_DRAW, rule="R-RESHUFFLE")
        limit = self.rules.draw_limit
        if self.drawn:
            d = self.last_drawn
            if d is not None and self.playable(d, seat):
                return IllegalAction(EngineCode.DRAWN_PLAYABLE, rule="R-DRAW", card=d)
            if limit and self.drawn >= limit:
                return IllegalAction(EngineCode.DRAW_LIMIT, rule="R-DRAW", limit=limit)
        elif not self.rules.draw_when_playable and self.playable_cards(seat):
            return IllegalAction(EngineCode.PLAYABLE_NO_DRAW, rule="R-DRAW")
        return None

    def _pass_error(self, seat: int) -> IllegalAction | None:
        if self.pending_draw:
            return self._penalty_pending()
        if self.drawn:
            d = self.last_drawn
            if d is None or self.playable(d, seat):
                return None  # keep the drawn card and pass
            limit = self.rules.draw_limit
            if (limit and self.drawn >= limit) or not self.can_draw():
                return None
            return IllegalAction(EngineCode.DRAW_AGAIN, rule="R-PASS")
        if self.playable_cards(seat):
            return IllegalAction(EngineCode.MUST_PLAY, rule="R-PASS",
                                 or_draw=self.rules.draw_when_playable and self.can_draw())
        if self.can_draw():
            return IllegalAction(EngineCode.MUST_DRAW, rule="R-PASS")
        return None

    def _draw_one(self, seat: int) -> Card | None:
        if not len(self.deck):
            self.deck.refill(self.discard[:-1])
            self.discard = self.discard[-1:]
            self.reshuffles += 1
        card = self.deck.draw(seat)
        self.hands[seat].append(card)
        return card

    def _do_play(self, seat: int, play: Play) -> Event:
        hand = self.hands[seat]
        for c in play.cards:
            if c in hand:
                hand.remove(c)
            else:
                hand.remove(None)
        self.discard.extend(play.cards)
        self.drawn = 0
        self.last_drawn = None
        self.passes = 0
        last = play.cards[-1]
        if not hand:
            # R-OUT / R-ACTION-OUT: the round ends at once; pending effects lapse and
            # a final wild card declares nothing
            self.ended_by = EndedBy.OUT
            self.winner = seat
            self.pending_draw = 0
            self.suit, self.declared = _suit_of(last, self.suit), False
            return Event(seat, play, (), 0, 0, direction=self.direction)
        if play.suit is not None:
            self.suit, self.declared = play.suit, True
        else:
            self.suit, self.declared = _suit_of(last, self.suit), False
        # R-NEXT: the cards' effects from the rule table, each card counting (R-MULTI)
        effect = self.rules.rule_table.effect(play.cards, self.players)
        before = self.direction
        self.pending_draw += effect.penalty
        if effect.reverses % 2:
            self.direction = -self.direction
        steps = 1 + effect.skips
        self._end_turn(steps)
        skipped = tuple((seat + self.direction * j) % self.players for j in range(1, steps))
        return Event(seat, play, (), 0, self.pending_draw, skipped=skipped,
                     reversed=self.direction != before, next_turn=self.turn,
                     direction=self.direction)

    def _end_turn(self, steps: int) -> None:
        self.drawn = 0
        self.last_drawn = None
        self.turn = (self.turn + self.direction * steps) % self.players

    def __repr__(self) -> str:
        return (f"<Round turn={self.turn} top={self.top} suit={self.suit.letter} "
                f"pending={self.pending_draw} stock={len(self.deck)} "
                f"hands={[len(h) for h in self.hands]} ended_by={self.ended_by}>")


def _sizes(rules: Ruleset, players: int, size: int | Sequence[int] | None) -> list[int]:
    if size is None:
        return deal_sizes(rules, players)
    if isinstance(size, int):
        return [size] * players
    sizes = list(size)
    if len(sizes) != players or any(s < 0 for s in sizes):
        raise MalformedInput(EngineCode.HAND_SIZES)
    return sizes
