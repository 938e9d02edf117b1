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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Protocol

from p2p8s.cards import Card, Suit
from p2p8s.errors import Code, IllegalAction, MalformedInput
from p2p8s.rules import Ruleset, check_players, deal_sizes, round_points
from p2p8s.ruletable import bury_index, deal_order


class EngineCode(Code):
    """Why the engine refuses an action (IllegalAction) or its input (MalformedInput).

    The parameters each code carries are named after the colon.
    """

    ROUND_OVER = "round-over"  #: (R-OUT)
    NOT_AN_ACTION = "not-an-action"  #: ``value`` (its repr) is not an action
    EMPTY_PLAY = "empty-play"
    MULTI_OFF = "multi-play-off"  #: (R-MULTI)
    RANKS_DIFFER = "ranks-differ"  #: (R-MULTI)
    PENALTY_PENDING = "penalty-pending"  #: ``penalty``; ``counters`` ranks (R-COUNTER)
    NO_PENALTY = "no-penalty"  #: nothing to take (R-COUNTER)
    ONLY_DRAWN = "only-drawn-card"  #: ``card`` drawn (R-DRAW)
    NO_MATCH = "no-match"  #: ``card``; ``top``, ``suit``, ``declared`` (R-MATCH)
    NOT_IN_HAND = "not-in-hand"  #: ``card``, ``seat``
    NEEDS_SUIT = "needs-suit"  #: ``card`` (R-EIGHT)
    ONLY_WILD_DECLARES = "only-wild-declares"  #: ``card`` (R-EIGHT)
    OUT_DECLARES_NOTHING = "out-declares-nothing"  #: (R-OUT)
    NOTHING_TO_DRAW = "nothing-to-draw"  #: (R-RESHUFFLE)
    DRAWN_PLAYABLE = "drawn-playable"  #: ``card`` (R-DRAW)
    DRAW_LIMIT = "draw-limit"  #: ``limit`` (R-DRAW)
    PLAYABLE_NO_DRAW = "playable-no-draw"  #: (R-DRAW)
    DRAW_AGAIN = "draw-again"  #: (R-PASS)
    MUST_PLAY = "must-play"  #: ``or_draw``: drawing is allowed too (R-PASS)
    MUST_DRAW = "must-draw"  #: (R-PASS)
    ACTION_TEXT = "action-text"  #: ``value`` (its repr) is not an action's text
    BAD_ACTION = "bad-action"  #: ``text``; ``error`` the MalformedInput of its parts
    ACTION_FORM = "action-not-canonical"  #: ``text``
    RESHUFFLE_ORDER = "reshuffle-order"  #: not a permutation of the discards
    DEALER = "dealer-seat"  #: ``players`` (and the refused ``dealer`` when known)
    WILD_RANKS = "wild-ranks"
    DECK_TOO_SMALL = "deck-too-small"  #: ``cards`` in the deck, ``needed``
    STARTER_HIDDEN = "starter-hidden"
    NO_STARTER = "no-starter"  #: (R-STARTER)
    HAND_SIZES = "hand-sizes"

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``cards`` (first card first) and, after a wild card, declare ``suit``.

    With several cards (R-MULTI) the first must be playable, the others share its rank,
    and the last sets the active suit. Plays that differ only in the order of their
    middle cards are the same action: the middle is kept sorted. ``suit`` is required
    after a wild card (an 8, R-EIGHT) unless the play empties the hand (R-OUT), and
    forbidden otherwise.
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None

    def __post_init__(self) -> None:
        cards = tuple(Card(c) for c in self.cards)
        if len(cards) > 2:
            cards = (cards[0], *sorted(cards[1:-1]), cards[-1])
        object.__setattr__(self, "cards", cards)
        if self.suit is not None:
            object.__setattr__(self, "suit", Suit(self.suit))

    def __str__(self) -> str:
        text = "play " + " ".join(str(c) for c in self.cards)
        return text + (f" and declare {self.suit.letter}" if self.suit is not None else "")


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the stock (R-DRAW)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without playing (R-PASS)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Take:
    """Take the pending draw penalty: draw all of it and end the turn (R-COUNTER)."""

    def __str__(self) -> str:
        return "take"


Action = Play | Draw | Pass | Take

DRAW = Draw()
PASS = Pass()
TAKE = Take()


_WORD_ACTIONS: dict[str, Action] = {"draw": DRAW, "pass": PASS, "take": TAKE}


def format_action(action: Action) -> str:
    """The compact text of an action: ``draw``, ``pass``, ``take``, or a play's cards in
    order, joined by commas (``QS,QH``), with a declared suit after ``/`` (``8S/H``).

    The one text form of an action: solo saves and the table's action records use it;
    :func:`parse_action` reads it back.

    >>> format_action(Play((Card.parse("8S"),), Suit.HEARTS))
    '8S/H'
    >>> format_action(Play((Card.parse("QS"), Card.parse("QH"))))
    'QS,QH'
    >>> format_action(TAKE)
    'take'
    """
    if isinstance(action, Draw):
        return "draw"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Take):
        return "take"
    text = ",".join(str(c) for c in action.cards)
    return text + (f"/{action.suit.letter}" if action.suit is not None else "")


def parse_action(text: str) -> Action:
    """The action that :func:`format_action` writes as ``text``.

    Only that exact (canonical) text is accepted, so an action has one text: raises
    :class:`~p2p8s.errors.MalformedInput` for anything else (lower case, ``10S`` for
    ``TS``, an empty suit after ``/``, unsorted middle cards, a non-string).

    >>> parse_action("QS,QH")
    Play(cards=(Card.parse('QS'), Card.parse('QH')), suit=None)
    >>> parse_action("8S/H") == Play((Card.parse("8S"),), Suit.HEARTS)
    True
    >>> parse_action("qs")
    Traceback (most recent call last):
    ...
    p2p8s.errors.MalformedInput: action-not-canonical text=qs
    """
    if not isinstance(text, str):
        raise MalformedInput(EngineCode.ACTION_TEXT, value=repr(text)[:40])
    if text in _WORD_ACTIONS:
        return _WORD_ACTIONS[text]
    cards_text, slash, suit_text = text.partition("/")
    try:
        cards = tuple(Card.parse(c) for c in cards_text.split(","))
        suit = Suit.parse(suit_text) if slash else None
    except (ValueError, MalformedInput) as exc:
        raise MalformedInput(EngineCode.BAD_ACTION, text=text[:40], error=exc) from None
    play = Play(cards, suit)
    if format_action(play) != text:
        raise MalformedInput(EngineCode.ACTION_FORM, text=text[:40])
    return play


class EndedBy(StrEnum):
    """How a round ended."""

    OUT = "out"  #: a player played their last card (R-OUT)
    BLOCKED = "blocked"  #: every seat passed in a row with nothing to draw (R-BLOCKED)


@dataclass(frozen=True, slots=True)
class Event:
    """One applied action, for logs and transcripts.

    ``drawn`` holds the cards a Draw or Take moved into the hand (``None`` for a card
    this node cannot see); ``reshuffled`` counts reshuffles the action caused.

    The effect of the action as the engine applied it (R-NEXT), for narration that
    must never recompute a rule: ``skipped`` lists, in order, the seats whose turn the
    play's skips passed over (a seat may appear twice, or be the player, when the skips
    go round the table); ``reversed`` is True when the direction of play flipped;
    ``next_turn`` is the seat on turn afterwards (``None`` when the round ended) and
    ``direction`` the direction of play afterwards (+1 clockwise, -1 counter-clockwise).
    """

    seat: int
    action: Action
    drawn: tuple[Card | None, ...] = ()
    reshuffled: int = 0
    penalty: int = 0  #: pending draw penalty after the action
    skipped: tuple[int, ...] = ()
    reversed: bool = False
    next_turn: int | None = None
    direction: int = 1


# ----------------------------------------------------------------------------- decks


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


# ----------------------------------------------------------------------------- round

def _rank(c: int) -> int:
    return c % 13 + 1


def _suit(c: int) -> int:
    return c // 13


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
        counters = sorted({Card(c).rank for c in range(52) if table.counters(c)})
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
            self.suit, self.declared = last.suit, False
            return Event(seat, play, (), 0, 0, direction=self.direction)
        if play.suit is not None:
            self.suit, self.declared = play.suit, True
        else:
            self.suit, self.declared = last.suit, False
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
