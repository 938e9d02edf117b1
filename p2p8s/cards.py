"""Cards, ranks, suits and decks (R-DECK, notation of RULES.md §1).

A :class:`Card` is an ``int`` in ``0..51``: ``suit * 13 + (rank - 1)``, with ranks
``A=1 .. K=13`` and suits ``C D H S = 0..3``. Instances are interned, so cards compare,
hash and sort like the ints they are, and a 104-card two-deck game simply holds each
card twice (identical cards are interchangeable, R-DECK).

>>> Card.parse("QS")
Card.parse('QS')
>>> str(Card.parse("10h")), Card.parse("QS").rank, Card.parse("QS").suit
('TH', <Rank.QUEEN: 12>, <Suit.SPADES: 3>)
>>> len(standard_deck(2))
104
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
    BAD_INDEX = "card-index"  #: ``value`` is not 0..51
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
    """One playing card; an interned ``int`` ``suit * 13 + rank - 1`` in ``0..51``.

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
        """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
        if not 1 <= rank <= 13 or not 0 <= suit <= 3:
            raise MalformedInput(CardsCode.NO_SUCH_CARD, rank=rank, suit=suit)
        return cls._interned[suit * 13 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse rank+suit text such as ``QS``, ``10h``, ``T♥``.

        Raises :class:`~p2p8s.errors.MalformedInput` naming the bad text.
        """
        if not isinstance(text, str) or len(text.strip()) < 2:
            raise MalformedInput(CardsCode.NOT_A_CARD, text=text)
        t = text.strip()
        try:
            return cls.of(Rank.parse(t[:-1]), Suit.parse(t[-1]))
        except MalformedInput:
            raise MalformedInput(CardsCode.NOT_A_CARD, text=text) from None

    @property
    def rank(self) -> Rank:
        """The card's rank."""
        return _RANKS[self]

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return _SUITS[self]

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self]!r})"

    def pretty(self, *, ascii: bool = False) -> str:
        """Display text: ``Q♠``, ``10♥`` (or ``QS``, ``10H`` with ``ascii``)."""
        r = "10" if self.rank == Rank.TEN else self.rank.letter
        return r + (self.suit.letter if ascii else self.suit.glyph)


_RANKS = [Rank(i % 13 + 1) for i in range(52)]
_SUITS = [Suit(i // 13) for i in range(52)]
_TEXT = [RANK_LETTERS[i % 13] + "CDHS"[i // 13] for i in range(52)]
Card._interned = [int.__new__(Card, i) for i in range(52)]

#: All 52 cards, clubs A..K, diamonds, hearts, spades.
ALL_CARDS: tuple[Card, ...] = tuple(Card._interned)


def standard_deck(decks: int = 1) -> list[Card]:
    """The deck in canonical order (``decks`` copies of :data:`ALL_CARDS`), R-DECK.

    Deck position ``k`` of a 104-card deck holds ``Card(k % 52)``; the cryptographic
    shuffle names cards by that position.
    """
    if decks not in (1, 2):
        raise ValueError("p2p8s uses one or two decks")
    return list(ALL_CARDS) * decks


def decks_for(players: int) -> int:
    """Number of decks for ``players`` seats: two for 6 or 7 (R-DECK)."""
    return 2 if players >= 6 else 1


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several card texts; raises MalformedInput naming the first bad one."""
    return [Card.parse(t) for t in texts]


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted for display: by suit (C D H S), then rank A..K."""
    return sorted(cards)
