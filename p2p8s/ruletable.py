"""The rule table: what each card does under a preset, as data (RULES.md §3, §5, §7).

One :class:`RuleTable` per preset: :data:`TABLE` ("table rules", §5 and §7.1) and
:data:`CLASSIC` (§7.2); the countdown variant (§8) plays the classic table with each
seat's number as its hand size and wild rank (:mod:`p2p8s.rules`). A table holds one
:class:`CardRule` per card — its value (R-PTS-*), whether it is wild (R-EIGHT), the
draw penalty it adds (R-TWO), the seats it skips (R-QUEEN), whether it reverses the
direction (R-ACE) and whether it may start the discard pile (R-STARTER) — and per
preset the hand sizes (R-HAND), the scoring (R-PTS-*, R-WIN-TABLE, R-TARGET-*) and the
targets. The engine, the fast playouts, the match, the coach, the hints and the bots
read it; nothing else writes a card's effect down.

Cards are looked up by index (``Card`` is an int ``0..51``), so a rule for one card
(the Q♠ of RULES.md §11.1) is an entry like a rule for a rank, and cards beyond the
French deck (the jokers of §11.2) would be further entries. A play's effect is the sum
of its cards' effects (R-MULTI, R-NEXT): :meth:`RuleTable.effect`.

>>> from p2p8s.cards import Card
>>> TABLE.rule(Card.parse("QS"))
CardRule(value=20, wild=False, penalty=0, skip=1, reverse=False, starter=False)
>>> TABLE.effect([Card.parse("AS"), Card.parse("AH")], players=3)
Effect(penalty=0, skips=0, reverses=2)
>>> CLASSIC.value(Card.parse("AD")), TABLE.value(Card.parse("AD"))
(1, 20)
>>> deal_order([2, 2, 2], dealer=0)
(1, 2, 0, 1, 2, 0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from p2p8s.cards import Card, Rank


class Scoring(StrEnum):
    """How a round scores and who wins the match (RULES.md §7)."""

    #: every hand left scores its value against its holder, a blocked round too
    #: (R-PTS-TABLE); once a total reaches the target the lowest wins (R-WIN-TABLE)
    HAND = "hand"
    #: the player who goes out collects the other hands (R-PTS-CLASSIC), a blocked
    #: round pays the lowest hands the differences (R-BLOCKED-CLASSIC); the highest
    #: total at the target wins (R-TARGET-CLASSIC)
    COLLECT = "collect"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRule:
    """What one card does under a preset.

    ``value``: points in a hand at round end (R-PTS-*). ``wild``: playable on anything,
    declares a suit (R-EIGHT). ``penalty``: cards added to the pending draw penalty; a
    card with a penalty is also the only answer to one (R-TWO, R-COUNTER). ``skip``:
    seats the turn passes over (R-QUEEN). ``reverse``: flips the direction (R-ACE).
    ``starter``: may start the discard pile (R-STARTER).
    """

    value: int
    wild: bool = False
    penalty: int = 0
    skip: int = 0
    reverse: bool = False
    starter: bool = True

    @property
    def action(self) -> bool:
        """True for an action card: it changes the penalty, the turn or the direction."""
        return bool(self.penalty or self.skip or self.reverse)


@dataclass(frozen=True, slots=True)
class Effect:
    """What a play does to the round (R-NEXT): ``penalty`` cards added to the pending
    draw penalty, ``skips`` seats passed over, ``reverses`` flips of the direction."""

    penalty: int = 0
    skips: int = 0
    reverses: int = 0


@dataclass(frozen=True, slots=True)
class Target:
    """A match target (R-TARGET-*): ``points``, plus ``per_seat`` points per player."""

    points: int = 0
    per_seat: int = 0

    def of(self, players: int) -> int:
        """The target for ``players`` seats."""
        return self.points + self.per_seat * players


#: The players a table seats (R-SEATS); :attr:`RuleTable.hand_sizes` follows it.
PLAYERS = range(2, 8)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class RuleTable:
    """One preset's rules as data (see the module docstring).

    ``cards``: the :class:`CardRule` of each card index. ``hand_sizes``: cards dealt to
    each player for 2..7 players (R-HAND). ``scoring``: :class:`Scoring`.
    ``solo_target``/``table_target``: the match target in solo play and at a friends'
    table (R-TARGET-*). ``heads_up_reverse_skips``: with 2 players a reverse acts as a
    skip (R-ACE). ``wild_rank`` (derived) is the rank of the wild cards (R-EIGHT).
    Tables compare (and hash) by identity: one object per preset. Raises ValueError
    for an inconsistent table (hand sizes, wild cards of several ranks or of only some
    suits).
    """

    name: str
    cards: tuple[CardRule, ...]
    hand_sizes: tuple[int, ...]
    scoring: Scoring
    solo_target: Target
    table_target: Target
    heads_up_reverse_skips: bool = True
    wild_rank: int = field(init=False)

    def __post_init__(self) -> None:
        if len(self.cards) != 52 or len(self.hand_sizes) != len(PLAYERS):
            raise ValueError("a rule table has 52 card rules and a hand size for 2..7")
        wild = {Card(c) for c in range(52) if self.cards[c].wild}
        ranks = {c.rank for c in wild}
        if len(ranks) != 1 or len(wild) != 4:
            raise ValueError("the wild cards are the four cards of one rank")
        object.__setattr__(self, "wild_rank", int(ranks.pop()))

    def rule(self, card: int) -> CardRule:
        """The :class:`CardRule` of ``card``."""
        return self.cards[card]

    def value(self, card: int) -> int:
        """Points ``card`` is worth in a hand at round end (R-PTS-*)."""
        return self.cards[card].value

    def hand_value(self, cards: Iterable[int]) -> int:
        """Sum of :meth:`value` over ``cards``."""
        rules = self.cards
        return sum(rules[c].value for c in cards)

    def counters(self, card: int) -> bool:
        """True if ``card`` may be played on a pending draw penalty (R-COUNTER)."""
        return self.cards[card].penalty > 0

    def starter(self, card: int) -> bool:
        """True if ``card`` may start the discard pile (R-STARTER)."""
        return self.cards[card].starter

    def hand_size(self, players: int) -> int:
        """Cards dealt to each of ``players`` (2..7) seats (R-HAND)."""
        return self.hand_sizes[players - PLAYERS.start]

    def effect(self, cards: Sequence[int], players: int) -> Effect:
        """The effect of playing ``cards`` at a table of ``players`` (R-NEXT): each
        card counts (R-MULTI); with 2 players a reverse is a skip (R-ACE)."""
        penalty = skips = reverses = 0
        heads_up = players == 2 and self.heads_up_reverse_skips
        for c in cards:
            r = self.cards[c]
            penalty += r.penalty
            skips += r.skip
            if r.reverse:
                if heads_up:
                    skips += 1
                else:
                    reverses += 1
        return Effect(penalty, skips, reverses)

    def round_points(self, values: Sequence[int], winner: int | None) -> list[int]:
        """A finished round's score change per seat from the hands' ``values`` and the
        seat that went out (``None``: blocked) — R-PTS-TABLE; R-PTS-CLASSIC and
        R-BLOCKED-CLASSIC (hands 12, 30, 12: both 12s collect 18).

        >>> CLASSIC.round_points([12, 30, 12], None)
        [18, 0, 18]
        """
        if self.scoring is Scoring.HAND:
            return list(values)
        if winner is not None:
            pts = [0] * len(values)
            pts[winner] = sum(values)
            return pts
        low = min(values)
        total = sum(v - low for v in values)
        return [total if v == low else 0 for v in values]

    def match_winner(self, totals: Sequence[int], target: int) -> int | None:
        """The match winner once a total reached ``target``: the lowest total
        (R-WIN-TABLE) or the highest (R-TARGET-CLASSIC); None while nobody reached it
        or the best total is shared (another round is played)."""
        if max(totals) < target:
            return None
        best = min(totals) if self.scoring is Scoring.HAND else max(totals)
        return totals.index(best) if list(totals).count(best) == 1 else None

    def standings(self, totals: Sequence[int]) -> list[int]:
        """Seats from best to worst by total (lowest first with :attr:`Scoring.HAND`)."""
        sign = 1 if self.scoring is Scoring.HAND else -1
        return sorted(range(len(totals)), key=lambda s: (sign * totals[s], s))


def rank_rules(ranks: Mapping[Rank, CardRule],
               cards: Mapping[Card, CardRule] | None = None) -> tuple[CardRule, ...]:
    """The 52 card rules from rules per rank and per single card (a card's own rule
    wins); a rank without one is an ordinary card worth its face value."""
    one = cards or {}
    return tuple(one.get(Card(c)) or ranks.get(Rank(c % 13 + 1)) or CardRule(value=c % 13 + 1)
                 for c in range(52))


#: "Table rules" (RULES.md §5, §7.1): 8 wild, 2 +2 stacking, Q skip, A reverse; an 8,
#: 2, Q or A never starts the pile.
TABLE = RuleTable(
    name="table",
    cards=rank_rules({
        Rank.EIGHT: CardRule(value=50, wild=True, starter=False),  # R-EIGHT
        Rank.TWO: CardRule(value=20, penalty=2, starter=False),  # R-TWO
        Rank.QUEEN: CardRule(value=20, skip=1, starter=False),  # R-QUEEN
        Rank.ACE: CardRule(value=20, reverse=True, starter=False),  # R-ACE
        Rank.JACK: CardRule(value=10),
        Rank.KING: CardRule(value=10),
    }),
    hand_sizes=(7, 7, 7, 5, 5, 5),
    scoring=Scoring.HAND,
    solo_target=Target(per_seat=50),
    table_target=Target(100),
)

#: The classic game (RULES.md §7.2): no effects but the wild 8, which never starts
#: the pile; A = 1, J Q K = 10; 7 cards each with 2 players, else 5.
CLASSIC = RuleTable(
    name="classic",
    cards=rank_rules({
        Rank.EIGHT: CardRule(value=50, wild=True, starter=False),
        Rank.ACE: CardRule(value=1),
        Rank.JACK: CardRule(value=10),
        Rank.QUEEN: CardRule(value=10),
        Rank.KING: CardRule(value=10),
    }),
    hand_sizes=(7, 5, 5, 5, 5, 5),
    scoring=Scoring.COLLECT,
    solo_target=Target(100),
    table_target=Target(100),
)

#: Every preset by name.
PRESETS: dict[str, RuleTable] = {t.name: t for t in (TABLE, CLASSIC)}


@lru_cache(maxsize=256)
def _deal_order(sizes: tuple[int, ...], dealer: int) -> tuple[int, ...]:
    n = len(sizes)
    remaining = list(sizes)
    seat = (dealer + 1) % n
    order: list[int] = []
    while any(remaining):
        if remaining[seat]:
            order.append(seat)
            remaining[seat] -= 1
        seat = (seat + 1) % n
    return tuple(order)


def deal_order(sizes: Sequence[int], dealer: int) -> tuple[int, ...]:
    """The seat receiving each dealt card, top of the stock first: one card at a time,
    round-robin from the seat left of ``dealer``, skipping seats dealt in full
    (R-DEALORDER). ``sizes`` holds the hand size of each seat."""
    return _deal_order(tuple(sizes), dealer)


def bury_index(stock: int) -> int:
    """Where a forbidden starter goes back into a stock of ``stock`` cards (it was
    removed): ``stock // 2`` counting from the top (R-STARTER)."""
    return stock // 2


#: Bytes of the digest :func:`first_dealer` reads.
_DEALER_BYTES = 8


def first_dealer(randomness: bytes, players: int) -> int:
    """R-DEALER from shared randomness: the first 8 bytes of SHA-512(``randomness``),
    big-endian, modulo ``players``."""
    digest = hashlib.sha512(randomness).digest()
    return int.from_bytes(digest[:_DEALER_BYTES], "big") % players


def next_dealer(dealer: int, players: int) -> int:
    """The next round's dealer: one seat to the left (R-DEALER)."""
    return (dealer + 1) % players
