"""A node restored from a peer's log while another peer is out of reach (issue #11), in
memory: real tables and links, no sockets (protocol/table.md, "Coming back" → "Restart").

The restored link's send queues start empty, yet the peer it did not reach at the
restore may lack the node's last payloads (sent while their connection was down, so in
the log it was rebuilt from but never in that peer's hands): its own payloads of the
current round are queued for that peer first, so the ``restarted`` sync resends them.
"""

from __future__ import annotations

from linknet import LinkNet

from p2p8s.table.linkout import Conn, Post, Rebuild, Resend

SECRETS = {s: bytes([s + 1]) * 32 for s in range(4)}


def _actions(net: LinkNet, seat: int) -> list[object]:
    view = net.nodes[seat].table.view()
    assert view is not None
    return list(view.log)


def test_a_peer_not_reached_at_a_restore_gets_the_restored_nodes_last_move() -> None:
    """Seat 3's connection to seat 0 is down when seat 3 moves (only 1 and 2 get the
    move); seat 3 is then restored from seat 1's log while seat 0 is still out of reach.
    Once it reaches seat 0, its ``restarted`` sync resends its own payloads of the round
    (the move among them, before its ``ownkey``): seat 0 takes the move in, copies of
    what it had are dropped, and the round ends alike everywhere with nobody faulted."""
    net = LinkNet(4, secrets=SECRETS, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.nodes[3].table.my_turn, 5_000)
    while net.deliver():
        pass
    net.reset(0, 3)
    node = net.nodes[3]
    node.auto = False
    posted = len(net.of(3, Post))
    net.run_out(3, node.link.act(node.table.legal_actions()[0], net.now))
    assert len(net.of(3, Post)) > posted
    while net.deliver():
        pass
    moves = len(_actions(net, 3))
    assert len(_actions(net, 1)) == moves and len(_actions(net, 0)) == moves - 1
    net.restore(3, 1, {s: net.nodes[3].peers[s] for s in (1, 2)})
    node.auto = True
    link = net.nodes[3].link
    assert link.restart_to == {0} and len(link.posted[0]) > len(link.posted[1])
    net.connect(3, 0)
    net.heals = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()), 50_000)
    assert any(isinstance(o, Resend) for o in net.of(3, Resend))
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1


def _two_restored_apart(*, moves: int) -> LinkNet:
    """A 3-node table whose seats 1 and 2 are killed together once seat 0 applied
    ``moves`` actions (everything in flight then lost): each new process dials seat 0
    and is restored from its log, neither reaching the other."""
    net = LinkNet(3, secrets=SECRETS, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.applied(0) >= moves, 5_000)
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
    return net


def test_two_nodes_restored_apart_meet_without_rebuilding_again() -> None:
    """Seats 1 and 2 restart together (both killed) and are restored from seat 0's log,
    neither reaching the other at its restore. When they meet, each says ``restarted``
    to the other, so each sends the other its log: an answer to its own ``restarted``
    sync, taken in (not the log of a match over elsewhere, which would make both
    rebuild at once from each other — neither answering while it rebuilds — and fail
    for want of a log; QA: "two of three killed together"), and the match goes on."""
    net = _two_restored_apart(moves=3)
    assert all(net.nodes[s].link.restart_to == {3 - s} for s in (1, 2))
    net.connect(2, 1)
    net.heals = True
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values())
            or any(n.link.stopped for n in net.nodes.values()), 50_000)
    assert not any(isinstance(o, Rebuild) for s in (1, 2) for o in net.of(s, Rebuild))
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1


def test_two_nodes_restored_apart_that_meet_after_the_round_get_each_others_moves() -> None:
    """Seats 1 and 2 killed together at round 1's start and restored from seat 0's log
    meet only after round 1 ended (each dialled the other's old address): their first
    payloads of round 2 were posted while apart. Each sends the other its log, but a
    table takes a log in only until its next round begins, so each also resends what it
    posted for the other since its restore (counted from 0): round 2 goes on (once both
    waited for the other's first round-2 message for good, with no timer)."""
    net = _two_restored_apart(moves=0)
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()), 50_000)
    assert all(n.table.round_number == 2 for n in net.nodes.values())
    assert net.nodes[1].link.restart_to == {2} and net.nodes[2].link.restart_to == {1}
    net.connect(2, 1)
    net.heals = True
    net.run(lambda: all(n.link.rounds >= 2 for n in net.nodes.values())
            or any(n.link.stopped for n in net.nodes.values()), 50_000)
    assert all(n.link.rounds >= 2 for n in net.nodes.values())
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1
