"""A node welcomed back to its seat that restarts sends its round keys (``ownkey``); a
node that has not seen the seat's first message of the round yet (who runs it is still
undecided there) keeps the keys until that message decides — never a fault
(issue 11: the false ``table-key-not-run`` of the Wi-Fi soak, seed 41)."""

from __future__ import annotations

import hashlib

import msgpack
from table_helpers import put_back, signed_payloads, until, with_secrets

from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table.actions import CRYPTO, OWNKEY, decode_records
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


def _secret(seat: int) -> bytes:
    return hashlib.sha256(b"welcomed secret %d" % seat).digest()


def _of_round(payload: bytes, seat: int, number: int) -> bool:
    """True for a mental-poker message of ``seat`` in round ``number``."""
    if payload[:1] != bytes([CRYPTO]):
        return False
    obj = msgpack.unpackb(payload[1:], raw=False)
    return bool(obj[3] == number and obj[4] == seat)


def test_a_welcomed_nodes_ownkey_before_its_seats_first_message_waits() -> None:
    keys = make_keys(3)
    net = with_secrets(TableNet(make_config(3, target=300, keys=keys), seed=b"ownkey41",
                                keys=keys), b"ownkey41", _secret)
    net.start()
    # round 1: Cat's node is lost on its turn and its seat taken over by the escrow
    until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    until(net, lambda: 2 in net.nodes[0].taken_over and 2 in net.nodes[1].taken_over)
    put_back(net, 2, Table.restore(net.config, me=2, records=net.nodes[0].resync_payload(),
                                   rand=seeded(b"cat"), now=net.now, sign=net.signers[2],
                                   key_secret=_secret(2)))
    # round 2: Ann (the adopter) welcomed Cat back, Cat runs seat 2 and announced its Y
    until(net, lambda: net.nodes[0].round_number == 2
          and net.nodes[0]._sessions.primary.public_key(2) is not None)
    number = 2
    # Bob's and Cat's nodes restart; Bob's comes back from a log without Cat's messages
    # of this round (they come later), so who runs seat 2 is undecided there
    net.deliver_all()
    net.cut_off(1, notify=False)  # what is sent to Bob's node now waits for the new one
    net.crash(2, notify=False)
    records = decode_records(net.nodes[0].resync_payload()[1:])
    late = [(s, p) for s, p in records if s == 2 and _of_round(p, 2, number)]
    assert late
    before = len(signed_payloads(net, 2))
    put_back(net, 2, Table.restore(net.config, me=2, records=net.nodes[0].resync_payload(),
                                   rand=seeded(b"cat again"), now=net.now,
                                   sign=net.signers[2], key_secret=_secret(2)))
    net.deliver_all()
    # the restored node sent the seat's messages of the round again, then its keys
    sent = signed_payloads(net, 2)[before:]
    assert sent == [p for _, p in late] + [sent[-1]] and sent[-1][0] == OWNKEY
    bob = Table.restore(net.config, me=1, records=[r for r in records if r not in late],
                        rand=seeded(b"bob"), now=net.now, sign=net.signers[1],
                        key_secret=_secret(1))
    assert bob.round_number == number and bob._seats.cands[2] == {0, 2}
    net.replace(1, bob)
    while net.links[(0, 1)]:  # Ann's relay of Cat's keys overtakes Cat's messages
        net._deliver_on((0, 1))
    assert bob.failed is None, bob.failed  # was: "Cat sent a round key of seat 2, which
    # the node of seat 2 does not run this round" (table-key-not-run)
    assert bob._seats.cands[2] == {0, 2} and 2 not in bob.taken_over
    put_back(net, 1, bob)  # then Cat's link: its messages of the round again, its keys
    assert bob.failed is None, bob.failed
    assert 2 in bob.taken_over
    net.run()
    # every node agrees: Cat's seat handed over, nobody at fault (Bob's own seat waits:
    # its node lost its keys with Cat's escrow share)
    assert all(n.failed is None and n.taken_over == {2} for n in net.nodes.values())
    for s in net.humans:
        report = verify(net.frames[s])
        assert report.fault is None or report.damaged, report.fault  # Cat's log: a gap
        assert report.rounds and all(r.ok for r in report.rounds)
