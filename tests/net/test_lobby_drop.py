"""A seated joiner whose connection to the host drops in the lobby (issue #11).

Before, a short Wi-Fi drop or a reset threw the joiner out at once ("the host left")
and the host freed its seat. Now a drop with no ``bye`` keeps the seat for
``LOBBY_GRACE_S``: the joiner dials the host again, sits again at once and is back at
its seat with the roster unchanged; past the grace the seat is freed and the joiner
fails with ``host-left``; a ``bye`` still frees the seat at once (protocol/wire.md,
"Lobby and mesh" step 2).

Real nodes on 127.0.0.1: Bob reaches the host through a fault proxy, Cat directly.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.errors import LocalError
from p2p8s.net import lobby
from p2p8s.net.errors import LobbyClosed, LobbyCode, NetCode
from p2p8s.net.lobby import Mesh, Seating, host_lobby, join_lobby
from p2p8s.net.node import Node, Reason
from p2p8s.rules import Ruleset
from p2p8s.wire import SeatEntry

from .faultproxy import FaultProxy
from .said import raises_saying
from .test_mesh import Recorder, _node, _wait_for, _yes


@dataclass
class Lobby:
    """Ann hosts; Bob (seat 1, through ``proxy``) and Cat (seat 2) sit."""

    nodes: list[Node]
    seating: Seating
    proxy: FaultProxy
    commands: asyncio.Queue[str]
    views: list[Recorder]
    tasks: list[asyncio.Task[Mesh | None]]


@contextlib.asynccontextmanager
async def seated() -> AsyncIterator[Lobby]:
    async with contextlib.AsyncExitStack() as stack:
        nodes = [await stack.enter_async_context(_node(name)) for name in ("Ann", "Bob", "Cat")]
        host = nodes[0]
        proxy = await stack.enter_async_context(FaultProxy("127.0.0.1", host.port))
        seating = Seating(size=4, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        views = [Recorder() for _ in nodes]
        tasks = [asyncio.ensure_future(host_lobby(host, seating, view=views[0],
                                                  commands=commands, mesh_timeout_s=8))]
        for i, port in ((1, proxy.port), (2, host.port)):
            tasks.append(asyncio.ensure_future(join_lobby(
                nodes[i], [("127.0.0.1", port)], view=views[i], confirm=_yes,
                mesh_timeout_s=8)))
            await _wait_for(lambda i=i: len(seating.roster.seats) == i + 1)
        await _wait_for(lambda: "sat Cat 2" in views[1].seen)
        try:
            yield Lobby(nodes, seating, proxy, commands, views, tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_reset_in_the_lobby_keeps_the_seat_and_the_table_deals() -> None:
    async with seated() as table:
        ann, bob, cat = table.views
        roster = table.seating.roster
        table.proxy.reset()  # a Wi-Fi reset: both ends see the connection end, no bye
        async with asyncio.timeout(5):
            await _wait_for(lambda: "back Bob 1" in ann.seen and "reconnected 1" in bob.seen)
        assert table.seating.roster == roster  # the same seats, nobody told otherwise
        assert ann.seen[-2:] == ["away Bob 1", "back Bob 1"]
        assert bob.seen.count("reconnecting") == 1 and "left Bob" not in cat.seen
        assert cat.seen.count("sat Bob 1") == 0 and cat.seen[-1] == "sat Cat 2"
        assert table.proxy.accepted == 2  # Bob dialled the host again
        assert not any(t.done() for t in table.tasks)

        table.commands.put_nowait("deal")
        async with asyncio.timeout(10):
            meshes = await asyncio.gather(*table.tasks)
        assert all(m is not None for m in meshes)
        assert len({m.digest for m in meshes if m is not None}) == 1
        for seat, mesh in enumerate(meshes):
            assert mesh is not None and mesh.seat == seat
            assert sorted(mesh.peers) == [s for s in range(3) if s != seat]
            assert [e.name for e in mesh.roster.seats] == ["Ann", "Bob", "Cat"]


async def test_a_short_wifi_drop_in_the_lobby_is_back_at_the_same_seat() -> None:
    async with seated() as table:
        ann, bob, _cat = table.views
        roster = table.seating.roster
        table.proxy.blackhole()  # nothing gets through: both ends miss heartbeats (1 s)
        async with asyncio.timeout(5):
            await _wait_for(lambda: "away Bob 1" in ann.seen and "reconnecting" in bob.seen)
        table.proxy.heal()  # the Wi-Fi is back: Bob's next dial gets through
        async with asyncio.timeout(8):
            await _wait_for(lambda: "back Bob 1" in ann.seen and "reconnected 1" in bob.seen)
        assert table.seating.roster == roster and "left Bob" not in ann.seen
        assert not any(t.done() for t in table.tasks)


async def test_a_joiner_gone_past_the_grace_loses_its_seat_and_fails_host_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby, "LOBBY_GRACE_S", 1.0)
    async with seated() as table:
        ann, bob, cat = table.views
        table.proxy.blackhole()  # Bob's Wi-Fi is gone: heartbeats stop both ways
        with raises_saying(LocalError, r"the host left, so the table is closed "
                                       r"\(no connection for 1 s\)") as info:
            async with asyncio.timeout(8):
                await table.tasks[1]
        assert info.value.code is LobbyCode.HOST_LEFT
        assert bob.seen.count("reconnecting") == 1
        async with asyncio.timeout(5):
            await _wait_for(lambda: "left Bob" in ann.seen and "left Bob" in cat.seen)
        assert ann.seen[-2:] == ["away Bob 1", "left Bob"]
        assert [e.name for e in table.seating.roster.seats] == ["Ann", "Cat"]


async def test_a_seat_still_away_at_the_deal_is_freed_and_the_mesh_does_not_wait() -> None:
    async with seated() as table:
        ann, _bob, _cat = table.views
        table.proxy.blackhole()
        await _wait_for(lambda: "away Bob 1" in ann.seen)
        table.commands.put_nowait("deal")
        async with asyncio.timeout(5):
            host_mesh, cat_mesh = await asyncio.gather(table.tasks[0], table.tasks[2])
        assert host_mesh is not None and cat_mesh is not None
        assert [e.name for e in host_mesh.roster.seats] == ["Ann", "Cat"]
        assert sorted(host_mesh.peers) == [2] and sorted(cat_mesh.peers) == [0]
        assert ann.seen[-2:] == ["left Bob", "dealing"]


async def test_a_joiner_that_quits_with_a_bye_frees_its_seat_at_once() -> None:
    async with seated() as table:
        ann, _bob, cat = table.views
        table.tasks[1].cancel()
        await table.nodes[1].aclose()  # Bob quits: the node says bye
        async with asyncio.timeout(3):
            await _wait_for(lambda: "left Bob" in ann.seen and "left Bob" in cat.seen)
        assert "away Bob 1" not in ann.seen
        assert [e.name for e in table.seating.roster.seats] == ["Ann", "Cat"]


async def test_a_host_that_quits_with_a_bye_ends_the_lobby_at_once() -> None:
    async with seated() as table:
        table.commands.put_nowait("quit")
        assert await table.tasks[0] is None
        await table.nodes[0].aclose()  # the host's node says bye
        with raises_saying(LocalError, r"^the host left, so the table is closed$"):
            async with asyncio.timeout(3):
                await table.tasks[2]
        assert "reconnecting" not in table.views[2].seen


def test_the_lobby_drop_lines() -> None:
    entry = SeatEntry(seat=1, name="Bob", key=bytes(32), addrs=(), port=1)
    assert PLAIN.say(Line.SEAT_KEPT, name="Bob", seat=1, grace_s=30.0, reason=Reason(
        NetCode.CONNECTION_CLOSED)) == ("Bob's connection dropped (connection closed): "
                                             "keeping seat 1 for 30 s.")
    assert PLAIN.say(Line.BACK_AT_SEAT, name=entry.name, seat=entry.seat) == \
        "Bob is back at seat 1."
    assert PLAIN.say(Line.LEFT_SEAT, name="Bob", seat=1, reason=Reason(
        LobbyCode.NOT_BACK, {"grace_s": 30.0})) == "Bob left seat 1 (no connection for 30 s)"
    assert PLAIN.say(Line.LEFT_SEAT, name="Bob", seat=1, reason=Reason(
        LobbyCode.AWAY_AT_DEAL)) == "Bob left seat 1 (not back when the host dealt)"
    assert PLAIN.say(Line.RECONNECTING, reason=Reason(NetCode.NO_HEARTBEAT, {
        "timeout_s": 5.0}), grace_s=30.0, dots="…") == (
        "Lost the connection to the host (no heartbeat for 5 s); reconnecting for up to "
        "30 s…")
    assert PLAIN.say(Line.RECONNECTED, seat=1) == "Back at the table, at seat 1."


def test_a_seat_back_keeps_its_place_and_takes_a_new_address() -> None:
    """:meth:`Seating.back` (pure): the same seat and name; the roster changes only if
    the player's address or port did; after the deal it is refused."""
    seating = Seating(size=3, rules=Ruleset(), host=SeatEntry(
        seat=0, name="Ann", key=b"a" * 32, addrs=("10.0.0.1",), port=1))
    bob = seating.sit(name="Bob", key=b"b" * 32, addrs=("10.0.0.2",), port=2)
    roster = seating.roster
    assert seating.back(bob.key, addrs=("10.0.0.2",), port=2) == (bob, False)
    assert seating.roster == roster
    moved, changed = seating.back(bob.key, addrs=("10.0.0.9",), port=2)
    assert changed and (moved.seat, moved.name, moved.addrs) == (1, "Bob", ("10.0.0.9",))
    assert seating.roster.entry(1) == moved and len(seating.roster.seats) == 2
    seating.close()
    with pytest.raises(LobbyClosed):
        seating.back(bob.key, addrs=("10.0.0.2",), port=2)
