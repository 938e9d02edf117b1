"""The coach, the hints, the renderer and the input parser; the coach in the real
process (first round ever only)."""

from __future__ import annotations

import pytest
from net.said import raises_saying

from p2p8s.bots.base import view_of
from p2p8s.bots.hints import hint
from p2p8s.cards import Card, Suit, parse_cards
from p2p8s.cli import view as v
from p2p8s.cli.play_cmd import CardChoice, Command, parse_input
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.coach import lines as said
from p2p8s.coach import Coach
from p2p8s.engine import DRAW, PASS, TAKE, Event, OrderedDeck, Play, Round
from p2p8s.errors import MalformedInput
from p2p8s.rules import Ruleset
from p2p8s.solo import HUMAN, Phase, SoloSession, SoloSettings, get_bot

from .conftest import Home, engine_event, say_turn


def _round(order: str, players: int = 3, hand_size: int = 3) -> Round:
    cards = parse_cards(order.split())
    return Round.deal(Ruleset(), players=players, dealer=players - 1,
                      deck=OrderedDeck(cards), hand_size=hand_size)


# ---------------------------------------------------------------- coach


def test_coach_explains_each_topic_once() -> None:
    # seat 0 gets 8S 2C QC, seat 1: 5H 9D 3S, seat 2: 7H 6D 4S; starter 9C
    r = _round("8S 5H 7H 2C 9D 6D QC 3S 4S 9C KD KH")
    coach = Coach()
    lines = said(Speaker(), coach.before_move(view_of(r, 0), r.legal_actions()))
    text = "\n".join(lines)
    assert "cards marked * fit" in text
    assert "8s are wild" in text
    assert "a 2 is a draw penalty" in text
    assert "a queen skips the next player" in text
    assert coach.before_move(view_of(r, 0), r.legal_actions()) == []  # once only
    r.apply(Play((Card.parse("2C"),)))
    lines = said(Speaker(), coach.before_move(view_of(r, 1), r.legal_actions()))
    assert any("penalty of 2 cards is waiting" in x and "type t to take" in x for x in lines)


def test_coach_on_played_cards_and_two_players() -> None:
    r = _round("5H AS 9C 8D 6H 2S 4D KD", players=2)
    view = view_of(r, 0)
    ace = Event(1, Play((Card.parse("AS"),)))
    eight = Event(1, Play((Card.parse("8D"),), Suit.HEARTS))
    coach = Coach()
    text = "\n".join(said(Speaker(["You", "Ada"], 0), coach.on_turns(view, [[ace], [eight]])))
    assert "with two players that works like a queen" in text
    assert "8s are wild" in text
    assert "Ada declared hearts" in text and "only a heart or another wild card" in text


def test_coach_draw_and_limit() -> None:
    r = _round("3S 4S 5S 6S 7S 8C 9C TC JC KD 2H 3H", players=3, hand_size=3)
    coach = Coach()
    # seat 0 holds 3S 6S 9C ... top KD: nothing fits for seat 0
    assert r.turn == 0 and not r.playable_cards()
    assert any("nothing fits, so draw (d)" in x and "up to 3 cards" in x
               for x in said(Speaker(), coach.before_move(view_of(r, 0), r.legal_actions())))


@pytest.mark.parametrize(("kw", "expect"), [
    ({"pending": 2, "cards": ["8S"]}, "only a 2 counters it (not even an 8)"),
    ({"drawn": "7C", "cards": ["9H"]}, "you may only play the card you drew (7C)"),
    ({"declared": True, "suit": Suit.SPADES, "cards": ["9H"]},
     "spades were declared, so you need a spade or a wild card"),
    ({"cards": ["5C", "6C"]}, "must share a rank: 5C and 6C"),
    ({"cards": ["9H"]}, ""),
    ({"cards": ["5C"]}, "5C doesn't fit on 9H: you need a heart, a 9, or an 8."),
])
def test_why_not(kw: dict[str, object], expect: str) -> None:
    args: dict[str, object] = {"top": Card.parse("9H"), "suit": Suit.HEARTS,
                               "declared": False, "pending": 0, "drawn": None, "wild": 8}
    args.update(kw)
    args["cards"] = parse_cards(kw["cards"])  # type: ignore[arg-type]
    if isinstance(args["drawn"], str):
        args["drawn"] = Card.parse(args["drawn"])
    note = Coach().why_not_text(**args)  # type: ignore[arg-type]
    text = "" if note is None else said(Speaker(look=v.Look(ascii=True)), [note])[0]
    assert expect in text if expect else text == ""


def test_why_not_names_an_ace_with_an() -> None:
    """Bug fixed: the coach said "a ace" when the top card was an ace."""
    note = Coach().why_not_text(top=Card.parse("AH"), suit=Suit.HEARTS, declared=False,
                                pending=0, drawn=None, cards=parse_cards(["5C"]), wild=8)
    assert note is not None
    assert said(Speaker(look=v.Look(ascii=True)), [note]) == [
        "5C doesn't fit on AH: you need a heart, an ace, or an 8."]


def test_coach_only_in_the_first_round_ever(home: Home) -> None:
    first = home.run("--seed", "11", "--opponents", "2", "--target", "30", stdin="quit\n")
    assert "Coach: this is your first round" in first.stdout
    assert "Coach: cards marked * fit" in first.stdout
    # play a whole round by pressing draw/pass/first card; a simpler way: autoplay to the
    # end does not coach and does not count as the player's first round
    auto = home.run("--auto", "karl", stdin=None)
    assert "Coach:" not in auto.stdout
    fresh = home.run("--new", "--seed", "12", stdin="")
    assert "Coach: this is your first round" in fresh.stdout


def test_coach_stops_after_the_first_round(home: Home) -> None:
    from .conftest import hint_script

    script, _ = hint_script(SoloSettings(opponents=1, rules=Ruleset()), 15, max_rounds=1)
    proc = home.run("--seed", "15", "--opponents", "1", stdin=script)
    out = proc.stdout
    assert "that was your first round" in out
    assert "Coach:" not in out[out.index("that was your first round") + 30:]
    assert '"coached": true' in home.settings.read_text()
    again = home.run("--new", "--seed", "16", stdin="")
    assert "Coach" not in again.stdout


# ---------------------------------------------------------------- hints


def test_hints_are_legal_and_have_a_reason() -> None:
    s = SoloSession.new(SoloSettings(opponents=2, rules=Ruleset(target=40)), 3)
    bots = s.bots()
    checked = 0
    while s.phase is not Phase.MATCH_OVER and checked < 40:
        if s.phase is Phase.ROUND_OVER:
            s.next_round()
            continue
        if s.round.turn == HUMAN:
            h = hint(s.view(HUMAN), s.legal(), s.rng("hint"))
            assert h.action in s.legal() and h.reason
            s.apply(h.action)
            checked += 1
        else:
            s.apply(s.choose(bots[s.round.turn]))


def test_expert_autoplay_is_legal() -> None:
    s = SoloSession.new(SoloSettings(opponents=1, rules=Ruleset(target=30)), 8)
    expert = get_bot("expert")
    bots = {**s.bots(), HUMAN: expert}
    for _ in range(120):
        if s.phase is not Phase.TURN:
            break
        legal = s.legal()
        action = s.choose(bots[s.round.turn])
        assert action in legal
        s.apply(action)
    assert s.bot_faults == 0


# ---------------------------------------------------------------- rendering


def test_render_marks_playable_cards_with_a_character_and_sorts() -> None:
    hand = parse_cards(["QS", "3C", "9H", "8D", "5H"])
    lines = v.render_hand(hand, {Card.parse("9H"), Card.parse("8D")}, v.Look())
    assert lines[0] == "Your hand (5 cards)  (* = playable):"
    assert lines[1].split() == ["clubs", "1", "3♣"]
    assert "2 8♦*" in lines[2] and "4 9♥*" in lines[3] and "3 5♥ " in lines[3]
    ascii_lines = v.render_hand(hand, set(), v.Look(ascii=True))
    assert "5 QS" in ascii_lines[-1] and "*" not in "".join(ascii_lines)


def test_colour_only_when_asked() -> None:
    card = Card.parse("9H")
    assert v.Look().card(card) == "9♥"
    assert v.Look(color=True).card(card, playable=True) == "\x1b[31;1m9♥\x1b[0m"


def test_render_table_shows_the_state() -> None:
    r = _round("8S 5H 7H 2C 9D 6D QC 3S 4S 9C KD KH")
    r.apply(Play((Card.parse("2C"),)))
    lines = v.render_table(view_of(r, 0), ["You", "Ada", "Bo"], v.Look(), round_number=1)
    text = "\n".join(lines)
    assert "> Ada" in text and "Bo    3 cards" in text.replace("  dealer", "")
    assert "Play goes clockwise: You → Ada → Bo → You" in text
    assert "Top card: 2♣ · suit: clubs ♣" in text
    assert "Draw penalty: 2 cards waiting" in text
    assert "You played 2♣ — draw penalty 2 for Ada." in text


def test_describe_turns() -> None:
    names = ["You", "Ada", "Bo"]
    draw = Event(1, DRAW, (None,), next_turn=1)
    eight = Event(1, Play((Card.parse("8S"),), Suit.HEARTS), next_turn=2)
    assert say_turn([draw, eight], names) == \
        "Ada drew a card, then played 8♠ and declared hearts ♥."
    assert say_turn([Event(0, DRAW, (Card.parse("3C"),), next_turn=0),
                     Event(0, PASS, next_turn=1)], names) == "You drew 3♣ and passed."
    assert say_turn([Event(2, TAKE, (None, None), next_turn=0)], names) == \
        "Bo took the draw penalty: 2 cards."
    q = engine_event(3, 2, "QS")
    assert say_turn([q], names) == "Bo played Q♠ — you miss a turn."
    assert say_turn([q], names, final=True) == "Bo played Q♠ and went out!"


# ---------------------------------------------------------------- input


HAND = parse_cards(["3C", "8D", "5H", "9H", "5S"])


@pytest.mark.parametrize(("text", "expect"), [
    ("d", DRAW), ("draw", DRAW), ("p", PASS), ("T", TAKE), ("hint", Command("hint")),
    ("?", Command("help")), ("quit", Command("quit")),
    ("3", CardChoice((Card.parse("5H"),), None)),
    ("3 5", CardChoice((Card.parse("5H"), Card.parse("5S")), None)),
    ("3,5", CardChoice((Card.parse("5H"), Card.parse("5S")), None)),
    ("2 h", CardChoice((Card.parse("8D"),), Suit.HEARTS)),
    ("2h", CardChoice((Card.parse("8D"),), Suit.HEARTS)),
    ("2 ♠", CardChoice((Card.parse("8D"),), Suit.SPADES)),
    ("8d s", CardChoice((Card.parse("8D"),), Suit.SPADES)),
    ("10h", None),
])
def test_parse_input(text: str, expect: object) -> None:
    if expect is None:
        with raises_saying(MalformedInput, "10H is not in your hand"):
            parse_input(text, HAND)
    else:
        assert parse_input(text, HAND) == expect


@pytest.mark.parametrize("text", ["", "0", "6", "1 1", "xyz", "3 d 5", "d 3"])
def test_parse_input_refuses(text: str) -> None:
    with pytest.raises(MalformedInput):
        parse_input(text, HAND)


def test_action_keys_round_trip() -> None:
    s = SoloSession.new(SoloSettings(opponents=1), 2)
    hand = v.numbered_hand(s.view(HUMAN).hand)
    for action in s.legal():
        keys = v.action_keys(action, hand)
        parsed = parse_input(keys, hand)
        if isinstance(action, Play):
            assert isinstance(parsed, CardChoice) and parsed.cards == action.cards
            assert parsed.suit == action.suit
        else:
            assert parsed == action
