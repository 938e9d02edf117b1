"""The runner's part of R-TIMER for a restarted peer, in memory (protocol/table.md,
"Timer"): a ``restarted`` sync reaching a link gives the turn of that peer the full turn
timer from its return on this node's clock (``Table.peer_restarted``), as the restarted
node gives its person a fresh timer."""

from __future__ import annotations

from linknet import LinkNet

from p2p8s import wire
from p2p8s.table.clock import STALL_MARGIN_S
from p2p8s.table.linkout import Conn
from p2p8s.table.sync import Sync

TIMEOUT_S = 30.0


def test_a_restarted_sync_during_the_peers_turn_restarts_its_stall_deadline_here() -> None:
    net = LinkNet(3, turn_timeout_s=TIMEOUT_S)
    net.start()
    net.run(lambda: net.nodes[2].table.my_turn, 5_000)
    while net.deliver():
        pass
    net.nodes[2].auto = False  # its person thinks; then its program restarts
    ann = net.nodes[0]
    stall = ann.table.stall
    assert stall is not None and stall.node == 2
    first = stall.at
    net.now += 20.0
    net.run_out(0, ann.link.handle_timer(net.now))
    w = net._wire(2, 0)  # the new process dials seat 0 and says it restarted
    net.run_out(0, ann.link.connected(2, Conn(id=w.id, joined=True), net.now))
    w.queues[2].clear()  # (seat 0's sync there reaches the new process, not this link)
    game = wire.Game(to=0, payload=Sync(received=0, posted=0, restarted=True).payload())
    net._put(2, w.id, game, net._frame(net.nodes[2], game, chained=False))
    while 2 in ann.link.pending and net.deliver():
        pass
    assert ann.link.peers[2] == w.id
    stall = ann.table.stall
    assert stall is not None and stall.node == 2
    assert stall.at == net.now + TIMEOUT_S + STALL_MARGIN_S > first
    assert ann.table.get_timer() == stall.at
    assert ann.link.failure is None and ann.table.failed is None
