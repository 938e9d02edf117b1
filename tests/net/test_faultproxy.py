"""The fault-injection proxy itself: forwarding, blackhole, reset, heal, pause."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.words.net import lost_reason
from p2p8s.net.node import Connection, Incoming, Lost, NetEvent, Node, Unreachable
from p2p8s.wire import Game, Role

from .faultproxy import BLACKHOLE, FORWARD, PAUSE, FaultProxy
from .said import raises_saying

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")


@contextlib.asynccontextmanager
async def echo_server() -> AsyncIterator[int]:
    """A TCP echo server on 127.0.0.1; yields its port."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


def node(name: str, *, heartbeat_s: float = 0.1, dead_after_s: float = 0.8) -> Node:
    """A node on 127.0.0.1 with short heartbeat timers."""
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=CODE, table=TID,
                host="127.0.0.1", heartbeat_s=heartbeat_s, dead_after_s=dead_after_s)


async def next_of(n: Node, kind: type, timeout_s: float = 3.0) -> NetEvent:
    """The next event of ``kind`` on ``n`` (others skipped); bounded."""
    async with asyncio.timeout(timeout_s):
        while True:
            event = await n.next_event()
            if isinstance(event, kind):
                return event


async def game_payload(n: Node, timeout_s: float = 3.0) -> bytes:
    event = await next_of(n, Incoming, timeout_s)
    assert isinstance(event, Incoming)
    body = event.received.message.body
    assert isinstance(body, Game)
    return body.payload


async def pair(a: Node, b: Node, proxy: FaultProxy) -> tuple[Connection, Connection]:
    """``b`` dials ``a`` through ``proxy``; returns (a's connection, b's connection)."""
    b_conn = await b.connect("127.0.0.1", proxy.port, role=Role.PEER, timeout_s=3.0)
    async with asyncio.timeout(3):
        while b.key not in a.peers:
            await asyncio.sleep(0.005)
    return a.peers[b.key], b_conn


async def test_forwards_both_ways_and_counts() -> None:
    async with echo_server() as port, FaultProxy("127.0.0.1", port) as proxy:
        assert proxy.port and proxy.mode == FORWARD
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"hello " * 1000)
        assert await asyncio.wait_for(reader.readexactly(6000), 3) == b"hello " * 1000
        assert (proxy.accepted, proxy.active) == (1, 1)
        assert (proxy.bytes_up, proxy.bytes_down, proxy.dropped) == (6000, 6000, 0)
        writer.close()  # a close is passed on: the echo server closes, the link goes
        await proxy.until(lambda: proxy.active == 0, 3)


async def test_pause_holds_bytes_and_resume_delivers_them() -> None:
    async with echo_server() as port, FaultProxy("127.0.0.1", port) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"a")
        assert await asyncio.wait_for(reader.readexactly(1), 3) == b"a"
        proxy.pause()
        assert proxy.mode == PAUSE
        writer.write(b"bcd")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(reader.readexactly(3), 0.2)
        proxy.resume()
        assert proxy.mode == FORWARD
        assert await asyncio.wait_for(reader.readexactly(3), 3) == b"bcd"
        assert proxy.dropped == 0
        writer.close()


async def test_blackhole_accepts_new_connections_that_go_nowhere() -> None:
    async with echo_server() as port, FaultProxy("127.0.0.1", port) as proxy:
        proxy.blackhole()
        assert proxy.mode == BLACKHOLE
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"lost")
        await proxy.until(lambda: proxy.dropped == 4, 3)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(reader.read(1), 0.2)
        assert proxy.bytes_up == 0 and proxy.active == 1
        proxy.heal()  # it has no target: heal resets it
        with pytest.raises((ConnectionResetError, asyncio.IncompleteReadError)):
            await asyncio.wait_for(reader.readexactly(1), 3)
        assert proxy.active == 0
        writer.close()


async def test_a_link_that_lost_nothing_survives_a_short_blackhole() -> None:
    async with echo_server() as port, FaultProxy("127.0.0.1", port) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"x")
        assert await asyncio.wait_for(reader.readexactly(1), 3) == b"x"
        proxy.blackhole()
        proxy.heal()
        writer.write(b"yz")
        assert await asyncio.wait_for(reader.readexactly(2), 3) == b"yz"
        assert proxy.active == 1 and proxy.dropped == 0
        writer.close()


async def test_blackhole_makes_both_nodes_lose_the_peer_by_missing_heartbeats() -> None:
    async with node("Ann") as ann, node("Bob") as bob, \
            FaultProxy("127.0.0.1", ann.port) as proxy:
        a_conn, b_conn = await pair(ann, bob, proxy)
        bob.send(b_conn, Game(to=None, payload=b"through"))
        assert await game_payload(ann) == b"through"
        await asyncio.sleep(1.0)  # heartbeats keep an idle, healthy link alive ...
        assert not a_conn.closed and not b_conn.closed
        loop = asyncio.get_running_loop()
        start = loop.time()
        proxy.blackhole()
        bob.send(b_conn, Game(to=None, payload=b"dropped"))
        for n in (ann, bob):
            lost = await next_of(n, Lost, 3.0)
            assert isinstance(lost, Lost)
            assert lost_reason(lost.reason) == "no heartbeat for 0.8 s", lost.reason
            assert lost.peer.name == ("Bob" if n is ann else "Ann")
        assert 0.7 <= loop.time() - start < 4.0
        assert proxy.dropped > 0 and ann.peers == {} and bob.peers == {}


async def test_reset_is_noticed_at_once_as_connection_closed() -> None:
    # Long heartbeat timers: only the reset can explain a quick loss.
    async with node("Ann", heartbeat_s=5, dead_after_s=30) as ann, \
            node("Bob", heartbeat_s=5, dead_after_s=30) as bob, \
            FaultProxy("127.0.0.1", ann.port) as proxy:
        await pair(ann, bob, proxy)
        assert proxy.active == 1
        proxy.reset()
        assert proxy.active == 0
        for n in (ann, bob):
            lost = await next_of(n, Lost, 3.0)
            assert isinstance(lost, Lost)
            assert lost_reason(lost.reason) == "connection closed", lost.reason
            assert lost.error is None


async def test_heal_lets_a_new_connection_work() -> None:
    async with node("Ann") as ann, node("Bob") as bob, \
            FaultProxy("127.0.0.1", ann.port) as proxy:
        await pair(ann, bob, proxy)
        proxy.blackhole()
        for n in (ann, bob):
            assert isinstance(await next_of(n, Lost, 3.0), Lost)
        # While the blackhole lasts a new handshake cannot finish (tried three times).
        with raises_saying(Unreachable, "did not answer the handshake in time"):
            await bob.connect("127.0.0.1", proxy.port, role=Role.PEER, timeout_s=0.3)
        proxy.heal()
        await proxy.until(lambda: proxy.active == 0, 3)  # the broken links are reset
        a_conn, _ = await pair(ann, bob, proxy)
        ann.send(a_conn, Game(to=None, payload=b"again"))
        assert await game_payload(bob) == b"again"
        assert proxy.accepted == 5 and proxy.active == 1


async def test_a_crash_on_one_side_is_passed_on_to_the_other() -> None:
    async with node("Ann", heartbeat_s=5, dead_after_s=30) as ann, \
            node("Bob", heartbeat_s=5, dead_after_s=30) as bob, \
            FaultProxy("127.0.0.1", ann.port) as proxy:
        await pair(ann, bob, proxy)
        bob.abort()  # a crash on Bob's side: RST, no bye
        lost = await next_of(ann, Lost, 3.0)
        assert isinstance(lost, Lost) and lost.peer.name == "Bob"
        await proxy.until(lambda: proxy.active == 0, 3)
