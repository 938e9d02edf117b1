"""The rule table: what each card does under a preset, as data (RULES.md §3, §5, §7, §11).

One :class:`RuleTable` per preset: :data:`TABLE` ("table rules", §5 and §7.1),
:data:`CLASSIC` (§7.2), :data:`WILDCARDS` (§11.1) and :data:`ZIMBABWE` (§11.2); the
countdown variant (§8) plays the classic table with each seat's number as its hand size
and wild rank (:mod:`p2p8s.rules`). A table holds one
:class:`CardRule` per card — its value (R-PTS-*), whether it is wild (R-EIGHT), the
draw penalty it adds (R-TWO), the seats it skips (R-QUEEN), whether it reverses the
direction (R-ACE) and whether it may start the discard pile (R-STARTER) — and per
preset the hand sizes (R-HAND), the scoring (R-PTS-*, R-WIN-TABLE, R-TARGET-*) and the
targets. The engine, the fast playouts, the match, the coach, the hints and the bots
read it; nothing else writes a card's effect down.

Cards are looked up by index (``Card`` is an int ``0..55``), so a rule for one card
(the Q♠ of RULES.md §11.1) is an entry like a rule for a rank, and the jokers of §11.2
(``52..55``) are further entries. Besides the per-card rules a table holds the
preset's turn rules as flags (:class:`RuleTable`: matching counters, counterable skips,
one wild per play, the 8-on-8 rule, the lucky card, pick-and-play, in the air, the
round's loser). A play's effect is the sum
of its cards' effects (R-MULTI, R-NEXT): :meth:`RuleTable.effect`.

>>> from p2p8s.cards import Card
>>> q = TABLE.rule(Card.parse("QS"))
>>> q.value, q.skip, q.penalty, q.starter
(20, 1, 0, False)
>>> ZIMBABWE.rule(Card.parse("X1")).penalty, WILDCARDS.rule(Card.parse("QS")).penalty
(5, 5)
>>> TABLE.effect([Card.parse("AS"), Card.parse("AH")], players=3)
Effect(penalty=0, skips=0, reverses=2, block=False, bounce=False)
>>> WILDCARDS.effect([Card.parse("4S")], players=4, declare=Declare.REVERSE)
Effect(penalty=0, skips=0, reverses=1, block=False, bounce=False)
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

from p2p8s.cards import ALL_CARDS, EVERY_CARD, JOKERS, Card, Rank


class Scoring(StrEnum):
    """How a round scores and who wins the match (RULES.md §7)."""

    #: every hand left scores its value against its holder, a blocked round too
    #: (R-PTS-TABLE); once a total reaches the target the lowest wins (R-WIN-TABLE)
    HAND = "hand"
    #: the player who goes out collects the other hands (R-PTS-CLASSIC), a blocked
    #: round pays the lowest hands the differences (R-BLOCKED-CLASSIC); the highest
    #: total at the target wins (R-TARGET-CLASSIC)
    COLLECT = "collect"


class Declare(StrEnum):
    """A choice declared with a card, like an 8's suit (RULES.md §11): the text after
    ``!`` in an action's text (:func:`p2p8s.engine.format_action`)."""

    SKIP = "skip"  #: the 4 skips the next player (R-WC-SKIP)
    REVERSE = "reverse"  #: the 4 reverses (R-WC-SKIP); the J stays reversed (R-ZW-JACK)
    BOUNCE = "bounce"  #: the J reverses for one turn only (R-ZW-JACK)
    NOPICK = "nopick"  #: no pick-and-play after taking this penalty (R-ZW-PICKPLAY)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRule:
    """What one card does under a preset.

    ``value``: points in a hand at round end (R-PTS-*, R-ZW-SCORE). ``wild``: playable on
    anything, declares a suit (R-EIGHT). ``penalty``: cards added to the pending draw
    penalty; a card with a penalty is also an answer to one (R-TWO, R-COUNTER,
    R-WC-PENALTY, R-ZW-PENALTY). ``skip``: seats the turn passes over (R-QUEEN,
    R-WC-SKIP, R-ZW-SEVEN). ``reverse``: flips the direction (R-ACE, R-ZW-JACK).
    ``starter``: may start the discard pile (R-STARTER, R-WC-STARTER, R-ZW-DEAL).
    ``block``: played on a pending penalty it cancels it (the aces of R-ZW-PENALTY).
    ``fits_any``: playable on any card (not under a pending skip), without being wild:
    it declares nothing and keeps the active suit (the joker, R-ZW-PENALTY).
    ``accepts``: ranks playable on this card when it is on top besides R-MATCH (a 2 on
    a joker). ``choices``: the effects its player declares one of with the card (the
    first is the card's own ``skip``/``reverse``; R-WC-SKIP 4: skip or reverse;
    R-ZW-JACK: reverse or bounce); a declaration is required when there are choices.
    ``nopick``: its player may declare ``nopick`` with it (R-ZW-PICKPLAY).
    """

    value: int
    wild: bool = False
    penalty: int = 0
    skip: int = 0
    reverse: bool = False
    starter: bool = True
    block: bool = False
    fits_any: bool = False
    accepts: tuple[Rank, ...] = ()
    choices: tuple[Declare, ...] = ()
    nopick: bool = False

    @property
    def action(self) -> bool:
        """True for an action card: it changes the penalty, the turn or the direction."""
        return bool(self.penalty or self.skip or self.reverse or self.block)

    @property
    def special(self) -> bool:
        """True for a special card: wild or an action card (R-ZW-OUT, R-ZW-DEAL)."""
        return self.wild or self.action or self.fits_any


@dataclass(frozen=True, slots=True)
class Effect:
    """What a play does to the round (R-NEXT): ``penalty`` cards added to the pending
    draw penalty, ``skips`` seats passed over (or, with :attr:`RuleTable.skip_counters`,
    skips the next player faces), ``reverses`` flips of the direction; ``block``: the
    play cancels a pending penalty (R-ZW-PENALTY); ``bounce``: the direction flips back
    after the next turn (R-ZW-JACK)."""

    penalty: int = 0
    skips: int = 0
    reverses: int = 0
    block: bool = False
    bounce: bool = False


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
#: Card rules a table holds: one per card index, the jokers included (R-ZW-DECK).
CARD_INDICES = len(EVERY_CARD)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class RuleTable:
    """One preset's rules as data (see the module docstring).

    ``cards``: the :class:`CardRule` of each card index. ``hand_sizes``: cards dealt to
    each player for 2..7 players (R-HAND). ``scoring``: :class:`Scoring`.
    ``solo_target``/``table_target``: the match target in solo play and at a friends'
    table (R-TARGET-*). ``heads_up_reverse_skips``: with 2 players a reverse acts as a
    skip (R-ACE). ``wild_rank`` (derived) is the rank of the wild cards (R-EIGHT).

    The turn rules of §11 as flags: ``jokers``: the deck holds the jokers (R-ZW-DECK).
    ``counter_match``: a counter must also fit the top card by R-MATCH (R-WC-PENALTY).
    ``skip_counters``: a skip is pending on the next player, who plays a skip card of
    their own or misses the turn (R-ZW-SEVEN). ``one_wild_per_play``: a multi-play holds
    at most one wild card (R-ZW-DRAW). ``wild_on_wild_declares``: False = a wild card
    played on a declared wild card declares nothing (R-ZW-EIGHT). ``lucky``: facing a
    penalty a player may turn the lucky card (R-ZW-LUCKY). ``pick_play``: after taking
    a penalty the player may still play one card (R-ZW-PICKPLAY). ``in_the_air``: only
    a regular card on a regular top card ends the round (R-ZW-OUT). ``loser``: the round
    names a loser, the highest hand, ties drawing (R-ZW-SCORE).
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
    jokers: bool = False
    counter_match: bool = False
    skip_counters: bool = False
    one_wild_per_play: bool = False
    wild_on_wild_declares: bool = True
    lucky: bool = False
    pick_play: bool = False
    in_the_air: bool = False
    loser: bool = False
    wild_rank: int = field(init=False)

    def __post_init__(self) -> None:
        if len(self.cards) != CARD_INDICES or len(self.hand_sizes) != len(PLAYERS):
            raise ValueError("a rule table has a card rule per card index and a hand size "
                             "for 2..7")
        wild = {c for c in ALL_CARDS if self.cards[c].wild}
        ranks = {c.rank for c in wild}
        if len(ranks) != 1 or len(wild) != 4 or any(self.cards[j].wild for j in JOKERS):
            raise ValueError("the wild cards are the four cards of one rank")
        object.__setattr__(self, "wild_rank", int(ranks.pop() or 0))

    @property
    def deck_cards(self) -> tuple[Card, ...]:
        """The distinct cards of one deck under this table (jokers with R-ZW-DECK)."""
        return EVERY_CARD if self.jokers else ALL_CARDS

    def special(self, card: int) -> bool:
        """True if ``card`` is special: wild or an action card (R-ZW-OUT)."""
        return self.cards[card].special

    def declarations(self, card: int) -> tuple[Declare, ...]:
        """What may be declared with ``card``: its choices, or ``nopick`` (R-WC-SKIP,
        R-ZW-JACK, R-ZW-PICKPLAY)."""
        r = self.cards[card]
        return r.choices or ((Declare.NOPICK,) if r.nopick else ())

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
        """True if ``card`` may be played on a pending draw penalty: it adds to it or
        blocks it (R-COUNTER, R-ZW-PENALTY; with :attr:`counter_match` it must also fit
        the top card, R-WC-PENALTY)."""
        r = self.cards[card]
        return r.penalty > 0 or r.block

    def starter(self, card: int) -> bool:
        """True if ``card`` may start the discard pile (R-STARTER)."""
        return self.cards[card].starter

    def hand_size(self, players: int) -> int:
        """Cards dealt to each of ``players`` (2..7) seats (R-HAND)."""
        return self.hand_sizes[players - PLAYERS.start]

    def effect(self, cards: Sequence[int], players: int,
               declare: Declare | None = None) -> Effect:
        """The effect of playing ``cards`` at a table of ``players`` (R-NEXT): each
        card counts (R-MULTI); with 2 players a reverse is a skip (R-ACE, R-WC-SKIP,
        R-ZW-JACK). ``declare`` is the play's declared choice: ``skip``/``reverse``
        replaces the effect of each card that offers it (R-WC-SKIP); ``bounce`` makes
        the play's reversal last one turn (R-ZW-JACK; once per play); ``nopick``
        changes nothing here (R-ZW-PICKPLAY)."""
        penalty = skips = reverses = 0
        block = bounce = False
        heads_up = players == 2 and self.heads_up_reverse_skips
        for c in cards:
            r = self.cards[c]
            penalty += r.penalty
            block = block or r.block
            skip, reverse = r.skip, r.reverse
            if declare is not None and declare in r.choices:
                skip = 1 if declare is Declare.SKIP else 0
                reverse = declare in (Declare.REVERSE, Declare.BOUNCE)
                bounce = bounce or declare is Declare.BOUNCE
            skips += skip
            if reverse:
                if heads_up:
                    skips += 1
                else:
                    reverses += 1
        if heads_up:
            bounce = False
        return Effect(penalty, skips, reverses, block, bounce)

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
               cards: Mapping[Card, CardRule] | None = None,
               joker: CardRule | None = None) -> tuple[CardRule, ...]:
    """The card rules of every card index from rules per rank and per single card (a
    card's own rule wins); a rank without one is an ordinary card worth its face value.
    ``joker`` is the rule of every joker (default: worth 0, never a starter — a table
    without :attr:`RuleTable.jokers` never deals one)."""
    one = cards or {}
    french = tuple(one.get(c) or ranks.get(Rank(c % 13 + 1)) or CardRule(value=c % 13 + 1)
                   for c in ALL_CARDS)
    return french + (joker or CardRule(value=0, starter=False),) * len(JOKERS)


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

#: "Wild Cards" (RULES.md §11.1): 8 wild; J skip; 4 skip or (declared) reverse; 2 +2
#: and Q♠ +5, countered only by a fitting penalty card; classic values and scoring; an
#: 8, 2, 4, J or the Q♠ never starts the pile.
WILDCARDS = RuleTable(
    name="wildcards",
    cards=rank_rules({
        Rank.EIGHT: CardRule(value=50, wild=True, starter=False),  # R-WC-EIGHT
        Rank.TWO: CardRule(value=2, penalty=2, starter=False),  # R-WC-PENALTY
        Rank.FOUR: CardRule(value=4, skip=1, starter=False,  # R-WC-SKIP
                            choices=(Declare.SKIP, Declare.REVERSE)),
        Rank.JACK: CardRule(value=10, skip=1, starter=False),  # R-WC-SKIP
        Rank.ACE: CardRule(value=1),
        Rank.QUEEN: CardRule(value=10),
        Rank.KING: CardRule(value=10),
    }, {Card.of(Rank.QUEEN, 3): CardRule(value=10, penalty=5, starter=False)}),
    hand_sizes=(7, 5, 5, 5, 5, 5),  # R-WC-DEAL
    scoring=Scoring.COLLECT,  # R-WC-SCORE
    solo_target=Target(per_seat=50),
    table_target=Target(per_seat=50),
    counter_match=True,
)

#: "The Zimbabwean Variation" (RULES.md §11.2): 7 skip (countered by a 7), 8 wild
#: (8 on 8 declares nothing, one 8 per play), J reverse or bounce, 2 +2, joker +5 on
#: anything, aces block, the lucky card, pick-and-play / nopick, in the air, the loser.
ZIMBABWE = RuleTable(
    name="zimbabwe",
    cards=rank_rules({
        Rank.SEVEN: CardRule(value=20, skip=1, starter=False),  # R-ZW-SEVEN
        Rank.EIGHT: CardRule(value=50, wild=True, starter=False),  # R-ZW-EIGHT
        Rank.JACK: CardRule(value=20, reverse=True, starter=False,  # R-ZW-JACK
                            choices=(Declare.REVERSE, Declare.BOUNCE)),
        Rank.TWO: CardRule(value=20, penalty=2, starter=False, nopick=True),
        Rank.ACE: CardRule(value=20, block=True, starter=False),  # R-ZW-PENALTY
        Rank.QUEEN: CardRule(value=10),
        Rank.KING: CardRule(value=10),
    }, joker=CardRule(value=50, penalty=5, starter=False, fits_any=True,
                      accepts=(Rank.TWO,), nopick=True)),
    hand_sizes=(7, 7, 7, 7, 7, 7),  # R-ZW-DEAL
    scoring=Scoring.HAND,  # R-ZW-SCORE
    solo_target=Target(per_seat=50),
    table_target=Target(100),
    jokers=True,
    skip_counters=True,
    one_wild_per_play=True,
    wild_on_wild_declares=False,
    lucky=True,
    pick_play=True,
    in_the_air=True,
    loser=True,
)

#: Every rule table by name (the countdown preset plays :data:`CLASSIC`).
PRESETS: dict[str, RuleTable] = {t.name: t for t in (TABLE, CLASSIC, WILDCARDS, ZIMBABWE)}


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
