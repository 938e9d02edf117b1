"""How long a node done with the match (or the rounds asked for) waits for a node that
came back after the end (:attr:`~p2p8s.table.link.Link.owed`, the runner's linger).

A 4-node Wi-Fi soak: Dan came back after the match ended, "it gets the
log"; a moment later Ann's address changed and her connection to Dan ended — without
Dan's ``bye``: he took the result from Cat's log and left. Ann went on waiting for it,
silently and without dialling him, the whole 60 s of the linger. A node back after the
end whose connection ends without its ``bye`` now is owed only what it may lack: given
resends it acknowledged, nothing (not waited for); given the log, which only its bye
confirms, it is waited for as a peer lost (said, and dialled by the higher seat)."""

from __future__ import annotations

import pytest
from linknet import RESET, LinkNet

from p2p8s.errors import Note
from p2p8s.table.linkout import Dial, LinkCode, PeerGone
from p2p8s.wire import Farewell


def _back_after_the_end(over: bool) -> LinkNet:
    """Seat 2's node is cut off while the others finish; it comes back, is given what
    it missed and finishes too — nobody has its bye yet."""
    net = LinkNet(3, target=1 if over else 10_000, rounds={0: 1, 1: 1, 2: 1})
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    for seat in (0, 1):
        net.reset(2, seat)
    net.run(lambda: all(net.nodes[s].link.done is not None for s in (0, 1)), 50_000)
    for seat in (0, 1):
        net.connect(2, seat)
    net.run(lambda: net.nodes[2].link.done is not None or net.nodes[2].link.rebuild
            is not None, 50_000)
    if net.nodes[2].link.rebuild is not None:
        net.rebuild(2)
        net.run(lambda: net.nodes[2].link.done is not None, 50_000)
    net.run(lambda: not net.nodes[0].link.acks.posted[2].unacked, 50_000)
    assert net.nodes[2].link.rounds == 1 and len(net.transcripts()) == 1
    assert all(net.nodes[s].link.owed == [2] for s in (0, 1))  # until its bye
    return net


def test_a_node_back_that_acknowledged_the_resends_is_not_waited_for_once_its_bye_is_lost(
        ) -> None:
    net = _back_after_the_end(over=False)
    node = net.nodes[0]
    net.lose(0, net.wires[node.peers[2]])  # its bye lost with the connection
    assert node.link.owed == []
    assert 2 not in node.link.away and not any(
        isinstance(o, Dial) and o.seat == 2 for o in node.outs[-3:])
    other = net.nodes[1]  # its bye did arrive there
    net.run_out(1, other.link.lost(2, other.peers[2], Note(Farewell.DONE), net.now))
    assert other.link.owed == []


def test_a_node_given_the_log_is_waited_for_as_lost_when_its_connection_ends() -> None:
    net = _back_after_the_end(over=True)
    node = net.nodes[0]
    before = len(node.outs)
    net.lose(0, net.wires[node.peers[2]])
    assert node.link.owed == [2]  # the log may not have reached it: only its bye says
    assert 2 in node.link.away  # (it dials seat 0 again: the higher seat dials)
    gone = [o for o in node.outs[before:] if isinstance(o, PeerGone)]
    assert [(g.seat, g.why.code) for g in gone] == [(2, LinkCode.GONE_LOST)]


@pytest.mark.parametrize("over", [True, False])
def test_a_node_back_after_the_end_is_owed_nothing_after_its_bye(over: bool) -> None:
    net = _back_after_the_end(over)
    node = net.nodes[0]
    net.run_out(0, node.link.lost(2, node.peers[2], Note(Farewell.DONE), net.now))
    assert node.link.owed == [] and 2 not in node.link.away
    assert RESET.code is not Farewell.DONE


def test_a_node_done_waits_for_the_acks_of_its_last_payloads_from_the_peers_connected(
        ) -> None:
    """Wi-Fi soak (seed 31, match 3): Dan's node finished the round and exited at once,
    its last message (its key reveal) still on its way to Cat on a slow connection;
    Cat got neither it nor Dan's ``bye`` ("Lost the connection to Dan (connection
    closed)") and waited for good. A node done waits (quietly: the runner, at most the
    linger) until every peer connected acknowledged what it posted for it."""
    net = LinkNet(3, rounds={0: 1, 1: 1, 2: 1})
    net.start()
    net.run(lambda: net.nodes[0].link.done is not None, 50_000)
    node = net.nodes[0]
    assert node.link.owed == []  # nobody away: no linger said
    waiting = node.link.unacknowledged
    assert waiting and all(node.link.acks.posted[s].unacked for s in waiting)
    net.run(lambda: not node.link.unacknowledged, 50_000)
    assert node.link.unacknowledged == [] and node.link.owed == []
    assert all(not node.link.acks.posted[s].unacked for s in (1, 2))


def test_a_peer_that_finished_is_not_waited_for_its_acks() -> None:
    net = LinkNet(3, rounds={0: 1, 1: 1, 2: 1})
    net.start()
    net.run(lambda: net.nodes[0].link.done is not None, 50_000)
    node = net.nodes[0]
    assert node.link.unacknowledged
    for seat in node.link.unacknowledged:  # they said bye: they finished
        net.run_out(0, node.link.lost(seat, node.peers[seat], Note(Farewell.DONE), net.now))
    assert node.link.unacknowledged == [] and node.link.owed == []
