"""The engine's vocabulary: its refusal codes, the actions a seat takes, their one text
form, and the :class:`Event` record of an applied action (RULES.md §4, §5, §11).

:mod:`p2p8s.engine` re-exports every name; import them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from p2p8s.cards import Card, Suit
from p2p8s.errors import Code, MalformedInput
from p2p8s.ruletable import Declare


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
    NEEDS_CHOICE = "needs-choice"  #: ``card``; ``choices`` (R-WC-SKIP, R-ZW-JACK)
    BAD_CHOICE = "bad-choice"  #: ``card``; ``declare``; ``choices`` (may be empty)
    SKIP_PENDING = "skip-pending"  #: ``skips``; ``counters`` ranks (R-ZW-SEVEN)
    NO_SKIP = "no-skip"  #: only a skip card counters a pending skip (R-ZW-SEVEN)
    NO_LUCKY = "no-lucky"  #: the lucky card needs a pending penalty (R-ZW-LUCKY)
    ONE_WILD = "one-wild-per-play"  #: (R-ZW-DRAW)
    WILD_ON_WILD = "wild-on-wild-declares-nothing"  #: ``card`` (R-ZW-EIGHT)
    PICK_PLAY_ONE = "pick-play-one-card"  #: only one card after taking (R-ZW-PICKPLAY)
    IN_THE_AIR = "in-the-air-draws"  #: a player in the air draws first (R-ZW-OUT)

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``cards`` (first card first) and, after a wild card, declare ``suit``; with a
    card that offers a choice, ``declare`` it (:class:`~p2p8s.ruletable.Declare`).

    With several cards (R-MULTI) the first must be playable, the others share its rank,
    and the last sets the active suit. Plays that differ only in the order of their
    middle cards are the same action: the middle is kept sorted. ``suit`` is required
    after a wild card (an 8, R-EIGHT) unless the play empties the hand (R-OUT) or lies
    on a declared wild card under R-ZW-EIGHT, and forbidden otherwise. ``declare`` is
    required for a card with choices (the 4 of R-WC-SKIP: ``skip``/``reverse``; the J of
    R-ZW-JACK: ``reverse``/``bounce``) unless the play empties the hand, optional
    ``nopick`` with a penalty card of R-ZW-PICKPLAY, and forbidden otherwise.
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None
    declare: Declare | None = None

    def __post_init__(self) -> None:
        cards = tuple(Card(c) for c in self.cards)
        if len(cards) > 2:
            cards = (cards[0], *sorted(cards[1:-1]), cards[-1])
        object.__setattr__(self, "cards", cards)
        if self.suit is not None:
            object.__setattr__(self, "suit", Suit(self.suit))
        if self.declare is not None:
            object.__setattr__(self, "declare", Declare(self.declare))

    def __str__(self) -> str:
        text = "play " + " ".join(str(c) for c in self.cards)
        text += f" and declare {self.suit.letter}" if self.suit is not None else ""
        return text + (f" and declare {self.declare}" if self.declare is not None else "")


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


@dataclass(frozen=True, slots=True)
class Lucky:
    """Facing a penalty, turn the stock's top card face up: the lucky card (R-ZW-LUCKY).
    An ace is played and blocks the penalty; a penalty card is played and adds to it;
    any other card is taken with the penalty."""

    def __str__(self) -> str:
        return "lucky"


Action = Play | Draw | Pass | Take | Lucky

DRAW = Draw()
PASS = Pass()
TAKE = Take()
LUCKY = Lucky()


_WORD_ACTIONS: dict[str, Action] = {"draw": DRAW, "pass": PASS, "take": TAKE,
                                    "lucky": LUCKY}


def format_action(action: Action) -> str:
    """The compact text of an action: ``draw``, ``pass``, ``take``, ``lucky``, or a
    play's cards in order, joined by commas (``QS,QH``), with a declared suit after
    ``/`` (``8S/H``) and a declared choice after ``!`` (``JS!bounce``, ``X1!nopick``).

    The one text form of an action: solo saves and the table's action records use it;
    :func:`parse_action` reads it back.

    >>> format_action(Play((Card.parse("8S"),), Suit.HEARTS))
    '8S/H'
    >>> format_action(Play((Card.parse("QS"), Card.parse("QH"))))
    'QS,QH'
    >>> format_action(TAKE)
    'take'
    >>> format_action(Play((Card.parse("4S"),), declare=Declare.REVERSE))
    '4S!reverse'
    """
    if not isinstance(action, Play):
        return str(action)
    text = ",".join(str(c) for c in action.cards)
    text += f"/{action.suit.letter}" if action.suit is not None else ""
    return text + (f"!{action.declare}" if action.declare is not None else "")


def parse_action(text: str) -> Action:
    """The action that :func:`format_action` writes as ``text``.

    Only that exact (canonical) text is accepted, so an action has one text: raises
    :class:`~p2p8s.errors.MalformedInput` for anything else (lower case, ``10S`` for
    ``TS``, an empty suit after ``/``, unsorted middle cards, a non-string).

    >>> parse_action("QS,QH")
    Play(cards=(Card.parse('QS'), Card.parse('QH')), suit=None, declare=None)
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
    body, bang, declare_text = text.partition("!")
    cards_text, slash, suit_text = body.partition("/")
    try:
        cards = tuple(Card.parse(c) for c in cards_text.split(","))
        suit = Suit.parse(suit_text) if slash else None
        declare = Declare(declare_text) if bang else None
    except (ValueError, MalformedInput) as exc:
        raise MalformedInput(EngineCode.BAD_ACTION, text=text[:40], error=exc) from None
    play = Play(cards, suit, declare)
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

    The effects of RULES.md §11, as data for the narration: ``skip_pending`` counts the
    skips the next player faces (R-ZW-SEVEN; a Pass facing one is a missed turn:
    ``missed``); ``bounce``: the direction flips back after the next turn (R-ZW-JACK);
    ``blocked``: the play cancelled a pending penalty (R-ZW-PENALTY); ``lucky``: the
    lucky card turned up (R-ZW-LUCKY; it was played when ``lucky_played``, else taken,
    and is then also in ``drawn``); ``pick_play``: after this Take (or lucky card) the
    player may still play one card (R-ZW-PICKPLAY); ``nopick``: the pending penalty
    carries a ``nopick`` declaration; ``in_the_air``: the play emptied the hand but the
    round goes on (R-ZW-OUT). On the action that ended the round: ``end_draws`` the
    cards drawn then, in order, ``(seat, card)`` (players in the air, then the loser's
    tie draws, R-ZW-OUT, R-ZW-SCORE), and ``loser`` the round's loser (R-ZW-SCORE).
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
    skip_pending: int = 0
    missed: bool = False
    bounce: bool = False
    blocked: bool = False
    lucky: Card | None = None
    lucky_played: bool = False
    pick_play: bool = False
    nopick: bool = False
    in_the_air: bool = False
    end_draws: tuple[tuple[int, Card | None], ...] = ()
    loser: int | None = None


