"""A welcome lost on the way to a node that then asks for the log again (issue #11,
soak seed 7), in memory: real tables and links, no sockets (protocol/table.md, "Coming
back" and "Acks").

A node restored from one peer's log asks every peer for its log (a ``restarted``
sync). The adopter counts it back, and when the next round begins it welcomes it: the
welcome goes to a socket that swallows it. When the node connects again with its
answer still incomplete, it says ``restarted`` once more; the adopter answers with its
log and — since a log answer acknowledges nothing — resends what the node has not
acknowledged, the welcome among it (a table never takes a welcome from a log).
"""

from __future__ import annotations

from linknet import LinkNet

from p2p8s import wire
from p2p8s.table.actions import WELCOME, decode_round
from p2p8s.table.linkout import Conn, Resend
from p2p8s.table.sync import LOG_PART

SECRETS = {s: bytes([s + 1]) * 32 for s in range(4)}


def _restored_with_seat_1s_log_lost() -> tuple[LinkNet, list[int]]:
    """Seat 0 cut off in round 1 until the others took its seat over, then restored
    from seat 2's log; seat 1's log answer to it is lost on the way, then its first
    welcome, on a socket that dies with it (the list returned holds the welcome's
    round once lost)."""
    net = LinkNet(4, secrets=SECRETS, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.applied(1) >= 3, 20_000)
    net.cut_off(0)
    net.run(lambda: 0 in net.nodes[1].table.taken_over and net.applied(1) >= 6, 20_000)
    lost: list[int] = []

    def swallow(sender: int, to: int, game: wire.Game) -> bool:
        kind = game.payload[:1]
        if sender != 1 or to != 0 or lost or kind not in (bytes([LOG_PART]),
                                                           bytes([WELCOME])):
            return True
        if kind == bytes([WELCOME]):  # and the socket dies with it
            lost.append(decode_round(game.payload[1:]))
            net.wires[net.nodes[1].peers[0]].dead.add(1)
        return False

    net.tamper = swallow
    wires = {}
    for seat in (2, 1, 3):
        w = net._wire(seat, 0)  # its new process dials every node
        net.run_out(seat, net.nodes[seat].link.connected(0, Conn(id=w.id, joined=True),
                                                         net.now))
        wires[seat] = w.id
    net.restore(0, 2, wires)
    net.nodes[0].auto = True
    net.heals = True
    return net, lost


def test_a_welcome_lost_before_a_second_log_request_is_resent() -> None:
    """Seat 0, restored, never gets seat 1's log; round 1 ends and seat 1 (the adopter
    of round 2) welcomes it, and that is lost too. Seat 1 finds its payloads
    unacknowledged and connects again; seat 0 asks for its log again (``restarted``).
    Seat 1 sends its log and resends what seat 0 did not acknowledge, the welcome among
    it (a table takes no welcome from a log): seat 0 plays its seat in round 2, which
    ends alike everywhere, nobody faulted. (It froze: seat 1 waited for seat 0's
    commitment with no timer, seat 0 watched round 2 as an observer.)"""
    net, lost = _restored_with_seat_1s_log_lost()
    net.run(lambda: all(n.link.rounds >= 2 for n in net.nodes.values())
            or any(n.link.stopped for n in net.nodes.values()), 50_000)
    assert lost == [2]
    assert net.nodes[0].link.counts.get("log_asked_again", 0) >= 1
    assert any(o.to == 0 and o.payload[:1] == bytes([WELCOME]) for o in net.of(1, Resend))
    assert all(n.link.rounds >= 2 for n in net.nodes.values())
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert len(net.transcripts()) == 1
