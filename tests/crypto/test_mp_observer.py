"""A passive observer session (plays no seat) checks a whole round from its messages —
the offline log verifier's view — and audits it once every key is revealed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p2p8s.crypto.errors import CheatDetected, Fault, ProtocolMisuse
from p2p8s.crypto.group import Point
from p2p8s.crypto.harness import deal_hands, finish, new_table, start
from p2p8s.crypto.messages import Message, Strip
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session, SessionConfig


def _observer(players: int) -> Session:
    return Session(SessionConfig(table=b"TABLE1", round_no=1, players=players, seat=0,
                                 deck_size=52, observer=True), seeded(b"obs"))


def _feed(obs: Session, messages: list[list[Message]]) -> None:
    for seat_msgs in messages:
        for m in seat_msgs:
            obs.receive(m)


@pytest.mark.parametrize("players", [2, 3])
def test_an_observer_audits_an_honest_round_like_a_player(players: int) -> None:
    net = new_table(players, seed=b"obs-round")
    start(net)
    items = deal_hands(net, 3)
    net.call_all(lambda s: s.open([(0, 3 * players)]))
    net.roundtrip_until_done()
    reports = finish(net)
    obs = _observer(players)
    obs.deal(items)
    obs.open([(0, 3 * players)])
    _feed(obs, net.sent)
    assert obs.keys_revealed and obs.known_card((0, 3 * players)) is not None
    assert obs.hand() == {}
    assert obs.audit() == reports[0]
    assert obs.chain_heads() == net.sessions[0].chain_heads()
    with pytest.raises(ProtocolMisuse):
        obs.end_round()
    with pytest.raises(ProtocolMisuse):
        obs.announce(b"x")


def test_an_observer_names_a_bad_strip() -> None:
    net = new_table(3, seed=b"obs-bad")
    start(net)
    items = deal_hands(net, 2)
    obs = _observer(3)
    obs.deal(items)
    sent = [list(m) for m in net.sent]
    i = next(i for i, m in enumerate(sent[2]) if isinstance(m, Strip))
    strip = sent[2][i]
    assert isinstance(strip, Strip)
    e, k, _ = strip.items[0]
    wrong = strip.items[-1][2] if len(strip.items) > 1 else Point(bytes(32))
    sent[2][i] = replace(strip, items=((e, k, wrong), *strip.items[1:]))
    with pytest.raises(CheatDetected) as info:
        _feed(obs, sent)
    # the altered strip fails its proof, or differs from what seat 0 echoed: seat 2 either way
    assert info.value.seat == 2
    assert info.value.fault in (Fault.BAD_STRIP, Fault.BAD_POINT, Fault.EQUIVOCATION)


def test_check_echo_names_the_equivocating_seat() -> None:
    net = new_table(3, seed=b"obs-echo")
    start(net)
    me = net.sessions[0]
    heads = list(me.chain_heads())
    me.check_echo(1, heads)  # the same view: fine
    heads[2] = (heads[2][0], bytes(32))
    with pytest.raises(CheatDetected) as info:
        me.check_echo(1, heads)
    assert (info.value.seat, info.value.fault) == (2, Fault.EQUIVOCATION)
