"""Cumulative acknowledgements between runners, in memory (protocol/table.md, "Acks").

Each runner tells each peer, on the connection in use, how many of its game payloads it
holds; the sender drops those from its queue, so what is left is exactly what is
unacknowledged, and that is what a new connection resends, whatever socket it was
written to. Duplicate acks, acks from the future and acks on a replaced connection
change nothing; a payload left unacknowledged too long remakes the connection.
"""

from __future__ import annotations

import doctest

import pytest
from linknet import LinkNet, Node

from p2p8s.errors import RemoteError
from p2p8s.table import acks
from p2p8s.table.acks import ACK_EVERY, ACK_INTERVAL_S, UNACKED_MAX_S, AckKind, SendQueue
from p2p8s.table.core import Outgoing
from p2p8s.table.linkout import (
    Dial,
    Drop,
    LinkCode,
    PeerBack,
    PeerGone,
    Rebuild,
    Resend,
    Send,
    SendLog,
    TableFailed,
    note,
)
from p2p8s.table.sync import ACK, LOG_PART, Ack, SyncCode
from p2p8s.wire import Game


def _acks(net: LinkNet, seat: int) -> list[int]:
    """The counts of the ``ack`` payloads ``seat``'s node sent, in order."""
    return [Ack.parse(o.payload[1:]).received for o in net.of(seat, Send)  # type: ignore[attr-defined]
            if o.payload[:1] == bytes([ACK])]  # type: ignore[attr-defined]


def _ack(net: LinkNet, sender: int, to: int, received: int, *, conn: int | None = None) -> None:
    """``sender``'s node acknowledges ``received`` payloads to ``to``'s (on ``conn``)."""
    link = net.nodes[to].link
    net.run_out(to, link.received(sender, link.peers[sender] if conn is None else conn,
                                  Game(to=to, payload=Ack(received=received).payload()),
                                  frame=b"", digest=b"", now=net.now))


def test_doctests() -> None:
    assert doctest.testmod(acks).failed == 0


def test_the_ack_codec_refuses_what_is_not_one_count() -> None:
    assert Ack.parse(Ack(received=0).payload()[1:]) == Ack(received=0)
    for bad in (b"\x91\xff", b"\x92\x01\x02", b"\x01", b"\xc1", b"\x91\xa1x"):
        with pytest.raises(RemoteError) as caught:
            Ack.parse(bad)
        assert caught.value.code is SyncCode.BAD_ACK


def test_a_send_queue_keeps_exactly_the_unacknowledged_payloads() -> None:
    q = SendQueue()
    msgs = [Outgoing(to=None, payload=bytes([n])) for n in range(5)]
    for m in msgs:
        q.post(m)
    assert q.ack(3) is AckKind.TRIMMED and len(q) == 5 and q.unacked == msgs[3:]
    assert q.since(4) == msgs[4:] and q.since(3) == msgs[3:]
    assert q.since(1) == msgs[3:]  # below what it acknowledged: from the oldest kept
    assert q.ack(3) is AckKind.DUPLICATE and q.ack(1) is AckKind.DUPLICATE
    assert q.ack(6) is AckKind.FUTURE and q.unacked == msgs[3:]
    assert q.ack(5) is AckKind.TRIMMED and q.unacked == [] and len(q) == 5


def test_acks_trim_every_queue_while_the_table_plays() -> None:
    """Every node acknowledges each peer at most a second after its first unacknowledged
    payload (or after 16): the queues hold only what is in flight, and once the table is
    quiet nothing is left unacknowledged."""
    net = LinkNet(3)
    net.start()
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    for seat, node in net.nodes.items():
        sent = _acks(net, seat)
        assert sent and sent == sorted(sent)  # cumulative
        for other in node.link.others:
            assert len(node.link.posted[other]) > ACK_EVERY  # it played a round
    for node in net.nodes.values():
        node.auto = False  # the table waits: what is in flight arrives and is acknowledged
    net.run(lambda: all(not n.link.posted[o].unacked for n in net.nodes.values()
                        for o in n.link.others), 5_000)
    for node in net.nodes.values():
        for other in node.link.others:
            q = node.link.posted[other]
            assert q.acked == len(q) == net.nodes[other].link.got[node.seat]
        assert node.link.counts.get("ack_trimmed", 0) > 0
        assert "ack_future" not in node.link.counts and node.link.failure is None
    assert len(net.transcripts()) == 1


def test_an_ack_is_due_a_second_after_the_first_payload_not_acknowledged() -> None:
    net = LinkNet(2)
    net.start()
    net.run(lambda: net.nodes[0].link.got[1] > 0)
    due = net.nodes[0].link.acks.due[1]
    assert due.since is not None and due.timer() == due.since + ACK_INTERVAL_S
    assert net.nodes[0].link.get_timer() is not None
    assert net.nodes[0].link.get_timer() <= due.since + ACK_INTERVAL_S  # type: ignore[operator]


def test_a_reset_connection_resends_exactly_the_unacknowledged_payloads() -> None:
    """Seat 2's writes to seat 0 vanish (a dead socket it does not know of): its queue
    for seat 0 holds what seat 0 did not acknowledge — what vanished, and what arrived
    since the last ack — and after the reset and a new connection exactly the part seat
    0 lacks is resent."""
    net = LinkNet(3)
    net.start()
    net.run(lambda: net.nodes[2].link.posted[0].acked > 0)
    net.nodes[2].auto = False
    net.run(lambda: net.nodes[2].table.my_turn, 5_000)
    net.wires[net.nodes[2].peers[0]].dead.add(2)
    node = net.nodes[2]
    net.run_out(2, node.link.act(node.table.legal_actions()[0], net.now))
    while net.deliver():
        pass
    queue = node.link.posted[0]
    assert queue.acked > 0 and queue.unacked  # trimmed before; the move is not acknowledged
    assert queue.acked <= net.nodes[0].link.got[2] < len(queue)
    unacked = queue.since(net.nodes[0].link.got[2])
    net.reset(0, 2)
    net.connect(2, 0)
    net.run(lambda: bool(net.of(0, PeerBack)) and bool(net.of(2, PeerBack)), 5_000)
    assert [r.payload for r in net.of(2, Resend)] == [m.payload for m in unacked]  # type: ignore[attr-defined]
    net.nodes[2].auto = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    assert len(net.transcripts()) == 1


def test_duplicate_stale_and_future_acks_change_nothing() -> None:
    """An ack counting what was acknowledged already, one from a connection replaced
    since, and one counting more payloads than were posted (a peer cannot know of them)
    are ignored and counted — no fault, no crash, nothing dropped."""
    net = LinkNet(2)
    net.start()
    net.run(lambda: net.applied(0) >= 2)
    net.run(lambda: not net.nodes[0].link.posted[1].unacked, 2_000)
    link = net.nodes[0].link
    net.nodes[0].auto = net.nodes[1].auto = False
    total = len(link.posted[1])
    _ack(net, 1, 0, total)  # again
    _ack(net, 1, 0, total - 1)  # older
    assert link.counts["ack_duplicate"] == 2 and link.posted[1].acked == total
    _ack(net, 1, 0, total + 5)  # from the future
    assert link.counts["ack_future"] == 1 and link.posted[1].acked == total
    old = link.peers[1]
    net.connect(1, 0)
    net.run(lambda: link.peers.get(1, old) != old and 1 not in link.pending, 2_000)
    kept = len(link.posted[1].unacked)
    _ack(net, 1, 0, len(link.posted[1]), conn=old)  # on the replaced connection
    assert link.counts["ack_stale"] == 1 and len(link.posted[1].unacked) == kept
    assert link.failure is None and not net.of(0, PeerGone)
    net.nodes[0].auto = net.nodes[1].auto = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    assert len(net.transcripts()) == 1


def test_a_malformed_ack_is_invalid_data_from_that_peer() -> None:
    net = LinkNet(2)
    net.start()
    link = net.nodes[0].link
    net.run_out(0, link.received(1, link.peers[1], Game(to=0, payload=bytes([ACK]) + b"\xc1"),
                                 frame=b"", digest=b"", now=net.now))
    assert isinstance(link.failure, TableFailed) and link.failure.params["seat"] == 1


def test_a_payload_unacknowledged_too_long_remakes_the_connection() -> None:
    """Seat 2's writes to seat 0 vanish while the connection looks open and the turn
    timer is far off: after UNACKED_MAX_S without an ack seat 2 drops that connection
    (no peer_lost, no takeover) and dials seat 0 again; the new connection's ``sync``
    resends what was lost and the table goes on."""
    net = LinkNet(3, turn_timeout_s=600.0)
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    net.nodes[2].auto = False
    net.run(lambda: net.nodes[2].table.my_turn, 5_000)
    old = net.nodes[2].peers[0]
    net.wires[old].dead.add(2)
    node = net.nodes[2]
    posted_at = net.now
    net.run_out(2, node.link.act(node.table.legal_actions()[0], net.now))
    net.run(lambda: bool(net.of(2, Drop)), 5_000)
    assert net.now >= posted_at + UNACKED_MAX_S
    assert net.of(2, Drop) == [Drop(seat=0, conn=old)] and Dial(seat=0) in net.of(2, Dial)
    assert node.link.counts["unacked"] == 1
    assert not net.of(2, PeerGone) and 0 not in node.table.gone
    lost = node.link.posted[0].since(net.nodes[0].link.got[2])
    assert lost  # its move
    net.connect(2, 0)  # seat 0 takes the new connection in place of the old
    net.run(lambda: bool(net.of(2, PeerBack)) and not node.link.posted[0].unacked, 5_000)
    assert [r.payload for r in net.of(2, Resend)] == [m.payload for m in lost]  # type: ignore[attr-defined]
    net.nodes[2].auto = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    assert len(net.transcripts()) == 1


def _told_to_rebuild() -> tuple[LinkNet, Node]:
    """Three links at rest; seat 2's is told to rebuild from seat 0's log."""
    net = LinkNet(3, turn_timeout_s=600.0)
    net.start_settled()
    node = net.nodes[2]
    node.link.rebuild = Rebuild(seat=0, why=note(LinkCode.REBUILD_HELD, seat=0),
                                peers=dict(node.peers))
    return net, node


def test_a_rebuilt_node_back_on_a_new_connection_is_not_taken_for_its_old_run() -> None:
    """A node rebuilt from the log told its peers it restarted on the connections it had;
    a ``sync`` on a new connection (its address changed, what it wrote since went
    nowhere) counts from the restart. Its seat is taken over there since the restart, so
    what it posted and the peer lacks is void and it rebuilds again, as the peer expects
    — the sync is not skipped as one of the old run (which froze a Wi-Fi soak: the peer
    waited for good for its ``restarted`` sync, the rebuilt node for the peer's move)."""
    net, node = _told_to_rebuild()
    net.rebuild(2)
    node.auto = False
    net.run(lambda: node.table.my_turn and not net.nodes[0].link.pending, 5_000)
    assert 2 in net.nodes[0].table.taken_over  # the computer plays it, its choices count
    net.wires[node.peers[0]].dead.add(2)
    net.run_out(2, node.link.act(node.table.legal_actions()[0], net.now))
    while net.deliver():
        pass
    assert len(node.link.posted[0]) > net.nodes[0].link.got[2]  # its move went nowhere
    net.connect(2, 0)  # back at a new address: the old connection still looks open
    net.run(lambda: node.link.rebuild is not None, 5_000)
    assert node.link.rebuild == Rebuild(seat=0, why=note(LinkCode.REBUILD_TAKEN, seat=0),
                                        peers=node.link.rebuild.peers)  # type: ignore[union-attr]
    assert not net.of(2, Resend) and "unacked" not in node.link.counts
    net.rebuild(2)
    node.auto = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None for n in net.nodes.values())


def test_a_rebuilt_node_whose_log_answer_broke_off_asks_for_it_again() -> None:
    """A node rebuilt from seat 0's log also asked seat 1 for its log; the connection to
    seat 1 ends before that answer is complete. On the next connection its ``sync`` says
    ``restarted`` again: seat 1 sends its whole log anew and both count from 0 (it was
    never asked again: what only seat 1 held never came, and the rebuilt node waited)."""
    net, node = _told_to_rebuild()
    net.tamper = lambda sender, to, game: (sender, to) != (1, 2) or (
        game.payload[:1] != bytes([LOG_PART]))  # seat 1's answer never arrives
    net.rebuild(2)
    while net.deliver():
        pass
    net.tamper = None
    assert 1 in node.link.answers and len(net.of(1, SendLog)) == 1
    net.reset(1, 2)
    net.connect(2, 1)
    net.run(lambda: 1 not in node.link.answers, 2_000)
    assert len(net.of(1, SendLog)) == 2 and node.link.answers == {}
    assert node.link.counts["log_asked_again"] == 1
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()))
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None for n in net.nodes.values())
