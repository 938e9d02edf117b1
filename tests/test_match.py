"""Match-level rules: R-DEALER rotation, R-WIN-TABLE (incl. §10.8), R-TARGET-TABLE,
R-TARGET-CLASSIC, R-COUNTDOWN match end; finishing real rounds; saving a match."""

from __future__ import annotations

import json
import random
import re

import pytest

from p2p8s.cards import Card, parse_cards, standard_deck
from p2p8s.cli.words import PLAIN
from p2p8s.engine import EndedBy, OrderedDeck, Play, Round
from p2p8s.errors import MalformedInput
from p2p8s.match import Match
from p2p8s.rules import Ruleset, Variant, default_target


def test_fixed_case_8_shared_lowest_plays_on() -> None:
    """§10.8: totals 210, 95, 95, 120 with target 200 -> no winner; the next round decides."""
    m = Match(Ruleset(), players=4, dealer=0, target=200)
    m.record([210, 95, 95, 120])
    assert not m.over and m.winner is None
    m.record([0, 3, 0, 10])
    assert m.over and m.winner == 2 and m.totals == [210, 98, 95, 130]


def test_shared_lowest_again_plays_on_again() -> None:
    m = Match(Ruleset(), players=3, dealer=0, target=100)
    m.record([120, 40, 40])
    m.record([5, 7, 7])
    assert not m.over
    m.record([0, 1, 0])
    assert m.winner == 2


def test_win_table_needs_the_target() -> None:
    """R-WIN-TABLE: nobody wins before a total reaches the target; reaching it exactly counts."""
    m = Match(Ruleset(), players=2, dealer=0, target=100)
    m.record([99, 0])
    assert not m.over
    m.record([1, 5])
    assert m.winner == 1 and m.totals == [100, 5]


@pytest.mark.parametrize("players, target", [(2, 100), (3, 150), (4, 200), (7, 350)])
def test_target_table_solo(players: int, target: int) -> None:
    """R-TARGET-TABLE: solo play, 50 per seat."""
    assert Match(Ruleset(), players=players, dealer=0).target == target
    assert default_target(Ruleset(), players) == target


def test_target_table_friends_and_explicit() -> None:
    assert Match(Ruleset(), players=4, dealer=0, solo=False).target == 100
    assert Match(Ruleset(target=200), players=4, dealer=0, solo=False).target == 200
    assert Match(Ruleset(), players=4, dealer=0, target=150).target == 150


def test_target_classic() -> None:
    """R-TARGET-CLASSIC: first to 100 wins; the highest if several reach it; a tie at
    the top plays on; the target is configurable."""
    rules = Ruleset.classic()
    assert Match(rules, players=3, dealer=0).target == 100
    m = Match(rules, players=3, dealer=0)
    m.record([99, 0, 0], went_out=0)
    assert not m.over
    m.record([0, 0, 120], went_out=2)
    assert m.winner == 2
    m = Match(rules, players=3, dealer=0)
    m.record([110, 105, 0], went_out=0)
    assert m.winner == 0  # two reached it: the highest wins
    m = Match(rules, players=3, dealer=0)
    m.record([110, 110, 0])
    assert not m.over  # tie at the top
    m.record([0, 20, 0], went_out=1)
    assert m.winner == 1
    assert Match(Ruleset.classic(target=50), players=2, dealer=0).target == 50


def test_dealer_rotation() -> None:
    """R-DEALER: the deal passes one seat to the left each round (also after a tie)."""
    m = Match(Ruleset(), players=3, dealer=1, target=1000)
    dealers = []
    for _ in range(5):
        dealers.append(m.dealer)
        rnd = m.start_round(OrderedDeck(standard_deck()))
        assert rnd.dealer == m.dealer and rnd.turn == (m.dealer + 1) % 3  # R-FIRST
        m.record([1, 1, 1])
    assert dealers == [1, 2, 0, 1, 2]
    assert [r.dealer for r in m.results] == dealers


def _play_out(rnd: Round, seed: int) -> None:
    rng = random.Random(seed)
    while not rnd.over:
        legal = rnd.legal_actions()
        plays = [a for a in legal if isinstance(a, Play)]
        rnd.apply(rng.choice(plays or legal))


@pytest.mark.parametrize("rules", [Ruleset(), Ruleset.classic()], ids=["table", "classic"])
def test_finish_real_rounds_until_a_winner(rules: Ruleset) -> None:
    m = Match(rules, players=3, dealer=0, target=60)
    seed = 0
    while not m.over:
        seed += 1
        deck = standard_deck()
        random.Random(seed).shuffle(deck)
        rnd = m.start_round(OrderedDeck(deck))
        assert not rnd.declared and rnd.pending_draw == 0  # §10.4: a fresh start
        _play_out(rnd, seed)
        before = list(m.totals)
        result = m.finish_round(rnd)
        assert result.points == tuple(rnd.points())
        assert m.totals == [b + p for b, p in zip(before, result.points, strict=True)]
        assert result.ended_by is rnd.ended_by and result.winner == rnd.winner
        assert seed < 100
    assert m.winner == m.standings()[0]
    with pytest.raises(MalformedInput) as info:
        m.start_round(OrderedDeck(standard_deck()))
    assert re.search("over", PLAIN.error(info.value))


def test_final_eight_then_next_round_has_no_suit() -> None:
    """§10.4: a final 8 ends the round with no declaration; the next deal starts fresh."""
    m = Match(Ruleset(), players=2, dealer=0, target=500)
    order = parse_cards(["8S", "3C", "5D"]) + [c for c in standard_deck()
                                               if str(c) not in ("8S", "3C", "5D")]
    deck = OrderedDeck(order)
    rnd = Round.deal(m.rules, players=2, dealer=0, deck=deck, hand_size=1)
    rnd.apply(Play((Card.parse("8S"),)))
    assert rnd.ended_by is EndedBy.OUT and not rnd.declared
    m.finish_round(rnd)
    assert m.totals == [3, 0] and m.dealer == 1
    nxt = m.start_round(OrderedDeck(standard_deck()))
    assert not nxt.declared and nxt.suit == nxt.top.suit


def test_finish_round_needs_an_ended_round() -> None:
    m = Match(Ruleset(), players=2, dealer=0)
    with pytest.raises(MalformedInput) as info:
        m.finish_round(m.start_round(OrderedDeck(standard_deck())))
    assert re.search("not over", PLAIN.error(info.value))


def test_countdown_match() -> None:
    """R-COUNTDOWN: numbers start at 8, are the hand size and wild rank; going out lowers
    the number; at 0 the player wins; no points are counted; a blocked round changes
    nothing."""
    rules = Ruleset(variant=Variant.COUNTDOWN)
    m = Match(rules, players=2, dealer=0)
    assert m.numbers == [8, 8] and not rules.action_cards
    m.record([0, 0], went_out=1)
    m.record([0, 0])  # blocked
    assert m.numbers == [8, 7]
    rnd = m.start_round(OrderedDeck(standard_deck()))
    assert [len(h) for h in rnd.hands] == [8, 7] and rnd.wild == [8, 7]
    for _ in range(6):
        m.record([0, 0], went_out=1)
    assert m.numbers == [8, 1] and not m.over
    m.record([0, 0], went_out=1)
    assert m.over and m.winner == 1 and m.totals == [0, 0]


def test_countdown_real_round_scores_nothing() -> None:
    m = Match(Ruleset(variant=Variant.COUNTDOWN), players=3, dealer=0)
    deck = standard_deck()
    random.Random(5).shuffle(deck)
    rnd = m.start_round(OrderedDeck(deck))
    _play_out(rnd, 5)
    result = m.finish_round(rnd)
    assert result.points == (0, 0, 0) and m.totals == [0, 0, 0]
    if rnd.winner is not None:
        assert m.numbers[rnd.winner] == 7


def test_to_dict_round_trip() -> None:
    m = Match(Ruleset.classic(draw_limit=0), players=3, dealer=2, target=120)
    m.record([0, 30, 0], went_out=1)
    m.record([5, 0, 5])
    data = json.loads(json.dumps(m.to_dict()))
    twin = Match.from_dict(data)
    assert twin.to_dict() == m.to_dict()
    assert twin.dealer == 1 and twin.totals == [5, 30, 5] and twin.rules == m.rules


@pytest.mark.parametrize("bad", [{}, {"rules": {}, "players": 2}, [1]])
def test_from_dict_errors(bad: object) -> None:
    with pytest.raises(MalformedInput) as info:
        Match.from_dict(bad)  # type: ignore[arg-type]
    assert re.search("bad match data", PLAIN.error(info.value))


def test_match_argument_errors() -> None:
    with pytest.raises(MalformedInput):
        Match(Ruleset(), players=1, dealer=0)
    with pytest.raises(MalformedInput):
        Match(Ruleset(), players=3, dealer=3)


# --- bad input to record() and finish_round() ------------------------------------------

@pytest.mark.parametrize("points, went_out, message", [
    ([1, 2], None, "record: 2 points for 3 seats; give one per seat"),
    ([1, 2, 3, 4], None, "record: 4 points for 3 seats"),
    ([], None, "record: 0 points for 3 seats"),
    ([1, "2", 3], None, "record: seat 1's points must be a whole number, not '2'"),
    ([1, 2.5, 3], None, "seat 1's points must be a whole number, not 2.5"),
    ([0, True, 0], None, "seat 1's points must be a whole number, not True"),
    ("123", None, "points must be a list of whole numbers, not str"),
    ([0, 0, 0], 3, "went_out must be a seat 0..2 or None, not 3"),
    ([0, 0, 0], -1, "went_out must be a seat 0..2 or None, not -1"),
])
def test_record_rejects_bad_input(points: object, went_out: int | None, message: str) -> None:
    m = Match(Ruleset(), players=3, dealer=0, target=100)
    with pytest.raises(MalformedInput) as info:
        m.record(points, went_out=went_out)  # type: ignore[arg-type]
    assert message in PLAIN.error(info.value)
    # nothing was recorded: totals, dealer and results unchanged
    assert m.totals == [0, 0, 0] and m.dealer == 0 and m.results == []


def _finished_round(players: int, dealer: int) -> Round:
    """A round that seat ``dealer + 1`` ends at once by going out with one card."""
    deck = list(standard_deck())
    rnd = Round.deal(Ruleset(), players=players, dealer=dealer, deck=OrderedDeck(deck),
                     hand_size=1)
    play = next(a for a in rnd.legal_actions() if isinstance(a, Play))
    rnd.apply(play)
    assert rnd.over
    return rnd


def test_record_and_finish_round_refuse_once_the_match_is_over() -> None:
    m = Match(Ruleset(), players=2, dealer=0, target=10)
    m.record([20, 0], went_out=1)
    assert m.over and m.winner == 1
    with pytest.raises(MalformedInput) as info:
        m.record([0, 5], went_out=0)
    assert re.search("the match is over", PLAIN.error(info.value))
    rnd = _finished_round(players=2, dealer=m.dealer)
    with pytest.raises(MalformedInput) as info:
        m.finish_round(rnd)
    assert re.search("the match is over", PLAIN.error(info.value))
    assert m.totals == [20, 0] and len(m.results) == 1


def test_finish_round_rejects_a_round_of_another_match() -> None:
    m = Match(Ruleset(), players=3, dealer=0, target=500)
    with pytest.raises(MalformedInput) as info:
        m.finish_round(_finished_round(players=2, dealer=0))
    assert re.search("a 2-seat round cannot be scored in a 3-seat", PLAIN.error(info.value))
    with pytest.raises(MalformedInput) as info:
        m.finish_round(_finished_round(players=3, dealer=1))
    assert re.search("dealt by seat 1, but seat 0 deals", PLAIN.error(info.value))
    assert m.results == [] and m.totals == [0, 0, 0]
    m.finish_round(_finished_round(players=3, dealer=0))
    assert len(m.results) == 1 and m.dealer == 1


@pytest.mark.parametrize("players, target", [(2, 100), (3, 150), (4, 200), (7, 350)])
def test_target_wildcards_per_seat(players: int, target: int) -> None:
    """R-WC-SCORE: target 50 per seat, solo and at a friends' table."""
    rules = Ruleset.for_preset("wildcards")
    assert Match(rules, players=players, dealer=0).target == target
    assert Match(rules, players=players, dealer=0, solo=False).target == target


def test_wildcards_scores_classic_first_to_the_target() -> None:
    """R-WC-SCORE: the player who goes out collects (R-PTS-CLASSIC), a blocked round
    pays the lowest hands (R-BLOCKED-CLASSIC); the highest total at the target wins,
    a tie at the top plays on (R-TARGET-CLASSIC)."""
    rules = Ruleset.for_preset("wildcards")
    assert rules.rule_table.round_points([0, 12, 30], 0) == [42, 0, 0]
    assert rules.rule_table.round_points([12, 30, 12], None) == [18, 0, 18]
    m = Match(rules, players=2, dealer=0)
    m.record([99, 0], went_out=0)
    assert not m.over
    m.record([0, 101], went_out=1)
    assert m.winner == 1 and m.totals == [99, 101]  # first to reach the target
    m = Match(rules, players=2, dealer=0)
    m.record([120, 110])
    assert m.winner == 0  # both reached it: the highest wins
    m = Match(rules, players=2, dealer=0)
    m.record([100, 100])
    assert not m.over  # tie at the top
    m.record([0, 7], went_out=1)
    assert m.winner == 1


@pytest.mark.parametrize("players, solo, target", [(2, True, 100), (4, True, 200),
                                                   (7, True, 350), (4, False, 100)])
def test_target_zimbabwe_is_table_rules(players: int, solo: bool, target: int) -> None:
    """R-ZW-SCORE: R-TARGET-TABLE (solo 50 per seat, a friends' table 100) and
    R-WIN-TABLE (lowest total; a shared lowest plays on)."""
    rules = Ruleset.for_preset("zimbabwe")
    assert Match(rules, players=players, dealer=0, solo=solo).target == target
    m = Match(rules, players=4, dealer=0, target=200)
    m.record([210, 95, 95, 120])
    assert not m.over
    m.record([0, 5, 0, 0])
    assert m.winner == 2


def test_zimbabwe_round_result_names_winner_and_loser() -> None:
    """R-ZW-SCORE: a finished zimbabwe round names who went out and the highest hand;
    to_dict keeps the loser, other presets write none."""
    rules = Ruleset.for_preset("zimbabwe")
    m = Match(rules, players=3, dealer=0, target=10_000)
    named = 0
    for seed in range(1, 30):
        deck = standard_deck(jokers=True)
        random.Random(seed).shuffle(deck)
        rnd = m.start_round(OrderedDeck(deck))
        _play_out(rnd, seed)
        result = m.finish_round(rnd)
        assert result.winner == rnd.winner and result.loser == rnd.loser
        if result.loser is not None:
            named += 1
            values = [rnd.hand_value(s) for s in range(3)]
            assert values[result.loser] == max(values)
            assert values.count(max(values)) == 1
            assert result.points == tuple(values)  # R-PTS-TABLE
    assert named > 20
    data = json.loads(json.dumps(m.to_dict()))
    assert [r.get("loser") for r in data["results"]] == [r.loser for r in m.results]
    twin = Match.from_dict(data)
    assert [r.loser for r in twin.results] == [r.loser for r in m.results]
    table = Match(Ruleset(), players=2, dealer=0, target=1000)
    table.record([1, 2])
    assert table.results[0].loser is None and "loser" not in table.to_dict()["results"][0]
