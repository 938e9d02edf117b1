"""Fast, rules-exact playouts of one round (RULES.md §3–§6, §8) for search bots.

The engine (:mod:`p2p8s.engine`) is the reference: it checks every action and builds
objects for every step. Search bots need thousands of complete rounds per move, so this
module plays rounds on plain integers instead: a hand is a 52-bit mask (bit ``c`` =
``Card(c)`` held; a second mask holds the second copies of the 104-card two-deck game),
the stock is a list with its top at the end, and one loop with local variables plays the
whole round. It implements exactly the engine's rules, for every knob of a
:class:`~p2p8s.rules.Ruleset` (action cards, multi_play, draw_limit incl. 0,
draw_when_playable, reshuffle, countdown wild ranks, 2..7 players);
``tests/test_playout.py`` checks transcripts against the engine. What the cards do,
which may start the pile, their values and the scoring come from the ruleset's rule
table (:mod:`p2p8s.ruletable`), turned once per table into bit masks and per-card
numbers (:class:`_Consts`) that the loop reads. A rule table with the turn rules of
RULES.md §11 (the wildcards and zimbabwe presets: jokers, counterable skips, declared
choices, blocks, the lucky card, pick-and-play, in the air, the loser) is played by the
second loop, :mod:`p2p8s.playout_house`, with the same policies (its docstring gives
what they do with the §11 choices) and the same entry points below.

Two built-in policies (:class:`Policy`):

* ``Policy.RANDOM`` — the benchmark policy of issue #2: facing a penalty, play a random
  2 if held, else take it; otherwise play a random playable card (single cards only),
  an 8 declaring a random suit; with nothing playable draw, play the drawn card if it is
  playable, else draw again while allowed, else pass.
* ``Policy.GREEDY`` — the default for search: like RANDOM, but prefers a random non-wild
  card to a wild one (wilds are kept as a last resort, the lowest played first), declares
  the suit it holds most of, and with multi_play sheds every card of the played rank,
  ending on the card whose suit it holds most of.
* ``Policy.SMART`` — the expert's default, closer to the regulars: like GREEDY (counter
  a penalty with a 2, keep wilds for last, most-held suit, shed a whole rank), but it
  sheds the most expensive playable card first (R-PTS-TABLE / R-PTS-CLASSIC values; a
  random one among equally expensive cards); with action cards it attacks a next
  player holding <= 2 cards with a queen or a 2 (an ace too with 2 players) if it can,
  and dumps its wild card (worth 50) while some opponent holds a single card.

Randomness comes only from the ``rng`` argument, in a documented order so that the
engine can be driven in lockstep (the tests do): a choice among ``k > 1`` candidates
(distinct cards in ascending order) takes ``int(rng.random() * k)``; a random suit
(RANDOM policy, a wild play that does not go out) takes ``int(rng.random() * 4)``; a
reshuffle (R-RESHUFFLE) calls ``rng.shuffle`` on the discards below the top, oldest
first, and the result is the new stock, top first. A choice with one candidate
consumes nothing.

Step cap: a round need not end. With reshuffling on, a small or lopsided world (e.g. a
determinized round whose circulating cards all follow each other while no hand card
ever fits) can cycle forever: draw a fitting card, play it, reshuffle, repeat. Every
playout therefore stops after :data:`MAX_DECISIONS` applied actions (or the
``max_decisions`` argument): at the first turn boundary at or past the cap it ends and
is scored *as a blocked round* (R-BLOCKED: table rules every hand scores its value,
classic R-BLOCKED-CLASSIC, countdown zeros), with ``ended_by`` ``blocked``, no winner
and ``Outcome.capped`` set. The cap is far above any real round (complete rounds of
every ruleset and 2..7 players stay below 1,000 actions), so it never changes the
result of a round that ends; ``tests/test_playout.py`` checks both.

>>> import random
>>> from p2p8s.rules import Ruleset
>>> from p2p8s.cards import standard_deck
>>> order = standard_deck()
>>> random.Random(7).shuffle(order)
>>> decisions, points = bench_round(Ruleset(), 4, 0, order, random.Random(1))
>>> decisions > 0 and len(points) == 4
True
"""

from __future__ import annotations

import random as _random
from collections.abc import Sequence
from enum import IntEnum
from functools import lru_cache

from p2p8s.engine import EndedBy, EngineCode, OrderedDeck, Round
from p2p8s.errors import Code, MalformedInput
from p2p8s.playout_bits import RANK_MASK as _RANK_MASK
from p2p8s.playout_bits import SUIT_MASK as _SUIT_MASK
from p2p8s.playout_bits import Outcome
from p2p8s.playout_bits import mask as _mask
from p2p8s.playout_bits import refill as _refill
from p2p8s.playout_house import run_house
from p2p8s.rules import Ruleset, check_players, deal_sizes, round_points
from p2p8s.ruletable import CARD_INDICES, RuleTable, bury_index, deal_order


class PlayoutCode(Code):
    """Why a round cannot be played out (MalformedInput)."""

    STOCK_UNKNOWN = "playout-stock-unknown"  #: the stock's order is not known
    HAND_HIDDEN = "playout-hand-hidden"  #: a hand holds a face-down card


class Policy(IntEnum):
    """Built-in playout policies (see the module docstring)."""

    RANDOM = 0  #: the benchmark policy: random playable card, random suit
    GREEDY = 1  #: non-wild first, most-held suit, shed same ranks
    SMART = 2  #: the expert's default: GREEDY, but expensive cards first, attacks


#: One recorded action of a traced playout: ``(seat, kind, cards, suit)`` with ``kind``
#: one of ``play draw pass take``; ``cards`` are the played cards (engine order: first,
#: sorted middle, last) or the drawn ones; ``suit`` is the declared suit (0..3) or None.
TraceStep = tuple[int, str, tuple[int, ...], int | None]

#: Actions after which a playout is cut off and scored as a blocked round (see the
#: module docstring, "Step cap"). Real rounds stay far below it.
MAX_DECISIONS = 5000

# ------------------------------------------------------------------------ tables

_RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(52))
_SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52))
#: _ACCEPT[c]: cards that match an undeclared top card c (its suit or its rank).
_ACCEPT: tuple[int, ...] = tuple(_SUIT_MASK[c // 13] | _RANK_MASK[c % 13 + 1]
                                 for c in range(52))
_LOW13 = (1 << 13) - 1


class _Consts:
    """One rule table as the loop reads it, for 2 players or more (R-ACE: with two a
    reverse is a skip): masks of the counters (R-COUNTER), of the action cards and of
    the cards that hurt the next player (SMART's attackers); per card the penalty,
    the skips and the reverses it adds (R-NEXT), whether it may start the pile
    (R-STARTER); per suit the value of each 13-bit set of its cards, and the card
    masks of equal value, the most expensive first (R-PTS-*)."""

    __slots__ = ("action", "attackers", "counters", "groups", "penalty", "reverse", "skip",
                 "starter", "values13")

    def __init__(self, table: RuleTable, heads_up: bool) -> None:
        cards = range(52)
        effects = [table.effect((c,), 2 if heads_up else 3) for c in cards]
        self.penalty = tuple(e.penalty for e in effects)
        self.skip = tuple(e.skips for e in effects)
        self.reverse = tuple(e.reverses for e in effects)
        self.counters = _mask([c for c in cards if table.counters(c)])
        self.action = _mask([c for c in cards if table.rule(c).action])
        self.attackers = _mask([c for c in cards if effects[c].penalty or effects[c].skips])
        self.starter = tuple(table.starter(c) for c in range(CARD_INDICES))
        self.values13, self.groups = _values(table)


@lru_cache(maxsize=16)
def _values(table: RuleTable) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per suit the value of each 13-bit set of its cards; the card masks of equal value,
    the most expensive first."""
    values = [table.value(c) for c in range(52)]
    by: dict[int, int] = {}
    for c in range(52):
        by[values[c]] = by.get(values[c], 0) | 1 << c
    return (tuple(_value_table(values[13 * s:13 * s + 13]) for s in range(4)),
            tuple(by[v] for v in sorted(by, reverse=True)))


def _value_table(values: Sequence[int]) -> tuple[int, ...]:
    # value of each 13-bit set of one suit's cards: t[m] = t[m without its low bit] + ...
    t = [0] * (1 << 13)
    for m in range(1, 1 << 13):
        low = m & -m
        t[m] = t[m ^ low] + values[low.bit_length() - 1]
    return tuple(t)


_CONSTS: dict[tuple[RuleTable, bool], _Consts] = {}


def _consts(table: RuleTable, players: int) -> _Consts:
    key = (table, players == 2)
    got = _CONSTS.get(key)
    if got is None:
        got = _CONSTS[key] = _Consts(table, players == 2)
    return got


def _mask_value(m: int, t: Sequence[Sequence[int]]) -> int:
    return (t[0][m & _LOW13] + t[1][m >> 13 & _LOW13] + t[2][m >> 26 & _LOW13]
            + t[3][m >> 39])


# ------------------------------------------------------------------------ public API


def playout(rnd: Round, rng: _random.Random, policy: Policy = Policy.GREEDY, *,
            max_decisions: int = MAX_DECISIONS) -> list[int]:
    """Play ``rnd`` to its end with ``policy``; return the round points per seat.

    The points equal what :meth:`Round.points` would give (table rules: hand values;
    classic: the winner collects; countdown: zeros). ``rnd`` must show every card
    (no ``None`` in a hand) and hold an :class:`~p2p8s.engine.OrderedDeck`; it is not
    modified. Reshuffles use ``rng`` (see the module docstring). Raises MalformedInput
    for a round with hidden cards or another kind of deck. A round still running after
    ``max_decisions`` actions is scored as blocked (module docstring, "Step cap").
    """
    return playout_result(rnd, rng, policy, max_decisions=max_decisions).points


def playout_result(rnd: Round, rng: _random.Random, policy: Policy = Policy.GREEDY,
                   trace: list[TraceStep] | None = None, *,
                   max_decisions: int = MAX_DECISIONS) -> Outcome:
    """Like :func:`playout`, but return the whole :class:`Outcome`.

    With ``trace`` (a list), every applied action is appended to it as a
    :data:`TraceStep` (slower; for tests and debugging). ``max_decisions`` is the
    step cap (module docstring); it must be positive.
    """
    if max_decisions < 1:
        raise ValueError("max_decisions must be positive")
    n = rnd.players
    if rnd.ended_by is not None:
        return Outcome(rnd.points(), rnd.ended_by, rnd.winner, 0, False, rnd.loser)
    deck = rnd.deck
    if not isinstance(deck, OrderedDeck):
        raise MalformedInput(PlayoutCode.STOCK_UNKNOWN)
    h1 = [0] * n
    h2 = [0] * n
    for s, hand in enumerate(rnd.hands):
        a = b = 0
        for c in hand:
            if c is None:
                raise MalformedInput(PlayoutCode.HAND_HIDDEN)
            bit = 1 << c
            if a & bit:
                b |= bit
            else:
                a |= bit
        h1[s], h2[s] = a, b
    stock: list[int] = list(deck.top_first())
    stock.reverse()  # top at the end
    discard: list[int] = list(rnd.discard)
    top = discard[-1]
    last = -1 if rnd.last_drawn is None else int(rnd.last_drawn)
    table = rnd.rules.rule_table
    if _house(table):
        return run_house(
            rnd.rules, table, n, h1, h2, stock, discard, int(rnd.suit), rnd.declared,
            rnd.turn, rnd.direction, rnd.pending_draw, rnd.drawn, last, rnd.passes,
            list(rnd.wild), rnd.pending_skip,
            -1 if rnd.bounce_seat is None else rnd.bounce_seat, rnd.nopick, rnd.picking,
            list(rnd.air), rng, int(policy), trace, max_decisions)
    acc = _SUIT_MASK[rnd.suit] if rnd.declared else _SUIT_MASK[rnd.suit] | _RANK_MASK[_RANK[top]]
    return _run(rnd.rules, n, h1, h2, stock, discard, acc, rnd.turn, rnd.direction,
                rnd.pending_draw, rnd.drawn, last, rnd.passes, list(rnd.wild),
                rng, policy, trace, max_decisions)


def deal_state(rules: Ruleset, players: int, dealer: int, order: Sequence[int],
               sizes: Sequence[int] | None = None) -> tuple[list[list[int]], list[int], list[int]]:
    """Deal from ``order`` (top first) like :meth:`Round.deal`: R-DEALORDER, R-STARTER.

    Returns ``(hands, stock, discard)``: hands as card lists per seat, the stock with
    its top at the *end*, the discard pile (the starter); the cards are the items of
    ``order`` (ints or :class:`~p2p8s.cards.Card`). ``sizes`` gives one hand size
    per seat (default R-HAND; countdown: 8 each). Raises MalformedInput if the deck is
    too small or holds no allowed starter.
    """
    check_players(players)
    if sizes is None:
        sizes = deal_sizes(rules, players)
    dealt = sum(sizes)
    if len(order) < dealt + 1:
        raise MalformedInput(EngineCode.DECK_TOO_SMALL, cards=len(order), needed=dealt + 1)
    hands: list[list[int]] = [[] for _ in range(players)]
    for seat, card in zip(deal_order(sizes, dealer), order, strict=False):
        hands[seat].append(card)
    stock = list(order[:dealt - 1:-1] if dealt else order[::-1])
    pop = stock.pop
    starter_ok = _consts(rules.rule_table, players).starter
    for _ in range(len(stock) + 1):
        starter = pop()
        if starter_ok[starter]:
            break
        # bury at bury_index from the top; the list's top is its end
        stock.insert(len(stock) - bury_index(len(stock)), starter)
    else:
        raise MalformedInput(EngineCode.NO_STARTER)
    return hands, stock, [starter]


def bench_round(rules: Ruleset, players: int, dealer: int, order: Sequence[int],
                rng: _random.Random, policy: Policy = Policy.RANDOM) -> tuple[int, list[int]]:
    """Deal a round from ``order`` (top first) and play it out; for the benchmark.

    Returns ``(decisions, points)``: the number of applied actions and the round
    points per seat. Countdown deals 8 cards each with 8s wild (a match's first round).
    """
    return bench_result(rules, players, dealer, order, rng, policy)[:2]


def bench_result(rules: Ruleset, players: int, dealer: int, order: Sequence[int],
                 rng: _random.Random, policy: Policy = Policy.RANDOM,
                 trace: list[TraceStep] | None = None) -> tuple[int, list[int], Outcome]:
    """:func:`bench_round` with the whole :class:`Outcome` as a third item (and an
    optional ``trace``, see :func:`playout_result`)."""
    hands, stock, discard = deal_state(rules, players, dealer, order)
    h1 = [0] * players
    h2 = [0] * players
    for s, hand in enumerate(hands):
        a = b = 0
        for c in hand:
            bit = 1 << c
            if a & bit:
                b |= bit
            else:
                a |= bit
        h1[s], h2[s] = a, b
    top = discard[0]
    table = rules.rule_table
    wild = [table.wild_rank] * players
    if _house(table):
        out = run_house(
            rules, table, players, h1, h2, stock, discard, top // 13, False,
            (dealer + 1) % players, 1, 0, 0, -1, 0, wild, 0, -1, False, False,
            [False] * players, rng, int(policy), trace, MAX_DECISIONS)
        return out.decisions, out.points, out
    out = _run(rules, players, h1, h2, stock, discard, _ACCEPT[top], (dealer + 1) % players,
               1, 0, 0, -1, 0, wild, rng, policy, trace, MAX_DECISIONS)
    return out.decisions, out.points, out


# ------------------------------------------------------------------------ the loop


@lru_cache(maxsize=16)
def _house(table: RuleTable) -> bool:
    """True for a table with rules of RULES.md §11 (wildcards, zimbabwe): those rounds
    are played by :func:`p2p8s.playout_house.run_house`."""
    return (table.jokers or table.counter_match or table.skip_counters or table.lucky
            or any(r.choices or r.block or r.fits_any for r in table.cards))


def _run(rules: Ruleset, n: int, h1: list[int], h2: list[int], stock: list[int],
         discard: list[int], acc: int, turn: int, direction: int, pending: int,
         drawn: int, last: int, passes: int, wild: list[int], rng: _random.Random,
         policy: Policy, trace: list[TraceStep] | None, cap: int) -> Outcome:
    """Play to the end, or until ``cap`` actions were applied (then score as blocked).
    Mutates the given lists. ``acc``: cards matching the top card (suit, plus its rank
    unless a suit was declared); ``last``: the card drawn this turn (-1 if none)."""
    random = rng.random
    shuffle = rng.shuffle
    multi = rules.multi_play
    limit = rules.draw_limit
    reshuffle = rules.reshuffle
    smart = policy == Policy.SMART
    greedy = policy == Policy.GREEDY or smart
    k_ = _consts(rules.rule_table, n)
    groups = k_.groups
    attackers = k_.attackers
    ACTION = k_.action  # cards with an effect (R-TWO, R-QUEEN, R-ACE)
    PENALTY = k_.penalty
    SKIP = k_.skip
    REVERSE = k_.reverse
    two = any(h2) or len(stock) + len(discard) + sum(m.bit_count() for m in h1) > 52
    RM = _RANK_MASK
    SM = _SUIT_MASK
    RANK = _RANK
    SUIT = _SUIT
    COUNTERS = k_.counters
    ACCEPT = _ACCEPT
    wm = [RM[w] for w in wild]
    decisions = 0
    winner = -1
    capped = False
    pop = stock.pop
    while True:
        if decisions >= cap:
            capped = True  # the step cap: score as a blocked round (module docstring)
            break
        seat = turn
        h = h1[seat]
        c = -1  # the first card to play, if any
        if pending:
            m = h & COUNTERS
            if m:
                k = m.bit_count()
                if k > 1:
                    k = int(random() * k)
                    while k:
                        m &= m - 1
                        k -= 1
                c = (m & -m).bit_length() - 1
            else:
                # R-COUNTER: take the penalty, reshuffling as needed
                got: list[int] = []
                for _ in range(pending):
                    if not stock:
                        if reshuffle and len(discard) > 1:
                            _refill(stock, discard, shuffle)
                        else:
                            break
                    d = pop()
                    bit = 1 << d
                    if h & bit:
                        h2[seat] |= bit
                    else:
                        h |= bit
                    if trace is not None:
                        got.append(d)
                h1[seat] = h
                if trace is not None:
                    trace.append((seat, "take", tuple(got), None))
                decisions += 1
                pending = 0
                passes = 0
                turn = (turn + direction) % n
                continue
        else:
            w = wm[seat]
            if drawn:
                # resume a turn that already drew: the drawn card or nothing
                m = 0
                if (acc | w) >> last & 1:
                    c = last
            else:
                m = h & (acc | w)
            if m:
                if smart and m & ~w:
                    p = m & ~w
                    if ACTION:
                        if m & w and min((h1[s].bit_count() + h2[s].bit_count()
                                          if s != seat else 99) for s in range(n)) <= 1:
                            p = m  # dump the wild (50 points) before someone goes out
                        elif p & attackers:
                            nx = (seat + direction) % n
                            if h1[nx].bit_count() + h2[nx].bit_count() <= 2:
                                p &= attackers
                    for g in groups:
                        if p & g:
                            p &= g
                            break
                    k = p.bit_count()
                    if k > 1:
                        k = int(random() * k)
                        while k:
                            p &= p - 1
                            k -= 1
                    m = p
                elif greedy and m & ~w:
                    m &= ~w
                    k = m.bit_count()
                    if k > 1:
                        k = int(random() * k)
                        while k:
                            m &= m - 1
                            k -= 1
                elif greedy:
                    pass  # only wilds: the lowest
                else:
                    k = m.bit_count()
                    if k > 1:
                        k = int(random() * k)
                        while k:
                            m &= m - 1
                            k -= 1
                c = (m & -m).bit_length() - 1
            elif c < 0:
                # R-DRAW: draw one at a time while nothing is playable and allowed
                while not limit or drawn < limit:
                    if not stock:
                        if reshuffle and len(discard) > 1:
                            _refill(stock, discard, shuffle)
                        else:
                            break
                    d = pop()
                    bit = 1 << d
                    if h & bit:
                        h2[seat] |= bit
                    else:
                        h |= bit
                    drawn += 1
                    decisions += 1
                    passes = 0
                    if trace is not None:
                        trace.append((seat, "draw", (d,), None))
                    if (acc | w) >> d & 1:
                        c = d
                        break
                if c < 0:
                    # R-PASS
                    h1[seat] = h
                    if trace is not None:
                        trace.append((seat, "pass", (), None))
                    decisions += 1
                    turn = (turn + direction) % n
                    if drawn:
                        passes = 0
                        drawn = 0
                    else:
                        passes += 1
                        if passes >= n:
                            break  # R-BLOCKED
                    continue
        # ---- play c (and, GREEDY with multi_play, every other card of its rank)
        bit = 1 << c
        if two and h2[seat] & bit:
            h2[seat] ^= bit
        else:
            h ^= bit
        rank = RANK[c]
        k = 1
        lastc = c
        cards: tuple[int, ...] = (c,)
        if greedy and multi and rank != wild[seat] and h & RM[rank]:
            same = h & RM[rank]
            more: list[int] = []
            while same:
                b = same & -same
                d = b.bit_length() - 1
                more.append(d)
                if two and h2[seat] & b:
                    more.append(d)
                    h2[seat] ^= b
                same ^= b
                h ^= b
            # end on the card whose suit the rest of the hand holds most of
            best = -1
            for d in more:
                sm = SM[SUIT[d]]
                cnt = (h & sm).bit_count() + (h2[seat] & sm).bit_count()
                if cnt > best:
                    best = cnt
                    lastc = d
            more.remove(lastc)
            cards = (c, *more, lastc)
            k = len(cards)
            discard.extend(cards)
        else:
            discard.append(c)
        h1[seat] = h
        decisions += 1
        drawn = 0
        passes = 0
        if not h:
            winner = seat  # R-OUT: no declaration, effects lapse
            if trace is not None:
                trace.append((seat, "play", cards, None))
            break
        if rank == wild[seat]:
            # R-EIGHT: declare a suit
            if greedy:
                best = -1
                decl = 0
                for s in range(4):
                    sm = SM[s]
                    cnt = (h & sm).bit_count() + (h2[seat] & sm).bit_count()
                    if cnt > best:
                        best = cnt
                        decl = s
            else:
                decl = int(random() * 4)
            acc = SM[decl]
            if trace is not None:
                trace.append((seat, "play", cards, decl))
        else:
            acc = ACCEPT[lastc]
            if trace is not None:
                trace.append((seat, "play", cards, None))
        if ACTION >> c & 1 or (k > 1 and ACTION & _mask(cards)):
            # R-NEXT from the rule table: each card's penalty, skips and reverses count
            steps = 1
            flips = 0
            for d in cards:
                pending += PENALTY[d]
                steps += SKIP[d]
                flips += REVERSE[d]
            if flips & 1:
                direction = -direction
            turn = (turn + direction * steps) % n
        else:
            turn = (turn + direction) % n
    # ---- scoring (R-PTS-TABLE, R-PTS-CLASSIC, R-BLOCKED-CLASSIC, R-COUNTDOWN)
    if winner >= 0:
        ended_by = EndedBy.OUT
    else:
        ended_by = EndedBy.BLOCKED
    t = k_.values13
    values = [_mask_value(h1[s], t) + _mask_value(h2[s], t) for s in range(n)]
    points = round_points(rules, values, winner if winner >= 0 else None)
    return Outcome(points, ended_by, winner if winner >= 0 else None, decisions, capped)
