"""Unit tests of the round engine: deals, legal-action lists, errors, the hidden-card design.

Rule-by-rule cases live in tests/scenarios/ (run by test_scenarios.py); the engine bugs
found in review each have a test here with the right value.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from p2p8s.cards import Card, Suit, parse_cards, standard_deck
from p2p8s.cli.words import PLAIN
from p2p8s.engine import (
    DRAW,
    LUCKY,
    PASS,
    TAKE,
    Deck,
    Draw,
    EndedBy,
    Event,
    OrderedDeck,
    Pass,
    Play,
    Round,
    Take,
)
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.rules import Ruleset, Variant


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def rig(rules: Ruleset, hands: Sequence[str], after: str, *, dealer: int = 0,
        fill: bool = True) -> Round:
    """A round whose hands are ``hands`` (one string per seat) and whose stock after the
    deal is ``after`` (starter first), then the rest of the deck in canonical order."""
    players = len(hands)
    hs = [cards(h) for h in hands]
    size = len(hs[0])
    order: list[Card] = []
    for i in range(size):
        for k in range(players):
            order.append(hs[(dealer + 1 + k) % players][i])
    order += cards(after)
    if fill:
        used = list(order)
        for c in standard_deck(2 if players >= 6 else 1, jokers=rules.rule_table.jokers):
            if c in used:
                used.remove(c)
            else:
                order.append(c)
    return Round.deal(rules, players=players, dealer=dealer, deck=OrderedDeck(order),
                      hand_size=size)


def plays(r: Round) -> list[str]:
    return [str(a) for a in r.legal_actions()]


# ------------------------------------------------------------------------- the deal


def test_deal_order_and_first_player() -> None:
    """R-DEALORDER, R-FIRST: one card at a time from the top, from the dealer's left."""
    r = Round.deal(Ruleset.classic(), players=3, dealer=2, deck=OrderedDeck(standard_deck()))
    assert [str(c) for c in r.hands[0]] == ["AC", "4C", "7C", "TC", "KC"]
    assert [str(c) for c in r.hands[2]] == ["3C", "6C", "9C", "QC", "2D"]
    assert r.turn == 0 and str(r.top) == "3D" and r.stock_size == 36


def test_starter_burial_index() -> None:
    """§10.5, R-STARTER: each forbidden starter goes to index len(stock)//2 after removal."""
    r = rig(Ruleset(), ["3C", "4C"], "8C QH 5D 6C", fill=True)
    deck = r.deck
    assert isinstance(deck, OrderedDeck)
    stock = deck.top_first()
    assert str(r.top) == "5D" and len(stock) == 49
    # 8C went to index 24 of 49, QH then to 24 (8C now at 23); after 5D is turned
    # they sit at 22 and 23
    assert str(stock[22]) == "8C" and str(stock[23]) == "QH"
    assert stock[0] == Card.parse("6C")


def test_classic_starter_may_be_an_action_rank() -> None:
    r = rig(Ruleset.classic(), ["3C", "4C"], "2D")
    assert str(r.top) == "2D" and r.pending_draw == 0


def test_deal_errors() -> None:
    deals: list[tuple[str, Callable[[], object]]] = [
        ("2 to 7 players", lambda: Round.deal(Ruleset(), players=8, dealer=0,
                                              deck=OrderedDeck(standard_deck(2)))),
        ("dealer", lambda: Round.deal(Ruleset(), players=2, dealer=2,
                                      deck=OrderedDeck(standard_deck()))),
        ("the deal needs 15", lambda: Round.deal(Ruleset(), players=2, dealer=0,
                                                 deck=OrderedDeck(standard_deck()[:14]))),
        ("wild", lambda: Round.deal(Ruleset(), players=2, dealer=0,
                                    deck=OrderedDeck(standard_deck()), wild=[8])),
        ("no card in the stock can start", lambda: Round.deal(
            Ruleset(), players=2, dealer=0, hand_size=1,
            deck=OrderedDeck(cards("3C 4C 8H 8S QD")))),
    ]
    for words, deal in deals:
        with pytest.raises(MalformedInput) as info:
            deal()
        assert words in PLAIN.error(info.value)


def test_countdown_hand_sizes_and_wilds() -> None:
    """R-COUNTDOWN: numbers [8, 3] -> 8 and 3 cards, 3s wild for seat 1 (dealt in turn)."""
    rules = Ruleset(variant=Variant.COUNTDOWN)
    r = Round.deal(rules, players=2, dealer=0, deck=OrderedDeck(standard_deck()),
                   hand_size=[8, 3], wild=[8, 3])
    assert [len(h) for h in r.hands] == [8, 3]
    assert [str(c) for c in r.hands[1]] == ["AC", "3C", "5C"]
    assert not rules.action_cards and r.is_wild(Card.parse("3H"), 1)
    assert not r.is_wild(Card.parse("8H"), 1)


# -------------------------------------------------------------------- legal actions


def test_multi_play_listing() -> None:
    """R-MULTI: first card playable, the last sets the suit; middle order is one action."""
    r = rig(Ruleset(), ["2C 3C 4C 6C 7C 9C TC", "5H 5S 5C KD KS 3D 4D"], "9H")
    assert sorted(plays(r)) == ["play 5H", "play 5H 5C", "play 5H 5C 5S", "play 5H 5S",
                                "play 5H 5S 5C"]
    assert Play(tuple(cards("5H 5S 5C 5D"))) == Play(tuple(cards("5H 5C 5S 5D")))


def test_single_play_listing_without_multi() -> None:
    r = rig(Ruleset(multi_play=False), ["2C 3C 4C 6C 7C 9C TC", "5H 5S 5C KD KS 3D 4D"], "9H")
    assert plays(r) == ["play 5H"]


def test_eight_listing_declares_each_suit() -> None:
    r = rig(Ruleset(), ["2C 3C 4C 6C 7C 9C TC", "8H 8S 3S 4S 6S 7S 9S"], "5D")
    assert plays(r) == [f"play 8H{' 8S' * k} and declare {s}" for k in (0, 1) for s in "CDHS"] \
        + [f"play 8S and declare {s}" for s in "CDHS"]


def test_bug_drawn_eight_with_another_eight() -> None:
    """Bug found in review: after drawing 8H while holding 8C, the play of both 8s was
    not listed (the all-wild listing wanted the drawn card to sort first) and its
    sorted form was refused. Now it is listed sorted, accepted in any order, and
    applied in the sorted order (top 8H). R-DRAW-ANY (draw_when_playable on): the held
    8C alone may be played too."""
    r = rig(Ruleset(draw_when_playable=True),
            ["2C 3C 4C 6C 7C 9C TC", "8C 3S 4S 6S 7S 9S JS"], "5D 8H")
    r.apply(DRAW)
    legal = r.legal_actions()
    both = Play(tuple(cards("8C 8H")), Suit.SPADES)
    assert both in legal and Play((Card.parse("8C"),), Suit.SPADES) in legal
    assert r.canonical(Play(tuple(cards("8H 8C")), Suit.SPADES)) == both
    twin = r.copy()
    twin.apply(Play(tuple(cards("8H 8C")), Suit.SPADES))
    r.apply(both)
    assert str(r.top) == str(twin.top) == "8H"
    assert twin.log[-1].action == both


def test_bug_two_decks_list_each_action_once() -> None:
    """Bug found in review: with two decks (R-DECK) identical cards made the same
    multi-play appear twice in legal_actions."""
    r = rig(Ruleset(), ["3C 3C 3D 3H 4S", "5H 5H 5C 6D 7D", "2C 9C TC JC KC",
                        "2D 9D TD JD KD", "4H 6H 7H 9H JH", "4S 6S 7S 9S TS"], "5D")
    legal = r.legal_actions()
    assert len(legal) == len(set(legal))
    texts = [str(a) for a in legal]
    assert texts.count("play 5C 5H") == 1 and texts.count("play 5H 5H 5C") == 1
    assert "play 5H 5C 5H" in texts and "play 5C 5H 5H" in texts


def test_after_draw_only_the_drawn_card() -> None:
    """Interpretation: after drawing, only the drawn card may start a play (R-DRAW);
    with draw_when_playable on any playable card may, and drawing goes on under the
    limit (R-DRAW-ANY)."""
    r = rig(Ruleset(), ["2C 3C 4C 6C 7C 9C TC", "3S KS 4S 6S 7S 9S JS"], "5D KD")
    r.apply(DRAW)
    assert plays(r) == ["play KD", "play KD KS", "pass"]
    any_card = rig(Ruleset(draw_when_playable=True), ["2C 3C 4C 6C 7C 9C TC",
                                                     "3D KS 4S 6S 7S 9S JS"], "5D KD")
    any_card.apply(DRAW)
    assert [str(a) for a in any_card.legal_actions()] == [
        "play 3D", "play KD", "play KD KS", "draw", "pass"]
    any_card.apply(Play((Card.parse("3D"),)))
    assert str(any_card.top) == "3D" and any_card.turn == 0


def test_draw_any_fixed_case() -> None:
    """RULES.md §11.3 case 1 (R-DRAW-ANY): draw limit 1, top 7H, hand {5H, KC}: after
    drawing a 3S the player may play 5H (it was refused before) or pass."""
    r = rig(Ruleset(draw_when_playable=True, draw_limit=1),
            ["2C 9C", "5H KC"], "7H 3S")
    assert [str(a) for a in r.legal_actions()] == ["play 5H", "draw"]
    r.apply(DRAW)
    assert [str(a) for a in r.legal_actions()] == ["play 5H", "pass"]
    r.apply(Play((Card.parse("5H"),)))
    assert r.turn == 0 and str(r.top) == "5H"


def test_unplayable_draw_must_draw_again() -> None:
    """Interpretation: an unplayable draw under the limit -> draw again (no pass)."""
    r = rig(Ruleset(draw_limit=2), ["2C 3C 4C 6C 7C 9C TC", "3S 4S 6S 7S 9S JS KS"],
            "5D KC KH")
    r.apply(DRAW)
    assert r.legal_actions() == [DRAW]
    r.apply(DRAW)
    assert r.legal_actions() == [PASS]


def test_penalty_listing() -> None:
    """R-COUNTER: under a penalty only 2s and taking it."""
    r = rig(Ruleset(), ["2C 2H 8S 5D 6C 7C 9C", "2D 3S 4S 6S 7S 9S JS"], "5C", dealer=1)
    r.apply(Play((Card.parse("2C"),)))  # dealer 1: seat 0 leads
    assert r.turn == 1 and r.pending_draw == 2
    assert r.legal_actions() == [Play((Card.parse("2D"),)), TAKE]


# ------------------------------------------------------------------------- apply


def test_illegal_action_leaves_state_and_names_rule() -> None:
    r = rig(Ruleset(), ["2C 3C 4C 6C 7C 9C TC", "3D KS 4S 6S 7S 9S JS"], "5D KD")
    before = repr(r), [list(h) for h in r.hands]
    cases: list[tuple[object, str]] = [
        (DRAW, "R-DRAW"), (PASS, "R-PASS"), (TAKE, "R-COUNTER"),
        (Play((Card.parse("KS"),)), "R-MATCH"),
        (Play((Card.parse("5D"),)), ""),
        (Play(()), ""),
        (Play((Card.parse("3D"),), Suit.HEARTS), "R-EIGHT"),
    ]
    for action, rule in cases:
        with pytest.raises(IllegalAction) as info:
            r.apply(action)  # type: ignore[arg-type]
        assert (info.value.rule or "") == rule, action
        assert str(info.value)
    assert (repr(r), [list(h) for h in r.hands]) == before
    assert r.log == []


def test_bug_final_play_lapses_the_penalty() -> None:
    """Bug found in review: going out with a 2 against a pending penalty left the
    penalty (and the old active suit) in the final state; R-OUT says they lapse."""
    r = rig(Ruleset(), ["4S 6S", "2D 9S", "2C 2S"], "5D")
    r.apply(Play((Card.parse("2D"),)))
    event = r.apply(Play(tuple(cards("2C 2S"))))
    assert r.ended_by is EndedBy.OUT and r.winner == 2
    assert r.pending_draw == 0 and event.penalty == 0
    assert r.suit == Suit.SPADES and not r.declared
    assert r.points() == [10, 9, 0]


def test_bug_refused_reshuffle_leaves_discards() -> None:
    """Bug found in review: a deck refusing a reshuffle order had already lost the
    discard pile; the refill now happens before the pile is cut."""
    def bad(cs: Sequence[Card]) -> list[Card]:
        return [Card.parse("AS")] * len(cs)
    order = cards("5C 5H JS 9S 5D")
    r = Round.deal(Ruleset.classic(), players=2, dealer=0, deck=OrderedDeck(order, bad),
                   hand_size=2)
    r.apply(Play((Card.parse("5C"),)))
    r.apply(Play((Card.parse("5H"),)))
    with pytest.raises(MalformedInput):
        r.apply(DRAW)
    assert [str(c) for c in r.discard] == ["5D", "5C", "5H"]


def test_events() -> None:
    r = rig(Ruleset(), ["2C 3C 4C 6C 7C 9C TC", "3S 4S 6S 7S 9S JS KS"], "5D KD")
    e = r.apply(DRAW)
    assert e == Event(1, Draw(), (Card.parse("KD"),), 0, 0, next_turn=1)
    assert r.apply(PASS) == Event(1, Pass(), (), 0, 0, next_turn=0)
    assert str(Take()) == "take" and str(Play((Card.parse("8H"),), Suit.CLUBS)) == \
        "play 8H and declare C"


def test_points_classic_blocked_tie() -> None:
    """§10.7 at the engine level: hands 12, 30, 12 -> both 12s collect 18."""
    order = cards("KS 7C 9S QH 3S 2H TC 2S AC 4D")
    r = Round.deal(Ruleset.classic(), players=3, dealer=0, deck=OrderedDeck(order),
                   hand_size=3)
    for _ in range(3):
        r.apply(PASS)
    assert r.ended_by is EndedBy.BLOCKED and r.points() == [18, 0, 18]


# ------------------------------------------------------------------ hidden cards


class HiddenDeck:
    """A stock as one seat's node sees it: other seats' draws come back as None."""

    def __init__(self, inner: OrderedDeck, seat: int) -> None:
        self.inner, self.seat = inner, seat

    def __len__(self) -> int:
        return len(self.inner)

    def draw(self, seat: int | None) -> Card | None:
        card = self.inner.draw(seat)
        return card if seat is None or seat == self.seat else None

    def bury(self, card: Card, index: int) -> None:
        self.inner.bury(card, index)

    def refill(self, cards: Sequence[Card]) -> None:
        self.inner.refill(cards)

    def copy(self) -> HiddenDeck:
        return HiddenDeck(self.inner.copy(), self.seat)


@pytest.mark.parametrize("seed", range(12))
def test_hidden_stock_fits_without_special_cases(seed: int) -> None:
    """A node that sees only its own cards follows the same round: every action chosen
    with full knowledge is accepted, the public state and its own hand agree, and on
    its own turn it lists the same legal actions."""
    rng = random.Random(seed)
    players = 2 + seed % 4
    rules = Ruleset(draw_when_playable=bool(seed % 2), reshuffle=seed % 3 != 0)
    order = standard_deck()
    rng.shuffle(order)
    shuffle = random.Random(seed)

    def reshuffle(cs: Sequence[Card]) -> list[Card]:
        return shuffle.sample(list(cs), len(cs))

    full = Round.deal(rules, players=players, dealer=0, deck=OrderedDeck(order, reshuffle))
    me = seed % players
    shuffle2 = random.Random(seed)
    hidden_deck: Deck = HiddenDeck(
        OrderedDeck(order, lambda cs: shuffle2.sample(list(cs), len(cs))), me)
    mine = Round.deal(rules, players=players, dealer=0, deck=hidden_deck)
    assert all(c is None for s in range(players) if s != me for c in mine.hands[s])
    for _ in range(400):
        if full.over:
            break
        if full.turn == me:
            assert mine.legal_actions() == full.legal_actions()
        action = rng.choice(full.legal_actions())
        full.apply(action)
        mine.apply(action)
        assert (mine.turn, mine.top, mine.suit, mine.pending_draw, mine.direction,
                mine.stock_size, len(mine.discard)) == \
               (full.turn, full.top, full.suit, full.pending_draw, full.direction,
                full.stock_size, len(full.discard))
        assert [len(h) for h in mine.hands] == [len(h) for h in full.hands]
        assert sorted(c for c in mine.hands[me] if c is not None) == sorted(
            c for c in full.hands[me] if c is not None)
        assert mine.ended_by == full.ended_by and mine.winner == full.winner


@pytest.mark.parametrize(("players", "play", "skipped", "reversed_", "nxt", "direction"), [
    (4, "QH", (2,), False, 3, 1),  # R-QUEEN: seat 1 plays, seat 2 misses a turn
    (4, "QH QC", (2, 3), False, 0, 1),  # two Qs with 4 players: two players skipped
    (2, "QH QC", (1, 0), False, 1, 1),  # two Qs, 2 players: 3 steps, the opponent moves
    (2, "AH", (1,), False, 0, 1),  # R-ACE with 2 players acts as a queen: again
    (3, "AH", (), True, 0, -1),  # R-ACE: reverse
    (3, "AH AC", (), False, 2, 1),  # two aces: direction unchanged
    (3, "2H", (), False, 2, 1),  # R-TWO: no skip, the penalty goes to the next player
])
def test_event_effects(players: int, play: str, skipped: tuple[int, ...], reversed_: bool,
                       nxt: int, direction: int) -> None:
    """The effect of a play is recorded on its Event as the engine applied it (R-NEXT)."""
    hands = ["3D 4D 5D 6D 7D 9D TD", "QH QC AH AC 2H 9S KS", "3C 4C 5C 6C 7C 9C TC",
             "3S 4S 5S 6S 7S 8C JC"][:players]
    if players == 2:
        hands = [hands[1], hands[0]]
    seat = 0 if players == 2 else 1
    dealer = (seat - 1) % players
    r = rig(Ruleset(), hands, "5H KD", dealer=dealer)
    assert r.turn == seat
    e = r.apply(Play(tuple(cards(play))))
    assert (e.skipped, e.reversed, e.next_turn, e.direction) == (skipped, reversed_, nxt,
                                                                  direction)
    assert e.next_turn == r.turn and e.direction == r.direction


def test_a_player_in_the_air_who_keeps_the_lucky_card_is_down_again() -> None:
    """R-ZW-LUCKY, R-ZW-OUT: in the air, facing a penalty with one card left to draw
    (reshuffle off), the lucky card is taken: the player holds it and is no longer in
    the air, so they may pick and play it."""
    rules = Ruleset.for_preset("zimbabwe", reshuffle=False)
    order = parse_cards(["3C", "4C", "5D", "6D", "9H", "9C"])
    r = Round.deal(rules, players=2, dealer=0, deck=OrderedDeck(order), hand_size=2)
    assert str(r.top) == "9H" and r.stock_size == 1
    r.hands[1] = []
    r.air[1] = True
    r.turn, r.pending_draw = 1, 2
    event = r.apply(LUCKY)
    assert event.lucky == Card.parse("9C") and event.drawn == (Card.parse("9C"),)
    assert r.hands[1] == [Card.parse("9C")] and not r.air[1] and r.picking
    assert Play((Card.parse("9C"),)) in r.legal_actions()
