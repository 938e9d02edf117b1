"""Pieces of sentences the word modules share: suit and rank names, articles, lists,
number words, and :func:`derive` for templates that compute some of their words.

Loaded cheaply (no module of the core beyond cards), so a command may use it at import.

>>> article(rank_name(1)), either(["2", "Q", "A"]), number(3)
('an ace', '2, Q or A', 'three')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from p2p8s.cards import Card, Rank
from p2p8s.cli.words import Speaker

Params = Mapping[str, Any]

SUIT_MANY = ("clubs", "diamonds", "hearts", "spades")
SUIT_ONE = ("club", "diamond", "heart", "spade")
RANK_NAMES = {Rank.ACE: "ace", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}
NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def derive(text: str | Callable[[Params], str], /, **extra: Callable[[Params], Any]
           ) -> Callable[[Speaker, Params], str]:
    """A template whose ``text`` may be picked from the parameters, and which adds the
    ``extra`` parameters computed from them (a suit's name, the last seat)."""

    def render(sp: Speaker, p: Params) -> str:
        chosen = text(p) if callable(text) else text
        return sp.format(chosen, **{**p, **{k: f(p) for k, f in extra.items()}})

    return render


def rank_name(rank: int) -> str:
    """``ace``, ``queen``, ``10``, ``7``."""
    return RANK_NAMES.get(Rank(rank), str(int(rank)))


def article(word: str) -> str:
    """``a queen``, ``an ace``, ``an 8``."""
    return ("an " if word[:1] in "aeiou8" else "a ") + word


def either(words: Iterable[str], joint: str = "or") -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    items = list(words)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {joint} " + items[-1]


def number(k: int) -> str:
    """``one`` .. ``eight``, else the digits."""
    return NUMBERS[k] if 0 <= k < len(NUMBERS) else str(k)


def notation(cards: Sequence[Card]) -> str:
    """Cards as a file writes them (``KS TD``), for messages about a file's text."""
    return " ".join(str(c) for c in cards)


def shown(key: str) -> Callable[[Params], str]:
    """The parameter ``key`` as its repr (a text typed or read, quoted)."""
    return lambda p: repr(p[key])
