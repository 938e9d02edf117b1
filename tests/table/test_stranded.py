"""``Table.stranded``: a restarted node whose keys of the round nobody can rebuild."""

from __future__ import annotations

from table_helpers import until

from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config


def _restart(net: TableNet, seat: int) -> Table:
    """Crash ``seat``'s node on its turn and rebuild it from seat 0's log; the restored
    node's first output (its ``restarted`` payload) goes out; it is back."""
    until(net, lambda: net.nodes[seat].my_turn)
    net.crash(seat)
    node = Table.restore(net.config, me=seat, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"restarted"), now=net.now)
    net.replace(seat, node)
    net.reconnect(seat)
    net._post(seat, node.handle_timer(net.now))
    net.deliver_all()
    return node


def test_with_two_people_a_restarted_node_is_stranded_on_both_sides() -> None:
    net = TableNet(make_config(2, target=100), seed=b"two")
    net.start()
    assert net.nodes[0].stranded == frozenset()
    node = _restart(net, 1)
    assert node.failed is None and net.nodes[0].failed is None
    # nobody holds a share of its keys: neither side can finish the round
    assert net.nodes[0].stranded == frozenset({1})
    assert node.stranded == frozenset({1})
    away = net.of(0, tev.SeatAway)
    assert away and away[-1].seat == 1 and away[-1].paused


def test_with_three_people_a_restarted_node_is_taken_over_not_stranded() -> None:
    net = TableNet(make_config(3, target=80), seed=b"three")
    net.start()
    node = _restart(net, 2)
    assert net.nodes[0].stranded == net.nodes[1].stranded == node.stranded == frozenset()
    net.run()
    assert not net.faults()
    assert net.nodes[0].transcript == node.transcript
