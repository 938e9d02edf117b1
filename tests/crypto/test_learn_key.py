"""Round keys derived from a table secret (``key_seed``) and ``Session.learn_key``: a
restarted seat's recomputed key is taken in exactly as an escrow recovery (2 seats: no
escrow at all), so the proxy strips and plays for it and the round audits."""

from __future__ import annotations

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.crypto import group
from p2p8s.crypto.derive import round_key
from p2p8s.crypto.errors import ProtocolMisuse
from p2p8s.crypto.events import KeyRecovered
from p2p8s.crypto.harness import FakeNetwork, deal_hands, finish, start
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session, SessionConfig

SEED = bytes(range(32))


def _net(players: int) -> FakeNetwork:
    return FakeNetwork([
        Session(SessionConfig(table=b"T", round_no=4, players=players, seat=s, deck_size=52,
                              key_seed=bytes([s]) + SEED[1:]), seeded(b"lk" + bytes([s])))
        for s in range(players)])


def test_a_seeded_key_is_the_derived_one_and_only_it() -> None:
    net = _net(2)
    start(net)
    for s in range(2):
        rid = net.sessions[0].round_id
        assert rid is not None
        key = round_key(bytes([s]) + SEED[1:], b"T", 4, rid, s)
        assert net.sessions[1 - s].public_key(s) == group.base_mul(key)
    with pytest.raises(ValueError, match="key_seed"):
        SessionConfig(table=b"T", round_no=1, players=2, seat=0, deck_size=52, key_seed=b"x")


@pytest.mark.parametrize("players", [2, 3])
def test_a_learnt_key_is_a_recovery(players: int) -> None:
    net = _net(players)
    start(net)
    deal_hands(net, 3)
    gone = players - 1
    assert net.sessions[0].round_id is not None
    key = round_key(bytes([gone]) + SEED[1:], b"T", 4, net.sessions[0].round_id, gone)
    wrong = group.scalar_add(key, group.scalar_from_int(1))
    with pytest.raises(ProtocolMisuse) as info:
        net.sessions[0].learn_key(gone, wrong)
    assert "does not match" in PLAIN.error(info.value)
    with pytest.raises(ProtocolMisuse):
        net.sessions[0].learn_key(0, key)  # its own seat
    live = net.sessions[:gone]
    for session in live:
        out = session.learn_key(gone, key)
        assert KeyRecovered(gone) in out.events
        assert session.recovered(gone) and session.knows_key(gone)
    with pytest.raises(ProtocolMisuse) as info:
        live[0].learn_key(gone, key)
    assert "already known" in PLAIN.error(info.value)
    # the proxy (seat 0) plays one of the gone seat's cards for it
    hand = live[0].hand_of(gone)
    assert hand is not None and len(hand) == 3
    net.sessions = live
    pos = min(hand)
    net.call(0, lambda s: s.play([pos], seat=gone))
    net.roundtrip_until_done()
    assert all(s.known_card(pos) == hand[pos] for s in live)
    for report in finish(net):  # every key is known: the round audits (or raises)
        assert pos in report.holdings[gone]
