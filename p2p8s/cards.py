"""Cards, ranks, suits and decks (R-DECK, R-ZW-DECK, notation of RULES.md §1).

A :class:`Card` is an ``int`` in ``0..55``: a French card is ``suit * 13 + (rank - 1)``
(``0..51``), with ranks ``A=1 .. K=13`` and suits ``C D H S = 0..3``; the jokers
``X1 .. X4`` of the zimbabwe preset (R-ZW-DECK) are ``52..55`` and have no rank and no
suit (:attr:`Card.rank` and :attr:`Card.suit` are ``None``). Instances are interned, so
cards compare, hash and sort like the ints they are, and a 104-card two-deck game simply
holds each French card twice (identical cards are interchangeable, R-DECK); each joker
is a card of its own.

>>> Card.parse("QS")
Card.parse('QS')
>>> str(Card.parse("10h")), Card.parse("QS").rank, Card.parse("QS").suit
('TH', <Rank.QUEEN: 12>, <Suit.SPADES: 3>)
>>> len(standard_deck(2)), len(standard_deck(2, jokers=True))
(104, 108)
>>> Card.parse("x2"), Card.parse("X2").rank, Card.parse("X2").joker
(Card.parse('X2'), None, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import ClassVar

from p2p8s.errors import Code, MalformedInput


class CardsCode(Code):
    """Why a card, rank or suit is refused (MalformedInput); ``text`` or ``value`` is
    what was given."""

    NOT_A_SUIT = "not-a-suit"  #: ``text``
    NOT_A_RANK = "not-a-rank"  #: ``text``
    NOT_A_CARD = "not-a-card"  #: ``text``
    BAD_INDEX = "card-index"  #: ``value`` is not 0..55
    NO_SUCH_CARD = "no-such-card"  #: ``rank``, ``suit``


class Suit(IntEnum):
    """The four suits, in the order used for sorting hands and encoding cards."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """``C D H S``."""
        return "CDHS"[self]

    @property
    def glyph(self) -> str:
        """``♣ ♦ ♥ ♠``."""
        return "♣♦♥♠"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``C``/``D``/``H``/``S`` (any case), a glyph, or a suit name.

        Raises :class:`~p2p8s.errors.MalformedInput` for anything else.
        """
        t = text.strip().upper()
        for suit in cls:
            if t in (suit.letter, suit.glyph, suit.name, suit.name[:-1]):
                return suit
        raise MalformedInput(CardsCode.NOT_A_SUIT, text=text)


class Rank(IntEnum):
    """Ranks ``A 2 .. 9 T J Q K`` as 1..13."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """``A 2 3 4 5 6 7 8 9 T J Q K``."""
        return RANK_LETTERS[self - 1]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse a rank letter (``10`` accepted for ``T``); raises MalformedInput."""
        t = text.strip().upper()
        if t == "10":
            t = "T"
        if len(t) == 1 and t in RANK_LETTERS:
            return cls(RANK_LETTERS.index(t) + 1)
        raise MalformedInput(CardsCode.NOT_A_RANK, text=text)


RANK_LETTERS = "A23456789TJQK"


class Card(int):
    """One playing card; an interned ``int``: ``suit * 13 + rank - 1`` in ``0..51``, or
    a joker ``X1 .. X4`` in ``52..55`` (R-ZW-DECK).

    Build one with :meth:`parse`, :meth:`of` or ``Card(index)``.
    """

    __slots__ = ()
    _interned: ClassVar[list[Card]] = []

    def __new__(cls, index: int) -> Card:
        if cls._interned:
            try:
                if index < 0:
                    raise IndexError
                return cls._interned[index]
            except (IndexError, TypeError):
                raise MalformedInput(CardsCode.BAD_INDEX, value=index) from None
        return super().__new__(cls, index)

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        """The French card of ``rank`` (1..13) and ``suit`` (0..3)."""
        if not 1 <= rank <= 13 or not 0 <= suit <= 3:
            raise MalformedInput(CardsCode.NO_SUCH_CARD, rank=rank, suit=suit)
        return cls._interned[suit * 13 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse rank+suit text such as ``QS``, ``10h``, ``T♥``, or a joker ``X1``..``X4``.

        Raises :class:`~p2p8s.errors.MalformedInput` naming the bad text.
        """
        if not isinstance(text, str) or len(text.strip()) < 2:
            raise MalformedInput(CardsCode.NOT_A_CARD, text=text)
        t = text.strip()
        if t.upper() in _JOKER_TEXT:
            return cls._interned[JOKER_BASE + _JOKER_TEXT.index(t.upper())]
        try:
            return cls.of(Rank.parse(t[:-1]), Suit.parse(t[-1]))
        except MalformedInput:
            raise MalformedInput(CardsCode.NOT_A_CARD, text=text) from None

    @property
    def rank(self) -> Rank | None:
        """The card's rank; ``None`` for a joker."""
        return _RANKS[self]

    @property
    def suit(self) -> Suit | None:
        """The card's suit; ``None`` for a joker."""
        return _SUITS[self]

    @property
    def joker(self) -> bool:
        """True for a joker (R-ZW-DECK)."""
        return self >= JOKER_BASE

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self]!r})"

    def pretty(self, *, ascii: bool = False) -> str:
        """Display text: ``Q♠``, ``10♥`` (or ``QS``, ``10H`` with ``ascii``); a joker
        is ``🃏1`` (``X1`` with ``ascii``)."""
        rank, suit = self.rank, self.suit
        if rank is None or suit is None:
            return _TEXT[self] if ascii else "🃏" + _TEXT[self][1:]
        r = "10" if rank == Rank.TEN else rank.letter
        return r + (suit.letter if ascii else suit.glyph)


#: Index of the first joker, ``X1`` (R-ZW-DECK); ``X1 .. X4`` are ``52..55``.
JOKER_BASE = 52
#: Jokers per deck (R-ZW-DECK).
JOKERS_PER_DECK = 2
_JOKER_TEXT = tuple(f"X{i + 1}" for i in range(2 * JOKERS_PER_DECK))
_RANKS: list[Rank | None] = [Rank(i % 13 + 1) for i in range(52)] + [None] * 4
_SUITS: list[Suit | None] = [Suit(i // 13) for i in range(52)] + [None] * 4
_TEXT = [RANK_LETTERS[i % 13] + "CDHS"[i // 13] for i in range(52)] + list(_JOKER_TEXT)
Card._interned = [int.__new__(Card, i) for i in range(52 + 2 * JOKERS_PER_DECK)]

#: All 52 French cards, clubs A..K, diamonds, hearts, spades (no jokers).
ALL_CARDS: tuple[Card, ...] = tuple(Card._interned[:52])
#: The jokers ``X1 .. X4`` (R-ZW-DECK): ``X1 X2`` with one deck, all four with two.
JOKERS: tuple[Card, ...] = tuple(Card._interned[JOKER_BASE:])
#: Every card index there is: the French cards, then the jokers.
EVERY_CARD: tuple[Card, ...] = tuple(Card._interned)


def deck_size(decks: int = 1, *, jokers: bool = False) -> int:
    """Cards in the deck: 52 per deck, plus 2 jokers per deck with ``jokers``."""
    return (52 + (JOKERS_PER_DECK if jokers else 0)) * decks


def deck_card(k: int, size: int) -> Card:
    """The face of deck position ``k`` of a deck of ``size`` cards (52, 54, 104, 108):
    positions ``0 .. 52*decks-1`` hold ``Card(k % 52)``, the rest the jokers in order
    (``X1``, ``X2``, …). Raises MalformedInput for a bad size or position."""
    decks = 2 if size > 54 else 1
    if size not in (deck_size(decks), deck_size(decks, jokers=True)) or not 0 <= k < size:
        raise MalformedInput(CardsCode.BAD_INDEX, value=k)
    french = 52 * decks
    return ALL_CARDS[k % 52] if k < french else JOKERS[k - french]


def standard_deck(decks: int = 1, *, jokers: bool = False) -> list[Card]:
    """The deck in canonical order (``decks`` copies of :data:`ALL_CARDS`, then with
    ``jokers`` two jokers per deck: ``X1 X2`` or ``X1 .. X4``), R-DECK, R-ZW-DECK.

    Deck position ``k`` holds :func:`deck_card` ``(k, len(deck))``; the cryptographic
    shuffle names cards by that position.
    """
    if decks not in (1, 2):
        raise ValueError("p2p8s uses one or two decks")
    size = deck_size(decks, jokers=jokers)
    return [deck_card(k, size) for k in range(size)]


def decks_for(players: int) -> int:
    """Number of decks for ``players`` seats: two for 6 or 7 (R-DECK)."""
    return 2 if players >= 6 else 1


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several card texts; raises MalformedInput naming the first bad one."""
    return [Card.parse(t) for t in texts]


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted for display: by suit (C D H S), then rank A..K, jokers last."""
    return sorted(cards)
