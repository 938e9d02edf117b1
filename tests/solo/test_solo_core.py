"""The pure solo session: determinism, replay, legality of every computer choice."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from p2p8s.bots.base import Bot, View
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.rules import describe_rules
from p2p8s.engine import DRAW, PASS, TAKE, Action, Play
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.rules import Ruleset, Variant
from p2p8s.solo import (
    HUMAN,
    Phase,
    SoloCode,
    SoloSession,
    SoloSettings,
    action_from_text,
    action_to_text,
    get_bot,
    make_rules,
    pick_opponents,
    round_deck,
)


class Checked:
    """Wraps a bot and records every choice that was not among the legal actions."""

    def __init__(self, bot: Bot, faults: list[str]) -> None:
        self.bot = bot
        self.name = bot.name
        self.faults = faults

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        action = self.bot.choose(view, legal, rng)
        if action not in legal:
            self.faults.append(f"{self.name}: {action} not in {legal}")
        return action


def _play_out(s: SoloSession, bots: dict[int, Bot], max_actions: int = 5000) -> None:
    for _ in range(max_actions):
        if s.phase is Phase.MATCH_OVER:
            return
        if s.phase is Phase.ROUND_OVER:
            s.next_round()
            continue
        legal = s.legal()
        action = s.choose(bots[s.round.turn])
        assert action in legal
        s.apply(action)
    raise AssertionError("the match did not end")


RULESETS = [
    Ruleset(target=60),
    make_rules(classic=True, target=60),
    make_rules(multi=False, draw_limit=1, target=60),
    make_rules(draw_limit=0, target=60),
    make_rules(countdown=True),
]


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: describe_rules(r))
def test_bots_only_choose_legal_actions(rules: Ruleset) -> None:
    faults: list[str] = []
    for seed, opponents in [(1, 1), (2, 3), (3, 6)]:
        if rules.countdown and opponents > 3:
            continue
        s = SoloSession.new(SoloSettings(opponents=opponents, rules=rules), seed)
        bots = {seat: Checked(b, faults) for seat, b in s.bots().items()}
        bots[HUMAN] = Checked(s.bots()[1], faults)
        _play_out(s, dict(bots))
        assert s.bot_faults == 0
    assert faults == []


def test_an_illegal_bot_choice_is_replaced_and_counted() -> None:
    class Cheat:
        name = "Cheat"

        def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
            return TAKE if TAKE not in legal else PASS

    s = SoloSession.new(SoloSettings(opponents=1), 4)
    action = s.choose(Cheat())
    assert action in s.legal() and s.bot_faults == 1


def test_same_seed_same_match_and_replay_matches() -> None:
    settings = SoloSettings(opponents=3, rules=Ruleset(target=80))
    a, b = SoloSession.new(settings, 99), SoloSession.new(settings, 99)
    bots_a = {0: a.bots()[1], **a.bots()}
    bots_b = {0: b.bots()[1], **b.bots()}
    _play_out(a, bots_a)
    _play_out(b, bots_b)
    assert a.digest() == b.digest()
    assert a.actions == b.actions
    replayed = SoloSession.from_record(a.to_record())
    assert replayed.digest() == a.digest()
    assert replayed.phase is Phase.MATCH_OVER


def test_replay_midway_gives_the_same_state_and_future() -> None:
    settings = SoloSettings(opponents=2)
    s = SoloSession.new(settings, 5)
    bots = {0: s.bots()[1], **s.bots()}
    for _ in range(70):
        if s.phase is Phase.ROUND_OVER:
            s.next_round()
        s.apply(s.choose(bots[s.round.turn]))
    twin = SoloSession.from_record(s.to_record())
    assert twin.state() == s.state()
    assert twin.rng().random() == s.rng().random()
    _play_out(s, bots)
    _play_out(twin, {0: twin.bots()[1], **twin.bots()})
    assert twin.digest() == s.digest()


def test_decks_and_names_follow_the_seed() -> None:
    assert round_deck(1, 1, 4).top_first() == round_deck(1, 1, 4).top_first()
    assert round_deck(1, 1, 4).top_first() != round_deck(1, 2, 4).top_first()
    assert len(round_deck(1, 1, 7).top_first()) == 104
    names, styles = pick_opponents(3, 6)
    assert len(set(names)) == 6 and len(styles) == 6


def test_reshuffle_is_a_function_of_the_discards() -> None:
    deck = round_deck(1, 1, 2)
    twin = deck.copy()
    cards = deck.top_first()[:10]
    deck.refill(cards)
    twin.refill(cards)
    assert deck.top_first() == twin.top_first() and sorted(deck.top_first()) == sorted(cards)


@pytest.mark.parametrize("text", ["draw", "pass", "take", "QS", "QS,QH,QD", "8S/H", "8S,8C/D",
                                  "TD"])
def test_action_text_round_trip(text: str) -> None:
    assert action_to_text(action_from_text(text)) == text


@pytest.mark.parametrize("text", ["", "hop", "ZZ", "8S/X", 3])
def test_bad_action_text(text: object) -> None:
    with pytest.raises(MalformedInput):
        action_from_text(text)  # type: ignore[arg-type]


def test_settings_validate() -> None:
    with pytest.raises(MalformedInput):
        SoloSettings(opponents=7)
    assert make_rules(countdown=True).variant is Variant.COUNTDOWN
    assert SoloSettings.from_dict(SoloSettings(opponents=2).to_dict()).opponents == 2


def test_the_solo_refusals_are_codes_said_in_words() -> None:
    with pytest.raises(MalformedInput) as info:
        SoloSettings(opponents=7)
    assert info.value.code is SoloCode.OPPONENTS
    assert PLAIN.error(info.value) == "a solo match has 1 to 6 opponents, not 7"
    s = SoloSession.new(SoloSettings(opponents=1), 1)
    with pytest.raises(IllegalAction) as refused:
        s.next_round()
    assert PLAIN.error(refused.value) == "the round is not over"
    record = s.to_record()
    del record["names"]
    with pytest.raises(MalformedInput) as info:
        SoloSession.from_record(record)
    assert PLAIN.error(info.value) == "the save is incomplete ('names')"
    record = s.to_record()
    record["rounds"] = [["pass"]]  # the first hand of seed 1 holds a playable card
    with pytest.raises(MalformedInput) as info:
        SoloSession.from_record(record)
    assert info.value.code is SoloCode.ILLEGAL_MOVE
    assert PLAIN.error(info.value) == (  # the engine's refusal in words, not its code
        "the save holds an illegal move (you have a playable card: play it)")


def test_no_actions_between_rounds() -> None:
    s = SoloSession.new(SoloSettings(opponents=1), 1)
    with pytest.raises(IllegalAction):
        s.next_round()
    bots = {0: s.bots()[1], **s.bots()}
    while s.phase is Phase.TURN:
        s.apply(s.choose(bots[s.round.turn]))
    with pytest.raises(IllegalAction):
        s.apply(DRAW)
    assert s.result is not None and s.match.results[-1] == s.result
    assert isinstance(s.round.log[-1].action, Play)


def test_a_computer_turn_is_one_seats_draws_and_the_action_that_ends_them() -> None:
    s = SoloSession.new(SoloSettings(opponents=1), seed=2)
    bots = s.bots()
    turns = 0
    while s.phase is Phase.TURN and turns < 60:
        seat = s.round.turn
        events = list(s.computer_turn(bots.get(seat) or get_bot("expert")))
        turns += 1
        assert events and all(e.seat == seat for e in events)
        assert all(e.action == DRAW for e in events[:-1])
        assert events[-1].action != DRAW or s.round.turn != seat
    assert turns >= 10
