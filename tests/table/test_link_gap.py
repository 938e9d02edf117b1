"""A message lost here for good, which no resend brings (issue #11, Wi-Fi soak seed 47: a
node back from a link-down lacked the first message of a round from a node rebuilt
meanwhile, whose queue went with its old table; its round's deal waited for ever, with no
timer, as no turn ran).

protocol/table.md, "The runner's part" → "Gap": a table holding messages that wait for one
that never came, the same one for ``GAP_MAX_S`` while every node reached is synced,
rebuilds from the log of the lowest of them.
"""

from __future__ import annotations

import hashlib

from linknet import LinkNet

from p2p8s.cli.words import Speaker
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, OWNKEY, RESTARTED
from p2p8s.table.inbox import Missing
from p2p8s.table.linkout import LinkCode, Post, Rebuild, note
from p2p8s.table.stall import GAP_MAX_S
from p2p8s.wire import Game


def _lose_first_crypto(net: LinkNet, sender: int, to: int) -> list[bytes]:
    """Drop ``sender``'s first crypto payload to ``to``, counted there as received (so no
    ``sync`` resends it)."""
    lost: list[bytes] = []

    def tamper(s: int, t: int, game: Game) -> bool:
        if s == sender and t == to and game.payload[:1] == bytes([CRYPTO]) and not lost:
            lost.append(game.payload)
            net.nodes[to].link.got[sender] += 1
            return False
        return True

    net.tamper = tamper
    return lost


def _secrets() -> dict[int, bytes]:
    return {s: hashlib.sha256(b"gap secret %d" % s).digest() for s in range(4)}


def test_a_deal_waiting_on_a_message_lost_for_good_here_rebuilds_from_a_log() -> None:
    """…and keeps its seat: its own log comes too (``resume``), so it sends no ``ownkey``
    and nobody's hand is opened."""
    net = LinkNet(4, turn_timeout_s=20.0, secrets=_secrets())
    lost = _lose_first_crypto(net, 3, 0)
    net.start()
    zero = net.nodes[0]
    net.run(lambda: zero.link.rebuild is not None, 20_000)
    net.tamper = None
    assert lost
    assert zero.table.missing() == Missing(round=1, seat=3, expected=1, seq=2)
    assert zero.link.counts.get("gap") == 1
    assert zero.link.rebuild == Rebuild(seat=1, why=note(LinkCode.REBUILD_LACK, seat=1, node=3),
                                        peers=zero.link.rebuild.peers,  # type: ignore[union-attr]
                                        resume=True)
    assert net.now >= GAP_MAX_S  # not before the gap lasted that long
    assert Speaker(names=net.config.names, me=0).say(LinkCode.REBUILD_LACK, seat=1, node=3) == (
        "A message from Dag never reached this computer, and the round waits for it: "
        "rebuilding the table from Bea's signed log.")
    net.rebuild(0)
    assert net.nodes[0].table.resumed
    net.heals = True
    net.run(lambda: all(n.table.round_number >= 2 for n in net.nodes.values()), 200_000)
    assert len({n.table.round_number for n in net.nodes.values()}) == 1
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
    assert not [o for n in net.nodes.values() for o in n.of(Post)
                if o.payload[:1] in (bytes([OWNKEY]), bytes([RESTARTED]))]  # type: ignore[attr-defined]
    assert not [e for n in net.nodes.values() for e in n.shown()
                if isinstance(e, tev.SeatTakenOver)]


def test_a_gap_that_a_resend_fills_in_time_rebuilds_nothing() -> None:
    """Seat 3's writes to seat 0 vanish (a dead socket), not counted there: the next
    connection's ``sync`` resends them, and the gap is gone long before ``GAP_MAX_S``."""
    net = LinkNet(4, turn_timeout_s=20.0, secrets=_secrets())
    zero = net.nodes[0]
    net.wires[zero.peers[3]].dead.add(3)
    net.start()
    net.run(lambda: zero.table.missing() is not None, 20_000)
    assert zero.table.missing() is not None and net.now < GAP_MAX_S
    net.reset(0, 3)
    net.connect(3, 0)
    net.run(lambda: all(n.table.round_number >= 2 for n in net.nodes.values()), 200_000)
    assert zero.link.rebuild is None and not zero.link.counts.get("gap")
    assert len(net.transcripts()) == 1
