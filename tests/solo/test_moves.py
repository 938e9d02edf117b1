"""The shared move prompt (p2p8s.cli.moves) and the one compact action text (engine)."""

from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

import pytest

import p2p8s.cli.moves
import p2p8s.cli.words.cli
import p2p8s.cli.words.rules
import p2p8s.engine
from p2p8s import solo
from p2p8s.cards import Card, Suit, parse_cards
from p2p8s.cli import moves
from p2p8s.cli.moves import CANCEL, NeedSuit, read_move, read_suit
from p2p8s.cli.view import Look, numbered_hand
from p2p8s.cli.words import PLAIN
from p2p8s.coach import Coach
from p2p8s.engine import Play, format_action, parse_action
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.solo import HUMAN, SoloSession, SoloSettings

CLI = Path(p2p8s.cli.moves.__file__).parent


@pytest.mark.parametrize("module", [p2p8s.cli.moves, p2p8s.cli.words.cli, p2p8s.cli.words.rules,
                                    p2p8s.engine], ids=lambda m: m.__name__)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0


def test_solo_saves_use_the_engine_text() -> None:
    assert solo.action_to_text is format_action
    assert solo.action_from_text is parse_action


def test_every_legal_action_of_a_match_round_trips() -> None:
    s = SoloSession.new(SoloSettings(opponents=3), seed=11)
    bots = s.bots()
    seen = 0
    while not s.round.over:
        for action in s.legal():
            assert parse_action(format_action(action)) == action
            seen += 1
        s.apply(s.choose(bots[s.round.turn]) if s.round.turn != HUMAN else s.legal()[0])
    assert seen > 20


@pytest.mark.parametrize("text", ["qs", "10S", "8S/", "8S/h", "QS,QH,QD,QC", " QS", "QS,",
                                  "DRAW", "8S/HH", "", "QS/X"])
def test_only_the_canonical_text_is_an_action(text: str) -> None:
    with pytest.raises(MalformedInput) as info:
        parse_action(text)
    assert re.search(r"bad action|not an action", PLAIN.error(info.value))


def test_a_sorted_multi_play_is_canonical() -> None:
    play = parse_action("QS,QD,QH,QC")
    assert play == Play(tuple(parse_cards(["QS", "QH", "QD", "QC"])))
    assert format_action(play) == "QS,QD,QH,QC"


def test_read_suit_and_its_cancel_words() -> None:
    assert read_suit(" S ") is Suit.SPADES and read_suit("hearts") is Suit.HEARTS
    assert all(read_suit(w) is CANCEL for w in ("cancel", "Cancel", " back "))
    assert read_suit("") is None and read_suit("z") is None
    # "x" is not a suit (and not a way to cancel): it is said so and asked again
    assert read_suit("x") is None
    assert moves.suit_retry("x") == "'x' is not a suit (c, d, h, s; or cancel)."
    assert moves.suit_retry("  ") == moves.SUIT_RETRY
    assert moves.SUIT_PROMPT == ("Declare a suit (c clubs, d diamonds, h hearts, s spades; "
                                 "or cancel): ")


def _first_turn_with_an_eight() -> SoloSession:
    """A solo round where you are on turn, not under a penalty, holding an 8 and more."""
    for seed in range(200):
        s = SoloSession.new(SoloSettings(opponents=1), seed=seed)
        while s.round.turn != HUMAN:
            s.apply(s.choose(s.bots()[s.round.turn]))
        view = s.view(HUMAN)
        if (not view.pending_draw and not view.drawn
                and any(c.rank == 8 for c in view.hand)
                and any(not s.round.playable(c, HUMAN) for c in view.hand)):
            return s
    raise AssertionError("no such seed")


def test_read_move_asks_for_a_suit_after_checking_the_rest() -> None:
    s = _first_turn_with_an_eight()
    view = s.view(HUMAN)
    coach = Coach()
    shown = numbered_hand(view.hand)
    eight = next(c for c in shown if c.rank == 8)
    number = shown.index(eight) + 1
    assert read_move(str(number), s.round, view, coach=coach) == NeedSuit((eight,))
    assert read_move(f"{number} h", s.round, view, coach=coach) == Play((eight,), Suit.HEARTS)
    assert read_move(f"{number}s", s.round, view, coach=coach) == Play((eight,), Suit.SPADES)
    assert read_move("hint", s.round, view, coach=coach) == moves.Command("hint")
    with pytest.raises(IllegalAction) as info:  # R-DRAW: an 8 fits
        read_move("d", s.round, view, coach=coach)
    assert re.search("playable card", PLAIN.error(info.value))
    with pytest.raises(MalformedInput):
        read_move("99", s.round, view, coach=coach)
    unplayable = next(c for c in shown if not s.round.playable(c, HUMAN))
    with pytest.raises(IllegalAction):
        read_move(str(unplayable), s.round, view, coach=coach)


def test_sentence_and_drew_line() -> None:
    look = Look(ascii=True)
    assert moves.sentence("bad") == "Bad." and moves.sentence("Why?") == "Why?"
    assert moves.drew_line(Card.parse("QS"), look) == "You drew QS."
    assert moves.drew_line(None, look, reshuffled=True) == (
        "You drew a card. (The discards were shuffled into a new stock.)")


def test_the_clients_import_no_private_names() -> None:
    """The solo and table clients share p2p8s.cli.moves, not each other's privates."""
    for path in CLI.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("p2p8s"):
                private = [a.name for a in node.names
                           if a.name.startswith("_") and not a.name.endswith("__")]
                assert not private, f"{path.name} imports {private} from {node.module}"
