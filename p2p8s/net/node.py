"""A node: one TCP listener and the signed connections to the other players' nodes.

Every connection, dialled or accepted, starts with the same handshake
(protocol/wire.md, "Handshake"): both ends send ``hello`` (name, fresh nonce, listening
port, role), then ``proof`` — an HMAC of the peer's nonce keyed by the code key
(:func:`p2p8s.codes.code_proof`). A wrong code (a foreign table id, or a bad proof) is
answered with ``refuse`` and the connection is closed. After the handshake the
connection's identity key is pinned: every later frame must be signed by it.

The :class:`Node` reports what happens as :data:`NetEvent` values from
:meth:`Node.next_event`: :class:`Connected`, :class:`Incoming` (a verified message that
is not a heartbeat) and :class:`Lost` (bye, closed, bad data, or no heartbeat for
``dead_after_s``). Heartbeat timing is :class:`~p2p8s.net.heartbeat.Heartbeats`; this
module only feeds it the loop clock.

>>> # async with Node(identity=key, name="Ann", code_key=k, table=tid) as node:
>>> #     conn = await node.connect("10.0.0.2", 4242, role=Role.JOIN)
>>> #     node.send(conn, Game(to=None, payload=b"..."))
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import secrets
import socket
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.codes import check_code_proof, code_proof, format_address
from p2p8s.errors import LocalError, MalformedInput, RemoteError
from p2p8s.net.heartbeat import DEAD_AFTER_S, HEARTBEAT_INTERVAL_S, Heartbeats
from p2p8s.wire import (
    MAX_FRAME,
    MIN_BODY,
    NONCE_LENGTH,
    PREFIX_LENGTH,
    Body,
    Bye,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    Proof,
    Received,
    Refuse,
    Role,
    encode,
    message_hash,
    public_key_bytes,
)

log = logging.getLogger(__name__)

#: Seconds a connection may take to connect and finish the handshake.
HANDSHAKE_TIMEOUT_S = 5.0
#: Most accepted connections that may be in their handshake at once; more are turned
#: away at once, so a flood of connections cannot hold unbounded memory or descriptors.
MAX_HANDSHAKES = 64
#: Bytes that may wait unsent for one peer; a peer that stops reading while more piles
#: up is disconnected ("stopped reading"), so it cannot make this node's memory grow.
MAX_UNSENT = 4 * 1024 * 1024
_READ_SIZE = 65536


def _why(exc: BaseException) -> str:
    """A failed connect in words (no errno numbers).

    >>> _why(ConnectionRefusedError(111, "Connect call failed"))
    'nothing listens there (the program may have stopped, or the port is wrong)'
    >>> _why(TimeoutError())
    'no answer (timed out)'
    """
    if isinstance(exc, ConnectionRefusedError):
        return "nothing listens there (the program may have stopped, or the port is wrong)"
    if isinstance(exc, TimeoutError):
        return "no answer (timed out)"
    if isinstance(exc, socket.gaierror):
        return "that host name is not known on this network"
    return exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)


class JoinRefused(LocalError):
    """The other node refused the connection; the message says why."""

    def __init__(self, message: str, *, refusal: str) -> None:
        super().__init__(message)
        self.refusal = refusal


class PortInUse(MalformedInput):
    """The port asked for (``--port``) is taken by another program."""


class CannotListen(LocalError):
    """This node cannot listen on the address asked for."""


class Unreachable(LocalError):
    """No connection could be made to the table at the addresses tried."""


class NotATable(Unreachable):
    """The address dialled answered, but not with p2p8s frames (another program)."""


@dataclass(eq=False, slots=True)
class Connection:
    """One handshaken connection to a peer node.

    ``key`` is its identity key (32 bytes), ``hello`` what it said about itself,
    ``address`` the IP it connected from or we dialled, ``seat`` its seat once known.
    """

    key: bytes
    hello: Hello
    address: str
    dialled: bool
    decoder: FrameDecoder
    writer: asyncio.StreamWriter
    reader: asyncio.StreamReader
    seat: int | None = None
    closed: bool = False
    last_seq: int = -1
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """The player name from the peer's hello."""
        return self.hello.name

    def set_seat(self, seat: int | None) -> None:
        """Record the peer's seat: later frames claiming another seat are refused."""
        self.seat = seat
        self.decoder.seat = seat

    def __str__(self) -> str:
        seat = "" if self.seat is None else f", seat {self.seat}"
        return f"{self.name} ({self.address}{seat})"


@dataclass(frozen=True, slots=True)
class Connected:
    """A peer finished the handshake."""

    peer: Connection


@dataclass(frozen=True, slots=True)
class Incoming:
    """A verified message from ``peer`` (heartbeats are not reported)."""

    peer: Connection
    received: Received


@dataclass(frozen=True, slots=True)
class Lost:
    """The connection to ``peer`` ended; ``reason`` is for people.

    ``error`` is the :class:`~p2p8s.errors.RemoteError` when the peer sent bad data.
    """

    peer: Connection
    reason: str
    error: RemoteError | None = None


NetEvent = Connected | Incoming | Lost


class Node:
    """A TCP listener plus connections to peers; an async context manager.

    ``identity`` signs everything sent; ``code_key``/``table`` come from the table code
    (:mod:`p2p8s.codes`). ``host``/``port`` is where to listen (port 0: any free port).
    ``heartbeat_s``/``dead_after_s`` are the heartbeat interval and the silence after
    which a peer is lost. ``seat`` is this node's seat once known (author seat of
    every message). On exit every peer gets ``bye`` and all tasks are cancelled.
    """

    def __init__(self, *, identity: Ed25519PrivateKey, name: str, code_key: bytes,
                 table: bytes, host: str | None = "0.0.0.0", port: int = 0,
                 heartbeat_s: float = HEARTBEAT_INTERVAL_S,
                 dead_after_s: float = DEAD_AFTER_S) -> None:
        self.identity = identity
        self.key = public_key_bytes(identity)
        self.name = name
        self.table = table
        self.seat: int | None = None
        self._code_key = code_key
        self._listen = (host, port)
        self._heartbeats: Heartbeats[Connection] = Heartbeats(interval_s=heartbeat_s,
                                                              timeout_s=dead_after_s)
        self._seq = 0
        self._servers: list[asyncio.Server] = []
        self._events: asyncio.Queue[NetEvent] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._handshaking = 0
        self.peers: dict[bytes, Connection] = {}
        self.port = 0

    # --- lifecycle ------------------------------------------------------------------

    async def __aenter__(self) -> Node:
        host, port = self._listen
        if host is not None:
            try:
                server = await asyncio.start_server(self._accept, host, port)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortInUse(f"port {port} is already in use; pick another --port "
                                    "(or 0 for any free port)") from None
                raise CannotListen(f"cannot listen on port {port}: "
                                   f"{exc.strerror or exc}") from None
            self._servers.append(server)
            self.port = server.sockets[0].getsockname()[1]
            if host == "0.0.0.0" and socket.has_ipv6:
                with contextlib.suppress(OSError):
                    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                    try:
                        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                        sock.bind(("::", self.port))
                    except OSError:
                        sock.close()
                        raise
                    self._servers.append(await asyncio.start_server(self._accept, sock=sock))
        self._spawn(self._heartbeat_loop())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self, reason: str = "left the table") -> None:
        """Say bye to every peer, close every connection and stop listening."""
        for server in self._servers:
            server.close()
        for conn in list(self.peers.values()):
            with contextlib.suppress(Exception):
                self.send(conn, Bye(reason=reason))
            self._drop(conn)
        for conn in list(self.peers.values()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.writer.wait_closed(), 1.0)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        self._servers.clear()

    def abort(self) -> None:
        """Drop every connection at once without a bye (as a crash would; for tests)."""
        for server in self._servers:
            server.close()
        for conn in list(self.peers.values()):
            conn.writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- events and sending ---------------------------------------------------------

    async def next_event(self, timeout_s: float | None = None) -> NetEvent:
        """The next event; raises :class:`TimeoutError` after ``timeout_s`` seconds."""
        return await asyncio.wait_for(self._events.get(), timeout_s)

    def pending_events(self) -> int:
        """Events queued and not yet taken."""
        return self._events.qsize()

    def frame(self, body: Body, *, prev: bytes = b"") -> bytes:
        """Sign ``body`` as this node's next message and return the frame.

        The same frame can go to several peers (:meth:`send_frame`), so they all see the
        same signed bytes. ``prev`` names the previous action (32 bytes) or is empty.
        """
        message = Message(table=self.table, seat=self.seat, seq=self._seq, prev=prev,
                          body=body)
        self._seq += 1
        return encode(message, self.identity)

    def send_frame(self, conn: Connection, frame: bytes) -> None:
        """Queue a signed frame on a connection (no-op if the connection is closed)."""
        if conn.closed:
            return
        if conn.writer.transport.get_write_buffer_size() + len(frame) > MAX_UNSENT:
            self._lose(conn, f"{conn} stopped reading: more than {MAX_UNSENT // 2**20} MiB "
                             "waited unsent")
            return
        conn.writer.write(frame)
        self._heartbeats.on_sent(conn, now=asyncio.get_running_loop().time())

    def send(self, conn: Connection, body: Body, *, prev: bytes = b"") -> bytes:
        """Sign and send ``body`` to one peer; returns the message hash."""
        frame = self.frame(body, prev=prev)
        self.send_frame(conn, frame)
        return message_hash(frame[4:])

    def broadcast(self, body: Body, *, prev: bytes = b"",
                  peers: Iterable[Connection] | None = None) -> bytes:
        """Sign ``body`` once and send the same frame to ``peers`` (default: all);
        returns the message hash."""
        frame = self.frame(body, prev=prev)
        for conn in list(self.peers.values()) if peers is None else list(peers):
            self.send_frame(conn, frame)
        return message_hash(frame[4:])

    async def flush(self) -> None:
        """Wait until every connection's send buffer has drained (bounded per peer)."""
        for conn in list(self.peers.values()):
            if not conn.closed:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.writer.drain(), 2.0)

    def close_peer(self, conn: Connection, reason: str, *, refuse: str | None = None) -> None:
        """Send ``refuse`` (when a code is given) or ``bye``, then close the connection.

        A :class:`Lost` event follows.
        """
        if refuse is not None:
            self.send(conn, Refuse(code=refuse, reason=reason))
        else:
            self.send(conn, Bye(reason=reason))
        self._lose(conn, f"closed: {reason}")

    # --- connecting -------------------------------------------------------------------

    async def connect(self, host: str, port: int, *, role: Role,
                      timeout_s: float = HANDSHAKE_TIMEOUT_S) -> Connection:
        """Dial ``host:port`` and run the handshake; the connection is then in
        :attr:`peers` and a :class:`Connected` event is queued.

        Raises :class:`JoinRefused` if the peer refuses (wrong code, full table ...),
        :class:`Unreachable` if no connection can be made, and
        :class:`~p2p8s.errors.RemoteError` if the peer misbehaves.
        """
        where = format_address(host, port)
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                                    timeout_s)
        except (OSError, TimeoutError) as exc:
            raise Unreachable(f"cannot reach {where}: {_why(exc)}") from None
        try:
            conn = await asyncio.wait_for(
                self._handshake(reader, writer, address=host, where=where, role=role,
                                dialled=True), timeout_s)
        except TimeoutError:
            writer.close()
            raise Unreachable(f"{where} did not answer the handshake in time") from None
        except BaseException:
            writer.close()
            raise
        return conn

    async def connect_any(self, addresses: Iterable[tuple[str, int]], *, role: Role,
                          timeout_s: float = HANDSHAKE_TIMEOUT_S) -> Connection:
        """Try each ``(host, port)`` in turn; the first that completes the handshake wins.

        Raises :class:`JoinRefused` at once if a node refuses, :class:`Unreachable`
        (listing every failure) if none answers.
        """
        failures: list[str] = []
        for host, port in addresses:
            try:
                return await self.connect(host, port, role=role, timeout_s=timeout_s)
            except Unreachable as exc:
                failures.append(str(exc))
        raise Unreachable("; ".join(failures) or "no address to try")

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        host = str(peer[0]) if peer else "?"
        where = format_address(host, int(peer[1])) if peer else "?"
        if self._handshaking >= MAX_HANDSHAKES:
            log.info("turned %s away: %d connections are already in their handshake",
                     where, self._handshaking)
            writer.transport.abort()
            return
        self._handshaking += 1
        try:
            await asyncio.wait_for(self._handshake(reader, writer, address=host, where=where,
                                                   role=None, dialled=False),
                                   HANDSHAKE_TIMEOUT_S)
        except (RemoteError, JoinRefused, OSError, TimeoutError,
                asyncio.IncompleteReadError) as exc:
            log.info("handshake with %s failed: %s", where, exc)
            writer.close()
        except asyncio.CancelledError:
            # The node or the program is closing. End quietly: Python 3.11's
            # start_server callback would log a cancelled task with a traceback.
            writer.close()
        finally:
            self._handshaking -= 1

    async def _read_one(self, reader: asyncio.StreamReader, decoder: FrameDecoder,
                        pending: list[Received], *, first: bool = False) -> Received:
        """The next frame; with ``first`` (the first answer of a node we dialled), an
        answer that does not even start like a frame raises :class:`NotATable`."""
        while not pending:
            data = await reader.read(_READ_SIZE)
            if not data:
                decoder.receive_eof()
                raise RemoteError(f"{decoder.peer}: closed the connection during the "
                                  "handshake")
            if first and len(data) >= PREFIX_LENGTH and not (
                    MIN_BODY <= int.from_bytes(data[:PREFIX_LENGTH], "big") <= MAX_FRAME):
                raise NotATable(f"{decoder.peer} is not a p2p8s table (it answered with "
                                "something else)")
            first = False
            pending.extend(decoder.receive_data(data))
        return pending.pop(0)

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                         address: str, where: str, role: Role | None,
                         dialled: bool) -> Connection:
        nonce = secrets.token_bytes(NONCE_LENGTH)
        my_role = role if role is not None else (Role.HOST if self.seat == 0 else Role.PEER)
        writer.write(self.frame(Hello(name=self.name, nonce=nonce, port=self.port,
                                      role=my_role)))
        decoder = FrameDecoder(peer=where)
        pending: list[Received] = []
        first = await self._read_one(reader, decoder, pending, first=dialled)
        if isinstance(first.message.body, Refuse):
            raise JoinRefused(first.message.body.reason, refusal=first.message.body.code)
        if not isinstance(first.message.body, Hello):
            raise RemoteError(f"{where}: sent {first.message.kind} before hello")
        hello = first.message.body
        peer_key = first.key
        decoder.expected_key = peer_key
        if first.message.table != self.table:
            writer.write(self.frame(Refuse(code="wrong-code", reason=_WRONG_CODE)))
            raise JoinRefused(_WRONG_CODE if dialled else f"{where} gave a wrong code",
                              refusal="wrong-code")
        if peer_key == self.key:
            raise RemoteError(f"{where}: that is this node itself")
        writer.write(self.frame(Proof(echo=hello.nonce, mac=code_proof(
            self._code_key, table=self.table, peer_nonce=hello.nonce, own_key=self.key,
            peer_key=peer_key))))
        second = await self._read_one(reader, decoder, pending)
        body = second.message.body
        if isinstance(body, Refuse):
            raise JoinRefused(body.reason, refusal=body.code)
        if not isinstance(body, Proof):
            raise RemoteError(f"{where}: sent {second.message.kind} instead of its proof")
        if body.echo != nonce or not check_code_proof(
                self._code_key, body.mac, table=self.table, peer_nonce=nonce,
                own_key=peer_key, peer_key=self.key):
            writer.write(self.frame(Refuse(code="wrong-code", reason=_WRONG_CODE)))
            raise JoinRefused(_WRONG_CODE if dialled else f"{where} gave a wrong code",
                              refusal="wrong-code")
        if peer_key in self.peers:
            writer.write(self.frame(Refuse(code="duplicate",
                                           reason="you are already connected")))
            raise JoinRefused(f"{where} is already connected", refusal="duplicate")
        conn = Connection(key=peer_key, hello=hello, address=address, dialled=dialled,
                          decoder=decoder, writer=writer, reader=reader,
                          last_seq=max(first.message.seq, second.message.seq))
        self.peers[peer_key] = conn
        self._heartbeats.add(conn, now=asyncio.get_running_loop().time())
        self._wake.set()
        self._events.put_nowait(Connected(conn))
        # Frames that came with the proof are checked by the read loop, so a bad one
        # loses the connection like any later frame (not a half-dead peer).
        conn.task = self._spawn(self._read_loop(conn, pending))
        return conn

    # --- reading, heartbeats ----------------------------------------------------------

    def _deliver(self, conn: Connection, received: Received) -> None:
        if conn.closed:
            return
        message = received.message
        if message.seq <= conn.last_seq:
            raise RemoteError(f"{conn}: sequence number {message.seq} after {conn.last_seq}",
                              seat=conn.seat)
        conn.last_seq = message.seq
        if message.table != self.table:
            raise RemoteError(f"{conn}: message for another table", seat=conn.seat)
        body = message.body
        if isinstance(body, Heartbeat):
            return
        if isinstance(body, Bye | Refuse):
            self._lose(conn, body.reason or "left")
            return
        self._events.put_nowait(Incoming(conn, received))

    async def _read_loop(self, conn: Connection, pending: list[Received]) -> None:
        loop = asyncio.get_running_loop()
        try:
            for received in pending:
                self._deliver(conn, received)
            if conn.decoder.error is not None:
                raise conn.decoder.error
            while not conn.closed:
                data = await conn.reader.read(_READ_SIZE)
                if not data:
                    conn.decoder.receive_eof()
                    self._lose(conn, "connection closed")
                    return
                self._heartbeats.on_received(conn, now=loop.time())
                for received in conn.decoder.receive_data(data):
                    self._deliver(conn, received)
                if conn.decoder.error is not None:  # after the good frames before it
                    raise conn.decoder.error
        except RemoteError as exc:
            self._lose(conn, str(exc), error=exc)
        except ConnectionResetError:
            self._lose(conn, "connection closed")
        except OSError as exc:
            self._lose(conn, f"connection error: {exc}")

    def _drop(self, conn: Connection) -> bool:
        if conn.closed:
            return False
        conn.closed = True
        self._heartbeats.remove(conn)
        if self.peers.get(conn.key) is conn:
            del self.peers[conn.key]
        conn.writer.close()
        return True

    def _lose(self, conn: Connection, reason: str, *, error: RemoteError | None = None) -> None:
        if self._drop(conn):
            self._events.put_nowait(Lost(conn, reason, error))

    async def _heartbeat_loop(self) -> None:
        loop = asyncio.get_running_loop()
        hb = self._heartbeats
        polled = loop.time()
        while True:
            now = loop.time()
            if now - polled > max(2 * hb.interval_s, hb.timeout_s / 2):
                # this process did not run (suspended): nobody could be heard meanwhile,
                # so a live peer's frames wait unread; its silence counts from now (a
                # peer that closed the connection meanwhile is lost by its end)
                for conn in hb.peers:
                    hb.on_received(conn, now=now)
            polled = now
            due, dead = self._heartbeats.poll(now=now)
            for conn in dead:
                self._lose(conn, f"no heartbeat for {self._heartbeats.timeout_s:g} s")
            if due:
                frame = self.frame(Heartbeat())
                for conn in due:
                    self.send_frame(conn, frame)
            deadline = self._heartbeats.next_deadline()
            self._wake.clear()
            delay = None if deadline is None else max(0.0, deadline - loop.time())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)


_WRONG_CODE = "wrong table code: this table has a different code; check it and try again"
