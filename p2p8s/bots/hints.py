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
>>> str(h.action), h.reason
('play 7H', 'Keep your 8: you can follow suit with 7♥.')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p8s.bots.base import View
from p2p8s.bots.knowledge import TableKnowledge, read_table
from p2p8s.cards import Card, Suit
from p2p8s.engine import Action, Draw, Pass, Play, Take
from p2p8s.rules import card_value

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
_RANK_WORDS = {1: "A", 2: "2", 12: "Q"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint:
    """A suggested ``action`` (one of the legal actions) and a one-line ``reason``."""

    action: Action
    reason: str


def hint(view: View, legal: Sequence[Action], rng: random.Random, *,
         names: Sequence[str] | None = None, playouts: int | None = None) -> Hint:
    """Suggest the expert's move for ``view`` from ``legal`` with a one-line reason.

    ``names`` (one per seat) lets the reason name a player ("Bea has one card left");
    by default seats are called "the next player" or "seat N". ``playouts`` overrides
    the expert's budget. Pure given ``rng``. Raises ValueError if ``legal`` is empty.
    """
    if not legal:
        raise ValueError("no legal action to suggest")
    from p2p8s.bots.expert import ExpertBot

    expert = ExpertBot() if playouts is None else ExpertBot(playouts=playouts)
    action = expert.choose(view, legal, rng)
    return Hint(action=action, reason=explain(view, legal, action, names=names))


def _n(k: int) -> str:
    return _NUMBERS[k] if 0 <= k < len(_NUMBERS) else str(k)


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(Card(c).pretty() for c in cards)


def _suit_name(suit: int) -> str:
    return Suit(suit).name.lower()


def _count(k: int, suit: int) -> str:
    """``a club``, ``three clubs``."""
    name = _suit_name(suit)
    return f"a {name[:-1]}" if k == 1 else f"{_n(k)} {name}"


def _declare_reason(view: View, know: TableKnowledge, rest: Sequence[Card], suit: int,
                    who: Callable[[int], str]) -> str:
    """Why declare ``suit`` with a wild card, ``rest`` being the hand left after it.

    The reason always supports the suit: the cards of it you keep, else a player known
    to hold none of it (they drew or passed on it), else the cards of it already on the
    discard pile; it never claims you hold a suit you hold none of.
    """
    seat, n = view.seat, view.players
    wild = view.wild[seat]
    name = _suit_name(suit)
    plain = [c for c in rest if c % 13 + 1 != wild]
    held = sum(1 for c in plain if c // 13 == suit)
    nxt = (seat + view.direction) % n
    if know.void(nxt, suit):
        return f"Change to {name}: {who(nxt)} drew on {name} and has none."
    if held:
        if held == len(plain):
            if held == 1:
                return f"Change to {name}: your only other card is {_count(1, suit)}."
            every = "both" if held == 2 else f"all {_n(held)}"
            return f"Change to {name}: {every} of your other cards are {name}."
        longest = all(held > sum(1 for c in plain if c // 13 == t)
                      for t in range(4) if t != suit)
        tail = ", your longest suit" if longest else ""
        return f"Change to {name}: you hold {_count(held, suit)}{tail}."
    if not plain:
        what = ("an 8" if wild == 8 else "a wild card") if len(rest) == 1 else \
            f"{_n(len(rest))} {'8s' if wild == 8 else 'wild cards'}"
        fits = "it fits" if len(rest) == 1 else "they fit"
        return f"Change to {name}: all you keep is {what}, and {fits} any suit."
    for s in sorted((s for s in range(n) if s not in (seat, nxt)),
                    key=lambda s: ((s - seat) * view.direction) % n):
        if know.void(s, suit):
            return (f"Change to {name}: you hold none, but {who(s)} drew on {name} "
                    "and has none either.")
    gone = sum(1 for c in view.discard if c // 13 == suit and c % 13 + 1 != wild)
    if gone >= 4:
        return (f"Change to {name}: you hold none, but {_count(gone, suit)} are already "
                "on the discard pile, so the others are short of them too.")
    return (f"Change to {name}: you hold none, but the look-ahead finds the others "
            f"least able to follow {name}.")


def explain(view: View, legal: Sequence[Action], action: Action, *,
            names: Sequence[str] | None = None) -> str:
    """The one-line reason for playing ``action`` in ``view`` (see the module doc)."""
    seat = view.seat
    n = view.players

    def who(s: int) -> str:
        if names is not None and len(names) == n:
            return names[s]
        return "the next player" if s == (seat + view.direction) % n else f"seat {s}"

    wild = view.wild[seat]
    hand = list(view.hand)
    if isinstance(action, Take):
        if not any(c % 13 + 1 == 2 for c in hand):
            return "Take the penalty: you have no 2."
        return f"Take the {view.pending_draw} cards and keep your 2 as a shield."
    if isinstance(action, Draw):
        if view.drawn:
            return "Draw again: the drawn card does not fit."
        return "Draw: nothing in your hand fits."
    if isinstance(action, Pass):
        if view.drawn and view.last_drawn is not None and any(
                isinstance(a, Play) for a in legal):
            return f"Keep the drawn {Card(view.last_drawn).pretty()} and pass."
        return "Pass: nothing fits and you may not draw any more."
    assert isinstance(action, Play)
    cards = action.cards
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    nxt = (seat + view.direction) % n
    if not rest:
        return f"Play {_cards(cards)} and go out: the round is yours."
    last = cards[-1]
    rank = last % 13 + 1
    know: TableKnowledge = read_table(view)
    others = [s for s in range(n) if s != seat]
    closest = min(others, key=lambda s: (view.hand_sizes[s], (s - seat) % n))
    if view.pending_draw:
        return (f"Counter with {_cards(cards)}: {who(nxt)} faces "
                f"{view.pending_draw + 2 * len(cards)} cards instead of you.")
    if view.rules.action_cards and rank in (1, 2, 12):
        target = nxt if not (rank == 1 and n > 2) else (seat - view.direction) % n
        left = view.hand_sizes[nxt]
        if left <= 2:
            card = _RANK_WORDS[rank]
            count = "one card" if left == 1 else "two cards"
            if rank == 1 and n > 2:
                return (f"Reverse with the A now: {who(nxt)} has {count} left, "
                        f"the turn goes to {who(target)} instead.")
            return f"Play the {card} now: {who(nxt)} has {count} left."
    if rank == wild:
        if view.hand_sizes[closest] <= 1:
            return (f"Get rid of your {Card(last).pretty()} now: {who(closest)} has one "
                    f"card left, and it is worth {card_value(Card(last), view.rules)} points.")
        suit = int(action.suit) if action.suit is not None else last // 13
        return _declare_reason(view, know, rest, suit, who)
    if any(c % 13 + 1 == wild for c in rest):
        return f"Keep your {'8' if wild == 8 else 'wild card'}: you can follow suit with " \
               f"{Card(cards[0]).pretty()}."
    if len(cards) >= 3:
        return (f"Play all {_n(len(cards))} at once: that empties {len(cards)} of your "
                f"{len(hand)} cards in one turn.")
    suit = last // 13
    if know.void(nxt, suit):
        return f"Play {_cards(cards)}: {who(nxt)} drew on {_suit_name(suit)} and has none."
    value = sum(card_value(Card(c), view.rules) for c in cards)
    if len(cards) == 2:
        return f"Play both {_cards(cards)}: two cards gone in one turn."
    if value >= 10 and not view.rules.countdown:
        return (f"Shed the {_cards(cards)} — {value} points you don't want to be "
                f"caught with.")
    held = sum(1 for c in rest if c // 13 == suit and c % 13 + 1 != wild)
    if held >= 2:
        return (f"Play {_cards(cards)}: it keeps {_suit_name(suit)} on the pile, and you "
                f"hold {_n(held)} more.")
    return f"Play {_cards(cards)}: it fits and keeps your options open."
