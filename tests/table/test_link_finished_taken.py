"""A peer that says it finished the rounds it asked for while its seat is played by
another node this round (taken over) stops nothing: this node finishes the round first.

Wi-Fi soak (seed 23, match 2, 2 rounds asked): Bob's node, stopped 23 s, had its seat
played by the computer through round 2; Ann, killed and rejoined in round 2, still
waited for the round's last messages when Bob's ``bye`` came — and stopped at once ("Bob
left after the rounds they asked for; the match cannot go on without them", exit 1):
Bob's node had sent nothing in round 2 (its seat's messages came from the node playing
it), so the last round it sent a message in said 1, a round Ann had finished."""

from __future__ import annotations

from linknet import LinkNet

from p2p8s.errors import Note
from p2p8s.table.linkout import LinkCode
from p2p8s.wire import Farewell


def test_a_peer_finished_while_its_seat_is_taken_over_lets_the_round_end() -> None:
    net = LinkNet(3, rounds={0: 2, 1: 2, 2: 2})
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    for seat in (0, 2):  # Bob's node is cut off: his seat is taken over
        net.reset(1, seat)
    ann = net.nodes[0]
    net.run(lambda: ann.table.round_number == 2 and net.applied(0) >= 2, 100_000)
    w = net.connect(1, 0)  # back (to Ann only), synced
    net.run(lambda: 1 not in ann.link.pending and 1 not in ann.link.away, 10_000)
    assert ann.link.peers.get(1) == w.id
    assert ann.table.round_number == 2 and ann.link.rounds == 1
    assert 1 in ann.table.taken_over and ann.link.last_round.get(1, 0) <= 1
    del net.nodes[1]  # it finished the 2 rounds it asked for: its bye
    for old in net.wires:
        if 1 in (old.a, old.b):
            old.open = False
    for seat in (0, 2):
        node = net.nodes[seat]
        net.run_out(seat, node.link.lost(1, node.link.peers[1], Note(Farewell.DONE), net.now))
        assert node.link.failure is None
    net.heals = True  # (Ann and Cat dial again after a drop the clock's jumps may cause)
    net.run(lambda: ann.link.done is not None or ann.link.failure is not None, 100_000)
    assert ann.link.failure is None and ann.link.done == Note(LinkCode.DONE_ROUNDS, {"n": 2})
    assert ann.link.rounds == 2
