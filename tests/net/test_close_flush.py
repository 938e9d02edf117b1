"""A node that leaves writes what it still buffers before its connections close (issue
#11): its last payloads and acks, and its ``bye``, reach a peer slow to read — they are
not dropped when the program exits right after :meth:`~p2p8s.net.node.Node.aclose`.
Real sockets on 127.0.0.1; the peer's reading is paused by a fault proxy."""

from __future__ import annotations

import asyncio

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.net.node import Incoming, Lost, Node
from p2p8s.wire import Farewell, Game, Role

from .faultproxy import FaultProxy
from .test_mesh import CODE, TID


def _node(name: str) -> Node:
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=CODE, table=TID,
                host="127.0.0.1", heartbeat_s=0.2, dead_after_s=60.0)


async def test_aclose_writes_what_is_buffered_and_the_bye_before_it_returns() -> None:
    async with _node("Bob") as bob, FaultProxy("127.0.0.1", bob.port) as proxy:
        cat = _node("Cat")
        await cat.__aenter__()
        conn = await cat.connect("127.0.0.1", proxy.port, role=Role.PEER)
        proxy.pause()  # Bob's side stops reading: what Cat writes piles up
        payload = bytes(32 * 1024)
        sent = 0
        while conn.writer.transport.get_write_buffer_size() < 256 * 1024 and sent < 200:
            cat.send(conn, Game(to=None, payload=payload))
            sent += 1
            await asyncio.sleep(0)
        assert conn.writer.transport.get_write_buffer_size() > 0  # still in Cat's buffer
        asyncio.get_running_loop().call_later(0.3, proxy.resume)
        await cat.aclose(Farewell.DONE)
        # everything was written before aclose returned: the program may exit now
        assert conn.writer.transport.get_write_buffer_size() == 0
        assert conn.writer.transport.is_closing()
        got = 0
        async with asyncio.timeout(10):
            while True:
                event = await bob.next_event()
                if isinstance(event, Incoming) and isinstance(event.received.message.body,
                                                              Game):
                    got += 1
                elif isinstance(event, Lost):
                    break
        assert got == sent, (event.reason, event.error)
        assert event.reason.code is Farewell.DONE
