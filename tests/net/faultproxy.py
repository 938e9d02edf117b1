"""A fault-injection TCP proxy for tests (asyncio streams, one process, 127.0.0.1).

Put it between two nodes and break the network on purpose::

    async with FaultProxy("127.0.0.1", host_node.port) as proxy:
        conn = await joiner.connect("127.0.0.1", proxy.port, role=Role.JOIN)
        proxy.blackhole()   # connections stay open, every byte is dropped both ways
        ...                 # -> both nodes lose each other by missing heartbeats
        proxy.heal()        # forward again; a new connection works
        proxy.reset()       # abort every current connection with a TCP RST
        proxy.pause()       # stop reading: bytes wait in the kernel buffers ...
        proxy.resume()      # ... and flow on, nothing lost (a stall, not a loss)

The proxy listens on 127.0.0.1, port :attr:`FaultProxy.port` (a free one), and forwards
every accepted connection to ``target_host:target_port``, both ways. A close or reset on
one side is passed on to the other (EOF as close, RST as RST).

Modes (switch at any moment, from the test's event loop):

``forward`` (the start, and after :meth:`~FaultProxy.heal`)
    Bytes flow both ways.
``blackhole`` (:meth:`~FaultProxy.blackhole`)
    Current connections stay open but every byte read from either side is dropped, and a
    close is not passed on either (like a pulled cable: nothing gets through, not even a
    FIN). New connections are accepted but go nowhere (no connection to the target is
    made; what they send is dropped).
``pause`` (:meth:`~FaultProxy.pause` / :meth:`~FaultProxy.resume`)
    The proxy stops reading; nothing is lost. ``resume`` returns to the mode before.

:meth:`~FaultProxy.heal` forwards again. A connection that lost bytes during the
blackhole (or whose other side closed meanwhile) can no longer carry a clean stream, so
heal resets it (as TCP would after its retransmissions time out); a connection that lost
nothing simply carries on. Connections accepted during the blackhole have no target:
heal resets them too. New connections after heal are forwarded.

:meth:`~FaultProxy.reset` aborts every current connection on both sides with RST
(``SO_LINGER`` 0, then ``transport.abort()``); the mode is unchanged.

Counters: :attr:`~FaultProxy.accepted` (connections accepted), :attr:`~FaultProxy.active`
(open now), :attr:`~FaultProxy.bytes_up` (client → target bytes forwarded),
:attr:`~FaultProxy.bytes_down` (target → client), :attr:`~FaultProxy.dropped` (bytes
dropped by the blackhole). :meth:`~FaultProxy.until` waits (bounded) for a condition,
e.g. ``await proxy.until(lambda: proxy.active == 0)``.

Leaving the ``async with`` stops listening and aborts every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

FORWARD = "forward"
BLACKHOLE = "blackhole"
PAUSE = "pause"
_READ = 65536


@dataclass(eq=False)
class _Link:
    """One proxied connection: the accepted client side and (maybe) the target side."""

    client_r: asyncio.StreamReader
    client_w: asyncio.StreamWriter
    target_r: asyncio.StreamReader | None = None
    target_w: asyncio.StreamWriter | None = None
    lost_bytes: bool = False  # a byte was dropped: the stream is corrupt
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    done: bool = False


def _rst(writer: asyncio.StreamWriter | None) -> None:
    """Abort a connection so the other end sees a reset (RST), not a FIN."""
    if writer is None:
        return
    sock = writer.transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class FaultProxy:
    """A TCP proxy to ``target_host:target_port`` whose network can be broken at will."""

    def __init__(self, target_host: str, target_port: int, *,
                 connect_timeout_s: float = 5.0) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.mode = FORWARD
        self.accepted = 0
        self.bytes_up = 0
        self.bytes_down = 0
        self.dropped = 0
        self._connect_timeout_s = connect_timeout_s
        self._before_pause = FORWARD
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._links: set[_Link] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    # --- lifecycle --------------------------------------------------------------------

    async def __aenter__(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop listening and abort every connection."""
        if self._server is not None:
            self._server.close()
        for link in list(self._links):
            self._abort(link)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    # --- faults -----------------------------------------------------------------------

    def blackhole(self) -> None:
        """Drop every byte both ways from now on; new connections go nowhere."""
        self.mode = BLACKHOLE
        self._flowing.set()

    def heal(self) -> None:
        """Forward again; connections that lost bytes in the blackhole are reset."""
        self.mode = FORWARD
        self._flowing.set()
        for link in list(self._links):
            if link.lost_bytes or link.target_w is None:
                self._abort(link)

    def reset(self) -> None:
        """Abort every current connection with RST on both sides (mode unchanged)."""
        for link in list(self._links):
            self._abort(link)

    def pause(self) -> None:
        """Stop reading both ways (bytes wait, nothing is lost) until :meth:`resume`."""
        if self.mode != PAUSE:
            self._before_pause = self.mode
            self.mode = PAUSE
        self._flowing.clear()

    def resume(self) -> None:
        """Undo :meth:`pause`: back to the mode before it."""
        if self.mode == PAUSE:
            self.mode = self._before_pause
        self._flowing.set()

    # --- counters ---------------------------------------------------------------------

    @property
    def active(self) -> int:
        """Connections open now."""
        return len(self._links)

    async def until(self, predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
        """Wait until ``predicate()`` holds; :class:`TimeoutError` after ``timeout_s``."""
        async with asyncio.timeout(timeout_s):
            while not predicate():
                await asyncio.sleep(0.005)

    # --- plumbing ---------------------------------------------------------------------

    def _spawn(self, link: _Link, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        link.tasks.append(task)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        link = _Link(client_r=reader, client_w=writer)
        self._links.add(link)
        if self.mode == BLACKHOLE:
            self._spawn(link, self._pump(link, up=True))
            return
        try:
            target_r, target_w = await asyncio.wait_for(
                asyncio.open_connection(*self.target), self._connect_timeout_s)
        except (OSError, TimeoutError):
            self._abort(link)
            return
        except asyncio.CancelledError:  # closing (a cancelled accept task is logged)
            self._abort(link)
            return
        if link.done:  # reset while connecting
            _rst(target_w)
            return
        link.target_r, link.target_w = target_r, target_w
        self._spawn(link, self._pump(link, up=True))
        self._spawn(link, self._pump(link, up=False))

    async def _pump(self, link: _Link, *, up: bool) -> None:
        src = link.client_r if up else link.target_r
        assert src is not None
        try:
            while not link.done:
                await self._flowing.wait()
                data = await src.read(_READ)
                await self._flowing.wait()  # read just before a pause: held, not lost
                if link.done:
                    return
                dst = link.target_w if up else link.client_w
                if self.mode == BLACKHOLE or dst is None:
                    if not data:  # a close is swallowed too: wait for heal or reset
                        link.lost_bytes = True
                        return
                    self.dropped += len(data)
                    link.lost_bytes = True
                    continue
                if not data:  # EOF: pass the close on
                    self._close(link)
                    return
                dst.write(data)
                if up:
                    self.bytes_up += len(data)
                else:
                    self.bytes_down += len(data)
                await dst.drain()
        except OSError:  # reset by one side: pass it on (unless nothing gets through)
            if self.mode == BLACKHOLE:
                link.lost_bytes = True
            else:
                self._abort(link)

    def _close(self, link: _Link) -> None:
        """A clean close of both sides (buffered bytes are still sent)."""
        if link.done:
            return
        link.done = True
        self._links.discard(link)
        link.client_w.close()
        if link.target_w is not None:
            link.target_w.close()
        self._cancel_others(link)

    def _abort(self, link: _Link) -> None:
        """RST both sides."""
        if link.done:
            return
        link.done = True
        self._links.discard(link)
        _rst(link.client_w)
        _rst(link.target_w)
        self._cancel_others(link)

    @staticmethod
    def _cancel_others(link: _Link) -> None:
        current = asyncio.current_task()
        for task in link.tasks:
            if task is not current:
                task.cancel()
