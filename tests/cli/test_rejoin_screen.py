"""What the screen says after drops and rejoins (#11): the catch-up after a rebuild is
marked as past and summarised, the seats line says who is here now, the away count is
only what the computer played in this absence, the come-back hint names where this node
is now."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import cast

import pytest

from p2p8s.actions import Draw
from p2p8s.cli.comeback import come_back_command, where_now
from p2p8s.cli.grace import GONE_GRACE_S
from p2p8s.cli.table_view import TableScreen, seats_line
from p2p8s.cli.terminal import Terminal
from p2p8s.crypto.rand import seeded
from p2p8s.net.node import NetCode, Reason
from p2p8s.solo import get_bot
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.events import InfoCode
from p2p8s.table.harness import TableNet, make_config
from p2p8s.table.linkout import LinkCode, note
from p2p8s.table.outcome import Outcome


def _until(net: TableNet, pred: Callable[[], bool], max_steps: int = 100_000) -> None:
    """Step ``net`` (moves and timers too) until ``pred()`` holds."""
    steps = 0
    while not pred():
        assert steps < max_steps and net.step(), "the moment never came"
        steps += 1


#: The key secret seat 2's node runs its rounds with (kept on disk across restarts).
SECRET = bytes(range(32))


def _net(seed: bytes) -> TableNet:
    """Three people; seat 2's node keeps its key secret (it can restart mid-round)."""
    net = TableNet(make_config(3, target=300), seed=seed)
    net.nodes[2] = Table(net.config, me=2, rand=seeded(seed + b"/2"), seed=seed + b"2",
                         sign=net.signers[2], key_secret=SECRET)
    return net


def _restart(net: TableNet, seat: int, tag: bytes) -> Table:
    """``seat``'s process restarts now: rebuilt from seat 0's log, back in the net."""
    net.crash(seat)
    node = Table.restore(net.config, me=seat, records=net.nodes[0].resync_payload(),
                         rand=seeded(tag), seed=tag, now=net.now,
                         sign=net.signers.get(seat), key_secret=SECRET)
    for peer in net.humans:  # every peer's log fills what the first one lacked
        if peer != seat:
            net._post(seat, node.receive(peer, net.nodes[peer].resync_payload(), net.now))
    net.replace(seat, node)
    net.reconnect(seat)
    return node


def _away(events: list[tev.Event]) -> list[tev.Event]:
    return [e for e in events if isinstance(e, tev.Info) and e.code is InfoCode.AWAY_TURNS]


def test_a_second_restart_does_not_count_the_first_absence_again() -> None:
    net = _net(b"twice")
    net.start()
    _until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    _until(net, lambda: sum(isinstance(e, tev.Applied) and e.seat == 2
                            for e in net.events[0]) >= 3)
    assert 2 in net.nodes[0].taken_over  # the computer played seat 2 while it was away
    _restart(net, 2, b"first")
    first = net.nodes[0].round_number
    _until(net, lambda: net.nodes[0].round_number > first and net.nodes[2].my_turn)
    # a fresh round, its own seat again: it acts, and then it restarts once more at once
    _until(net, lambda: not net.nodes[2].my_turn)
    _until(net, lambda: net.nodes[2].my_turn)
    _restart(net, 2, b"second")
    mark = len(net.events[2])
    acted = net.actions
    _until(net, lambda: net.actions > acted + 3)
    # nothing was played for it in this absence: no "you were away" on its first move
    assert _away(net.events[2][mark:]) == []


# ---------------------------------------------------------------- the screen of a rejoin


def _screen(me: int) -> tuple[TableScreen, io.StringIO]:
    out = io.StringIO()
    return TableScreen(Terminal(out, io.StringIO(), width=200), me=me), out


Rebuilt = tuple[TableNet, Table, Table, list[tev.Event], list[object]]


@pytest.fixture(scope="module")
def rebuilt() -> Rebuilt:
    """One table rebuilt (the screens below only read it)."""
    return _dropped_and_rebuilt()


def _dropped_and_rebuilt() -> Rebuilt:
    """Seat 2's node plays a few moves, freezes while the others play on, and is rebuilt
    from the others' log: (the net, its old table, the rebuilt one, the events its old
    table showed before the freeze, the rebuilt table's first events)."""
    net = _net(b"rebuilt")
    net.start()
    _until(net, lambda: sum(isinstance(e, tev.Applied) for e in net.events[2]) >= 4
           and net.nodes[2].my_turn)
    old = net.nodes[2]
    before = list(net.events[2])
    net.crash(2)
    _until(net, lambda: 2 in net.nodes[0].taken_over and sum(
        isinstance(e, tev.Applied) for e in net.events[0]) >= len(
            [e for e in before if isinstance(e, tev.Applied)]) + 6)
    mark = len(net.events[2])
    node = _restart(net, 2, b"rebuilt")  # its first output: the log replayed
    first, _ = Outcome(node, others=[0, 1]).replayed(net.events[2][mark:])
    return net, old, node, before, first


def test_the_catch_up_after_a_rebuild_is_summarised_as_past_and_the_seats_are_current(
        rebuilt: Rebuilt) -> None:
    net, old, node, before, first = rebuilt
    screen, out = _screen(2)
    screen.started(old, net.config, log=None, auto=None)
    screen.show(old, before, net.now)
    told = out.getvalue()
    assert told.count("Round 1:") == 1
    # the connection to Ann broke as this process froze; a replay then repeats the round
    screen.presence(0, "Ann", connected=False,
                    reason=note(LinkCode.GONE_LOST, reason=Reason(NetCode.CONNECTION_CLOSED)))
    screen.show(old, [note(LinkCode.FROZEN, seconds=25.0)], net.now)
    stale = tev.SeatAway(InfoCode.SEAT_GONE, {"seat": 0}, seat=0, paused=False)
    screen.show(old, [*before, stale], net.now)
    rejoined = note(LinkCode.REJOINED, seat=2, taken=True, rounds=0)
    screen.show(node, [note(LinkCode.REBUILD_ASLEEP, seat=1), rejoined, *first], net.now)
    screen.ctl.show_board()
    after = out.getvalue()[len(told):]
    lines = after.splitlines()
    # nothing of the replay is told as if it happened now: no round dealt again, no
    # move narrated, no notice about Ann's node, which is at the table
    assert "Round 1:" not in after
    assert not [line for line in lines if line.startswith(("Ann ", "Bea ", "You "))], after
    assert "Ann's node is gone" not in after
    # one line says what the table played meanwhile (what this screen had not told yet)
    new = [e for e in first if isinstance(e, tev.Applied)][
        len([e for e in before if isinstance(e, tev.Applied)]):]
    counts = {s: sum(1 for e in new if e.seat == s and not isinstance(e.action, Draw))
              for s in range(3)}
    summary = [line for line in lines if line.startswith("While you were away: ")]
    assert len(summary) == 1, after
    assert f"Ann played {counts[0]} turn" in summary[0]
    assert f"the computer {counts[2]} for you" in summary[0]
    # the seats line says who is here now
    seats = [line for line in lines if line.startswith("Seats: ")]
    assert seats and "Ann (connected)" in seats[-1], seats
    assert "No round has ended yet." in after
    assert "Rejoined the table at seat 2; the computer played your seat meanwhile; " in after


def test_a_rejoin_where_the_game_waited_says_nothing_was_played() -> None:
    """An escrow-off table (``p2p8s host --no-escrow``): seat 2's node crashes while
    another seat is on turn, the game pauses, the node restarts with its table secret.
    Its own restart hands its keys over (its seat is taken over now, its hand open to
    the end of the round), but nothing was played for it: the screen says so."""
    seed = b"waited"
    net = TableNet(make_config(3, target=300, escrow=False), seed=seed)
    net.nodes[2] = Table(net.config, me=2, rand=seeded(seed + b"/2"), seed=seed + b"2",
                         sign=net.signers[2], key_secret=SECRET)
    net.start()
    _until(net, lambda: net.nodes[0].round is not None
           and net.nodes[0].round.turn not in (None, 2))
    net.crash(2)
    net.run()
    assert net.nodes[0].paused == {2} and not net.nodes[0].taken_over  # the game waits
    mark = len(net.events[2])
    node = _restart(net, 2, b"waited")
    first, marks = Outcome(node, others=[0, 1]).replayed(net.events[2][mark:])
    assert 2 in node.taken_over and node.away_turns == 0
    screen, out = _screen(2)
    screen.started(node, net.config, log=None, auto=None, rejoined=True)
    # the note as the runner makes it (link.py: the seat taken over now, or rounds logged)
    rejoined = note(LinkCode.REJOINED, seat=2, taken=2 in node.taken_over or bool(marks),
                    rounds=len(marks))
    screen.show(node, [rejoined, *first], net.now)
    text = out.getvalue()
    assert ("Rejoined the table at seat 2; nothing was played for you meanwhile: the game "
            "waited; you play again from your next turn") in text, text
    assert "taken over meanwhile" not in text and "the computer played" not in text


def test_a_restarted_program_says_the_round_so_far_from_the_log(rebuilt: Rebuilt) -> None:
    net, _, node, _, first = rebuilt
    screen, out = _screen(2)
    screen.started(node, net.config, log=None, auto=None, rejoined=True)
    rejoined = note(LinkCode.REJOINED, seat=2, taken=True, rounds=0)
    screen.show(node, [rejoined, *first], net.now)
    text = out.getvalue()
    assert text.count("Round 1:") == 1  # the round in play, said once
    moves = [e for e in first if isinstance(e, tev.Applied) and not isinstance(e.action, Draw)]
    mine = sum(1 for e in moves if e.seat == 2)
    assert "Round 1 so far, from the signed log: Ann played " in text
    assert f"your seat {mine}." in text
    assert not [line for line in text.splitlines()
                if line.startswith(("Ann ", "Bea ", "You "))], text


def test_a_seat_taken_over_whose_player_is_back_is_not_said_to_be_played_by_the_computer(
) -> None:
    assert seats_line(["Ann", "Bea", "Cem"], 0, computers={}, gone={}, host="Ann",
                      taken=frozenset({2}), back=frozenset({2})) == (
        "Seats: Ann (you) · Bea (connected) · Cem (back; plays again, hand open)")
    # a screen that never saw the seat's node go (it was rebuilt or started since) reads
    # the table: seat 2 is taken over, its node is not missed
    net = _net(b"back")
    net.start()
    _until(net, lambda: net.nodes[2].my_turn)
    net.cut_off(2)
    _until(net, lambda: 2 in net.nodes[0].taken_over)
    net.reconnect(2)
    net.deliver_all()
    assert 2 in net.nodes[0].taken_over and 2 not in net.nodes[0].gone
    screen, out = _screen(0)
    screen.started(net.nodes[0], net.config, log=None, auto=None)
    screen.ctl.show_board()
    assert "Cem (back; plays again, hand open)" in out.getvalue()


def test_the_come_back_hint_names_the_address_this_node_has_now() -> None:
    assert where_now(["10.0.0.5", "fd00::5"], 4242, ["10.0.0.5", "10.0.1.9"]) == "10.0.0.5:4242"
    assert where_now(["10.0.0.5"], 4242, ["10.0.1.9"]) == "10.0.1.9:4242"
    assert where_now(["fd00::5"], 4242, []) == "[fd00::5]:4242"
    # between two leases the machine has no address but loopback: the last one stands
    assert where_now(["10.0.0.5"], 4242, ["127.0.0.1"]) == "10.0.0.5:4242"
    assert where_now(["127.0.0.1"], 4242, ["127.0.0.1"]) == "127.0.0.1:4242"
    here = ["10.0.0.5"]
    command = come_back_command("ABC123", ["10.0.0.5"], 4242, mdns=False,
                                addresses=lambda: list(here))
    assert command() == "p2p8s join ABC123@10.0.0.5:4242"
    screen, out = _screen(0)
    screen.names = ["Ann", "Bob"]
    screen.come_back = command
    here[:] = ["10.0.1.9"]  # the address changed after the deal
    shown = note(LinkCode.COME_BACK, seat=1, command="p2p8s join ABC123@10.0.0.5:4242")
    screen.show(cast(Table, _NoTable()), [shown], 0.0)
    assert out.getvalue().strip() == (
        "If Bob's program stopped, they come back by running: p2p8s join ABC123@10.0.1.9:4242")


class _NoTable:
    """A table between deals: no view."""

    round = None
    gone: frozenset[int] = frozenset()

    def view(self) -> None:
        return None


@pytest.fixture(scope="module")
def two_rounds() -> tuple[TableNet, Table, list[tev.Event]]:
    """A table whose second round has begun (read only): the net, seat 0's node, its
    events."""
    net = _net(b"ended")
    net.start()

    def dealt_twice() -> bool:
        starts = [i for i, e in enumerate(net.events[0]) if isinstance(e, tev.RoundStarted)]
        return len(starts) == 2 and isinstance(net.events[0][-1], tev.Applied)

    _until(net, dealt_twice)
    return net, net.nodes[0], list(net.events[0])


def test_an_auto_seat_told_two_rounds_at_once_sees_no_board_of_the_later_one_as_the_first(
        two_rounds: tuple[TableNet, Table, list[tev.Event]]) -> None:
    net, node, events = two_rounds
    screen, out = _screen(0)
    screen.started(node, net.config, log=None, auto=get_bot("expert"))
    screen.show(node, events, net.now)  # (after a drop: told in one go)
    text = out.getvalue()
    assert "── Round 1 ·" not in text and "-- Round 1 |" not in text, text
    assert text.count("Round 2 |") + text.count("Round 2 ·") == 1, text


def test_a_replay_from_an_earlier_round_repeats_no_round_end_and_no_deal(
        two_rounds: tuple[TableNet, Table, list[tev.Event]]) -> None:
    net, node, events = two_rounds
    screen, out = _screen(0)
    screen.started(node, net.config, log=None, auto=None)
    screen.show(node, events, net.now)
    told = out.getvalue()
    assert told.count("Round 1 is over") == 1 and told.count("Round 2:") == 1
    screen.show(node, [note(LinkCode.FROZEN, seconds=12.0)], net.now)
    screen.show(node, [*events, note(LinkCode.CAUGHT_UP)], net.now)
    again = out.getvalue()[len(told):]
    assert "Round 1 is over" not in again and "Round 2:" not in again, again
    assert "While you were away" not in again  # nothing new was played
    # the rejoined line counts the rounds the table holds (a replay may end between two)
    screen.show(node, [note(LinkCode.REJOINED, seat=0, taken=False, rounds=0)], net.now)
    assert "1 round played so far, every one audited from the signed log." in out.getvalue()


def test_other_screens_say_a_seat_is_its_persons_again_once_the_table_counts_it_back(
) -> None:
    """A screen that saw Cem's node go reads the table's own word that it is back
    (``SeatBack``): its seat, taken over, is played by Cem again — not "gone; the
    computer plays" for the rest of the round."""
    net = _net(b"others")
    net.start()
    _until(net, lambda: net.nodes[2].my_turn)
    net.cut_off(2)
    screen, out = _screen(0)
    screen.started(net.nodes[0], net.config, log=None, auto=None)
    screen.presence(2, "Cem", connected=False,
                    reason=note(LinkCode.GONE_LOST, reason=Reason(NetCode.CONNECTION_CLOSED)))
    _until(net, lambda: 2 in net.nodes[0].taken_over)
    screen.ctl.show_board()
    assert "Cem (gone; the computer plays, hand open)" in out.getvalue()
    mark = len(net.events[0])
    net.reconnect(2)
    net.deliver_all()
    back = net.events[0][mark:]
    assert [e.seat for e in back if isinstance(e, tev.SeatBack)] == [2]
    screen.show(net.nodes[0], back, net.now)
    screen.ctl.show_board()
    seats = [line for line in out.getvalue().splitlines() if line.startswith("Seats: ")]
    assert "Cem (back; plays again, hand open)" in seats[-1], seats


@pytest.mark.parametrize(("mdns", "tries"), [
    (True, "still trying (mDNS and the last known addresses)"),
    (False, "still trying (the last known addresses)"),
])
def test_nobody_reachable_says_only_what_the_runner_tries(mdns: bool, tries: str) -> None:
    net = _net(b"alone")
    screen, out = _screen(0)
    screen.started(net.nodes[0], net.config, log=None, auto=None)
    screen.mdns = mdns  # table_runner: the runner looks lost peers up by mDNS
    screen.show(net.nodes[0], [note(LinkCode.NOBODY_REACHABLE)], 0.0)
    assert f"Cannot reach anyone at the table: {tries} - Ctrl-C" in out.getvalue()  # ASCII


def test_drops_of_while_this_node_did_not_run_are_no_news_after_its_rebuild(
        rebuilt: Rebuilt) -> None:
    """As a joiner stopped for 8 s (SIGSTOP) sees it: on waking, its connections have
    ended meanwhile (the others dropped it), it catches up and is rebuilt from their
    log, and they are back at once. None of those drops is news: no "Lost the
    connection", no "is back", no turn of the void table, and the computer's turns for
    it are said once (not again when it plays)."""
    net, old, node, before, first = rebuilt
    out, clock = io.StringIO(), [0.0]
    screen = TableScreen(Terminal(out, io.StringIO(), width=200), me=2,
                         grace_s=GONE_GRACE_S, clock=lambda: clock[0])
    screen.started(old, net.config, log=None, auto=None)
    screen.show(old, before, clock[0])
    told = len(out.getvalue())
    screen.show(old, [note(LinkCode.FROZEN, seconds=8.0)], clock[0])
    lost = note(LinkCode.GONE_LOST, reason=Reason(NetCode.CONNECTION_CLOSED))
    for seat, name in ((0, "Ann"), (1, "Bea")):
        screen.presence(seat, name, connected=False, reason=lost)
    clock[0] = 5.0  # the rebuild takes longer than the grace
    screen.tick(clock[0])
    screen.show(old, before[-3:], clock[0])  # the void table's events, seats' turns in it
    rejoined = note(LinkCode.REJOINED, seat=2, taken=True, rounds=0)
    screen.show(node, [note(LinkCode.REBUILD_ASLEEP, seat=1), rejoined, *first], clock[0])
    screen.presence(0, "Ann", connected=True, reason=note(LinkCode.BACK, moved=None))
    clock[0] = 20.0
    screen.tick(clock[0])
    screen.show(node, [tev.Info(InfoCode.AWAY_TURNS, {"n": 2})], clock[0])
    after = out.getvalue()[told:]
    assert "Lost the connection" not in after and " is back " not in after, after
    assert "'s turn" not in after.split("Rejoined the table")[0], after
    assert "the computer played your seat meanwhile" in after
    assert "You were away" not in after, after  # said by the rejoined line already
