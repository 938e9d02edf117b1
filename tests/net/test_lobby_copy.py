"""A second connection claiming a seated identity in the lobby (QA of #14): the host asks
the old connection at once — a live one (a copy of the identity in another HOME) gets the
new one refused with ``duplicate`` within a heartbeat interval, and that refusal is final;
a dead one (the same node back, its old socket still open) is lost and the new one sits
again, at the seat kept for it (issue #11). Real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.net.node import JoinRefused, Node
from p2p8s.rules import Ruleset
from p2p8s.wire import Refusal, Role, SeatEntry

from .faultproxy import FaultProxy
from .test_mesh import CODE, TID, Recorder, _wait_for, _yes

#: Heartbeats every 0.2 s; nobody is declared dead by missing ones during a test.
HEARTBEAT_S, DEAD_AFTER_S = 0.2, 60.0


def _node(name: str, identity: Ed25519PrivateKey | None = None, *,
          tid: bytes | None = None) -> Node:
    return Node(identity=identity or Ed25519PrivateKey.generate(), name=name, code=CODE,
                table=tid, host="127.0.0.1", heartbeat_s=HEARTBEAT_S,
                dead_after_s=DEAD_AFTER_S)


def _seating(ann: Node) -> Seating:
    return Seating(size=3, rules=Ruleset(), host=SeatEntry(
        seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port))


@pytest.mark.wall_clock
async def test_a_live_copy_of_a_seated_identity_is_refused_at_once() -> None:
    key = Ed25519PrivateKey.generate()
    async with _node("Ann", tid=TID) as ann, _node("Bob", key) as bob, \
            _node("Bob", key) as copy:
        seating, view = _seating(ann), Recorder()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=view,
                                                commands=asyncio.Queue()))
        seated = asyncio.ensure_future(join_lobby(bob, [("127.0.0.1", ann.port)],
                                                  view=Recorder(), confirm=_yes))
        try:
            await _wait_for(lambda: len(seating.roster.seats) == 2)
            loop = asyncio.get_running_loop()
            start = loop.time()
            with pytest.raises(JoinRefused) as refused:
                await join_lobby(copy, [("127.0.0.1", ann.port)], view=Recorder(),
                                 confirm=_yes)
            took = loop.time() - start
            print(f"\na live copy refused after {took:.2f} s")
            assert refused.value.refusal is Refusal.DUPLICATE
            assert [e.name for e in seating.roster.seats] == ["Ann", "Bob"]  # undisturbed
            assert bob.key in ann.peers and view.seen == ["sat Bob 1"]
            assert not seated.done()
        finally:
            host.cancel()
            seated.cancel()
            await asyncio.gather(host, seated, return_exceptions=True)


@pytest.mark.wall_clock
async def test_a_seated_node_back_while_its_old_connection_looks_open_sits_again() -> None:
    key = Ed25519PrivateKey.generate()
    async with _node("Ann", tid=TID) as ann, FaultProxy("127.0.0.1", ann.port) as proxy, \
            _node("Bob", key) as bob, _node("Bob", key) as back:
        seating, view = _seating(ann), Recorder()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=view,
                                                commands=asyncio.Queue()))
        first = asyncio.ensure_future(join_lobby(bob, [("127.0.0.1", proxy.port)],
                                                 view=Recorder(), confirm=_yes))
        again = None
        try:
            await _wait_for(lambda: len(seating.roster.seats) == 2)
            proxy.blackhole()  # Bob's program hangs: its socket stays open, says nothing
            seen = Recorder()
            again = asyncio.ensure_future(join_lobby(back, [("127.0.0.1", ann.port)],
                                                     view=seen, confirm=_yes))
            # the old connection does not answer Ann's ping: it is lost with no bye, its
            # seat is kept, and Bob sits again at it
            await _wait_for(lambda: view.seen == ["sat Bob 1", "away Bob 1", "back Bob 1"],
                            timeout_s=10)
            await _wait_for(lambda: seen.seen == ["table 2/3", "sat Bob 1"])
            assert not again.done()  # seated, waiting for the deal (not refused)
        finally:
            for task in (host, first, again):
                if task is not None:
                    task.cancel()
            await asyncio.gather(*(t for t in (host, first, again) if t is not None),
                                 return_exceptions=True)


@pytest.mark.wall_clock
async def test_a_player_back_by_join_replaces_a_dialled_connection_that_does_not_answer(
        ) -> None:
    """In play, seat 2 had dialled seat 1 (the higher seat dials); seat 1's program is run
    again (``p2p8s join``: role ``join``) while the old socket still looks open. A new
    process is no crossing dial: the old one is pinged, does not answer, and is replaced
    (not a ``duplicate`` the joiner would take as final)."""
    key = Ed25519PrivateKey.generate()
    async with _node("Bob", key, tid=TID) as bob, \
            FaultProxy("127.0.0.1", bob.port) as proxy, \
            Node(identity=Ed25519PrivateKey.generate(), name="Cat", code=CODE, table=TID,
                 host="127.0.0.1", heartbeat_s=1.0, dead_after_s=DEAD_AFTER_S) as cat, \
            _node("Bob", key, tid=TID) as back:
        cat.seat, cat.replace_old = 2, True
        cat.seats = {bob.key: 1, cat.key: 2}
        cat.members = frozenset(cat.seats)
        bob.seat = 1
        old = await cat.connect("127.0.0.1", proxy.port, role=Role.PEER)
        assert old.dialled
        proxy.blackhole()  # Bob's laptop is gone from the network; he runs join again
        new = await back.connect("127.0.0.1", cat.port, role=Role.JOIN)
        assert new.key == cat.key
        assert cat.peers[key.public_key().public_bytes_raw()] is not old
