"""The adopter restarts (issue 11, soak seed 41): the seat it adopted goes on.

A seat taken over at a round's end is run the next round by the lowest live seat (the
adopter), its key revealed at once, but its crypto session — the strips of its layer in
every draw — still runs on the adopter's node. That node restarted with its table
secret: it handed over its own seat's key (``ownkey``) but not the adopted seat's (its
key was known already), and its restored table plays no seat of the round, so nobody
stripped the adopted seat's layer any more: the next draw waited for ever, every node
connected, and the others' stalled-turn watch blamed the proxy (which had sent the turn).
Now the restored node hands the adopted seat's key over too; every node takes it as a
handover, and the proxy strips that layer from then on.
"""

from __future__ import annotations

import hashlib

from table_helpers import put_back, signed_payloads, until, with_secrets

from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table.actions import OWNKEY, decode_ownkey
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


def _secret(seat: int) -> bytes:
    return hashlib.sha256(b"adopter secret %d" % seat).digest()


def _handed(net: TableNet, seat: int) -> set[int]:
    """The seats whose key ``seat``'s node handed over (the ``ownkey`` it signed)."""
    return {d for payload in signed_payloads(net, seat) if payload[:1] == bytes([OWNKEY])
            for d, _ in decode_ownkey(payload[1:])[2]}


def test_a_restarted_adopter_hands_over_the_seat_it_adopted() -> None:
    keys = make_keys(4)
    net = TableNet(make_config(4, target=150, keys=keys), seed=b"adopter41", keys=keys)
    with_secrets(net, b"adopter41", _secret)
    net.start()
    until(net, lambda: net.nodes[2].round is not None)
    net.leave(2)  # its seat is taken over, and adopted by seat 0 from round 2 on
    until(net, lambda: net.nodes[0].round_number == 2 and net.nodes[0].my_turn)
    assert all(net.nodes[s]._seats.adopted == {2} for s in (0, 1, 3))
    net.crash(0)
    net.deliver_all()
    node = Table.restore(net.config, me=0, records=net.nodes[1].resync_payload(),
                         rand=seeded(b"restarted"), now=net.now, sign=net.signers[0],
                         key_secret=_secret(0))
    put_back(net, 0, node)
    net.deliver_all()
    assert _handed(net, 0) == {0, 2}
    for s in (0, 1, 3):  # the proxy (seat 1) plays both seats now
        assert net.nodes[s]._seats.recovered == {0, 2}
        assert net.nodes[s]._seats.proxy() == 1
    ends = [net.nodes[s] for s in (0, 1, 3)]
    until(net, lambda: all(n.round_number == 3 for n in ends))  # round 2 ended
    net.deliver_all()
    assert net.faults() == {}
    assert len({tuple(n.match.totals) for n in ends}) == 1
    for s in (0, 1, 3):
        report = verify(net.frames[s])
        assert report.ok and [(r.number, r.ok, r.complete) for r in report.rounds][:2] == [
            (1, True, True), (2, True, True)]


def test_an_adopter_whose_player_leaves_hands_over_the_seat_it_adopted_too() -> None:
    """Its ``ownkey`` now names the adopted seat too, taken in as a handover before the
    escrow recovery its ``leave`` starts: both ways agree, and the round goes on."""
    keys = make_keys(4)
    net = TableNet(make_config(4, target=150, keys=keys), seed=b"adopter-leaves", keys=keys)
    net.start()
    until(net, lambda: net.nodes[2].round is not None)
    net.leave(2)
    until(net, lambda: net.nodes[0].round_number == 2 and net.nodes[0].my_turn)
    assert all(net.nodes[s]._seats.adopted == {2} for s in (0, 1, 3))
    net.leave(0)  # its ``leave`` and ``ownkey``: seat 0's key, and seat 2's it ran
    net.deliver_all()
    assert _handed(net, 0) == {0, 2}
    assert all(net.nodes[s]._seats.recovered == {0, 2} for s in (1, 3))
    ends = [net.nodes[s] for s in (1, 3)]
    until(net, lambda: all(n.round_number == 3 for n in ends))  # round 2 ended
    assert net.faults() == {}
    for s in (1, 3):
        report = verify(net.frames[s])
        assert report.ok and [(r.number, r.ok, r.complete) for r in report.rounds][:2] == [
            (1, True, True), (2, True, True)]
