"""Cards, notation (RULES.md §1), decks (R-DECK), rulesets and card values (§2, §7)."""

from __future__ import annotations

import doctest

import pytest

import p2p8s.cards
import p2p8s.engine
import p2p8s.errors
import p2p8s.match
import p2p8s.rules
import p2p8s.ruletable
import p2p8s.scenario
from p2p8s.cards import (
    ALL_CARDS,
    JOKERS,
    Card,
    Rank,
    Suit,
    deck_card,
    decks_for,
    parse_cards,
    standard_deck,
)
from p2p8s.cli import words
from p2p8s.cli.words import PLAIN
from p2p8s.errors import MalformedInput
from p2p8s.rules import Ruleset, Variant, card_value, hand_size, hand_value


def test_text_round_trip() -> None:
    for c in ALL_CARDS:
        assert Card.parse(str(c)) is c
        assert Card.parse(str(c).lower()) is c
    assert [str(c) for c in ALL_CARDS[:3]] == ["AC", "2C", "3C"]
    assert len(set(ALL_CARDS)) == 52


@pytest.mark.parametrize("text, card", [("10H", "TH"), ("10h", "TH"), ("T♥", "TH"),
                                        (" qs ", "QS"), ("a♠", "AS"), ("8d", "8D")])
def test_parse_forms(text: str, card: str) -> None:
    assert str(Card.parse(text)) == card


@pytest.mark.parametrize("text", ["", "Q", "1H", "11S", "QX", "8SS", "ZZ", "HQ"])
def test_parse_errors_name_the_text(text: str) -> None:
    with pytest.raises(MalformedInput) as info:
        Card.parse(text)
    assert f"{text!r} is not a card" in PLAIN.error(info.value)


def test_card_fields() -> None:
    q = Card.parse("QS")
    assert q.rank is Rank.QUEEN and q.suit is Suit.SPADES and q == 51 - 1
    assert Card.of(Rank.TEN, Suit.HEARTS).pretty() == "10♥"
    assert Card.of(12, 3).pretty(ascii=True) == "QS"
    assert repr(q) == "Card.parse('QS')"
    with pytest.raises(MalformedInput):
        Card(56)
    with pytest.raises(MalformedInput):
        Card.of(14, 0)


def test_jokers() -> None:
    """R-ZW-DECK: X1..X4 are cards 52..55 with no rank and no suit; text round trip."""
    assert [str(j) for j in JOKERS] == ["X1", "X2", "X3", "X4"]
    for j in JOKERS:
        assert Card.parse(str(j)) is j and Card.parse(str(j).lower()) is j and Card(int(j)) is j
        assert j.joker and j.rank is None and j.suit is None
    assert Card.parse("X1") == 52 and JOKERS[0].pretty(ascii=True) == "X1"
    assert not any(c.joker for c in ALL_CARDS)
    one, two = standard_deck(jokers=True), standard_deck(2, jokers=True)
    assert len(one) == 54 and one[52:] == list(JOKERS[:2])
    assert len(two) == 108 and two[104:] == list(JOKERS) and two[:104] == standard_deck(2)
    assert [deck_card(k, 108) for k in (0, 52, 103, 104, 107)] == [
        Card.parse(t) for t in ("AC", "AC", "KS", "X1", "X4")]
    for bad in ((54, 54), (0, 53), (52, 52)):
        with pytest.raises(MalformedInput):
            deck_card(*bad)
    for text in ("X0", "X5", "XX"):
        with pytest.raises(MalformedInput):
            Card.parse(text)


def test_decks() -> None:
    """R-DECK: one deck for 2-5 players, two for 6-7 (each card twice)."""
    assert [decks_for(n) for n in range(2, 8)] == [1, 1, 1, 1, 2, 2]
    two = standard_deck(2)
    assert len(two) == 104 and all(two.count(c) == 2 for c in ALL_CARDS)
    with pytest.raises(ValueError):
        standard_deck(3)
    assert parse_cards(["AC", "10D"]) == [Card.parse("AC"), Card.parse("TD")]


def test_suit_parse() -> None:
    assert Suit.parse("h") is Suit.HEARTS and Suit.parse("♣") is Suit.CLUBS
    assert Suit.parse("spades") is Suit.SPADES and Suit.parse("Diamond") is Suit.DIAMONDS
    with pytest.raises(MalformedInput) as info:
        Suit.parse("X")
    assert "not a suit" in PLAIN.error(info.value)


# ------------------------------------------------------------------------- rulesets


def test_defaults_and_presets() -> None:
    """RULES.md §2 defaults."""
    r = Ruleset()
    assert (r.action_cards, r.multi_play, r.draw_limit, r.draw_when_playable, r.reshuffle,
            r.target, r.variant) == (True, True, 3, False, True, None, Variant.STANDARD)
    assert not Ruleset.classic().action_cards
    assert not Ruleset(variant=Variant.COUNTDOWN).action_cards  # R-COUNTDOWN


def test_from_dict_round_trip_and_errors() -> None:
    r = Ruleset.from_dict({"action_cards": False, "draw_limit": 0, "variant": "countdown"})
    assert Ruleset.from_dict(r.to_dict()) == r
    for bad, msg in [({"jokers": 1}, "unknown rule option 'jokers'"),
                     ({"draw_limit": -1}, "draw_limit"), ({"draw_limit": True}, "draw_limit"),
                     ({"multi_play": "yes"}, "multi_play"), ({"target": 0}, "target"),
                     ({"variant": "speed"}, "variant")]:
        with pytest.raises(MalformedInput) as info:
            Ruleset.from_dict(bad)  # type: ignore[arg-type]
        assert msg in PLAIN.error(info.value)


@pytest.mark.parametrize("players, table, classic", [(2, 7, 7), (3, 7, 5), (4, 7, 5),
                                                     (5, 5, 5), (6, 5, 5), (7, 5, 5)])
def test_hand_size(players: int, table: int, classic: int) -> None:
    """R-HAND."""
    assert hand_size(Ruleset(), players) == table
    assert hand_size(Ruleset.classic(), players) == classic


def test_card_values() -> None:
    """§10.11 and every rank under R-PTS-TABLE / R-PTS-CLASSIC."""
    hand = parse_cards(["8H", "QS", "AD", "KC", "5D", "TS"])
    assert hand_value(hand, Ruleset()) == 115
    assert hand_value(hand, Ruleset.classic()) == 86
    table = {"A": 20, "2": 20, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 50, "9": 9,
             "T": 10, "J": 10, "Q": 20, "K": 10}
    classic = {**table, "A": 1, "2": 2, "Q": 10}
    for c in ALL_CARDS:
        letter = str(c)[0]
        assert card_value(c, Ruleset()) == table[letter]
        assert card_value(c, Ruleset.classic()) == classic[letter]


def test_describe() -> None:
    from p2p8s.cli.words.rules import describe_rules  # the words live in the CLI

    assert describe_rules(Ruleset()) == "table rules, multi-play, draw limit 3"
    assert "draw until playable" in describe_rules(Ruleset.classic(draw_limit=0))


@pytest.mark.parametrize("module", [p2p8s.cards, p2p8s.rules, p2p8s.ruletable, p2p8s.engine,
                                    p2p8s.match, p2p8s.errors, words, p2p8s.scenario],
                         ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0
