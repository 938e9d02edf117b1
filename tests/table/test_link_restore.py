"""A node restored from a peer's log while another peer is out of reach (issue #11), in
memory: real tables and links, no sockets (protocol/table.md, "Coming back" → "Restart").
"""

from __future__ import annotations

from linknet import LinkNet

from p2p8s.table.linkout import Conn, Rebuild

SECRETS = {s: bytes([s + 1]) * 32 for s in range(4)}


def test_two_nodes_restored_apart_meet_without_rebuilding_again() -> None:
    """Seats 1 and 2 restart together (both killed) and are restored from seat 0's log,
    neither reaching the other at its restore. When they meet, each says ``restarted``
    to the other, so each sends the other its log: an answer to its own ``restarted``
    sync, taken in (not the log of a match over elsewhere, which would make both
    rebuild at once from each other — neither answering while it rebuilds — and fail
    for want of a log; QA: "two of three killed together"), and the match goes on."""
    net = LinkNet(3, secrets=SECRETS, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.applied(0) >= 3, 5_000)
    while net.deliver():
        pass
    for seat in (1, 2):
        for w in net.wires:
            if seat in (w.a, w.b):
                w.open = False
                for q in w.queues.values():
                    q.clear()
    for seat in (1, 2):
        net.lose(0, net.wires[net.nodes[0].peers[seat]])
    for seat in (1, 2):
        w = net._wire(seat, 0)  # its new process dials seat 0 and is restored
        net.run_out(0, net.nodes[0].link.connected(seat, Conn(id=w.id, joined=True), net.now))
        net.restore(seat, 0, {0: w.id})
    assert all(net.nodes[s].link.restart_to == {3 - s} for s in (1, 2))
    net.connect(2, 1)
    net.heals = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values())
            or any(n.link.stopped for n in net.nodes.values()), 50_000)
    assert not any(isinstance(o, Rebuild) for s in (1, 2) for o in net.of(s, Rebuild))
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1
