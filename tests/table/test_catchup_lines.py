"""The catch-up screen after a rejoin (#11): a replayed round's moves are shown, its old
notices ("lost contact with most of the table", takeovers since undone) are not."""

from __future__ import annotations

from table_helpers import said, until

from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config
from p2p8s.table.outcome import Outcome


def test_a_replayed_round_shows_its_moves_not_its_old_notices() -> None:
    net = TableNet(make_config(3, target=200), seed=b"stale")
    net.start()
    until(net, lambda: net.nodes[2].round_number == 1 and len(net.of(2, tev.Applied)) >= 2)
    net.cut_off(2)
    for _ in range(40):
        net.step()
    net.reconnect(2)
    until(net, lambda: len(net.of(2, tev.Applied)) >= 8)
    events = net.events[2]
    notices = [said(e, net, 2) for e in events if isinstance(e, tev.Info)]
    assert any("lost contact with most of the table" in n for n in notices), notices
    assert net.nodes[2].paused == frozenset()
    shown, marks = Outcome(net.nodes[2], others=[0, 1]).replayed(events)
    assert marks == []
    assert not any(isinstance(e, tev.Info) for e in shown)
    assert [e for e in shown if isinstance(e, tev.Applied)] == net.of(2, tev.Applied)
    assert isinstance(shown[0], tev.RoundStarted)
