"""How text is drawn in the terminal: colour and suit glyphs (:class:`Look`).

A leaf of the CLI (it imports only :mod:`p2p8s.cards`), so the words catalogue can
draw cards without loading the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p2p8s.cards import Card, Suit

_RESET = "\x1b[0m"
_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}

#: Suit names as the game says them.
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


@dataclass(frozen=True, slots=True)
class Look:
    """How text is drawn: ``color`` adds ANSI colours, ``ascii`` writes suits as letters."""

    color: bool = False
    ascii: bool = False

    def paint(self, text: str, *styles: str) -> str:
        """``text`` in the given styles (``bold``, ``red``, …) when colour is on."""
        if not self.color or not styles:
            return text
        return "\x1b[" + ";".join(_CODES[s] for s in styles) + "m" + text + _RESET

    @property
    def arrow(self) -> str:
        """An arrow between seats."""
        return "->" if self.ascii else "→"

    def card(self, card: Card, *, playable: bool = False) -> str:
        """``Q♠`` / ``10♥`` (``QS`` / ``10H`` with ascii); red suits red, playable bold."""
        styles = ["red"] if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else []
        if playable:
            styles.append("bold")
        return self.paint(card.pretty(ascii=self.ascii), *styles)

    def cards(self, cards: Iterable[Card]) -> str:
        """Several cards separated by spaces."""
        return " ".join(self.card(c) for c in cards)

    def suit(self, suit: Suit) -> str:
        """``hearts ♥`` (``hearts (H)`` with ascii)."""
        mark = f"({suit.letter})" if self.ascii else suit.glyph
        return f"{SUIT_NAMES[suit]} {mark}"
