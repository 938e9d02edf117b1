"""The in-play redial honours ``busy`` (issue #14): a node that turns a redial away with a
``busy`` record is dialled again only after the wait it said (plus jitter), over real
sockets on loopback; the wait is bounded and jittered, and a busy answer does not grow the
backoff."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.net import redial as rd
from p2p8s.net.admission import Limits
from p2p8s.net.handshake import MAX_RETRY_S
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Node
from p2p8s.rules import Ruleset
from p2p8s.wire import Roster, SeatEntry

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")
#: One new connection per 2 s from an address (burst 1): a second one at once is told
#: to wait 2 s. No reserved slots: the rejoin hint is not read, so the address's limit
#: holds for a seat the node knows too (as when its hint cannot be peeked).
LIMITS = Limits(rate=0.5, burst=1.0, reserved=0)
STATED_S = 2.0


def _node(name: str, *, limits: Limits | None = None) -> Node:
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=CODE, table=TID,
                host="127.0.0.1", heartbeat_s=0.2, dead_after_s=5.0, limits=limits)


def _mesh(me: Node, seat: int, others: dict[int, Node]) -> Mesh:
    nodes = {seat: me, **others}
    roster = Roster(size=len(nodes), rules=Ruleset(), open=False, seats=tuple(
        SeatEntry(seat=s, name=n.name, key=n.key, addrs=("127.0.0.1",), port=n.port)
        for s, n in sorted(nodes.items())))
    return Mesh(node=me, roster=roster, seat=seat, peers={}, digest=b"")


@pytest.mark.wall_clock
async def test_a_redial_turned_away_busy_waits_the_stated_time_then_gets_in(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="p2p8s.net.node")
    async with _node("Ann", limits=LIMITS) as ann, _node("Bob") as bob:
        ann.seat, bob.seat = 0, 1
        ann.seats = {ann.key: 0, bob.key: 1}
        loop = asyncio.get_running_loop()
        # another connection from the same address takes its one token
        _, idle = await asyncio.open_connection("127.0.0.1", ann.port)
        await asyncio.sleep(0.1)
        redial = rd.Redial(_mesh(bob, 1, {0: ann}), away=lambda s: ann.key not in bob.peers,
                           find=None, rng=random.Random(7))
        start = loop.time()
        redial.start(0)
        try:
            async with asyncio.timeout(STATED_S * 3):
                while ann.key not in bob.peers:
                    await asyncio.sleep(0.02)
            took = loop.time() - start
        finally:
            redial.close()
            idle.transport.abort()
        turned = [r for r in caplog.records if r.getMessage().startswith("turned ")]
        print(f"\nredial: in after {took:.2f} s, turned away {len(turned)} time(s)")
        assert [r.getMessage().rsplit(": ", 1)[1] for r in turned] == ["too-fast"]
        assert redial.busy == 1
        assert took >= STATED_S  # waited what the node said before the next attempt


def test_a_busy_answer_waits_the_stated_time_bounded_and_keeps_the_backoff() -> None:
    redial = rd.Redial(_mesh(_node("Bob"), 1, {0: _node("Ann")}), away=lambda s: False,
                       find=None, rng=random.Random(3))
    busy = [redial.pause(rd.Tried(connected=False, busy_s=4.0), 2.0) for _ in range(200)]
    assert {p.delay_s for p in busy} == {2.0}  # no failure of the address: no backoff
    waits = [p.sleep_s for p in busy]
    assert min(waits) >= 4.0 and max(waits) <= 4.0 * (1 + rd.BUSY_JITTER)
    assert len(set(waits)) > 100  # jittered: seats turned away together spread out
    far = redial.pause(rd.Tried(connected=False, busy_s=10_000.0), 2.0)
    assert MAX_RETRY_S <= far.sleep_s <= MAX_RETRY_S * (1 + rd.BUSY_JITTER)
    failed = redial.pause(rd.Tried(connected=False), 2.0)
    assert 1.5 <= failed.sleep_s <= 2.5 and failed.delay_s == 4.0
    assert redial.pause(rd.Tried(connected=False), rd.REDIAL_MAX_S).delay_s == rd.REDIAL_MAX_S
