"""Hints: the expert's move, always legal, with a one-line reason from the advice."""

from __future__ import annotations

import random

from bots_harness import RULESETS, decisions

from p2p8s.bots import REGULARS, get_bot, hint, view_of
from p2p8s.bots.hints import Hint, explain
from p2p8s.cards import Card, parse_cards, standard_deck
from p2p8s.engine import TAKE, OrderedDeck, Play, Round
from p2p8s.rules import Ruleset


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
                assert h.reason.strip() and "\n" not in h.reason
                seen += 1
    assert seen > 20


def test_take_the_penalty_without_a_two() -> None:
    r = _deal("2H 5C 6C", "9D TD JD", "7H")
    r.apply(Play((Card.parse("2H"),)))
    view = view_of(r, 0)
    h = hint(view, r.legal_actions(), random.Random(1), playouts=8)
    assert h.action == TAKE
    assert h.reason == "Take the penalty: you have no 2."


def test_keep_the_eight_while_a_card_follows_suit() -> None:
    r = _deal("7H 8S", "2C 9D", "3H")
    h = hint(view_of(r, 1), r.legal_actions(), random.Random(1))
    assert str(h.action) == "play 7H"
    assert h.reason == "Keep your 8: you can follow suit with 7♥."


def test_reasons_name_players_and_the_suit() -> None:
    r = _deal("8S 4H 5H 6H 9C", "2C 9D TD JD QD", "3C")
    view = view_of(r, 1)
    legal = r.legal_actions()
    to_hearts = next(a for a in legal if isinstance(a, Play) and a.cards == (Card.parse("8S"),)
                     and a.suit == 2)
    assert explain(view, legal, to_hearts) == "Change to hearts: you hold three of them."
    r2 = _deal("QH 4H", "2C 9D", "3H", players=2)
    r2.hands[0] = r2.hands[0][:1]
    view2 = view_of(r2, 1)
    queen = Play((Card.parse("QH"),))
    assert explain(view2, r2.legal_actions(), queen, names=["Bea", "You"]) == (
        "Play the Q now: Bea has one card left.")
