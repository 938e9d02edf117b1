"""The rule table (p2p8s/ruletable.py): each preset's card effects, starters, deal order,
hand sizes, values, scoring and targets as data (RULES.md §3, §5, §7); and every code of
the rules layer has its words (p2p8s/cli/words)."""

from __future__ import annotations

import dataclasses
import doctest
import hashlib
import json
from enum import Enum

import pytest
from click.testing import CliRunner

import p2p8s.bots.hints
import p2p8s.bots.registry
import p2p8s.cli.words.bots
import p2p8s.cli.words.coach
import p2p8s.cli.words.phrases
import p2p8s.cli.words.rules
import p2p8s.coach
import p2p8s.playout
from p2p8s.bots.base import view_of
from p2p8s.cards import Card, CardsCode, Rank, Suit, parse_cards, standard_deck
from p2p8s.cli import words
from p2p8s.cli.main import cli
from p2p8s.cli.words import PLAIN
from p2p8s.coach import Coach, CoachCode
from p2p8s.engine import EngineCode, OrderedDeck, Play, Round
from p2p8s.errors import IllegalAction
from p2p8s.match import MatchCode
from p2p8s.playout import PlayoutCode
from p2p8s.rules import RulesCode, Ruleset, Variant, round_points
from p2p8s.ruletable import (
    CLASSIC,
    PRESETS,
    TABLE,
    WILDCARDS,
    ZIMBABWE,
    CardRule,
    Effect,
    RuleTable,
    Scoring,
    bury_index,
    deal_order,
    first_dealer,
    rank_rules,
)
from p2p8s.scenario import ScenarioCode, run_scenario

CODES: list[type[Enum]] = [RulesCode, CardsCode, EngineCode, PlayoutCode, MatchCode,
                           ScenarioCode, CoachCode]


@pytest.mark.parametrize("module", [
    p2p8s.coach, p2p8s.playout, p2p8s.bots.hints, p2p8s.bots.registry, p2p8s.cli.words.phrases,
    p2p8s.cli.words.rules, p2p8s.cli.words.coach, p2p8s.cli.words.bots],
    ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("codes", CODES, ids=lambda c: c.__name__)
def test_every_code_has_words(codes: type[Enum]) -> None:
    assert words.missing(codes) == []


#: RULES.md §10.11's hand.
_EXAMPLE = parse_cards(["8H", "QS", "AD", "KC", "5D", "TS"])


def _ranks_with(table: RuleTable, field: str) -> set[Rank]:
    return {Card(c).rank for c in range(52) if getattr(table.rule(c), field)}


def test_table_rules_as_data() -> None:
    """§5: 2 +2, Q skip, A reverse, 8 wild; R-STARTER; R-HAND; R-PTS-TABLE; targets."""
    assert TABLE.wild_rank == Rank.EIGHT
    assert _ranks_with(TABLE, "penalty") == {Rank.TWO}
    assert {TABLE.rule(c).penalty for c in range(52) if TABLE.counters(c)} == {2}
    assert _ranks_with(TABLE, "skip") == {Rank.QUEEN}
    assert _ranks_with(TABLE, "reverse") == {Rank.ACE}
    assert {Card(c).rank for c in range(52) if not TABLE.starter(c)} == {
        Rank.EIGHT, Rank.TWO, Rank.QUEEN, Rank.ACE}
    assert [TABLE.hand_size(n) for n in range(2, 8)] == [7, 7, 7, 5, 5, 5]
    assert TABLE.hand_value(_EXAMPLE) == 115  # §10.11
    assert (TABLE.solo_target.of(4), TABLE.table_target.of(4)) == (200, 100)
    assert TABLE.scoring is Scoring.HAND


def test_classic_as_data() -> None:
    """§7.2: no effects but the wild 8; only an 8 may not start; R-HAND; R-PTS-CLASSIC."""
    assert CLASSIC.wild_rank == Rank.EIGHT
    assert not any(CLASSIC.rule(c).action for c in range(52))
    assert {Card(c).rank for c in range(52) if not CLASSIC.starter(c)} == {Rank.EIGHT}
    assert [CLASSIC.hand_size(n) for n in range(2, 8)] == [7, 5, 5, 5, 5, 5]
    assert CLASSIC.hand_value(_EXAMPLE) == 86  # §10.11
    assert CLASSIC.round_points([12, 30, 12], None) == [18, 0, 18]  # §10.7
    assert CLASSIC.round_points([0, 30, 12], 0) == [42, 0, 0]
    assert PRESETS == {"table": TABLE, "classic": CLASSIC, "wildcards": WILDCARDS,
                       "zimbabwe": ZIMBABWE}


def test_rulesets_pick_their_table() -> None:
    assert Ruleset().rule_table is TABLE and Ruleset.classic().rule_table is CLASSIC
    assert Ruleset(variant=Variant.COUNTDOWN).rule_table is CLASSIC  # R-COUNTDOWN
    assert round_points(Ruleset(variant=Variant.COUNTDOWN), [5, 9], 0) == [0, 0]


@pytest.mark.parametrize(("cards", "players", "effect"), [
    ("QS QH", 4, Effect(skips=2)),  # R-NEXT: two queens skip two players
    ("AS AH", 3, Effect(reverses=2)),  # two aces keep the direction
    ("AS", 2, Effect(skips=1)),  # R-ACE: with two players an ace is a queen
    ("2S 2H", 3, Effect(penalty=4)),  # R-TWO per card
    ("7S", 3, Effect()),
])
def test_a_play_counts_each_card(cards: str, players: int, effect: Effect) -> None:
    assert TABLE.effect(parse_cards(cards.split()), players) == effect


def test_a_rule_for_one_card_beats_its_rank() -> None:
    """Per-card entries (the shape RULES.md §11.1's Q♠ +5 needs)."""
    queen = Card.parse("QS")
    rules = rank_rules({Rank.QUEEN: CardRule(value=10)}, {queen: CardRule(value=10, penalty=5)})
    assert rules[queen].penalty == 5 and rules[Card.parse("QH")].penalty == 0
    assert rules[Card.parse("5D")] == CardRule(value=5)


def test_an_inconsistent_table_is_refused() -> None:
    two_wilds = rank_rules({Rank.EIGHT: CardRule(value=50, wild=True),
                            Rank.SEVEN: CardRule(value=7, wild=True)})
    with pytest.raises(ValueError):
        dataclasses.replace(TABLE, cards=two_wilds)
    with pytest.raises(ValueError):
        dataclasses.replace(TABLE, hand_sizes=(7, 7))


def test_deal_order_and_burying() -> None:
    """R-DEALORDER one card at a time from the left of the dealer; R-STARTER index."""
    assert deal_order([2, 2, 2], dealer=2) == (0, 1, 2, 0, 1, 2)
    assert deal_order([1, 3, 2], dealer=0) == (1, 2, 0, 1, 2, 1)
    assert bury_index(37) == 18


def test_first_dealer_is_the_digest_mod_players() -> None:
    """R-DEALER: the first 8 bytes of SHA-512, big-endian, mod players."""
    seed = b"p2p8s/v1/dealer" + bytes(32)
    want = int.from_bytes(hashlib.sha512(seed).digest()[:8], "big") % 5
    assert first_dealer(seed, 5) == want


def _nine_on_three() -> Round:
    """Seat 1 (on turn) holds 7H 2C, seat 0 9C 9D; the starter is 3S."""
    order = parse_cards(["7H", "9C", "2C", "9D", "3S", "4H"])
    order += [c for c in standard_deck() if c not in order]
    return Round.deal(Ruleset(), players=2, dealer=0, deck=OrderedDeck(order), hand_size=2)


def test_the_engine_refuses_with_a_code_and_the_rule() -> None:
    r = _nine_on_three()
    with pytest.raises(IllegalAction) as info:
        r.apply(Play((Card.parse("7H"),)))
    err = info.value
    assert (err.code, err.rule) == (EngineCode.NO_MATCH, "R-MATCH")
    assert err.params["card"] == Card.parse("7H") and err.params["suit"] is Suit.SPADES
    assert PLAIN.error(err) == "7♥ does not match 3♠ (suit spades or rank 3)"


def test_the_coach_explains_a_refusal_with_its_own_code() -> None:
    r = _nine_on_three()
    cards = [Card.parse("7H")]
    with pytest.raises(IllegalAction) as info:
        r.check(Play(tuple(cards)))
    better = Coach().why_not(view_of(r, 1), cards, info.value)
    assert better.code is CoachCode.NO_FIT and better.rule == "R-MATCH"
    assert PLAIN.error(better) == "7♥ doesn't fit on 3♠: you need a spade, a 3, or an 8."


def test_scenario_json_carries_a_stable_code_and_the_cli_adds_words() -> None:
    deck = [str(c) for c in standard_deck()]
    data = {"players": 2, "dealer": 0, "stock": deck, "actions": [{"seat": 1, "play": ["AC"]}]}
    error = run_scenario(data)["error"]
    assert error == {"action": 0, "code": "no-match", "rule": "R-MATCH",
                     "params": {"card": "AC", "top": "3D", "suit": "D", "declared": False}}
    result = CliRunner().invoke(cli, ["scenario", "-"], input=json.dumps(data))
    assert result.exit_code == 1
    out = json.loads(result.stdout)["error"]
    assert out["code"] == "no-match"
    assert out["message"] == "AC does not match 3D (suit diamonds or rank 3)"
    seat = run_scenario({**data, "actions": [{"seat": 0, "draw": True}]})["error"]
    assert (seat["code"], seat["params"]) == ("scenario-not-on-turn", {"turn": 1, "seat": 0})
