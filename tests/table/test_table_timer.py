"""The turn timer (R-TIMER): a seat that does not act gets a computer move at its own node."""

from __future__ import annotations

from table_helpers import on_turn, quiet, said, texts, until

from p2p8s.table import events as tev
from p2p8s.table.clock import STALL_MARGIN_S
from p2p8s.table.harness import TableNet, make_config


def test_an_idle_seat_is_played_by_its_own_node_after_the_deadline() -> None:
    net = TableNet(make_config(3, target=1, turn_timeout_s=30.0), seed=b"idle", idle=(1,))
    net.start()
    net.run()
    assert net.faults() == {}
    infos = {s: texts(net, s) for s in net.humans}
    assert infos[1] and all(i.startswith("the computer played for you") for i in infos[1])
    # the first stand-in of an absence explains "away"; later ones are short
    assert "count as away and each turn waits only 3 s" in infos[1][0]
    assert len(infos[1]) > 1 and all(i == "the computer played for you"
                                     for i in infos[1][1:])
    assert infos[0] == infos[2] == []
    played = [e for e in net.events[0] if isinstance(e, tev.Applied) and e.seat == 1]
    assert played  # the others saw seat 1's moves like any other
    assert net.now >= 30.0  # the clock had to run to a deadline
    totals = {tuple(n.match.totals) for n in net.nodes.values()}
    assert len(totals) == 1 and all(n.finished for n in net.nodes.values())


def test_the_timer_is_the_turn_deadline_and_fires_only_after_it() -> None:
    net = TableNet(make_config(2, turn_timeout_s=10.0), seed=b"tick", idle=(0, 1))
    net.start()
    quiet(net)
    turn = on_turn(net)
    node, other = net.nodes[turn], net.nodes[1 - turn]
    assert node.get_timer() == node.deadline == 10.0
    assert other.deadline == 10.0  # the other node only watches for a stall (R-TIMER)
    assert other.get_timer() == 10.0 + STALL_MARGIN_S and other.stall is not None
    assert other.stall.node == turn and other.handle_timer(20.0).messages == []
    started = [e for e in net.events[1 - turn] if isinstance(e, tev.TurnStarted)]
    assert started[-1] == tev.TurnStarted(turn, 10.0)
    early = node.handle_timer(9.9)
    assert early.messages == [] and early.events == [] and node.my_turn
    late = node.handle_timer(10.0)
    assert isinstance(late.events[0], tev.Info) and said(late.events[0]) == (
        "the computer played for you (your 10 s ran out); until you play again you count "
        "as away and each turn waits only 3 s")
    assert late.messages and not node.my_turn


def test_typing_anything_ends_the_short_away_grace() -> None:
    """R-TIMER: after a timeout the player is away (3 s turns); any input brings the full
    timer back, for the turn on now and the next ones."""
    net = TableNet(make_config(2, turn_timeout_s=10.0), seed=b"back", idle=(0, 1))
    net.start()
    quiet(net)
    turn = on_turn(net)
    node = net.nodes[turn]
    out = node.handle_timer(node.deadline or 0.0)  # the computer plays: away from now on
    assert "count as away" in said(out.events[0])
    net._post(turn, out)
    until(net, lambda: node.my_turn)
    # the other seat's computer played at its deadline (10 s), then this turn began
    assert node.deadline == 13.0  # away: a 3 s grace
    back = node.present(11.0)
    assert tev.TurnStarted(turn, 21.0) in back.events
    assert node.deadline == 21.0 and node.get_timer() == 21.0
    assert node.present(12.0).events == []  # once is enough


def test_a_node_restarted_during_its_turn_gets_the_full_timer_on_the_others_clocks() -> None:
    """R-TIMER, the others' part: a node that restarted (and resumed its seat) during its
    own turn gives its person a fresh timer; the others count the turn stalled only
    ``STALL_MARGIN_S`` after the full timer from its return, not from the turn start —
    else they would take a live seat over (its hand opened) while its person still has
    time (a restart 20 s into a 30 s turn)."""
    net = TableNet(make_config(3, turn_timeout_s=30.0), seed=b"restart-turn", idle=(0, 1, 2))
    net.start()
    quiet(net)
    turn = on_turn(net)
    other = net.nodes[(turn + 1) % 3]
    start = other.stall.at - 30.0 - STALL_MARGIN_S if other.stall is not None else None
    assert start is not None
    other.handle_timer(start + 20.0)
    out = other.peer_restarted(turn, start + 26.5)
    assert out.messages == [] and net.faults() == {}
    assert other.stall is not None and other.stall.node == turn
    assert other.stall.at == start + 26.5 + 30.0 + STALL_MARGIN_S
    assert other.get_timer() == other.stall.at
