"""The fast playout loop for the rule tables of RULES.md §11 (wildcards, zimbabwe).

:mod:`p2p8s.playout` plays table, classic and countdown rounds on bit masks; a rule
table with §11 turn rules (jokers, matching counters, counterable skips, declared
choices, blocks, the lucky card, pick-and-play, in the air, the round's loser) is
played here, on the same representation widened to 56 bits (bits ``52..55`` are the
jokers ``X1..X4``, R-ZW-DECK) and with the engine's extra turn state: the pending skip
(R-ZW-SEVEN), the bounce seat (R-ZW-JACK), ``nopick`` and pick-and-play
(R-ZW-PICKPLAY), the seats in the air (R-ZW-OUT), and at the end the air draws and the
loser's tie draws (R-ZW-SCORE). It implements exactly :class:`p2p8s.engine.Round`'s
rules for every knob of a :class:`~p2p8s.rules.Ruleset`; ``tests/test_playout.py``
checks transcripts against the engine action for action.

The policies are those of :mod:`p2p8s.playout` (the first card, the suit, shedding a
rank, the random choices and their order), with these additions:

* facing a pending skip: a random skip card if held (R-ZW-SEVEN), else the missed turn
  (a pass); facing a penalty: a random counter (a card that adds to it or blocks it,
  fitting the top card with R-WC-PENALTY), else the lucky card if it may be turned
  (RANDOM: when ``rng.random() < 0.5``; GREEDY and SMART: when the penalty is over 2),
  else take; after taking, a playable card if any (pick and play), else pass;
* a play never mixes a wild card with another (one 8 per play, R-ZW-DRAW), and under a
  penalty sheds only counters of the rank;
* declarations, after the suit: a card with choices (the 4 of R-WC-SKIP, the J of
  R-ZW-JACK) takes ``choices[int(rng.random() * len(choices))]``; a card that may be
  declared ``nopick`` is (GREEDY, SMART), or is when ``rng.random() < 0.5`` (RANDOM);
  a play that ends the round declares nothing (R-OUT).

Trace steps (:data:`p2p8s.playout.TraceStep`) are those of :mod:`p2p8s.playout`; a
play with a declared choice has kind ``play!<choice>`` (``play!reverse``), and the
lucky card (R-ZW-LUCKY) is kind ``lucky`` with the turned card first, then the
penalty cards taken with it.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable, Sequence

from p2p8s.actions import EndedBy
from p2p8s.playout_bits import RANK_MASK as _RANK_MASK
from p2p8s.playout_bits import SUIT_MASK as _SUIT_MASK
from p2p8s.playout_bits import Outcome
from p2p8s.playout_bits import mask as _mask
from p2p8s.playout_bits import refill as _refill
from p2p8s.rules import Ruleset, round_points
from p2p8s.ruletable import CARD_INDICES, Declare, RuleTable

#: One recorded action: ``(seat, kind, cards, suit)`` (see the module docstring).
Step = tuple[int, str, tuple[int, ...], int | None]

_N = CARD_INDICES
#: the rank-match mask of each card (a joker matches no rank, R-ZW-DECK)
_SAME: tuple[int, ...] = tuple(_RANK_MASK[c % 13 + 1] if c < 52 else 0 for c in range(_N))
_SUIT: tuple[int, ...] = tuple(c // 13 if c < 52 else -1 for c in range(_N))
_RANK: tuple[int, ...] = tuple(c % 13 + 1 if c < 52 else 0 for c in range(_N))

#: per card, for one declaration: (penalty, skips, reverses, block, bounce)
_Eff = tuple[int, int, int, bool, bool]


class HouseConsts:
    """One §11 rule table as the loop reads it, for 2 players or more (a reverse is a
    skip with two, R-ACE, R-WC-SKIP, R-ZW-JACK): per card and declaration its effect
    (R-NEXT); masks of the counters, the skip cards, the cards that fit anything, the
    special cards, the action cards, SMART's attackers; per card the cards it accepts
    besides R-MATCH, its choices, its value; the value groups, dearest first."""

    __slots__ = ("accepts", "action", "attackers", "choices", "counters", "eff", "fits_any",
                 "groups", "nopick", "skippers", "special", "starter", "values")

    def __init__(self, table: RuleTable, players: int) -> None:
        cards = range(_N)
        self.eff: dict[Declare | None, tuple[_Eff, ...]] = {}
        for d in (None, *Declare):
            effects = [table.effect((c,), players, d) for c in cards]
            self.eff[d] = tuple((e.penalty, e.skips, e.reverses, e.block, e.bounce)
                                for e in effects)
        rules = [table.rule(c) for c in cards]
        self.counters = _mask([c for c in cards if table.counters(c)])
        self.skippers = _mask([c for c in cards if rules[c].skip])
        self.fits_any = _mask([c for c in cards if rules[c].fits_any])
        self.special = _mask([c for c in cards if rules[c].special])
        self.action = _mask([c for c in cards if rules[c].action])
        self.attackers = _mask([c for c in cards if self.eff[None][c][0] or self.eff[None][c][1]])
        self.accepts = tuple(_mask([d for d in range(52) if _RANK[d] in rules[c].accepts])
                             for c in cards)
        self.choices = tuple(rules[c].choices for c in cards)
        self.nopick = _mask([c for c in cards if rules[c].nopick and not rules[c].choices])
        self.starter = tuple(table.starter(c) for c in cards)
        self.values = tuple(table.value(c) for c in cards)
        by: dict[int, int] = {}
        for c in cards:
            by[self.values[c]] = by.get(self.values[c], 0) | 1 << c
        self.groups = tuple(by[v] for v in sorted(by, reverse=True))


_CONSTS: dict[tuple[RuleTable, bool], HouseConsts] = {}


def house_consts(table: RuleTable, players: int) -> HouseConsts:
    """The cached :class:`HouseConsts` of ``table`` (heads-up or not)."""
    key = (table, players == 2)
    got = _CONSTS.get(key)
    if got is None:
        got = _CONSTS[key] = HouseConsts(table, players)
    return got


def _value(m: int, values: Sequence[int]) -> int:
    v = 0
    while m:
        b = m & -m
        v += values[b.bit_length() - 1]
        m ^= b
    return v


def _pick(m: int, random: Callable[[], float]) -> int:
    """A random card of the mask ``m`` (``int(random() * k)`` for ``k > 1`` cards,
    ascending), as its index."""
    k = m.bit_count()
    if k > 1:
        k = int(random() * k)
        while k:
            m &= m - 1
            k -= 1
    return (m & -m).bit_length() - 1


def run_house(rules: Ruleset, table: RuleTable, n: int, h1: list[int], h2: list[int],
              stock: list[int], discard: list[int], suit: int, declared: bool, turn: int,
              direction: int, pending: int, drawn: int, last: int, passes: int,
              wild: Sequence[int], pskip: int, bounce: int, nopick: bool, picking: bool,
              air: list[bool], rng: _random.Random, policy: int, trace: list[Step] | None,
              cap: int) -> Outcome:
    """Play a §11 round to its end, or until ``cap`` actions were applied (then it is
    scored as blocked, without the end draws). Mutates the given lists. ``rules`` is
    the :class:`~p2p8s.rules.Ruleset` (its knobs and scoring); ``suit``/``declared``
    the active suit; ``last`` the card drawn this turn (-1: none); ``pskip`` the
    pending skips; ``bounce`` the bounce seat (-1: none); ``policy`` a
    :class:`~p2p8s.playout.Policy` value (0 RANDOM, 1 GREEDY, 2 SMART)."""
    random = rng.random
    shuffle = rng.shuffle
    multi = rules.multi_play
    limit = rules.draw_limit
    reshuffle = rules.reshuffle
    dwp = rules.draw_when_playable
    smart = policy == 2
    greedy = policy == 1 or smart
    k_ = house_consts(table, n)
    EFF = k_.eff
    E0 = EFF[None]
    COUNTERS = k_.counters
    SKIPPERS = k_.skippers
    FA = k_.fits_any
    SPECIAL = k_.special
    ACCEPTS = k_.accepts
    CHOICES = k_.choices
    NOPICK = k_.nopick
    groups = k_.groups
    attackers = k_.attackers
    ACTION = k_.action
    counter_match = table.counter_match
    skip_counters = table.skip_counters
    wow_declares = table.wild_on_wild_declares
    lucky_ok = table.lucky
    pick_play = table.pick_play
    in_air = table.in_the_air
    SM = _SUIT_MASK
    SAME = _SAME
    SUIT = _SUIT
    RANK = _RANK
    wm = [_RANK_MASK[w] for w in wild]
    two = any(h2) or len(stock) + len(discard) + sum(m.bit_count() for m in h1) > 54
    pop = stock.pop
    decisions = 0
    winner = -1
    capped = False
    top = discard[-1]
    acc = SM[suit] | ACCEPTS[top] | FA | (0 if declared else SAME[top])
    while True:
        if decisions >= cap:
            capped = True
            break
        seat = turn
        h = h1[seat]
        w = wm[seat]
        c = -1
        if pskip:
            # R-ZW-SEVEN: a skip card of one's own, or the missed turn
            m = h & SKIPPERS
            if m:
                c = _pick(m, random)
            else:
                pskip -= 1
                kind = "pass"
                passes = 0
        elif pending:
            # R-COUNTER, R-WC-PENALTY, R-ZW-PENALTY
            m = h & COUNTERS
            if counter_match:
                m &= acc | w
            if m:
                c = _pick(m, random)
            else:
                kind = "take"
                count = pending
                if lucky_ok and (stock or (reshuffle and len(discard) > 1)) and (
                        random() < 0.5 if not greedy else pending > 2):
                    # R-ZW-LUCKY: turn the stock's top card
                    kind = "lucky"
                    if not stock:
                        _refill(stock, discard, shuffle)
                    d = stock[-1]
                    e = E0[d]
                    if e[3] or e[0]:  # an ace blocks, a penalty card adds: played
                        discard.append(pop())
                        top = d
                        if d < 52:
                            suit = d // 13
                        declared = False
                        acc = SM[suit] | ACCEPTS[top] | FA | SAME[top]
                        pending = 0 if e[3] else pending + e[0]
                        nopick = False
                        passes = 0
                        count = -1
                        got = [d]
                    else:
                        count += 1  # taken with the penalty
                if count >= 0:
                    # take the penalty (what there is), reshuffling as needed
                    got = []
                    for _ in range(count):
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
                        got.append(d)
                    h1[seat] = h
                    if got:
                        air[seat] = False
                    pending = 0
                    passes = 0
                    if pick_play and not nopick and (h or h2[seat]):
                        c = -3  # R-ZW-PICKPLAY: the same seat may play one card
                        picking = True
                    nopick = False
        else:
            if drawn and not dwp:
                m = 0
                if (acc | w) >> last & 1:
                    c = last
            else:
                m = h & (acc | w)
            if m:
                if smart and m & ~w:
                    p = m & ~w
                    if m & w and min((h1[s].bit_count() + h2[s].bit_count()
                                      if s != seat else 99) for s in range(n)) <= 1:
                        p = m  # dump the wild before someone goes out
                    elif p & attackers:
                        nx = (seat + direction) % n
                        if h1[nx].bit_count() + h2[nx].bit_count() <= 2:
                            p &= attackers
                    for g in groups:
                        if p & g:
                            p &= g
                            break
                    c = _pick(p, random)
                elif greedy and m & ~w:
                    c = _pick(m & ~w, random)
                elif greedy:
                    c = (m & -m).bit_length() - 1  # only wilds: the lowest
                else:
                    c = _pick(m, random)
            elif c < 0:
                kind = "pass"
                if picking:
                    passes = 0  # no pick and play: the turn ends
                else:
                    # R-DRAW, R-DRAW-ANY: draw while nothing fits and it is allowed
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
                        air[seat] = False
                        if trace is not None:
                            trace.append((seat, "draw", (d,), None))
                        if (acc | w) >> d & 1:
                            c = d
                            break
                    h1[seat] = h
                    if c < 0:  # R-PASS
                        passes = 0 if drawn else passes + 1
        if c < 0:
            # the turn ends without a play: a pass, a missed turn, a take, the lucky card
            decisions += 1
            if trace is not None:
                trace.append((seat, kind, () if kind == "pass" else tuple(got), None))
            if c == -3:
                continue  # pick and play
            drawn = 0
            picking = False
            if bounce == seat:
                direction = -direction
                bounce = -1
            turn = (turn + direction) % n
            if passes >= n:
                break  # R-BLOCKED
            continue
        # ---- play c (GREEDY, SMART with multi_play: every other card of its rank)
        bit = 1 << c
        if two and h2[seat] & bit:
            h2[seat] ^= bit
        else:
            h ^= bit
        lastc = c
        cards: tuple[int, ...] = (c,)
        is_wild = RANK[c] == wild[seat]
        same = h & SAME[c]
        if pending:
            same &= COUNTERS
        if greedy and multi and same and not picking and not is_wild:
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
            best = -1
            for d in more:
                sm = SM[SUIT[d]]
                cnt = (h & sm).bit_count() + (h2[seat] & sm).bit_count()
                if cnt > best:
                    best = cnt
                    lastc = d
            more.remove(lastc)
            cards = (c, *more, lastc)
            discard.extend(cards)
        else:
            discard.append(c)
        h1[seat] = h
        decisions += 1
        drawn = 0
        passes = 0
        picking = False
        cm = bit if len(cards) == 1 else _mask(cards)
        empty = not (h or h2[seat])
        if empty and (not in_air or not (SPECIAL >> top & 1 or SPECIAL & cm)):
            winner = seat  # R-OUT, R-ZW-OUT: no declaration, effects lapse
            pending = pskip = 0
            if trace is not None:
                trace.append((seat, "play", cards, None))
            break
        air[seat] = empty  # R-ZW-OUT: in the air
        decl = None
        if is_wild and (wow_declares or not declared or RANK[top] != wild[seat]):
            # R-EIGHT: declare a suit (R-ZW-EIGHT: not on a declared 8)
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
            suit = decl
            declared = True
        elif not FA >> lastc & 1:
            if lastc < 52:
                suit = SUIT[lastc]
            declared = False
        top = lastc
        acc = SM[suit] | ACCEPTS[top] | FA | (0 if declared else SAME[top])
        choice: Declare | None = None
        opts = CHOICES[c]
        if opts:
            choice = opts[int(random() * len(opts))] if len(opts) > 1 else opts[0]
        elif NOPICK >> c & 1 and (greedy or random() < 0.5):
            choice = Declare.NOPICK
        if trace is not None:
            trace.append((seat, "play" if choice is None else "play!" + choice, cards, decl))
        if ACTION & cm:
            eff = EFF[choice] if choice is not None else E0
            pen = skips = revs = 0
            blk = bnc = False
            for d in cards:
                e = eff[d]
                pen += e[0]
                skips += e[1]
                revs += e[2]
                blk = blk or e[3]
                bnc = bnc or e[4]
            if blk and pending:
                pending = 0  # R-ZW-PENALTY: an ace blocks
            if pen:
                pending += pen
                nopick = choice is Declare.NOPICK
            if revs & 1:
                direction = -direction
            steps = 1
            if skip_counters:
                pskip = skips
            else:
                steps += skips
        else:
            steps = 1
            bnc = False
            if skip_counters:
                pskip = 0
        if bounce == seat:
            direction = -direction
            bounce = -1
        turn = (turn + direction * steps) % n
        if bnc:
            bounce = turn  # R-ZW-JACK: back after this seat's turn
    # ---- the end: in the air draws, the loser (R-ZW-OUT, R-ZW-SCORE); scoring
    values = k_.values
    loser: int | None = None
    if not capped and (in_air or table.loser):
        for s in range(n):
            if air[s] and (stock or (reshuffle and len(discard) > 1)):
                if not stock:
                    _refill(stock, discard, shuffle)
                _give(h1, h2, s, pop())
            air[s] = False
        if table.loser:
            while True:
                vals = [_value(h1[s], values) + _value(h2[s], values) for s in range(n)]
                high = max(vals)
                tied = [s for s in range(n) if vals[s] == high]
                if len(tied) == 1:
                    loser = tied[0]
                    break
                if not (stock or (reshuffle and len(discard) > 1)):
                    break
                for s in tied:
                    if stock or (reshuffle and len(discard) > 1):
                        if not stock:
                            _refill(stock, discard, shuffle)
                        _give(h1, h2, s, pop())
    vals = [_value(h1[s], values) + _value(h2[s], values) for s in range(n)]
    won = winner if winner >= 0 else None
    ended_by = EndedBy.OUT if won is not None else EndedBy.BLOCKED
    return Outcome(round_points(rules, vals, won), ended_by, won, decisions, capped, loser)


def _give(h1: list[int], h2: list[int], seat: int, card: int) -> None:
    bit = 1 << card
    if h1[seat] & bit:
        h2[seat] |= bit
    else:
        h1[seat] |= bit

