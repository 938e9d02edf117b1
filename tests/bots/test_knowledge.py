"""Reading the table and sampling hidden hands consistent with it."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from bots_harness import decisions, new_round

from p2p8s.bots import REGULARS, get_bot, view_of
from p2p8s.bots.determinize import determinize
from p2p8s.bots.knowledge import TableKnowledge, read_table
from p2p8s.cards import Card, Suit, parse_cards, standard_deck
from p2p8s.engine import DRAW, PASS, OrderedDeck, Play, Round
from p2p8s.playout import playout
from p2p8s.rules import Ruleset


def _round_where_seat1_draws_and_passes() -> Round:
    # seat 1 holds no heart, no 7 and no 8: it must draw (R-DRAW) three times and pass
    s1 = parse_cards(["2C", "3C", "4C", "5C", "6C", "9C", "TC"])
    s0 = parse_cards(["AH", "3H", "4H", "5H", "6H", "9H", "TH"])
    starter = Card.parse("7H")
    draws = parse_cards(["JS", "QS", "KS"])
    used = {*s1, *s0, starter, *draws}
    order = [c for pair in zip(s1, s0, strict=True) for c in pair] + [starter, *draws]
    order += [c for c in standard_deck() if c not in used]
    r = Round.deal(Ruleset(), players=2, dealer=0, deck=OrderedDeck(order))
    assert r.turn == 1 and str(r.top) == "7H"
    for action in (DRAW, DRAW, DRAW, PASS):
        r.apply(action)
    return r


def test_a_draw_and_pass_reveals_a_void() -> None:
    r = _round_where_seat1_draws_and_passes()
    know = read_table(view_of(r, 0))
    assert know.void(1, Suit.HEARTS)
    assert not know.void(1, Suit.CLUBS)
    assert Card.parse("8D") in know.forbidden[1] and Card.parse("7C") in know.forbidden[1]
    assert sum(know.unseen.values()) == 52 - 7 - 1


def test_determinization_respects_the_void_and_the_counts() -> None:
    r = _round_where_seat1_draws_and_passes()
    view = view_of(r, 0)
    for seed in range(20):
        world = determinize(view, random.Random(seed))
        assert world.hands[0] == r.hands[0]
        assert [len(h) for h in world.hands] == [len(h) for h in r.hands]
        assert world.stock_size == r.stock_size and world.top == r.top
        assert not any(c is not None and (c // 13 == Suit.HEARTS or c % 13 + 1 == 8)
                       for c in world.hands[1])
        assert world.legal_actions() == r.legal_actions()


def test_determinized_worlds_hold_exactly_the_unseen_cards() -> None:
    table = [get_bot(n) for n in REGULARS]
    rng = random.Random(1)
    for seed in range(4):
        for rnd, view, legal, _ in decisions(Ruleset(), table, seed):
            world = determinize(view, rng)
            held = Counter(c for h in world.hands for c in h)
            real = Counter(c for h in rnd.hands for c in h)
            assert isinstance(world.deck, OrderedDeck) and isinstance(rnd.deck, OrderedDeck)
            stock = Counter(world.deck.top_first())
            assert held + stock + Counter(world.discard) == (
                real + Counter(rnd.deck.top_first()) + Counter(rnd.discard))
            assert world.legal_actions() == legal
            assert len(playout(world, rng)) == view.players


def test_the_declared_suit_is_sampled_more_often() -> None:
    rnd, match, _ = new_round(Ruleset(), 3, 5)
    view = view_of(rnd, 0, match)
    know = read_table(view)
    declared = dataclasses.replace(know, declared=(None, Suit.SPADES, None))
    rng = random.Random(0)
    def count(knowledge: TableKnowledge) -> int:
        total = 0
        for _ in range(200):
            world = determinize(view, rng, knowledge)
            total += sum(1 for c in world.hands[1] if c is not None and c // 13 == 3)
        return total

    with_declaration, plain = count(declared), count(know)
    assert with_declaration > 1.5 * plain


def test_a_declared_suit_is_remembered_per_seat() -> None:
    found = 0
    for seed in range(10):
        rnd, _match, _ = new_round(Ruleset(), 2, seed)
        while not rnd.over:
            legal = rnd.legal_actions()
            eights = [a for a in legal if isinstance(a, Play) and a.suit is not None]
            seat = rnd.turn
            rnd.apply(eights[-1] if eights else legal[0])
            if eights and not rnd.over:
                assert read_table(view_of(rnd, 1 - seat)).declared[seat] == eights[-1].suit
                found += 1
    assert found > 3
