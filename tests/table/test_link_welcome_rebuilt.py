"""A welcome taken in by a table that is rebuilt before it begins that round (issue 11,
soak seed 51 match 3), in memory: real tables and links, no sockets (protocol/table.md,
"Coming back" → "Welcome" and "Restart").

Seat 0's seat is taken over in round 1 and its node, restored, is back. Round 1 ends
and seat 1 (the adopter of round 2) welcomes it; seat 0's table takes the welcome in
while it still waits for the end of round 1 (a message of seat 3 lost on the way), and
its runner acknowledges it. Then seat 0's table is rebuilt from seat 1's log: the old
table's welcome is gone with it, an acknowledged payload is not resent and a table
takes no welcome from a log — so seat 0 watched round 2 as an observer while the others
waited for its commitment, for good (the deal stalled, seat 0 was given up on, and with
its key never announced the game paused). Now the adopter sends its welcome again on
the ``restarted`` sync, as no message of seat 0 of round 2 came.
"""

from __future__ import annotations

from linknet import LinkNet

from p2p8s import wire
from p2p8s.crypto.messages import KeyReveal, decode
from p2p8s.table.actions import CRYPTO, WELCOME
from p2p8s.table.linkout import Post

SECRETS = {s: bytes([s + 1]) * 32 for s in range(4)}


def _new_process(net: LinkNet, seat: int, source: int) -> None:
    """``seat``'s process is killed (what is in flight is lost) and its new one, dialling
    every node, is restored from ``source``'s log."""
    for w in net.wires:
        if seat in (w.a, w.b) and w.open:
            w.open = False
            for q in w.queues.values():
                q.clear()
            net.lose(w.other(seat), w)
    net.restore(seat, source, net.rejoined(seat))


def _round_1_key_of_seat_3_to_seat_0(sender: int, to: int, game: wire.Game) -> bool:
    """False (lost) for seat 3's round-1 KeyReveal on its way to seat 0."""
    payload = game.payload
    if sender != 3 or to != 0 or payload[:1] != bytes([CRYPTO]):
        return True
    msg = decode(payload[1:])
    return not (isinstance(msg, KeyReveal) and msg.round_no == 1)


def _welcomed(net: LinkNet) -> bool:
    return any(o.to == 0 and o.payload[:1] == bytes([WELCOME]) for o in net.of(1, Post))


def test_a_welcome_acknowledged_by_a_table_rebuilt_before_its_round_is_sent_again() -> None:
    """Seat 0's table, behind in round 1, takes seat 1's welcome to round 2 in and its
    runner acknowledges it; then the table is rebuilt from seat 1's log (round 2 begun
    there). Seat 1 welcomes it again on its ``restarted`` sync: seat 0 runs its seat in
    round 2 (its commitment goes out), which ends alike everywhere, nobody faulted. (It
    froze: seat 0 observed round 2, its seat undecided, and seat 1 waited for it.)"""
    net = LinkNet(4, secrets=SECRETS, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.applied(1) >= 3, 20_000)
    net.cut_off(0)
    net.run(lambda: 0 in net.nodes[1].table.taken_over and net.applied(1) >= 6, 20_000)
    net.tamper = _round_1_key_of_seat_3_to_seat_0
    _new_process(net, 0, 2)
    net.nodes[0].auto = True
    net.heals = True
    net.run(lambda: _welcomed(net), 50_000)
    adopter = net.nodes[1].link
    net.run(lambda: not any(m.payload[:1] == bytes([WELCOME])
                            for m in adopter.acks.posted[0].since(0)), 5_000)
    old = net.nodes[0].table
    assert old.round_number == 1 and old._seats.welcome == 2  # taken in, not begun
    welcomes = len([o for o in net.of(1, Post) if o.payload[:1] == bytes([WELCOME])])
    net.tamper = None
    _new_process(net, 0, 1)
    start = net.now
    net.run(lambda: all(n.link.rounds >= 2 for n in net.nodes.values())
            or net.now > start + 300, 50_000)
    assert all(n.link.rounds >= 2 for n in net.nodes.values())
    again = [o for o in net.of(1, Post) if o.payload[:1] == bytes([WELCOME])][welcomes:]
    assert [(o.to, o.payload) for o in again] == [(0, bytes([WELCOME, 0x91, 2]))]
    assert net.nodes[0].table._seats.cands[0] == {0}  # it ran its own seat in round 2
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1
