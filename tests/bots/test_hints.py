"""Hints: the expert's move, always legal, with a one-line reason from the advice."""

from __future__ import annotations

import dataclasses
import random

import pytest
from bots_harness import RULESETS, decisions

from p2p8s.bots import REGULARS, get_bot, hint, view_of
from p2p8s.bots.hints import Hint, HintCode, explain
from p2p8s.cards import Card, parse_cards, standard_deck
from p2p8s.cli import words
from p2p8s.cli.view import Look
from p2p8s.cli.words import Speaker
from p2p8s.engine import DRAW, TAKE, Event, OrderedDeck, Play, Round
from p2p8s.errors import Note
from p2p8s.rules import Ruleset


def _said(note: Note, names: list[str] | None = None) -> str:
    """The reason as the CLI says it (cards with suit glyphs)."""
    return Speaker(names=names or (), look=Look()).say(note.code, **note.params)


def test_every_reason_has_words() -> None:
    assert words.missing(HintCode) == []


def _deal(seat1: str, seat0: str, starter: str, players: int = 2) -> Round:
    s1, s0 = parse_cards(seat1.split()), parse_cards(seat0.split())
    top = Card.parse(starter)
    order = [c for pair in zip(s1, s0, strict=True) for c in pair] + [top]
    order += [c for c in standard_deck() if c not in {*s1, *s0, top}]
    return Round.deal(Ruleset(), players=players, dealer=0, deck=OrderedDeck(order),
                      hand_size=len(s1))


def test_hints_are_legal_with_a_reason_across_rulesets() -> None:
    rng = random.Random(2)
    table = [get_bot(n) for n in REGULARS]
    seen = 0
    for name, rules in sorted(RULESETS.items()):
        for _, view, legal, _ in decisions(rules, table, len(name)):
            if rng.random() < 0.15:
                h = hint(view, legal, rng, playouts=16)
                assert isinstance(h, Hint) and h.action in legal
                text = _said(h.reason)
                assert text.strip() and "\n" not in text
                seen += 1
    assert seen > 20


def test_take_the_penalty_without_a_two() -> None:
    r = _deal("2H 5C 6C", "9D TD JD", "7H")
    r.apply(Play((Card.parse("2H"),)))
    view = view_of(r, 0)
    h = hint(view, r.legal_actions(), random.Random(1), playouts=8)
    assert h.action == TAKE
    assert _said(h.reason) == "Take the penalty: you have no 2."


def test_keep_the_eight_while_a_card_follows_suit() -> None:
    r = _deal("7H 8S", "2C 9D", "3H")
    h = hint(view_of(r, 1), r.legal_actions(), random.Random(1))
    assert str(h.action) == "play 7H"
    assert _said(h.reason) == "Keep your 8: you can follow suit with 7♥."


def test_reasons_name_players_and_the_suit() -> None:
    r = _deal("8S 4H 5H 6H 9C", "2C 9D TD JD QD", "3C")
    view = view_of(r, 1)
    legal = r.legal_actions()
    to_hearts = next(a for a in legal if isinstance(a, Play) and a.cards == (Card.parse("8S"),)
                     and a.suit == 2)
    assert _said(explain(view, legal, to_hearts)) == (
        "Change to hearts: you hold three hearts, your longest suit.")
    r2 = _deal("QH 4H", "2C 9D", "3H", players=2)
    r2.hands[0] = r2.hands[0][:1]
    view2 = view_of(r2, 1)
    queen = Play((Card.parse("QH"),))
    assert _said(explain(view2, r2.legal_actions(), queen), names=["Bea", "You"]) == (
        "Play the Q now: Bea has one card left.")


def _declare(hand: str, suit: int, *, log: tuple[Event, ...] = (), discard: str = "",
             players: int = 3) -> str:
    """The reason for playing the first card of ``hand`` (an 8) declaring ``suit``."""
    r = _deal("9D TD JD QD KD", "4H 5H 6H 7H 9H", "3C", players=players)
    cards = parse_cards(hand.split())
    r.hands[r.turn] = list(cards)
    view = view_of(r, r.turn)
    if discard:
        view = dataclasses.replace(view, discard=(*parse_cards(discard.split()), view.top))
    view = dataclasses.replace(view, log=log)
    play = Play((cards[0],), suit)  # type: ignore[arg-type]
    return _said(explain(view, [play], play), names=["Ann", "Bea", "Cy"][:players])


@pytest.mark.parametrize(("hand", "suit", "reason"), [
    ("8S 4H 5H 6H 9C", 2, "Change to hearts: you hold three hearts, your longest suit."),
    ("8S 4H 5H 9C 9D", 2, "Change to hearts: you hold two hearts, your longest suit."),
    ("8S 4H 5C 6C", 2, "Change to hearts: you hold a heart."),
    ("8S 4H 9C", 2, "Change to hearts: you hold a heart."),
    ("8S 4H", 2, "Change to hearts: your only other card is a heart."),
    ("8S 4H 5H", 2, "Change to hearts: both of your other cards are hearts."),
    ("8S 4H 5H 9H", 2, "Change to hearts: all three of your other cards are hearts."),
    ("8S 8H", 0, "Change to clubs: all you keep is an 8, and it fits any suit."),
    ("8S 8H 8D", 0, "Change to clubs: all you keep is two 8s, and they fit any suit."),
    ("8S 4H 9D", 0, "Change to clubs: you hold none, but the look-ahead finds the others "
                    "least able to follow clubs."),
])
def test_declare_reasons_count_and_never_contradict(hand: str, suit: int, reason: str) -> None:
    assert _declare(hand, suit) == reason


def test_declare_a_suit_you_lack_because_a_player_drew_on_it() -> None:
    # seat 1 (Bea, next after seat 0... the turn is seat 1 at the deal of 3 players with
    # dealer 0): the player after the mover drew on clubs, the starter's suit
    r = _deal("9D TD JD QD KD", "4H 5H 6H 7H 9H", "3C", players=3)
    mover = r.turn
    nxt, after = (mover + 1) % 3, (mover + 2) % 3
    names = ["Ann", "Bea", "Cy"]
    drew_next = (Event(nxt, DRAW, (None,)),)
    assert _declare("8S 4H 9D", 0, log=drew_next) == (
        f"Change to clubs: {names[nxt]} drew on clubs and has none.")
    drew_after = (Event(after, DRAW, (None,)),)
    assert _declare("8S 4H 9D", 0, log=drew_after) == (
        f"Change to clubs: you hold none, but {names[after]} drew on clubs and has none "
        "either.")
    # holding the suit beats the read of the player after next
    assert _declare("8S 4C 9D", 0, log=drew_after).startswith("Change to clubs: you hold")


def test_declare_a_suit_you_lack_because_the_pile_holds_it() -> None:
    assert _declare("8S 4H 9D", 0, discard="4C 5C") == (
        "Change to clubs: you hold none, but the look-ahead finds the others least able "
        "to follow clubs.")
    assert _declare("8S 4H 9D", 0, discard="4C 5C 6C 9S") == (
        "Change to clubs: you hold none, but four clubs are already on the discard pile, "
        "so the others are short of them too.")


def test_no_reason_says_hold_no() -> None:
    for hand in ("8S 4H 9D", "8S 8H", "8S 4H", "8S 4H 5C 6C"):
        for suit in range(4):
            text = _declare(hand, suit)
            assert "hold no " not in text and " no of " not in text
            assert text.endswith(".") and "\n" not in text
