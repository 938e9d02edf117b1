"""Nodes on 127.0.0.1 in one process: lobby, full mesh, game payloads, heartbeats, deaths."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.words.net import lost_reason
from p2p8s.net.lobby import Mesh, Seating, host_lobby, join_lobby
from p2p8s.net.node import Incoming, JoinRefused, Lost, NetEvent, Node, Reason, Unreachable
from p2p8s.rules import Ruleset
from p2p8s.wire import Game, Role, Roster, SeatEntry

from .said import raises_saying

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")  # random: it says nothing about the code


@dataclass
class Recorder:
    """A recording LobbyView."""

    seen: list[str] = field(default_factory=list)

    def table(self, roster: Roster) -> None:
        self.seen.append(f"table {len(roster.seats)}/{roster.size}")

    def sat_down(self, entry: SeatEntry) -> None:
        self.seen.append(f"sat {entry.name} {entry.seat}")

    def left(self, entry: SeatEntry, reason: Reason) -> None:
        self.seen.append(f"left {entry.name}")

    def away(self, entry: SeatEntry, reason: Reason, grace_s: float) -> None:
        self.seen.append(f"away {entry.name} {entry.seat}")

    def back(self, entry: SeatEntry) -> None:
        self.seen.append(f"back {entry.name} {entry.seat}")

    def reconnecting(self, reason: Reason, grace_s: float) -> None:
        self.seen.append("reconnecting")

    def reconnected(self, entry: SeatEntry) -> None:
        self.seen.append(f"reconnected {entry.seat}")

    def dealing(self, roster: Roster) -> None:
        self.seen.append("dealing")


def _node(name: str, *, code: str = CODE, tid: bytes | None = TID, heartbeat_s: float = 0.1,
          dead_after_s: float = 1.0) -> Node:
    """A node on 127.0.0.1 with short heartbeat timers (0.1 s / 1 s)."""
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=code, table=tid,
                host="127.0.0.1", heartbeat_s=heartbeat_s, dead_after_s=dead_after_s)


async def _yes(roster: Roster) -> bool:
    return True


async def _wait_for(predicate: object, timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def table(n: int, *, size: int | None = None, silent: tuple[int, ...] = (),
                rules: Ruleset | None = None
                ) -> AsyncIterator[tuple[list[Node], list[Mesh], list[Recorder]]]:
    """A dealt table of ``n`` nodes (seat 0 hosts); yields nodes, meshes, views.

    Seats in ``silent`` send heartbeats only every 60 s: to the others they fall silent.
    """
    async with contextlib.AsyncExitStack() as stack:
        nodes = [await stack.enter_async_context(
            _node(f"P{i}", heartbeat_s=60.0, dead_after_s=120.0) if i in silent
            else _node(f"P{i}")) for i in range(n)]
        views = [Recorder() for _ in range(n)]
        host = nodes[0]
        seating = Seating(size=size or n, rules=rules or Ruleset(), host=SeatEntry(
            seat=0, name="P0", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        host_task = asyncio.ensure_future(host_lobby(host, seating, view=views[0],
                                                     commands=commands, mesh_timeout_s=10))
        join_tasks = []
        for i in range(1, n):  # one after another: seats follow the join order
            join_tasks.append(asyncio.ensure_future(join_lobby(
                nodes[i], [("127.0.0.1", host.port)], view=views[i], confirm=_yes,
                mesh_timeout_s=10)))
            await _wait_for(lambda i=i: len(seating.roster.seats) == i + 1)
        commands.put_nowait("deal")
        async with asyncio.timeout(15):
            meshes = [await host_task] + [await t for t in join_tasks]
        assert all(m is not None for m in meshes)
        yield nodes, [m for m in meshes if m is not None], views


async def _next_game(mesh: Mesh, timeout_s: float = 3.0) -> tuple[int | None, Game, bytes]:
    async with asyncio.timeout(timeout_s):
        while True:
            event = await mesh.next_event()
            if isinstance(event, Incoming) and isinstance(event.received.message.body, Game):
                return (event.received.message.seat, event.received.message.body,
                        event.received.digest)


@pytest.mark.parametrize("n", [3, 7])
async def test_full_mesh_payloads_heartbeats_and_a_crash(n: int) -> None:
    async with table(n) as (nodes, meshes, views):
        for seat, mesh in enumerate(meshes):
            assert mesh.seat == seat
            assert sorted(mesh.peers) == [s for s in range(n) if s != seat]
            assert mesh.roster == meshes[0].roster and not mesh.roster.open
            assert mesh.digest == meshes[0].digest
            assert all(c.seat == s for s, c in mesh.peers.items())
        assert views[0].seen[:n - 1] == [f"sat P{i} {i}" for i in range(1, n)]

        # One signed payload to all: everyone gets the same bytes (same hash), from seat 1.
        digest = meshes[1].broadcast(b"play 8H", prev=b"\x01" * 32)
        for seat in [0, *range(2, n)]:
            author, game, got = await _next_game(meshes[seat])
            assert (author, game.to, game.payload, got) == (1, None, b"play 8H", digest)
        # And one to a single seat.
        meshes[0].send(n - 1, b"strip 3")
        author, game, _ = await _next_game(meshes[n - 1])
        assert (author, game.to, game.payload) == (0, n - 1, b"strip 3")

        # Heartbeats keep idle connections alive well past the dead-peer timeout.
        before = {s: c.last_seq for s, c in meshes[0].peers.items()}
        await asyncio.sleep(1.5)
        assert all(c.last_seq > before[s] for s, c in meshes[0].peers.items())
        assert all(len(m.node.peers) == n - 1 for m in meshes)

        # A crashed node (sockets reset, no bye) is noticed by everyone at once.
        nodes[2].abort()
        for seat in [s for s in range(n) if s != 2]:
            lost = await _lost(meshes[seat], timeout_s=5.0)
            assert lost.peer.seat == 2


async def _lost(mesh: Mesh, *, timeout_s: float) -> Lost:
    async with asyncio.timeout(timeout_s):
        while True:
            event: NetEvent = await mesh.next_event()
            if isinstance(event, Lost):
                return event


async def test_a_silent_node_is_declared_dead_after_the_timeout() -> None:
    async with table(3, silent=(2,)) as (_nodes, meshes, _views):
        loop = asyncio.get_running_loop()
        start = loop.time()
        for seat in (0, 1):
            lost = await _lost(meshes[seat], timeout_s=5.0)
            assert lost.peer.seat == 2 and "no heartbeat for 1 s" in lost_reason(lost.reason)
        assert loop.time() - start < 3.0


async def test_wrong_code_is_not_let_in_and_nothing_is_seated() -> None:
    async with _node("Host") as host, _node("Eve", code="000000", tid=None) as eve:
        host.seat = 0
        with raises_saying(Unreachable, "could not join there") as info:
            await eve.connect("127.0.0.1", host.port, role=Role.JOIN)
        assert info.value.params["wrong_code"] is True
        await asyncio.sleep(0.05)
        assert host.peers == {} and host.pending_events() == 0


async def test_right_table_id_but_wrong_code_fails_the_pake() -> None:
    async with _node("Host") as host, _node("Eve", code="000000") as eve:
        with raises_saying(Unreachable, "could not join there"):
            await eve.connect("127.0.0.1", host.port, role=Role.JOIN)
        await asyncio.sleep(0.05)
        assert host.peers == {}


async def test_a_joiner_learns_the_table_id_from_the_host() -> None:
    async with _node("Host") as host, _node("Joe", tid=None) as joe:
        conn = await joe.connect("127.0.0.1", host.port, role=Role.JOIN)
        assert joe.table == TID and conn.key == host.key


async def test_full_table_refuses_the_next_joiner_clearly() -> None:
    async with _node("Host") as host, _node("Bob") as bob, _node("Late") as late:
        seating = Seating(size=2, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Host", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        host_task = asyncio.ensure_future(host_lobby(host, seating, view=Recorder(),
                                                     commands=commands))
        bob_task = asyncio.ensure_future(join_lobby(bob, [("127.0.0.1", host.port)],
                                                    view=Recorder(), confirm=_yes))
        await _wait_for(lambda: seating.roster.free == 0)
        with raises_saying(JoinRefused, r"the table is full \(2 seats\)"):
            await join_lobby(late, [("127.0.0.1", host.port)], view=Recorder(), confirm=_yes)
        commands.put_nowait("deal")
        host_mesh, bob_mesh = await asyncio.wait_for(asyncio.gather(host_task, bob_task), 5)
        assert host_mesh is not None and bob_mesh is not None
        assert list(host_mesh.peers) == [1] and list(bob_mesh.peers) == [0]


async def test_joiner_sees_rules_first_and_a_leaver_frees_the_seat() -> None:
    async with _node("Host") as host, _node("Bob") as bob, _node("Cat") as cat:
        seating = Seating(size=4, rules=Ruleset.classic(), host=SeatEntry(
            seat=0, name="Host", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        view = Recorder()
        host_task = asyncio.ensure_future(host_lobby(host, seating, view=view,
                                                     commands=commands))
        shown: list[Roster] = []

        async def no(roster: Roster) -> bool:
            shown.append(roster)
            return False

        assert await join_lobby(bob, [("127.0.0.1", host.port)], view=Recorder(),
                                confirm=no) is None
        assert shown and not shown[0].rules.action_cards and shown[0].free == 3
        cat_task = asyncio.ensure_future(join_lobby(cat, [("127.0.0.1", host.port)],
                                                    view=Recorder(), confirm=_yes))
        await _wait_for(lambda: len(seating.roster.seats) == 2)
        cat_task.cancel()  # Cat quits: the lobby stops and the node says bye
        await cat.aclose()
        await _wait_for(lambda: len(seating.roster.seats) == 1)
        assert view.seen == ["sat Cat 1", "left Cat"]
        commands.put_nowait("quit")
        assert await asyncio.wait_for(host_task, 2) is None


async def test_closing_ends_the_heartbeat_loop_even_as_it_is_woken() -> None:
    """A wake (a new connection kept) in the same loop step as the close: the heartbeat
    loop still ends. Python 3.11's ``asyncio.wait_for`` returned normally when the
    cancel came as its event was set, and this ``while True`` loop then ran on: the
    close waited for it for ever (the table's last step hung)."""
    async with table(2) as (nodes, _meshes, _views):
        node = nodes[1]
        await asyncio.sleep(0.05)  # the loop waits for its next heartbeat deadline
        node._wake.set()
        async with asyncio.timeout(5):
            await node.aclose()
        assert not node._tasks
