"""Hypothesis properties of the round engine over 2..7 players, both presets, every knob
of RULES.md §2 and the countdown variant (§8).

- every card is always in exactly one place (hands, stock, discard pile) — R-DECK;
- every listed legal action applies; every other action (random plays of random cards in
  random order, draws, passes, takes) raises IllegalAction and leaves a full snapshot of
  the state unchanged;
- random games end within a bound;
- the same deck order and actions give the same transcript;
- scoring matches R-PTS-TABLE / R-PTS-CLASSIC / R-BLOCKED-CLASSIC, computed here from the
  rule text, not from the engine's tables.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p8s.cards import EVERY_CARD, Card, Rank, Suit, decks_for, standard_deck
from p2p8s.engine import (
    DRAW,
    LUCKY,
    PASS,
    TAKE,
    Action,
    Declare,
    EndedBy,
    OrderedDeck,
    Play,
    Round,
)
from p2p8s.errors import IllegalAction
from p2p8s.rules import Ruleset, Variant

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
GAME_BOUND = 5000  # actions; a play-biased random game has never needed 1000


@dataclass(frozen=True)
class Setup:
    rules: Ruleset
    players: int
    dealer: int
    seed: int
    numbers: tuple[int, ...] | None

    def deal(self) -> tuple[Round, random.Random]:
        rng = random.Random(self.seed)
        deck = standard_deck(decks_for(self.players), jokers=self.rules.rule_table.jokers)
        rng.shuffle(deck)
        shuffler = random.Random(self.seed + 1)
        od = OrderedDeck(deck, lambda cards: shuffler.sample(list(cards), len(cards)))
        rnd = Round.deal(self.rules, players=self.players, dealer=self.dealer, deck=od,
                         hand_size=self.numbers, wild=self.numbers)
        return rnd, rng


@st.composite
def setups(draw: st.DrawFn, *, drawing: bool = False) -> Setup:
    """Any table; ``drawing`` pins multi-play and draw_when_playable on, where the
    drawn-card rules and multi-plays meet most often."""
    players = draw(st.integers(2, 7))
    variant = draw(st.sampled_from(list(Variant)))
    action_cards = draw(st.booleans())
    preset = (draw(st.sampled_from(["table", "wildcards", "zimbabwe"]))
              if action_cards and variant is Variant.STANDARD else "table")
    rules = Ruleset(
        preset=preset,
        action_cards=action_cards,
        multi_play=drawing or draw(st.booleans()),
        draw_limit=draw(st.sampled_from([0, 1, 2, 3, 5])),
        draw_when_playable=drawing or draw(st.booleans()),
        reshuffle=draw(st.booleans()),
        variant=variant,
    )
    numbers = (tuple(draw(st.lists(st.integers(1, 8), min_size=players, max_size=players)))
               if rules.countdown else None)
    return Setup(rules, players, draw(st.integers(0, players - 1)),
                 draw(st.integers(0, 2**32)), numbers)


def snapshot(r: Round) -> tuple[Any, ...]:
    """Everything a Round holds, deck order included."""
    assert isinstance(r.deck, OrderedDeck)
    return (r.rules, r.players, r.dealer, tuple(r.deck.top_first()),
            tuple(tuple(h) for h in r.hands), tuple(r.discard), r.suit, r.declared,
            r.direction, r.turn, r.pending_draw, r.drawn, r.last_drawn, r.passes,
            tuple(r.wild), r.ended_by, r.winner, r.reshuffles, tuple(r.log),
            r.pending_skip, r.bounce_seat, r.nopick, r.picking, tuple(r.air), r.loser)


def check_cards(r: Round, full: Counter[Card]) -> None:
    assert isinstance(r.deck, OrderedDeck)
    where: Counter[Card] = Counter(r.deck.top_first())
    where.update(r.discard)
    for h in r.hands:
        where.update(c for c in h if c is not None)
    assert where == full


def random_action(r: Round, rng: random.Random) -> Action:
    """Anything at all: plays of hand or random cards, any order and suit; draw/pass/take."""
    kind = rng.random()
    if kind < 0.1:
        return DRAW
    if kind < 0.2:
        return PASS
    if kind < 0.3:
        return TAKE
    if kind < 0.35:
        return LUCKY
    hand = [c for c in r.hands[r.turn] if c is not None]
    pool = hand + list(rng.sample(EVERY_CARD, 4))
    if hand and rng.random() < 0.5:  # same-rank groups from the hand, shuffled
        rank = rng.choice(hand).rank
        if rank is not None:
            pool = [c for c in hand if c.rank == rank] + [Card.of(rank, rng.randrange(4))]
    cards = [rng.choice(pool) for _ in range(rng.choice([1, 1, 2, 3, 4]))]
    rng.shuffle(cards)
    suit = rng.choice([None, None, *Suit])
    declare = rng.choice([None, None, None, *Declare])
    return Play(tuple(cards), suit, declare)


def policy(r: Round, rng: random.Random, legal: list[Action]) -> Action:
    plays = [a for a in legal if isinstance(a, Play)]
    return rng.choice(plays if plays and rng.random() < 0.9 else legal)


# --------------------------------------------------------------------- the properties


@SETTINGS
@given(setups())
def test_legal_and_illegal_actions(setup: Setup) -> None:
    legal_and_illegal(setup)


@settings(max_examples=80, deadline=None)
@given(setups(drawing=True))
def test_legal_and_illegal_actions_drawing_tables(setup: Setup) -> None:
    legal_and_illegal(setup)


def legal_and_illegal(setup: Setup) -> None:
    r, rng = setup.deal()
    full = Counter(standard_deck(decks_for(setup.players), jokers=setup.rules.rule_table.jokers))
    check_cards(r, full)
    steps = 0
    while not r.over and steps < 250:
        legal = r.legal_actions()
        assert legal, "a seat on turn always has an action"
        assert len(set(legal)) == len(legal), "no action is listed twice"
        assert all(r.canonical(a) == a for a in legal)
        before = snapshot(r)
        for action in legal:  # every listed action applies
            twin = r.copy()
            twin.apply(action)
            check_cards(twin, full)
            assert snapshot(r) == before, "applying to a copy leaves the original alone"
        listed = set(legal)
        for _ in range(12):
            action = random_action(r, rng)
            if r.canonical(action) in listed:
                r.copy().apply(action)
                continue
            try:
                r.apply(action)
            except IllegalAction as exc:
                assert str(exc)
            else:
                raise AssertionError(f"{action} applied but is not listed: {legal}")
            assert snapshot(r) == before, f"refused {action} changed the state"
        r.apply(rng.choice(legal))  # uniform: draws and passes as often as plays
        check_cards(r, full)
        steps += 1
    if r.over:
        assert r.legal_actions() == []
        for action in (DRAW, PASS, TAKE):
            before = snapshot(r)
            try:
                r.apply(action)
            except IllegalAction:
                pass
            else:
                raise AssertionError("an action after the round's end applied")
            assert snapshot(r) == before


def table_value(c: Card) -> int:
    """R-PTS-TABLE, from the rule text."""
    if c.rank == Rank.EIGHT:
        return 50
    if c.rank in (Rank.TWO, Rank.QUEEN, Rank.ACE):
        return 20
    if c.rank in (Rank.JACK, Rank.KING):
        return 10
    return int(c.rank)


def classic_value(c: Card) -> int:
    """R-PTS-CLASSIC, from the rule text."""
    if c.rank == Rank.EIGHT:
        return 50
    if c.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        return 10
    return int(c.rank)  # A = 1, 2..7, 9, T face value


def zimbabwe_value(c: Card) -> int:
    """R-ZW-SCORE, from the rule text: joker 50, 8 50; 2, 7, J, A 20; Q, K 10."""
    if c.rank is None or c.rank == Rank.EIGHT:
        return 50
    if c.rank in (Rank.TWO, Rank.SEVEN, Rank.JACK, Rank.ACE):
        return 20
    return 10 if c.rank in (Rank.QUEEN, Rank.KING) else int(c.rank)


def expected_points(r: Round) -> list[int]:
    n = r.players
    if r.rules.countdown:
        return [0] * n
    if r.rules.preset == "zimbabwe":
        return [sum(zimbabwe_value(c) for c in h if c is not None) for h in r.hands]
    if r.rules.action_cards and r.rules.preset == "table":
        return [sum(table_value(c) for c in h if c is not None) for h in r.hands]
    values = [sum(classic_value(c) for c in h if c is not None) for h in r.hands]
    if r.ended_by is EndedBy.OUT:
        assert r.winner is not None and values[r.winner] == 0
        return [sum(values) if s == r.winner else 0 for s in range(n)]
    low = min(values)  # R-BLOCKED-CLASSIC
    return [sum(v - low for v in values if v > low) if values[s] == low else 0
            for s in range(n)]


@SETTINGS
@given(setups())
def test_games_end_and_score(setup: Setup) -> None:
    r, rng = setup.deal()
    full = Counter(standard_deck(decks_for(setup.players), jokers=setup.rules.rule_table.jokers))
    steps = 0
    while not r.over:
        assert r.points() == [0] * r.players
        r.apply(policy(r, rng, r.legal_actions()))
        steps += 1
        assert steps <= GAME_BOUND, "the game did not end"
    check_cards(r, full)
    assert r.points() == expected_points(r)
    if r.ended_by is EndedBy.OUT:
        assert r.winner is not None and r.hands[r.winner] == []
        assert r.pending_draw == 0  # R-OUT: pending effects lapse
    else:
        assert r.winner is None
        # an empty hand only for a player in the air with nothing left to draw (R-ZW-OUT)
        assert all(h for h in r.hands) or (r.rules.rule_table.in_the_air
                                           and not r.can_draw())
        assert [type(e.action) for e in r.log[-r.players:]] == [type(PASS)] * r.players


@settings(max_examples=40, deadline=None)
@given(setups())
def test_same_deck_and_actions_same_transcript(setup: Setup) -> None:
    r1, rng = setup.deal()
    actions: list[Action] = []
    while not r1.over and len(actions) < GAME_BOUND:
        action = policy(r1, rng, r1.legal_actions())
        actions.append(action)
        r1.apply(action)
    r2, _ = setup.deal()
    for action in actions:
        r2.apply(action)
    assert snapshot(r1) == snapshot(r2)
    assert r1.log == r2.log


@settings(max_examples=25, deadline=None)
@given(setups(), st.data())
def test_copy_is_independent(setup: Setup, data: st.DataObject) -> None:
    r, rng = setup.deal()
    for _ in range(data.draw(st.integers(0, 40))):
        if r.over:
            break
        r.apply(policy(r, rng, r.legal_actions()))
    twin = r.copy()
    assert snapshot(twin) == snapshot(r)
    before = snapshot(r)
    while not twin.over:
        twin.apply(policy(twin, rng, twin.legal_actions()))
    twin.wild[0] = 99
    assert snapshot(r) == before
