"""``Session.resume``: an observer session that took in the round so far becomes a
seat's session again, its round secrets derived from the node's per-match secret
(§5.2: nonce, box secret, round key) — it holds the seat's hand again, sends nothing it
sent before and goes on at the next slot; a secret that does not fit changes nothing."""

from __future__ import annotations

from itertools import zip_longest

import pytest

from p2p8s.crypto import group
from p2p8s.crypto.derive import round_box_secret, round_key, round_nonce
from p2p8s.crypto.errors import Misuse, ProtocolMisuse
from p2p8s.crypto.escrow import box_public
from p2p8s.crypto.harness import FakeNetwork, deal_hands, finish, start
from p2p8s.crypto.messages import Reveal
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session, SessionConfig

TABLE = b"T"


def _seed(seat: int) -> bytes:
    return bytes([seat + 1]) * 32


def _net(players: int) -> FakeNetwork:
    return FakeNetwork([
        Session(SessionConfig(table=TABLE, round_no=3, players=players, seat=s,
                              deck_size=52, key_seed=_seed(s)), seeded(b"rs" + bytes([s])))
        for s in range(players)])


def _observer(net: FakeNetwork) -> Session:
    """An observer fed every message sent so far (each seat's in order)."""
    n = len(net.sessions)
    observer = Session(SessionConfig(table=TABLE, round_no=3, players=n, seat=0,
                                     deck_size=52, observer=True), seeded(b"obs"))
    for row in zip_longest(*net.sent):
        for msg in row:
            if msg is not None:
                observer.receive(msg)
    return observer


def test_the_derived_secrets_are_the_session_s() -> None:
    net = _net(3)
    start(net)
    s = net.sessions[1]
    assert s._nonce == round_nonce(_seed(1), TABLE, 3, 1)
    assert s._box_key == box_public(round_box_secret(_seed(1), TABLE, 3, 1))
    assert s.round_id is not None
    assert s.public_key(1) == group.base_mul(round_key(_seed(1), TABLE, 3, s.round_id, 1))
    other = round_nonce(_seed(1), TABLE, 4, 1), round_nonce(_seed(1), TABLE, 3, 2)
    assert len({s._nonce, *other, round_box_secret(_seed(1), TABLE, 3, 1)}) == 4


@pytest.mark.parametrize("players", [2, 3])
def test_a_resumed_session_holds_its_hand_and_plays_on(players: int) -> None:
    net = _net(players)
    start(net)
    items = deal_hands(net, 3)
    gone = players - 1
    observer = _observer(net)
    observer.deal(items)
    with pytest.raises(ProtocolMisuse) as info:
        observer.resume(gone, _seed(0))  # not the secret its messages derive from
    assert info.value.code is Misuse.KEY_MISMATCH
    assert observer.hand_of(gone) is None  # nothing changed
    out = observer.resume(gone, _seed(gone))
    assert out.messages == ()  # everything it had to send went out before
    assert observer.hand() == net.sessions[gone].hand() and len(observer.hand()) == 3
    assert observer.chain_heads() == net.sessions[gone].chain_heads()
    net.sessions[gone] = observer  # the restarted node plays on
    position = (0, 3 * players)
    net.call_all(lambda s: s.draw(position, gone))
    net.roundtrip_until_done()
    assert position in observer.hand()
    with pytest.raises(ProtocolMisuse):
        observer.resume(gone, _seed(gone))  # not an observer any more
    reports = finish(net)  # every seat audits the round (or raises)
    assert all(report == reports[0] for report in reports)


def test_a_restart_between_commit_and_reveal_reveals_the_derived_nonce() -> None:
    net = _net(3)
    net.call_all(lambda s: s.start_round())  # the three Commits are out, nothing arrived
    observer = _observer(net)
    for (_, b), q in net.links.items():
        if b == 1:
            q.clear()  # the resumed session took them in already
    out = observer.resume(1, _seed(1))
    reveals = [m for m in out.messages if isinstance(m, Reveal)]
    assert [m.nonce for m in reveals] == [round_nonce(_seed(1), TABLE, 3, 1)]
    assert reveals[0].seq == 2  # after its Commit, the next slot of its chain
    net.sessions[1] = observer
    net._post(1, out, 0.0)
    net.roundtrip_until_done()
    assert all(s.keys_ready for s in net.sessions)
    deal_hands(net, 2)
    assert len(observer.hand()) == 2
    reports = finish(net)  # every seat audits the round (or raises)
    assert all(report == reports[0] for report in reports)


def test_a_seat_whose_message_waits_or_whose_key_is_known_is_not_resumed() -> None:
    net = _net(3)
    start(net)
    items = deal_hands(net, 2)
    waiting = _observer(net)  # the deal not declared yet: the strips of it wait
    with pytest.raises(ProtocolMisuse) as info:
        waiting.resume(2, _seed(2))  # its next slot is not free yet
    assert info.value.code is Misuse.OWN_WAITING
    net.call(0, lambda s: s.recover(2))  # a holder begins the recovery of seat 2's key
    net.roundtrip_until_done()
    begun = _observer(net)
    begun.deal(items)
    with pytest.raises(ProtocolMisuse) as info:
        begun.resume(2, _seed(2))  # the takeover is irrevocable
    assert info.value.code is Misuse.KEY_KNOWN
