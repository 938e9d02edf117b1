"""A node whose round ended elsewhere and whose table has nobody left to give it the rest
(issue #11, seed-7 Wi-Fi soak, match 1): it says so and stops, not waits for good.

Ann, back after a kill, lacked Bob's last move of the round that ended the match; Cat
and Dan finished and left (their ``bye``), Bob's connection ended without one: "Cannot
reach anyone at the table: still trying" for ever. Once every other person finished
beyond the rounds this node completed, left for good or is away, only a node away can
still give it the end of that round: it waits :data:`~p2p8s.table.outcome.LEFT_ALONE_S`
for one to come back (a node owing it the result lingers 60 s), at once none is away,
then stops with :attr:`~p2p8s.table.linkout.LinkCode.ENDED_ELSEWHERE`."""

from __future__ import annotations

from linknet import RESET, LinkNet

from p2p8s.errors import Note
from p2p8s.table.linkout import LinkCode
from p2p8s.table.outcome import LEFT_ALONE_S
from p2p8s.wire import Farewell

BYE = Note(Farewell.DONE)


def _in_play() -> LinkNet:
    """Three nodes in round 1, every node having sent a message of it (nothing in
    flight): seat 0 is the node left behind."""
    net = LinkNet(3)
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    while net.deliver():
        pass
    assert all(net.nodes[0].link.last_round.get(s) == 1 for s in (1, 2))
    return net


def _ends(net: LinkNet, seat: int, reason: Note) -> None:
    """Seat 0 learns that its connection to ``seat``'s node ended (``reason``)."""
    net.lose(0, net.wires[net.nodes[0].peers[seat]], reason)


def test_a_node_whose_others_all_finished_its_round_stops_at_once() -> None:
    net = _in_play()
    link = net.nodes[0].link
    _ends(net, 1, BYE)
    assert link.failure is None  # seat 2 plays on: it may still send the rest
    _ends(net, 2, BYE)
    failure = link.failure
    assert failure is not None and failure.code is LinkCode.ENDED_ELSEWHERE
    names = net.config.names
    assert failure.params["names"] == [names[1], names[2]] and failure.params["away"] == []
    assert (failure.params["number"], failure.params["rounds"]) == (1, 0)
    assert link.stopped and link.get_timer() is None


def test_one_away_is_waited_for_then_the_node_stops() -> None:
    net = _in_play()
    link = net.nodes[0].link
    _ends(net, 1, RESET)  # lost: it may come back with what this node lacks
    start = net.now
    _ends(net, 2, BYE)
    assert link.failure is None and link.outcome.left_timer() == start + LEFT_ALONE_S
    timer = link.get_timer()
    assert timer is not None and timer <= start + LEFT_ALONE_S
    net.run_out(0, link.handle_timer(start + LEFT_ALONE_S - 0.1))
    assert link.failure is None
    net.run_out(0, link.handle_timer(start + LEFT_ALONE_S))
    failure = link.failure
    assert failure is not None and failure.code is LinkCode.ENDED_ELSEWHERE
    assert failure.params["away"] == [net.config.names[1]]
    assert failure.params["names"] == [net.config.names[2]]


def test_a_node_back_in_time_ends_the_wait() -> None:
    net = _in_play()
    link = net.nodes[0].link
    _ends(net, 1, RESET)
    other = net.nodes[1].link
    net.run_out(1, other.lost(0, net.nodes[1].peers[0], RESET, net.now))
    _ends(net, 2, BYE)
    assert link.outcome.alone_since is not None
    net.connect(1, 0)
    while net.deliver():
        pass
    assert 1 not in link.away and link.outcome.alone_since is None
    net.run_out(0, link.handle_timer(net.now + LEFT_ALONE_S))
    assert link.failure is None


def test_a_node_whose_others_finished_only_rounds_it_completed_is_not_this_case() -> None:
    """A peer that stopped after rounds this node completed too: the match cannot go on
    (:attr:`~p2p8s.table.linkout.LinkCode.PEERS_FINISHED`, as before)."""
    net = LinkNet(3, rounds={1: 1, 2: 1})
    net.start()
    net.run(lambda: net.nodes[0].link.rounds >= 1 and all(
        net.nodes[s].link.done is not None for s in (1, 2)), 50_000)
    link = net.nodes[0].link
    _ends(net, 1, BYE)
    failure = link.failure
    assert failure is not None and failure.code is LinkCode.PEERS_FINISHED


def test_the_stop_says_who_finished_who_was_not_reached_and_what_the_log_holds() -> None:
    from p2p8s.cli.words import Speaker
    from p2p8s.table.linkout import PeerLost

    said = Speaker(["Ann", "Bob", "Cat", "Dan"], 0).error(PeerLost(
        LinkCode.ENDED_ELSEWHERE, seat=2, names=["Cat", "Dan"], away=["Bob"], number=3,
        rounds=2, seconds=LEFT_ALONE_S, log="ann.p2p8slog"))
    assert said == (
        "Cat and Dan finished playing and left, and Bob could not be reached again in "
        "90 s: the end of round 3 never reached this computer, and nobody is left to "
        "give it; its log holds the 2 rounds before it (p2p8s audit ann.p2p8slog)")
