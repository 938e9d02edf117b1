"""A connection that drops for a second is no news (issue 14): the screen waits a short
grace before it says a node's connection dropped, and says nothing if it is back by
then; a longer drop is said once the grace is over, shortly."""

from __future__ import annotations

import io

from p2p8s.cli.grace import GONE_GRACE_S, Grace
from p2p8s.cli.table_view import TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.net.node import NetCode, Reason
from p2p8s.table import events as tev
from p2p8s.table.events import InfoCode
from p2p8s.table.harness import TableNet, make_config
from p2p8s.table.linkout import LinkCode, note

LOST = note(LinkCode.GONE_LOST, reason=Reason(NetCode.CONNECTION_CLOSED))
GONE = tev.SeatAway(InfoCode.SEAT_GONE, {"seat": 2}, seat=2, paused=False)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _screen() -> tuple[TableScreen, io.StringIO, _Clock, TableNet]:
    net = TableNet(make_config(3, target=300), seed=b"grace")
    net.start()
    out, clock = io.StringIO(), _Clock()
    screen = TableScreen(Terminal(out, io.StringIO(), width=200), me=0,
                         grace_s=GONE_GRACE_S, clock=clock)
    screen.started(net.nodes[0], net.config, log=None, auto=None)
    out.seek(0)
    out.truncate()
    return screen, out, clock, net


def test_a_drop_back_within_the_grace_says_nothing() -> None:
    screen, out, clock, net = _screen()
    name = screen.names[2]
    screen.presence(2, name, connected=False, reason=LOST)
    screen.show(net.nodes[0], [GONE], clock.now)
    clock.now = 1.0
    screen.presence(2, name, connected=True, reason=note(LinkCode.BACK, moved=None))
    screen.tick(10.0)
    assert out.getvalue() == ""
    assert 2 not in screen.gone  # the seats line has it back


def test_a_drop_past_the_grace_is_said_shortly_then_its_return() -> None:
    screen, out, clock, net = _screen()
    name = screen.names[2]
    screen.presence(2, name, connected=False, reason=LOST)
    screen.show(net.nodes[0], [GONE], clock.now)
    screen.tick(GONE_GRACE_S - 0.1)
    assert out.getvalue() == ""
    screen.tick(GONE_GRACE_S)
    said = out.getvalue().splitlines()
    assert len(said) == 2 and said[0].startswith(f"Lost the connection to {name} (seat 2)")
    assert said[1] == (f"{name}'s connection dropped; the others go on without seeing "
                       f"{name}'s hand."), said
    clock.now = 10.0
    screen.presence(2, name, connected=True, reason=note(LinkCode.BACK, moved=None))
    assert out.getvalue().splitlines()[-1] == f"{name} (seat 2) is back (reconnected)."


def test_news_of_the_seat_says_its_drop_first() -> None:
    screen, out, clock, _net = _screen()
    name = screen.names[2]
    screen.presence(2, name, connected=False, reason=LOST)
    clock.now = 1.0  # it restarted within the grace: that is news, the drop with it
    screen.presence(2, name, connected=True, reason=note(LinkCode.BACK_RESTARTED, moved=None))
    said = out.getvalue().splitlines()
    assert said[0].startswith(f"Lost the connection to {name} (seat 2)")
    assert said[1].startswith(f"{name} (seat 2) is back (restarted")


def test_without_a_grace_everything_is_said_at_once() -> None:
    grace = Grace()
    assert not grace.start(1, 0.0, "lost")
    grace = Grace(3.0)
    assert grace.start(1, 0.0, "lost") and grace.add(1, "gone") and not grace.add(2, "x")
    assert grace.due(2.9) == [] and grace.due(3.0) == ["lost", "gone"]
    assert not grace.back(1)


def test_a_quick_return_at_a_new_address_is_said_with_its_drop() -> None:
    screen, out, clock, net = _screen()
    name = screen.names[2]
    screen.presence(2, name, connected=False, reason=LOST)
    screen.show(net.nodes[0], [note(LinkCode.COME_BACK, seat=2, command="p2p8s join X")],
                clock.now)
    assert out.getvalue() == ""  # the come-back hint waits with the drop
    clock.now = 1.0
    screen.presence(2, name, connected=True,
                    reason=note(LinkCode.BACK, moved="10.0.0.200:4242"))
    said = out.getvalue().splitlines()
    assert said[0].startswith(f"Lost the connection to {name} (seat 2)")
    assert said[1] == f"If {name}'s program stopped, they come back by running: p2p8s join X"
    assert said[2] == f"{name} (seat 2) is back (reconnected at 10.0.0.200:4242)."


def test_the_come_back_hint_is_said_after_what_the_drop_did() -> None:
    screen, out, clock, net = _screen()
    name = screen.names[2]
    screen.presence(2, name, connected=False, reason=LOST)
    screen.show(net.nodes[0], [note(LinkCode.COME_BACK, seat=2, command="p2p8s join X"),
                               GONE], clock.now)
    screen.tick(GONE_GRACE_S)
    said = out.getvalue().splitlines()
    assert said[0].startswith(f"Lost the connection to {name} (seat 2)")
    assert said[1].startswith(f"{name}'s connection dropped; the others go on"), said
    assert said[2] == f"If {name}'s program stopped, they come back by running: p2p8s join X"


def test_the_drops_a_cut_off_sums_up_are_said_before_it() -> None:
    """Newcomer QA: "Lost contact with most of the table…" and "Cannot reach anyone…"
    came before "Lost the connection to Ann" and "…to Bob", still held in their grace."""
    screen, out, clock, net = _screen()
    for seat in (1, 2):
        screen.presence(seat, screen.names[seat], connected=False, reason=LOST)
    screen.show(net.nodes[0], [tev.Info(InfoCode.CUT_OFF, {}),
                               note(LinkCode.NOBODY_REACHABLE)], clock.now)
    said = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in said[:2]] == [
        f"Lost the connection to {screen.names[1]}", f"Lost the connection to {screen.names[2]}"]
    assert said[2].startswith("Lost contact with most of the table"), said
    assert said[3].startswith("Cannot reach anyone at the table"), said


def test_a_player_who_quit_is_left_on_the_seats_line_not_back() -> None:
    """Newcomer QA: after Bob and Cat typed quit, the seats line said "Bob (back; plays
    again, hand open)": a seat taken over whose node this node does not miss read as
    back, and a node that left is missed by nobody."""
    screen, _out, clock, net = _screen()
    node = net.nodes[0]
    while node.round is None and net.step():  # dealt
        pass
    net.leave(2)
    while 2 not in node.taken_over and net.step():
        pass
    assert 2 in node.taken_over
    screen.show(node, [note(LinkCode.LEFT_TAKEN_OVER, seat=2)], clock.now)
    line = screen._extras()[0]
    assert f"{screen.names[2]} (left; the computer plays, hand open)" in line, line
