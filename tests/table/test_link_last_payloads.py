"""The last payloads of a round, in flight to a node that came back when their sender
finishes (issue #11, two seed-7 Wi-Fi soak runs), in memory: real tables and links, the
runner's exit rule, no sockets (protocol/table.md, "Acks" and "Match over").

Both runs had one cause. A node rejoined (match 1: Ann, killed and restarted) or
rebuilt (match 3: Bob, a gap) plays on; the round that ends the match (or the rounds
asked for) ends; the node that made the last move finishes at once and closes its
connections while its last payloads (its move and key reveal) are still on the slow
link to the node that came back. A socket closed with unread data in it is reset, and
what it had not carried out is lost: Bob's ``A♠`` never reached Ann, Ann's ``4♥`` never
reached Bob, and each waited for good ("Cannot reach anyone at the table"), the others
gone. A runner done now waits (quietly, at most the linger) until every peer connected
acknowledged what it posted for it (:attr:`~p2p8s.table.link.Link.unacknowledged`,
commit 403caab), so the node that came back is told the result.

Here a node exits as the runner does (``_Run.over``) and its connections are then
reset: what was in flight on the slow links (those of the node that came back) is lost,
the fast ones have carried theirs. With the old rule (exit once nobody is owed) the
node that came back is left without the end of the round, as in the soak.
"""

from __future__ import annotations

import pytest
from linknet import RESET, LinkNet, Node, Wire

from p2p8s.errors import Note
from p2p8s.wire import Farewell

SECRETS = {s: bytes([s + 1]) * 32 for s in range(3)}
LINGER_S = 60.0  # the runner's
BYE = Note(Farewell.DONE)  # how a connection ends with the peer's bye


def _delivered(net: LinkNet, w: Wire, to: int) -> None:
    """Hand ``to`` everything in flight to it on ``w`` (a fast link)."""
    while w.open and w.queues[to] and to in net.nodes:
        _, game, body, digest = w.queues[to].popleft()
        node = net.nodes[to]
        net.run_out(to, node.link.received(w.other(to), w.id, game, frame=body,
                                           digest=digest, now=net.now))


def _exit(net: LinkNet, seat: int, slow: int) -> Node:
    """``seat``'s runner exits and closes its connections: what it sent on a fast link
    arrives, then its ``bye``; a slow link (to or from ``slow``) with something still in
    flight on it is reset instead — that is lost, the bye too."""
    node = net.nodes.pop(seat)
    for w in net.wires:
        if w.open and seat in (w.a, w.b):
            to = w.other(seat)
            reset = slow in (w.a, w.b) and bool(w.queues[to])
            if not reset:
                _delivered(net, w, to)
            w.open = False
            for q in w.queues.values():
                q.clear()
            if to in net.nodes:
                net.lose(to, w, RESET if reset else BYE)
    return node


def _play_out(net: LinkNet, *, slow: int, waits: bool) -> tuple[dict[int, Node], set[int]]:
    """Run every node until its runner exits (``waits``: for the acks of its last
    payloads, as now; else at once when nobody is owed) or nothing moves: the nodes that
    exited, and those that exited only at the end of the linger."""
    gone: dict[int, Node] = {}
    timed_out: set[int] = set()
    ends: dict[int, float] = {}  # seat -> when its wait (acks, or the linger) ends
    for _ in range(200_000):
        exited = True
        while exited:  # an exit may end another node's wait
            exited = False
            for seat, node in list(net.nodes.items()):
                link = node.link
                if link.done is None:
                    continue
                waiting = bool(link.owed) or (waits and bool(link.unacknowledged))
                if waiting and seat not in ends:
                    ends[seat] = net.now + LINGER_S
                if not waiting or net.now >= ends[seat]:
                    if waiting:
                        timed_out.add(seat)
                    gone[seat] = _exit(net, seat, slow)
                    exited = True
        if not net.nodes:
            return gone, timed_out
        if not net.step():
            if not ends.keys() & net.nodes.keys():
                return gone, timed_out
            net.now = max(net.now, min(t for s, t in ends.items() if s in net.nodes))
    raise AssertionError("the links still run")


def _restarted(net: LinkNet, seat: int) -> None:
    """``seat``'s node is killed mid-round (all in flight lost), its seat is taken over,
    and its new process dials every node and is restored from the next seat's log."""
    net.run(lambda: net.applied(1) >= 3, 20_000)
    net.cut_off(seat)
    net.run(lambda: all(seat in net.nodes[s].table.taken_over
                        for s in net.humans if s != seat), 20_000)
    net.restore(seat, (seat + 1) % len(net.humans), net.rejoined(seat))
    net.nodes[seat].auto = True


def _rebuilt(net: LinkNet, seat: int) -> None:
    """``seat``'s table is rebuilt mid-round from the next seat's log, on the same
    connections (as after a gap no resend filled)."""
    net.run(lambda: net.applied(1) >= 3, 20_000)
    while net.deliver():
        pass
    net.restore(seat, (seat + 1) % len(net.humans), dict(net.nodes[seat].peers))


@pytest.mark.parametrize(("back", "waits"), [
    ("restarted", True), ("rebuilt", True), ("restarted", False)])
def test_a_node_back_gets_the_last_payloads_before_their_sender_exits(
        back: str, waits: bool) -> None:
    """Match 1 (Ann restarted, the round ends the match) and match 3 (Bob rebuilt, the
    round is the one asked for): the node that came back ends the match like the others
    — same transcript, nobody faulted — instead of waiting for good without the end of
    the round."""
    slow = 0 if back == "restarted" else 1
    over = back == "restarted"
    net = LinkNet(3, secrets=SECRETS, turn_timeout_s=30.0, target=1 if over else 10_000,
                  rounds=None if over else dict.fromkeys(range(3), 1))
    net.start()
    (_restarted if back == "restarted" else _rebuilt)(net, slow)
    net.heals = True
    gone, timed_out = _play_out(net, slow=slow, waits=waits)
    node = gone.get(slow, net.nodes.get(slow))
    assert node is not None
    if not waits:  # the soak's failure: the end of the round never reached it
        assert node.link.done is None and node.link.rounds == 0
        assert set(gone) == set(net.humans) - {slow}
        return
    assert set(gone) == set(net.humans)  # every runner ended, within the linger: one
    # whose last payloads' ack a peer's reset lost waits it out (both have the result)
    assert timed_out <= {slow, *gone} and net.now < LINGER_S + 10
    assert all(n.link.failure is None and n.table.failed is None for n in gone.values())
    assert all(n.link.rounds == 1 and n.link.outcome.completed for n in gone.values())
    assert all(n.link.outcome.match_over is over for n in gone.values())
    assert len({n.table.transcript for n in gone.values()}) == 1
