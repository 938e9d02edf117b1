"""The fast playout path is rule-identical to the engine (p2p8s.playout vs p2p8s.engine).

Both sides play the same policy from one seeded choice stream: the engine side picks
among the first cards of :meth:`Round.legal_actions` (distinct, ascending) with
``int(rng.random() * k)`` exactly where the fast path does, and the engine's deck
reshuffles with ``rng.shuffle`` on the same discards. Transcripts, points, the way the
round ended and the winner must be identical, for every rules knob of RULES.md §2,
and for the presets of RULES.md §11 (p2p8s.playout_house: declared choices, the lucky
card, pick-and-play, in the air and the loser too).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import product

import pytest

from p2p8s.cards import Card, Suit, decks_for, standard_deck
from p2p8s.cli.words.rules import describe_rules
from p2p8s.effects import ends_round, wild_on_wild
from p2p8s.engine import (
    DRAW,
    LUCKY,
    PASS,
    TAKE,
    Action,
    Declare,
    Draw,
    EndedBy,
    Event,
    Lucky,
    OrderedDeck,
    Pass,
    Play,
    Round,
    Take,
)
from p2p8s.errors import MalformedInput
from p2p8s.playout import (
    MAX_DECISIONS,
    Outcome,
    Policy,
    TraceStep,
    bench_result,
    bench_round,
    deal_state,
    playout,
    playout_result,
)
from p2p8s.rules import Ruleset, Variant, round_points

# ------------------------------------------------------------------ the engine side


class _Box:
    """The rng the engine's reshuffler uses (set when a lockstep run starts)."""

    rng: random.Random = random.Random(0)


def _deck(order: Sequence[Card], box: _Box) -> OrderedDeck:
    def reshuffle(cards: Sequence[Card]) -> list[Card]:
        new = list(cards)
        box.rng.shuffle(new)
        return new

    return OrderedDeck(order, reshuffle)


def _pick(cands: list[Card], rng: random.Random) -> Card:
    return cands[int(rng.random() * len(cands))] if len(cands) > 1 else cands[0]


def _suit_counts(rest: list[Card]) -> list[int]:
    counts = [0, 0, 0, 0]
    for c in rest:
        if c.suit is not None:
            counts[c.suit] += 1
    return counts


def _play(r: Round, first: Card, policy: Policy, rng: random.Random) -> Play:
    """The play of the playouts' policy starting with ``first`` (R-MULTI, R-EIGHT, the
    declarations of RULES.md §11)."""
    seat = r.turn
    table = r.rules.rule_table
    hand = [c for c in r.hands[seat] if c is not None]
    rest = list(hand)
    rest.remove(first)
    wild = first.rank == r.wild[seat]
    cards: tuple[Card, ...] = (first,)
    if (policy != Policy.RANDOM and r.rules.multi_play and not r.picking and not wild
            and first.rank is not None):
        same = sorted(c for c in rest if c.rank == first.rank
                      and (not r.pending_draw or table.counters(c)))
        if same:
            for c in same:
                rest.remove(c)
            counts = _suit_counts(rest)
            last = max(same, key=lambda c: (counts[c // 13], -c))
            same.remove(last)
            cards = (first, *same, last)
    if ends_round(r, seat, cards):
        return Play(cards)
    suit: Suit | None = None
    if wild and not wild_on_wild(r, seat):
        if policy != Policy.RANDOM:
            counts = _suit_counts(rest)
            suit = Suit(counts.index(max(counts)))
        else:
            suit = Suit(int(rng.random() * 4))
    rule = table.rule(first)
    declare: Declare | None = None
    if rule.choices:
        k = len(rule.choices)
        declare = rule.choices[int(rng.random() * k)] if k > 1 else rule.choices[0]
    elif rule.nopick and (policy != Policy.RANDOM or rng.random() < 0.5):
        declare = Declare.NOPICK
    return Play(cards, suit, declare)


def _smart_first(r: Round, firsts: list[Card], rng: random.Random) -> Card:
    """SMART: the most expensive plain card (attack / wild dump with action cards)."""
    seat, n = r.turn, r.players
    w = r.wild[seat]
    plain = [c for c in firsts if c.rank != w]
    if not plain:
        return firsts[0]
    cands = plain
    table = r.rules.rule_table
    if any(table.rule(c).action for c in range(52)):
        sizes = [len(h) for h in r.hands]

        def attack(c: Card) -> bool:  # a penalty or a skip hits the next player (R-ACE)
            effect = table.effect((c,), n)
            return bool(effect.penalty or effect.skips)

        if len(plain) < len(firsts) and min(sizes[s] for s in range(n) if s != seat) <= 1:
            cands = firsts
        elif sizes[(seat + r.direction) % n] <= 2 and any(attack(c) for c in plain):
            cands = [c for c in plain if attack(c)]
    value = r.rules.rule_table.value
    top = max(value(c) for c in cands)
    return _pick([c for c in cands if value(c) == top], rng)


def engine_choose(r: Round, policy: Policy, rng: random.Random) -> Action:
    """The policy of :mod:`p2p8s.playout` and :mod:`p2p8s.playout_house`, on the
    engine's legal actions."""
    legal = r.legal_actions()
    firsts = sorted({a.cards[0] for a in legal if isinstance(a, Play)})
    if r.pending_skip or r.pending_draw:
        if firsts:
            action: Action = _play(r, _pick(firsts, rng), policy, rng)
        elif r.pending_skip:
            action = PASS
        elif LUCKY in legal and (rng.random() < 0.5 if policy == Policy.RANDOM
                                 else r.pending_draw > 2):
            action = LUCKY
        else:
            action = TAKE
    elif firsts:
        if policy == Policy.SMART:
            first = _smart_first(r, firsts, rng)
        elif policy == Policy.GREEDY:
            w = r.wild[r.turn]
            plain = [c for c in firsts if c.rank != w]
            first = _pick(plain, rng) if plain else firsts[0]
        else:
            first = _pick(firsts, rng)
        action = _play(r, first, policy, rng)
    else:
        action = DRAW if DRAW in legal else PASS
    assert r.canonical(action) in legal, (action, legal)
    return action


def _plain_step(event_action: Action, seat: int, drawn: tuple[Card | None, ...]) -> TraceStep:
    a = event_action
    if isinstance(a, Play):
        return (seat, "play", tuple(int(c) for c in a.cards),
                None if a.suit is None else int(a.suit))
    got = tuple(int(c) for c in drawn if c is not None)
    if isinstance(a, Draw):
        return (seat, "draw", got, None)
    if isinstance(a, Take):
        return (seat, "take", got, None)
    assert isinstance(a, Pass)
    return (seat, "pass", (), None)


def _step(ev: Event) -> TraceStep:
    a = ev.action
    if isinstance(a, Play):
        kind = "play" if a.declare is None else f"play!{a.declare}"
        return (ev.seat, kind, tuple(int(c) for c in a.cards),
                None if a.suit is None else int(a.suit))
    if isinstance(a, Lucky):
        assert ev.lucky is not None
        got = tuple(int(c) for c in ev.drawn if c is not None) or (int(ev.lucky),)
        return (ev.seat, "lucky", got, None)
    return _plain_step(a, ev.seat, ev.drawn)


def engine_run(r: Round, policy: Policy, rng: random.Random, box: _Box,
              cap: int = MAX_DECISIONS) -> tuple[list[TraceStep], Outcome]:
    """Play ``r`` through Round.apply to its end, or ``cap`` actions (then scored as
    blocked, as the playouts' step cap); the transcript and the outcome."""
    box.rng = rng
    trace: list[TraceStep] = []
    for _ in range(cap):
        if r.over:
            break
        trace.append(_step(r.apply(engine_choose(r, policy, rng))))
    if not r.over:
        values = [r.hand_value(s) for s in range(r.players)]
        return trace, Outcome(round_points(r.rules, values, None), EndedBy.BLOCKED, None,
                              len(trace), True)
    assert r.ended_by is not None
    return trace, Outcome(r.points(), r.ended_by, r.winner, len(trace), False, r.loser)


# ------------------------------------------------------------------ configurations

RULESETS = [
    Ruleset(),
    Ruleset.classic(),
    Ruleset(multi_play=False),
    Ruleset.classic(multi_play=False, draw_limit=1),
    Ruleset(draw_limit=0),
    Ruleset(draw_limit=1, draw_when_playable=True),
    Ruleset.classic(draw_limit=0, draw_when_playable=True),
    Ruleset(reshuffle=False),
    Ruleset.classic(reshuffle=False, draw_limit=0),
    Ruleset(reshuffle=False, draw_limit=1, multi_play=False),
    Ruleset(variant=Variant.COUNTDOWN),
    Ruleset(variant=Variant.COUNTDOWN, reshuffle=False, draw_limit=0),
]
IDS = [describe_rules(r).replace(" ", "_") for r in RULESETS]


def _order(players: int, rng: random.Random) -> list[Card]:
    order = standard_deck(decks_for(players))
    rng.shuffle(order)
    return order


def _deal(rules: Ruleset, players: int, seed: int, box: _Box) -> Round:
    rng = random.Random(seed)
    order = _order(players, rng)
    dealer = rng.randrange(players)
    if rules.countdown:
        numbers = [rng.randint(1, 8) for _ in range(players)]
        return Round.deal(rules, players=players, dealer=dealer, deck=_deck(order, box),
                          hand_size=numbers, wild=numbers)
    if rng.random() < (0.25 if rules.reshuffle else 0.6):
        # big hands: a small stock, so reshuffles and blocked rounds come early
        size = rng.randint(1, (len(order) - 1) // players)
        try:
            return Round.deal(rules, players=players, dealer=dealer,
                              deck=_deck(order, box), hand_size=size)
        except MalformedInput:  # the small stock held no allowed starter
            pass
    return Round.deal(rules, players=players, dealer=dealer, deck=_deck(order, box))


def _snapshot(r: Round) -> tuple[object, ...]:
    assert isinstance(r.deck, OrderedDeck)
    return (r.deck.top_first(), [list(h) for h in r.hands], list(r.discard), r.suit,
            r.declared, r.direction, r.turn, r.pending_draw, r.drawn, r.last_drawn,
            r.passes, list(r.wild), r.ended_by, r.winner, len(r.log))


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.name)
@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_playout_matches_engine_from_deal_and_midround(rules: Ruleset, policy: Policy) -> None:
    box = _Box()
    checked = 0
    for players, k in product(range(2, 8), range(8)):
        name = describe_rules(rules)
        seed = 1000 * players + 17 * k + 7 * int(policy) + sum(map(ord, name)) % 997
        r = _deal(rules, players, seed, box)
        # advance a random number of engine steps with the same policy (or up to a
        # pending penalty, or a pass with nothing to draw), then compare the rest of the
        # round: from the deal, mid-turn after draws, under penalties, after passes
        walk = random.Random(seed + 1)
        box.rng = walk
        steps = walk.choice([0, 0, 1, 3, 10, 40, -1, -2])
        for _ in range(steps if steps >= 0 else 500):
            if r.over or (steps == -1 and r.pending_draw) or (steps == -2 and r.passes):
                break
            r.apply(engine_choose(r, policy, walk))
        before = _snapshot(r)
        fast_trace: list[TraceStep] = []
        fast = playout_result(r, random.Random(seed + 2), policy, fast_trace)
        assert _snapshot(r) == before, "playout modified the round"
        if not r.over:
            assert playout(r.copy(), random.Random(seed + 2), policy) == fast.points
        eng_trace, eng = engine_run(r, policy, random.Random(seed + 2), box)
        assert fast_trace == eng_trace, (players, seed)
        assert fast.decisions == eng.decisions
        assert fast.points == eng.points
        assert fast.ended_by == eng.ended_by
        assert fast.winner == eng.winner
        assert not fast.capped and fast.decisions < MAX_DECISIONS // 5
        checked += 1
    assert checked == 48


@pytest.mark.parametrize("rules", [Ruleset(), Ruleset.classic(), Ruleset(reshuffle=False),
                                   Ruleset(variant=Variant.COUNTDOWN)],
                         ids=["table", "classic", "no_reshuffle", "countdown"])
@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.name)
def test_bench_round_matches_engine_deal_and_play(rules: Ruleset, policy: Policy) -> None:
    box = _Box()
    for players, seed in product(range(2, 8), range(8)):
        rng = random.Random(seed * 31 + players)
        order = _order(players, rng)
        dealer = rng.randrange(players)
        hands, stock, discard = deal_state(rules, players, dealer, order)
        r = Round.deal(rules, players=players, dealer=dealer, deck=_deck(order, box))
        assert hands == [list(h) for h in r.hands]
        assert isinstance(r.deck, OrderedDeck)
        assert stock[::-1] == r.deck.top_first()
        assert discard == r.discard
        trace: list[TraceStep] = []
        decisions, points, out = bench_result(rules, players, dealer, order,
                                              random.Random(seed), policy, trace)
        eng_trace, eng = engine_run(r, policy, random.Random(seed), box)
        assert trace == eng_trace
        assert (decisions, points) == (eng.decisions, eng.points)
        assert (out.ended_by, out.winner) == (eng.ended_by, eng.winner)
        assert bench_round(rules, players, dealer, order, random.Random(seed),
                           policy) == (decisions, points)


def test_starter_is_buried_like_the_engine() -> None:
    # R-STARTER / fixed case 5: forbidden starters go to index len(stock)//2
    order = [Card.parse(t) for t in ["3C", "4C", "5C", "6C", "8S", "2H", "9H", "QD", "AC"]]
    box = _Box()
    for rules in (Ruleset(), Ruleset.classic()):
        r = Round.deal(rules, players=2, dealer=0, deck=_deck(order, box), hand_size=2)
        hands, stock, discard = deal_state(rules, 2, 0, order, [2, 2])
        assert discard == r.discard
        assert isinstance(r.deck, OrderedDeck)
        assert stock[::-1] == r.deck.top_first()
        assert hands == r.hands


def test_finished_round_returns_its_points() -> None:
    box = _Box()
    r = _deal(Ruleset(), 3, 5, box)
    engine_run(r, Policy.RANDOM, random.Random(3), box)
    assert r.over
    out = playout_result(r, random.Random(0))
    assert out == Outcome(r.points(), r.ended_by, r.winner, 0)  # type: ignore[arg-type]


def test_hidden_cards_and_unknown_decks_are_refused() -> None:
    box = _Box()
    r = _deal(Ruleset(), 2, 1, box)
    hidden = r.copy()
    hidden.hands[0][0] = None
    with pytest.raises(MalformedInput):
        playout(hidden, random.Random(0))

    other = r.copy()
    other.deck = object()  # type: ignore[assignment]
    with pytest.raises(MalformedInput):
        playout(other, random.Random(0))


@pytest.mark.parametrize("rules", [Ruleset(reshuffle=False), Ruleset.classic(reshuffle=False),
                                   Ruleset(variant=Variant.COUNTDOWN, reshuffle=False)],
                         ids=["table", "classic", "countdown"])
def test_blocked_rounds_match_engine(rules: Ruleset) -> None:
    # R-BLOCKED, R-BLOCKED-CLASSIC: full hands and no reshuffle stall the round
    box = _Box()
    blocked = 0
    for players, seed in product(range(2, 8), range(6)):
        rng = random.Random(seed * 7 + players)
        order = _order(players, rng)
        size = (len(order) - 1) // players - rng.randrange(3)
        try:
            r = Round.deal(rules, players=players, dealer=seed % players,
                           deck=_deck(order, box), hand_size=size, wild=[8] * players)
        except MalformedInput:
            continue
        for policy in Policy:
            fast_trace: list[TraceStep] = []
            fast = playout_result(r, random.Random(seed), policy, fast_trace)
            eng_trace, eng = engine_run(r.copy(), policy, random.Random(seed), box)
            assert fast_trace == eng_trace
            assert fast == eng
            blocked += fast.ended_by == "blocked"
    assert blocked >= 3


# ------------------------------------------------------------------ the step cap


def _cycling_round(rules: Ruleset, box: _Box) -> Round:
    """A small world that never ends (R-RESHUFFLE on): the hands 5D and 6D never fit
    the clubs in circulation, while every drawn club fits the club on top. Each turn
    draws the one stock card (after a reshuffle of the discard below the top), plays
    it, and the next seat does the same — forever."""
    r = Round.deal(rules, players=2, dealer=1, deck=_deck(standard_deck(), box))
    r.hands = [[Card.parse("5D")], [Card.parse("6D")]]
    r.discard = [Card.parse("4C"), Card.parse("3C")]
    r.deck = _deck([], box)
    r.suit, r.declared = Suit(0), False
    r.turn, r.direction, r.pending_draw = 0, 1, 0
    r.drawn, r.last_drawn, r.passes = 0, None, 0
    r.wild = [8, 8]
    return r


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.name)
@pytest.mark.parametrize(("rules", "points"), [(Ruleset(), [5, 6]),
                                               (Ruleset.classic(), [1, 0])],
                         ids=["table", "classic"])
def test_a_cycling_round_is_cut_off_and_scored_as_blocked(rules: Ruleset, points: list[int],
                                                          policy: Policy) -> None:
    box = _Box()
    r = _cycling_round(rules, box)
    # the engine agrees that the round cycles: 1,000 actions later it still runs, in the
    # same position as at the start
    eng = r.copy()
    box.rng = random.Random(1)
    for _ in range(1000):
        eng.apply(engine_choose(eng, policy, box.rng))
    assert not eng.over and eng.hands == r.hands and sorted(eng.discard) == sorted(r.discard)
    # the playout returns: cut at the cap, scored as blocked (table: hand values 5 and 6;
    # classic R-BLOCKED-CLASSIC: the lower hand collects the difference)
    trace: list[TraceStep] = []
    out = playout_result(r, random.Random(2), policy, trace)
    assert out.capped and out.ended_by == "blocked" and out.winner is None
    assert MAX_DECISIONS <= out.decisions < MAX_DECISIONS + 4 and len(trace) == out.decisions
    assert out.points == points
    assert [k for _, k, _, _ in trace[:4]] == ["draw", "play", "draw", "play"]
    # a smaller cap, through playout() too
    small = playout_result(r, random.Random(2), policy, max_decisions=10)
    assert small == Outcome(points, small.ended_by, None, 10, True)
    assert playout(r, random.Random(2), policy, max_decisions=10) == points
    with pytest.raises(ValueError):
        playout(r, random.Random(2), policy, max_decisions=0)


def test_the_cap_never_cuts_a_real_round() -> None:
    # complete rounds of every tested ruleset, 2..7 players, end far below the cap
    worst = 0
    for rules, players, seed in product(RULESETS, range(2, 8), range(20)):
        rng = random.Random(seed * 13 + players)
        order = _order(players, rng)
        for policy in Policy:
            _, _, out = bench_result(rules, players, seed % players, order,
                                     random.Random(seed), policy)
            assert not out.capped
            worst = max(worst, out.decisions)
    assert worst < MAX_DECISIONS // 5


@pytest.mark.parametrize("preset", ["wildcards", "zimbabwe"])
@pytest.mark.parametrize("players", range(2, 8))
def test_house_presets_play_whole_rounds(preset: str, players: int) -> None:
    """RULES.md §11 presets: every round ends (or is capped); jokers are dealt with
    zimbabwe."""
    rules = Ruleset.for_preset(preset)
    for seed in range(3):
        order = standard_deck(decks_for(players), jokers=rules.rule_table.jokers)
        random.Random(seed).shuffle(order)
        trace: list[TraceStep] = []
        decisions, points, out = bench_result(rules, players, 0, order,
                                              random.Random(seed), Policy.GREEDY, trace)
        assert decisions == len(trace) == out.decisions > 0
        assert len(points) == players and (out.capped or out.ended_by is not None)


# ------------------------------------------------------------------ RULES.md §11 presets


HOUSE = [
    Ruleset.for_preset("wildcards"),
    Ruleset.for_preset("zimbabwe"),
    Ruleset.for_preset("wildcards", multi_play=True, draw_limit=2),
    Ruleset.for_preset("zimbabwe", draw_when_playable=False, reshuffle=False),
    Ruleset.for_preset("zimbabwe", multi_play=False, draw_limit=0, hand_size=5),
]
HOUSE_IDS = ["wildcards", "zimbabwe", "wildcards_multi_limit2", "zimbabwe_strict_noreshuffle",
             "zimbabwe_single_unlimited"]


def _house_deal(rules: Ruleset, players: int, seed: int, box: _Box) -> Round:
    rng = random.Random(seed)
    order = standard_deck(decks_for(players), jokers=rules.rule_table.jokers)
    rng.shuffle(order)
    dealer = rng.randrange(players)
    if rng.random() < (0.2 if rules.reshuffle else 0.5):
        size = rng.randint(1, (len(order) - 1) // players)
        try:
            return Round.deal(rules, players=players, dealer=dealer,
                              deck=_deck(order, box), hand_size=size)
        except MalformedInput:
            pass
    return Round.deal(rules, players=players, dealer=dealer, deck=_deck(order, box))


@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.name)
@pytest.mark.parametrize("rules", HOUSE, ids=HOUSE_IDS)
def test_house_playout_matches_engine_from_deal_and_midround(rules: Ruleset,
                                                             policy: Policy) -> None:
    """RULES.md §11: the fast loop of p2p8s.playout_house plays exactly the engine's
    rules, action for action, from the deal and from mid-round states (pending skips
    and penalties, pick-and-play, players in the air), for 2..7 players."""
    box = _Box()
    states: set[str] = set()
    for players, k in product(range(2, 8), range(8)):
        seed = 1000 * players + 17 * k + 7 * int(policy) + HOUSE.index(rules) * 131
        r = _house_deal(rules, players, seed, box)
        walk = random.Random(seed + 1)
        box.rng = walk
        steps = walk.choice([0, 0, 1, 3, 10, 40, -1, -2, -3])
        for _ in range(steps if steps >= 0 else 500):
            if r.over or (steps == -1 and (r.pending_draw or r.pending_skip)) or (
                    steps == -2 and (r.picking or any(r.air))) or (steps == -3 and r.drawn):
                break
            r.apply(engine_choose(r, policy, walk))
        states.update(name for name, on in [
            ("skip", r.pending_skip), ("penalty", r.pending_draw), ("picking", r.picking),
            ("air", any(r.air)), ("drawn", r.drawn), ("bounce", r.bounce_seat is not None)]
            if on)
        before = _snapshot(r)
        fast_trace: list[TraceStep] = []
        fast = playout_result(r, random.Random(seed + 2), policy, fast_trace)
        assert _snapshot(r) == before, "playout modified the round"
        eng_trace, eng = engine_run(r, policy, random.Random(seed + 2), box)
        assert fast_trace == eng_trace, (players, seed)
        assert fast == eng, (players, seed)
    assert "penalty" in states


@pytest.mark.parametrize("preset", ["wildcards", "zimbabwe"])
@pytest.mark.parametrize("policy", list(Policy), ids=lambda p: p.name)
def test_house_bench_round_matches_engine_deal_and_play(preset: str, policy: Policy) -> None:
    rules = Ruleset.for_preset(preset)
    box = _Box()
    kinds: set[str] = set()
    for players, seed in product(range(2, 8), range(6)):
        rng = random.Random(seed * 31 + players)
        order = standard_deck(decks_for(players), jokers=rules.rule_table.jokers)
        rng.shuffle(order)
        dealer = rng.randrange(players)
        hands, stock, discard = deal_state(rules, players, dealer, order)
        r = Round.deal(rules, players=players, dealer=dealer, deck=_deck(order, box))
        assert hands == [list(h) for h in r.hands] and discard == r.discard
        assert isinstance(r.deck, OrderedDeck) and stock[::-1] == r.deck.top_first()
        trace: list[TraceStep] = []
        decisions, points, out = bench_result(rules, players, dealer, order,
                                              random.Random(seed), policy, trace)
        eng_trace, eng = engine_run(r, policy, random.Random(seed), box)
        assert trace == eng_trace, (players, seed)
        assert out == eng and (decisions, points) == (eng.decisions, eng.points)
        kinds.update(k for _, k, _, _ in trace)
    if preset == "zimbabwe":
        assert {"play!reverse", "play!bounce", "lucky", "take"} <= kinds or policy != Policy.RANDOM
        assert "play!nopick" in kinds or policy == Policy.RANDOM
    else:
        assert {"play!skip", "play!reverse"} <= kinds
