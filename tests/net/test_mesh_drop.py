"""A connection that drops while the table connects after the deal (issue #11).

On a lossy Wi-Fi a handshake can time out at one end while the other kept the
connection, or a reset can cut a fresh connection: the other end then sees it end with
no ``bye``. That is no player leaving: the lower seat dials again and the mesh completes
(protocol/wire.md, "Lobby and mesh" step 4). A ``bye`` still ends it before the first card.

Four real nodes on 127.0.0.1; seats 2 and 3 are reached through fault proxies (their
``hello`` gives the proxy's port, so the roster does too).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from p2p8s.errors import LocalError
from p2p8s.net.lobby import Mesh, Seating, host_lobby, join_lobby
from p2p8s.net.node import Node
from p2p8s.rules import Ruleset
from p2p8s.wire import Farewell, SeatEntry

from .faultproxy import FaultProxy
from .said import raises_saying
from .test_mesh import Recorder, _node, _wait_for, _yes


@dataclass
class Dealt:
    """A table of four whose mesh is being completed: the nodes, the proxies in front of
    seats 2 and 3, and each seat's lobby task (its Mesh, or its error)."""

    nodes: list[Node]
    proxies: dict[int, FaultProxy]
    tasks: list[asyncio.Task[Mesh | None]]


@contextlib.asynccontextmanager
async def dealing(*, mesh_timeout_s: float = 12.0) -> AsyncIterator[Dealt]:
    """Seat four nodes and deal with seat 3 unreachable (its proxy a black hole): no node
    but the host can echo until the test heals it."""
    async with contextlib.AsyncExitStack() as stack:
        nodes = [await stack.enter_async_context(_node(f"P{i}")) for i in range(4)]
        proxies = {}
        for seat in (2, 3):
            proxies[seat] = await stack.enter_async_context(
                FaultProxy("127.0.0.1", nodes[seat].port))
            nodes[seat].port = proxies[seat].port  # its hello, so the roster, says so
        proxies[3].blackhole()
        host = nodes[0]
        seating = Seating(size=4, rules=Ruleset(), host=SeatEntry(
            seat=0, name="P0", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        tasks = [asyncio.ensure_future(host_lobby(host, seating, view=Recorder(),
                                                  commands=commands,
                                                  mesh_timeout_s=mesh_timeout_s))]
        for i in range(1, 4):  # one after another: seats follow the join order
            tasks.append(asyncio.ensure_future(join_lobby(
                nodes[i], [("127.0.0.1", host.port)], view=Recorder(), confirm=_yes,
                mesh_timeout_s=mesh_timeout_s)))
            await _wait_for(lambda i=i: len(seating.roster.seats) == i + 1)
        commands.put_nowait("deal")
        try:
            yield Dealt(nodes, proxies, tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_connection_reset_before_the_echoes_is_dialled_again_and_the_mesh_completes(
        ) -> None:
    async with dealing() as table:
        p1, p2 = table.nodes[1], table.nodes[2]
        await _wait_for(lambda: p2.key in p1.peers and p1.key in p2.peers)
        table.proxies[2].reset()  # a Wi-Fi reset: both ends see the connection end
        await _wait_for(lambda: p2.key not in p1.peers and p1.key not in p2.peers)
        await asyncio.sleep(0.3)  # both lobbies saw it lost (with no bye)
        assert not any(t.done() for t in table.tasks)
        table.proxies[3].heal()
        async with asyncio.timeout(15):
            meshes = await asyncio.gather(*table.tasks)
        assert all(m is not None for m in meshes)
        digests = {m.digest for m in meshes if m is not None}
        assert len(digests) == 1
        for seat, mesh in enumerate(meshes):
            assert mesh is not None and sorted(mesh.peers) == [s for s in range(4) if s != seat]
            assert all(not c.closed for c in mesh.peers.values())
        assert table.proxies[2].accepted == 2  # seat 1 dialled seat 2 again


async def test_a_seat_that_says_bye_before_the_echoes_ends_the_game_before_the_first_card(
        ) -> None:
    async with dealing() as table:
        p1, p2 = table.nodes[1], table.nodes[2]
        await _wait_for(lambda: p2.key in p1.peers and p1.key in p2.peers)
        p2.close_peer(p2.peers[p1.key], Farewell.LEFT)
        with raises_saying(LocalError, r"P2 \(seat 2\) left before the game started"):
            async with asyncio.timeout(5):
                await table.tasks[1]


async def test_a_seat_not_back_when_the_mesh_timeout_runs_out_is_named() -> None:
    async with dealing(mesh_timeout_s=3.0) as table:
        with raises_saying(LocalError, r"could not connect to .*P3"):
            async with asyncio.timeout(8):
                await table.tasks[1]
