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
  the hand may follow it with multi-play; with draw_when_playable on any playable card
  may (R-DRAW-ANY), and a pass is allowed after any draw;
- after an unplayable draw under the limit the player must draw again (R-DRAW, R-PASS)
  unless draw_when_playable is on (R-DRAW-ANY);
- §11.2: facing a skip a pass is the missed turn, a 7 passes the skip on; ``bounce``
  lasts until the next player's turn ends; in the air, a penalty is taken (or the lucky
  card turned) instead of the draw; an unresolvable loser's tie names no loser;
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
from dataclasses import replace
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
from p2p8s.effects import (
    _rank,
    _suit,
    _suit_of,
    check_declarations,
    declared_plays,
    ends_round,
    finish,
    lucky,
    lucky_error,
    penalty_pending,
    skip_pending,
    take,
)
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
    RULES.md §11: ``pending_skip`` (skips the seat on turn faces, R-ZW-SEVEN),
    ``bounce_seat`` (the seat after whose turn the direction flips back, R-ZW-JACK),
    ``nopick`` (the pending penalty was declared ``nopick``), ``picking`` (the seat on
    turn took a penalty and may play one card, R-ZW-PICKPLAY), ``air`` (per seat: in
    the air, R-ZW-OUT), ``loser`` (R-ZW-SCORE; ``None`` otherwise).
    """

    __slots__ = (
        "air",
        "bounce_seat",
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
        "loser",
        "nopick",
        "passes",
        "pending_draw",
        "pending_skip",
        "picking",
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
    pending_skip: int
    bounce_seat: int | None
    nopick: bool
    picking: bool
    air: list[bool]
    loser: int | None

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
        r.pending_skip = 0
        r.bounce_seat = None
        r.nopick = r.picking = False
        r.air = [False] * players
        r.loser = None
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
        r.pending_skip, r.bounce_seat = self.pending_skip, self.bounce_seat
        r.nopick, r.picking = self.nopick, self.picking
        r.air, r.loser = list(self.air), self.loser
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

        R-MATCH, R-EIGHT (a joker fits on anything, a 2 also on a joker, R-ZW-PENALTY);
        under a pending penalty only a card that adds to it or blocks it (R-COUNTER;
        fitting the top card too with R-WC-PENALTY); under a pending skip only a skip
        card (R-ZW-SEVEN).
        """
        table = self.rules.rule_table
        if self.pending_skip:
            return table.rule(card).skip > 0
        if self.pending_draw:
            if not table.counters(card):
                return False
            return not table.counter_match or self._fits(card, seat)
        return self._fits(card, seat)

    def _fits(self, card: Card, seat: int | None) -> bool:
        s = self.turn if seat is None else seat
        rank = _rank(card)
        if rank == self.wild[s] or _suit(card) == self.suit:
            return True
        table = self.rules.rule_table
        if table.rule(card).fits_any:
            return True
        top = self.discard[-1]
        if not self.declared and rank == _rank(top):
            return True
        return rank in table.rule(top).accepts

    def playable_cards(self, seat: int | None = None) -> list[Card]:
        """The known cards of a hand that may start a play now (after a draw: the drawn
        card only, if playable — any card with draw_when_playable, R-DRAW-ANY)."""
        s = self.turn if seat is None else seat
        if self.drawn and s == self.turn and not self.rules.draw_when_playable:
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
            return Play(tuple(sorted(play.cards)), play.suit, play.declare)
        return play

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat on turn; empty once the round is over.

        A list of :class:`Play` (each in canonical form, each listed once — identical
        cards of a two-deck game do not repeat an action; a wild play once per
        declarable suit, a card with choices once per choice, a ``nopick`` card with
        and without it), then ``DRAW`` and/or ``PASS`` when legal, or ``TAKE`` (and
        ``LUCKY``, R-ZW-LUCKY) under a pending penalty (R-COUNTER). Hidden cards of the
        seat on turn are not enumerated (only its own node can).
        """
        if self.ended_by is not None:
            return []
        seat = self.turn
        plays = list(self._plays(seat, self.playable_cards(seat)))
        if self.pending_draw:
            lucky = [LUCKY] if lucky_error(self) is None else []
            return [*plays, TAKE, *lucky]
        actions: list[Action] = [*plays]
        if self._draw_error(seat) is None:
            actions.append(DRAW)
        if self._pass_error(seat) is None:
            actions.append(PASS)
        return actions

    def _plays(self, seat: int, firsts: list[Card]) -> Iterator[Play]:
        """Every play starting with one of ``firsts``, each listed once.

        R-MULTI: further cards share the first card's rank; only the last card matters
        (it sets the suit), so the middle is sorted. An all-wild play is listed sorted
        (its order means nothing); a play that ends the round declares nothing (R-OUT).
        Identical cards of a two-deck game (R-DECK) give one action, not two. At most
        one wild card with R-ZW-DRAW, one card after taking (R-ZW-PICKPLAY).
        """
        hand = self.hands[seat]
        known = [c for c in hand if c is not None]
        table = self.rules.rule_table
        multi = self.rules.multi_play and not self.picking
        seen: set[tuple[Card, ...]] = set()
        for f in sorted(set(firsts)):
            rest = list(known)
            rest.remove(f)
            wild = _rank(f) == self.wild[seat]
            same = (sorted(c for c in rest if _rank(c) == _rank(f))
                    if multi and not (wild and table.one_wild_per_play) else [])
            same = [c for c in same if table.counters(c)] if self.pending_draw else same
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
                        yield from declared_plays(self, seat, cards)

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
        err: IllegalAction | None
        if isinstance(action, Play):
            self._check_play(seat, action)
            return
        if isinstance(action, Draw):
            err = self._draw_error(seat)
        elif isinstance(action, Pass):
            err = self._pass_error(seat)
        elif isinstance(action, Take):
            err = (None if self.pending_draw
                   else IllegalAction(EngineCode.NO_PENALTY, rule="R-COUNTER"))
        elif isinstance(action, Lucky):
            err = lucky_error(self)
        else:
            err = IllegalAction(EngineCode.NOT_AN_ACTION, value=repr(action)[:40])
        if err:
            raise err

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
            self.air[seat] = False
            event = Event(seat, action, (card,), self.reshuffles - before, self.pending_draw,
                          next_turn=self.turn, direction=self.direction)
        elif isinstance(action, Pass):
            missed = self.pending_skip > 0
            if missed:
                self.pending_skip -= 1  # R-ZW-SEVEN: the missed turn uses one skip
            self.passes = 0 if self.drawn or self.picking or missed else self.passes + 1
            self._end_turn(1)
            if self.passes >= self.players:
                self.ended_by = EndedBy.BLOCKED
            event = Event(seat, action, (), 0, self.pending_draw,
                          next_turn=None if self.ended_by else self.turn,
                          direction=self.direction, skip_pending=self.pending_skip,
                          missed=missed)
        elif isinstance(action, Take):
            before = self.reshuffles
            got = take(self, seat, self.pending_draw)
            event = Event(seat, action, tuple(got), self.reshuffles - before, 0,
                          next_turn=self.turn, direction=self.direction,
                          pick_play=self.picking)
        else:
            event = lucky(self, seat)
        if self.ended_by is not None:
            end = finish(self)
            if end is not None:
                event = replace(event, end_draws=end, loser=self.loser)
        self.log.append(event)
        return event

    def _check_play(self, seat: int, play: Play) -> None:
        cards = play.cards
        if not cards:
            raise IllegalAction(EngineCode.EMPTY_PLAY)
        table = self.rules.rule_table
        if len(cards) > 1 and self.picking:
            raise IllegalAction(EngineCode.PICK_PLAY_ONE, rule="R-ZW-PICKPLAY")
        if len(cards) > 1 and not self.rules.multi_play:
            raise IllegalAction(EngineCode.MULTI_OFF, rule="R-MULTI")
        first = cards[0]
        rank = _rank(first)
        if any(_rank(c) != rank for c in cards):
            raise IllegalAction(EngineCode.RANKS_DIFFER, rule="R-MULTI")
        wild = rank == self.wild[seat]
        if wild and len(cards) > 1 and table.one_wild_per_play:
            raise IllegalAction(EngineCode.ONE_WILD, rule="R-ZW-DRAW")
        if self.pending_skip:
            if not all(table.rule(c).skip for c in cards):
                raise skip_pending(self)
        elif self.pending_draw:
            if not all(table.counters(c) for c in cards):
                raise penalty_pending(self)
            if table.counter_match and not self._fits(first, seat):
                raise IllegalAction(EngineCode.NO_MATCH, rule="R-WC-PENALTY", card=first,
                                    top=self.discard[-1], suit=self.suit,
                                    declared=self.declared)
        elif self.air[seat]:
            raise IllegalAction(EngineCode.IN_THE_AIR, rule="R-ZW-OUT")
        elif self.drawn and not self.rules.draw_when_playable:
            d = self.last_drawn
            if d is not None and (d not in cards if wild else first != d):
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
        check_declarations(self, seat, play, wild)

    def _no_match(self, card: Card) -> IllegalAction:
        return IllegalAction(EngineCode.NO_MATCH, rule="R-MATCH", card=card,
                             top=self.discard[-1], suit=self.suit, declared=self.declared)

    def _draw_error(self, seat: int) -> IllegalAction | None:
        if self.pending_skip:
            return skip_pending(self)
        if self.pending_draw:
            return penalty_pending(self)
        if self.picking:
            return IllegalAction(EngineCode.PICK_PLAY_ONE, rule="R-ZW-PICKPLAY")
        if not self.can_draw():
            return IllegalAction(EngineCode.NOTHING_TO_DRAW, rule="R-RESHUFFLE")
        limit = self.rules.draw_limit
        if self.drawn:
            d = self.last_drawn
            if (not self.rules.draw_when_playable and d is not None
                    and self.playable(d, seat)):
                return IllegalAction(EngineCode.DRAWN_PLAYABLE, rule="R-DRAW", card=d)
            if limit and self.drawn >= limit:
                return IllegalAction(EngineCode.DRAW_LIMIT, rule="R-DRAW", limit=limit)
        elif (not self.rules.draw_when_playable and not self.air[seat]
              and self.playable_cards(seat)):
            return IllegalAction(EngineCode.PLAYABLE_NO_DRAW, rule="R-DRAW")
        return None

    def _pass_error(self, seat: int) -> IllegalAction | None:
        if self.pending_skip or self.picking:
            return None  # a missed turn (R-ZW-SEVEN); no pick and play (R-ZW-PICKPLAY)
        if self.pending_draw:
            return penalty_pending(self)
        if self.drawn:
            d = self.last_drawn
            if d is None or self.rules.draw_when_playable or self.playable(d, seat):
                return None  # keep the drawn card and pass (R-DRAW-ANY: any time)
            limit = self.rules.draw_limit
            if (limit and self.drawn >= limit) or not self.can_draw():
                return None
            return IllegalAction(EngineCode.DRAW_AGAIN, rule="R-PASS")
        if self.air[seat]:
            return (IllegalAction(EngineCode.IN_THE_AIR, rule="R-ZW-OUT")
                    if self.can_draw() else None)
        if self.playable_cards(seat):
            return IllegalAction(EngineCode.MUST_PLAY, rule="R-PASS",
                                 or_draw=self.rules.draw_when_playable and self.can_draw())
        if self.can_draw():
            return IllegalAction(EngineCode.MUST_DRAW, rule="R-PASS")
        return None

    def _draw_one(self, seat: int | None) -> Card | None:
        """Draw the top card into ``seat``'s hand (``None``: face up, into no hand),
        refilling the stock first if it is empty (R-RESHUFFLE)."""
        if not len(self.deck):
            self.deck.refill(self.discard[:-1])
            self.discard = self.discard[-1:]
            self.reshuffles += 1
        card = self.deck.draw(seat)
        if seat is not None:
            self.hands[seat].append(card)
        return card

    def _do_play(self, seat: int, play: Play) -> Event:
        hand = self.hands[seat]
        ends = ends_round(self, seat, play.cards)
        for c in play.cards:
            if c in hand:
                hand.remove(c)
            else:
                hand.remove(None)
        self.discard.extend(play.cards)
        self.drawn = 0
        self.last_drawn = None
        self.passes = 0
        self.picking = False
        last = play.cards[-1]
        if ends:
            # R-OUT / R-ACTION-OUT: the round ends at once; pending effects lapse and
            # a final wild card declares nothing
            self.ended_by = EndedBy.OUT
            self.winner = seat
            self.pending_draw = self.pending_skip = 0
            self.suit, self.declared = _suit_of(last, self.suit), False
            return Event(seat, play, (), 0, 0, direction=self.direction)
        air = not hand  # R-ZW-OUT: in the air, the round goes on
        self.air[seat] = air
        if play.suit is not None:
            self.suit, self.declared = play.suit, True
        elif not self.rules.rule_table.rule(last).fits_any:
            self.suit, self.declared = _suit_of(last, self.suit), False
        # R-NEXT: the cards' effects from the rule table, each card counting (R-MULTI)
        table = self.rules.rule_table
        effect = table.effect(play.cards, self.players, play.declare)
        before = self.direction
        blocked = effect.block and self.pending_draw > 0
        if blocked:
            self.pending_draw = 0  # R-ZW-PENALTY: an ace blocks
        if effect.penalty:
            self.pending_draw += effect.penalty
            self.nopick = play.declare is Declare.NOPICK
        if effect.reverses % 2:
            self.direction = -self.direction
        steps = 1
        if table.skip_counters:
            # R-ZW-SEVEN: faced by the next player; a counter passes the skip on
            self.pending_skip = effect.skips
        else:
            steps += effect.skips
        self._end_turn(steps)
        if effect.bounce:
            self.bounce_seat = self.turn  # R-ZW-JACK: back after this seat's turn
        skipped = tuple((seat + self.direction * j) % self.players for j in range(1, steps))
        return Event(seat, play, (), 0, self.pending_draw, skipped=skipped,
                     reversed=self.direction != before, next_turn=self.turn,
                     direction=self.direction, skip_pending=self.pending_skip,
                     bounce=effect.bounce, blocked=blocked,
                     nopick=self.nopick and effect.penalty > 0, in_the_air=air)

    def _end_turn(self, steps: int) -> None:
        self.drawn = 0
        self.last_drawn = None
        self.picking = False
        if self.bounce_seat == self.turn:
            self.direction = -self.direction  # R-ZW-JACK: the bounce flips back
            self.bounce_seat = None
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
