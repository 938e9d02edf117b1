"""Honest mental-poker rounds for 2..7 seats: deal, open, draw, play, reshuffle, audit."""

from __future__ import annotations

from collections import Counter

import pytest

from p2p8s.cards import Card, standard_deck
from p2p8s.crypto import events as ev
from p2p8s.crypto.deck import Position
from p2p8s.crypto.errors import ProtocolMisuse
from p2p8s.crypto.harness import FakeNetwork, deal_hands, finish, new_table, start
from p2p8s.crypto.messages import Strip


def received(net: FakeNetwork, seat: int) -> dict[Position, Card]:
    return {e.position: e.card for e in net.events[seat] if isinstance(e, ev.CardReceived)}


def strips_sent(net: FakeNetwork, seat: int) -> int:
    return sum(isinstance(m, Strip) for m in net.sent[seat])


def run_round(n: int, *, order_seed: bytes | None = None, hand: int = 5) -> FakeNetwork:
    net = new_table(n, order_seed=order_seed)
    start(net)
    size = net.sessions[0].config.deck_size
    for s in range(n):
        assert any(isinstance(e, ev.KeysReady) for e in net.events[s])
        assert ev.EpochReady(0, size) in net.events[s]
    ids = {s.round_id for s in net.sessions}
    assert len(ids) == 1 and None not in ids

    deal_hands(net, hand)
    top = hand * n
    net.call_all(lambda s: s.open([(0, top)]))
    net.roundtrip_until_done()
    opened = {e.card for s in range(n) for e in net.events[s] if isinstance(e, ev.CardOpened)}
    assert len(opened) == 1
    for s in range(n):
        assert len(net.sessions[s].hand()) == hand
    # every seat draws one card, then plays one
    for s in range(n):
        net.call_all(lambda x, s=s: x.draw((0, top + 1 + s), s))
        net.roundtrip_until_done()
    played: list[Position] = [(0, top)]
    for s in range(n):
        pos = sorted(net.sessions[s].hand())[0]
        net.call(s, lambda x, pos=pos: x.play([pos]))
        net.roundtrip_until_done()
        played.append(pos)
        for other in range(n):
            last = [e for e in net.events[other] if isinstance(e, ev.CardsPlayed)][-1]
            assert last.seat == s and last.items[0][0] == pos
    # reshuffle the discards under epoch 1, and draw from it
    net.call_all(lambda x: x.reshuffle(played))
    net.roundtrip_until_done()
    for s in range(n):
        assert ev.EpochReady(1, len(played)) in net.events[s]
    net.call_all(lambda x: x.draw((1, 0), 0))
    net.roundtrip_until_done()
    return net


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7])
def test_honest_round_audits_and_agrees_with_what_seats_saw(players: int) -> None:
    net = run_round(players)
    reports = finish(net)
    assert all(r == reports[0] for r in reports)
    report = reports[0]
    size = 104 if players >= 6 else 52
    # the deal is a permutation of the canonical deck (two decks: each card twice)
    assert sorted(report.orders[0]) == list(range(size))
    assert Counter(report.faces(0)) == Counter(standard_deck(2 if size == 104 else 1))
    for s in range(players):
        for pos, card in received(net, s).items():
            assert report.card_at(pos) == card
        assert set(report.holdings[s]) == set(received(net, s))
    # epoch 1 holds exactly the discards that were reshuffled
    assert len(report.orders[1]) == players + 1
    holdings = [p for s in range(players) for p in report.holdings[s]]
    assert len(holdings) == len(set(holdings)) == players * 6 + 1  # 5 + 1 each, 1 of epoch 1
    for s in range(players):
        for e in net.events[s]:
            if isinstance(e, ev.KeysRevealed):
                break
        else:
            pytest.fail("no KeysRevealed event")


def test_random_delivery_order_gives_the_same_result_as_fifo() -> None:
    a = run_round(4)
    b = run_round(4, order_seed=b"shuffle the links")
    assert finish(a)[0] == finish(b)[0]
    assert [m.encode() for m in a.sent[2]] != [] and a.delivered == b.delivered


def test_batched_deal_takes_n_minus_1_strip_messages_per_seat() -> None:
    for n in (2, 4, 7):
        net = new_table(n)
        start(net)
        deal_hands(net, 5)
        assert [strips_sent(net, s) for s in range(n)] == [n - 1] * n
        net.call_all(lambda s: s.open([(0, 40)]))
        net.roundtrip_until_done()
        assert [strips_sent(net, s) for s in range(n)] == [n] * n


def test_same_seeds_give_identical_bytes_and_different_seeds_a_different_deck() -> None:
    def transcript(seed: bytes) -> list[bytes]:
        net = new_table(3, seed=seed)
        start(net)
        deal_hands(net, 2)
        return [m.encode() for s in range(3) for m in net.sent[s]]

    assert transcript(b"x") == transcript(b"x")
    assert transcript(b"x") != transcript(b"y")


def test_local_misuse_raises_protocol_misuse_and_changes_nothing() -> None:
    net = new_table(2)
    start(net)
    deal_hands(net, 2)
    s0 = net.sessions[0]
    with pytest.raises(ProtocolMisuse):
        s0.deal([((0, 0), 1)])  # already dealt
    with pytest.raises(ProtocolMisuse):
        s0.play([(0, 0)])  # seat 1's card (dealer 0 deals to seat 1 first)
    with pytest.raises(ProtocolMisuse):
        s0.reshuffle([(0, 1)])  # not face up
    with pytest.raises(ProtocolMisuse):
        s0.recover(1)  # no escrow with two seats
    with pytest.raises(ProtocolMisuse):
        s0.start_round()
    assert len(s0.hand()) == 2


def test_buried_starter_can_be_given_and_played_without_a_proof() -> None:
    net = new_table(3)
    start(net)
    net.call_all(lambda s: s.open([(0, 0)]))
    net.roundtrip_until_done()
    net.call_all(lambda s: s.give((0, 0), 2))
    assert list(net.sessions[2].hand()) == [(0, 0)]
    net.call(2, lambda s: s.play([(0, 0)]))
    net.roundtrip_until_done()
    report = finish(net)[0]
    assert report.holdings[2] == ((0, 0),)


@pytest.mark.parametrize("players, size", [(2, 54), (4, 54), (6, 108), (7, 108)])
def test_joker_decks_deal_every_card_and_audit(players: int, size: int) -> None:
    """R-ZW-DECK: a 54- or 108-card deck deals the jokers X1 X2 (X3 X4) as cards of
    their own; what the seats received is what the audit finds."""
    net = new_table(players, deck_size=size)
    start(net)
    hand = size // players
    deal_hands(net, hand)
    got = Counter(c for s in range(players) for c in received(net, s).values())
    report = finish(net)[0]
    assert Counter(report.faces(0)) == Counter(standard_deck(size // 54, jokers=True))
    for s in range(players):
        for pos, card in received(net, s).items():
            assert report.card_at(pos) == card
    dealt = Counter(report.faces(0)[:hand * players])
    assert got == dealt and sum(got.values()) == hand * players
    assert {str(c) for c in report.faces(0) if c.joker} == (
        {"X1", "X2"} if size == 54 else {"X1", "X2", "X3", "X4"})


@pytest.mark.parametrize("size", [52, 54, 104, 108])
def test_session_accepts_the_four_deck_sizes(size: int) -> None:
    net = new_table(3, deck_size=size)
    start(net)
    assert ev.EpochReady(0, size) in net.events[0]


@pytest.mark.parametrize("size", [0, 53, 55, 106, 110])
def test_session_refuses_other_deck_sizes(size: int) -> None:
    with pytest.raises(ValueError, match="deck_size"):
        new_table(2, deck_size=size)
