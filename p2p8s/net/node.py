"""A node: one TCP listener and the signed connections to the other players' nodes.

Every connection, dialled or accepted, starts with the same handshake
(protocol/wire.md, "Handshake"; the machine is :mod:`p2p8s.net.handshake`, driven over
the streams by :mod:`p2p8s.net.connecting`): SPAKE2 on the table code, both identity
keys signed into the transcript, key confirmation both ways. A peer that does not prove
the code is closed without a word (nothing it sent is shown). Everything after is
sealed (:mod:`p2p8s.net.channel`): both ends send the signed ``hello`` frame (name,
listening port, role) inside the channel, and every later frame must be signed by the
identity key the handshake confirmed.

Accepted connections pass :class:`~p2p8s.net.admission.Admission` first (per-address
and overall limits, back-off after wrong codes, priority for the seats it knows:
:attr:`Node.seats` and :attr:`Node.members`); a ``slowed`` notice goes to
:attr:`Node.on_notice`.

The :class:`Node` reports what happens as :data:`NetEvent` values from
:meth:`Node.next_event`: :class:`Connected`, :class:`Incoming` (a verified message that
is not a heartbeat) and :class:`Lost` (bye, closed, bad data, or no heartbeat for
``dead_after_s``). Heartbeat timing is :class:`~p2p8s.net.heartbeat.Heartbeats`; this
module only feeds it the loop clock.

Events and errors are data (:mod:`p2p8s.net.errors`): a :class:`Lost` carries a
:class:`~p2p8s.net.errors.Reason` (a :class:`~p2p8s.wire.Farewell` or
:class:`~p2p8s.wire.Refusal` the peer sent, or a :class:`~p2p8s.net.errors.NetCode` of
this node, with params) and errors carry a ``NetCode``; the CLI says them
(``p2p8s.cli.words.net``). Bad data from a peer is a :class:`~p2p8s.errors.RemoteError`
naming it.

>>> # async with Node(identity=key, name="Ann", code="7KQ4MX", table=tid) as node:
>>> #     conn = await node.connect("10.0.0.2", 4242, role=Role.JOIN)
>>> #     node.send(conn, Game(to=None, payload=b"..."))
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import secrets
import socket
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.errors import Note, RemoteError
from p2p8s.net.admission import Limits
from p2p8s.net.channel import RECORD_OVERHEAD, Opener, Sealer, SessionCode, SessionError
from p2p8s.net.connecting import HANDSHAKE_TIMEOUT_S, Door, Opened
from p2p8s.net.errors import (
    CannotListen,
    ConnectFailure,
    JoinRefused,
    NetCode,
    NotATable,
    PeerError,
    PortInUse,
    Reason,
    Unreachable,
    conn_params,
)
from p2p8s.net.heartbeat import DEAD_AFTER_S, HEARTBEAT_INTERVAL_S, Heartbeats
from p2p8s.wire import (
    NONCE_LENGTH,
    Body,
    Bye,
    Farewell,
    FrameDecoder,
    Heartbeat,
    Hello,
    Message,
    Received,
    Refusal,
    Refuse,
    Role,
    WireCode,
    WireError,
    encode,
    message_hash,
    public_key_bytes,
)

__all__ = ["CannotListen", "ConnectFailure", "Connected", "Connection", "Incoming",
           "JoinRefused", "Lost", "NetCode", "NetEvent", "Node", "NotATable", "PeerError",
           "PortInUse", "Reason", "Unreachable"]

log = logging.getLogger(__name__)

#: Most accepted connections that may be in their handshake at once (besides the slots
#: reserved for the seats of the final roster, :class:`~p2p8s.net.admission.Limits`).
MAX_HANDSHAKES = Limits().total
#: Bytes that may wait unsent for one peer; a peer that stops reading while more piles
#: up is disconnected ("stopped reading"), so it cannot make this node's memory grow.
MAX_UNSENT = 4 * 1024 * 1024
_READ_SIZE = 65536
#: Seconds a key's old connection has to answer a ping before a new connection of that
#: key (dialled by the same peer) replaces it (in play; in the lobby the old one is then
#: lost and the new one may sit again).
ASK_OLD_S = 2.0
#: Seconds :meth:`Node.aclose` waits in all for its connections to write what they
#: still buffer (a peer slow to read) and close.
CLOSE_WAIT_S = 2.0


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
    sealer: Sealer = field(repr=False)
    opener: Opener = field(repr=False)
    seat: int | None = None
    closed: bool = False
    last_seq: int = -1
    #: bytes this connection may buffer beyond :data:`MAX_UNSENT`: the size of the last
    #: answer sent on it by :meth:`Node.send_answer` (a log the peer asked for)
    allowance: int = 0
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    #: set on every read from the peer (and when the connection ends): a ping's answer
    heard: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def name(self) -> str:
        """The player name from the peer's hello."""
        return self.hello.name

    def set_seat(self, seat: int | None) -> None:
        """Record the peer's seat: later frames claiming another seat are refused."""
        self.seat = seat
        self.decoder.seat = seat

    def __str__(self) -> str:
        """A developer form for logs (the CLI names a connection in its own words)."""
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
    """The connection to ``peer`` ended for ``reason`` (data; the CLI says it).

    ``error`` is the :class:`~p2p8s.errors.RemoteError` when the peer sent bad data
    (then ``reason`` is :attr:`NetCode.BAD_DATA` with that error).
    """

    peer: Connection
    reason: Reason
    error: RemoteError | None = None


NetEvent = Connected | Incoming | Lost


async def _linger(conn: Connection) -> None:
    """End ``conn`` gracefully (see :meth:`Node.aclose`): write what it buffers and
    half-close it, read and drop what still comes until the peer closes, then close."""
    writer = conn.writer
    try:
        if writer.can_write_eof():
            writer.write_eof()  # after the buffer is written
        while await conn.reader.read(_READ_SIZE):
            pass
    except (OSError, RuntimeError):
        pass  # reset, or already closed
    finally:
        writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


class Node:
    """A TCP listener plus connections to peers; an async context manager.

    ``identity`` signs everything sent; ``code`` is the normalized table code (the
    handshake's password); ``table`` the table id (8 random bytes the host chose; None
    for a joiner until its first handshake tells it). ``host``/``port`` is where to
    listen (port 0: any free port). ``limits`` bound who may start a handshake.
    ``heartbeat_s``/``dead_after_s`` are the heartbeat interval and the silence after
    which a peer is lost. ``seat`` is this node's seat once known (author seat of
    every message). On exit every peer gets ``bye`` and all tasks are cancelled.
    """

    def __init__(self, *, identity: Ed25519PrivateKey, name: str, code: str,
                 table: bytes | None, host: str | None = "0.0.0.0", port: int = 0,
                 heartbeat_s: float = HEARTBEAT_INTERVAL_S,
                 dead_after_s: float = DEAD_AFTER_S, limits: Limits | None = None) -> None:
        self.identity = identity
        self.key = public_key_bytes(identity)
        self.name = name
        self._table = table
        self.seat: int | None = None
        self._door = Door(code=code, identity=identity, limits=limits or Limits(),
                          keys=lambda: {*self.seats, *self.members})
        self._listen = (host, port)
        self._heartbeats: Heartbeats[Connection] = Heartbeats(interval_s=heartbeat_s,
                                                              timeout_s=dead_after_s)
        self._seq = 0
        self._servers: list[asyncio.Server] = []
        self._events: asyncio.Queue[NetEvent] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self.peers: dict[bytes, Connection] = {}
        self.port = 0
        #: In play, a new connection from or to a key that already has one may replace
        #: the old one (dropped at once, unreported, unsent bytes discarded) instead of
        #: being refused: its address may have changed while the old socket still looks
        #: open. Which one stays, both ends decide alike (:meth:`_new_wins`), from
        #: ``seats``: each key's seat in the final roster.
        self.replace_old = False
        self.seats: Mapping[bytes, int] = {}
        #: The keys seated at the table in its lobby (kept by the lobby): like the seats
        #: of the final roster, their rejoin hint passes an address's limits.
        self.members: frozenset[bytes] = frozenset()

    @property
    def on_notice(self) -> Callable[[Note], None] | None:
        """Called with each notice for the person at this node (a ``slowed`` address)."""
        return self._door.on_notice

    @on_notice.setter
    def on_notice(self, notice: Callable[[Note], None] | None) -> None:
        self._door.on_notice = notice

    @property
    def table(self) -> bytes:
        """The table id (8 bytes); ValueError before a joiner's first handshake (a
        programming error: nothing is signed before it)."""
        if self._table is None:
            raise ValueError("a node knows its table id once a handshake told it")
        return self._table

    # --- lifecycle ------------------------------------------------------------------

    async def __aenter__(self) -> Node:
        host, port = self._listen
        if host is not None:
            try:
                server = await asyncio.start_server(self._accept, host, port)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortInUse(NetCode.PORT_IN_USE, port=port) from None
                raise CannotListen(NetCode.CANNOT_LISTEN, port=port,
                                   error=exc.strerror or str(exc)) from None
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

    async def aclose(self, reason: Farewell = Farewell.LEFT) -> None:
        """Say bye (with ``reason``) to every peer, end every connection gracefully and
        stop listening. A connection is half-closed once what it buffers is written (so
        the last payloads and acks of a node that leaves reach a peer slow to read), and
        read on until the peer closes its end too: a socket closed with bytes still
        coming in resets the connection, and a reset throws away what the peer had not
        yet read (the lingering close of RFC 7230 §6.6). At most :data:`CLOSE_WAIT_S` in
        all."""
        for server in self._servers:
            server.close()
        conns = list(self.peers.values())
        for conn in conns:
            with contextlib.suppress(Exception):
                self.send(conn, Bye(code=reason))
            self._drop(conn, close=False)  # nothing more is delivered or sent
        for task in list(self._tasks):
            task.cancel()  # the read loops too: the linger reads instead
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if conns:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(
                    *(_linger(c) for c in conns), return_exceptions=True), CLOSE_WAIT_S)
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
        async with asyncio.timeout(timeout_s):  # not wait_for: see _heartbeat_loop
            return await self._events.get()

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
        if conn.writer.transport.get_write_buffer_size() + len(frame) > (
                MAX_UNSENT + conn.allowance):
            self._lose(conn, Reason(NetCode.STOPPED_READING,
                                    {**conn_params(conn), "limit_mib": MAX_UNSENT // 2**20}))
            return
        conn.writer.write(conn.sealer.seal(frame))
        self._heartbeats.on_sent(conn, now=asyncio.get_running_loop().time())

    def send(self, conn: Connection, body: Body, *, prev: bytes = b"") -> bytes:
        """Sign and send ``body`` to one peer; returns the message hash."""
        frame = self.frame(body, prev=prev)
        self.send_frame(conn, frame)
        return message_hash(frame[4:])

    def send_answer(self, conn: Connection, bodies: Sequence[Body]) -> None:
        """Sign and send ``bodies`` to one peer as one answer it asked for (the parts of
        a log, which outgrows :data:`MAX_UNSENT` in a long match): the connection may
        buffer the whole answer beyond the limit — it is bounded and this node holds it
        anyway — but not on top of an earlier answer still unread, so a peer that asks
        again and again without reading is still a peer that stopped reading."""
        frames = [self.frame(body) for body in bodies]
        conn.allowance = sum(len(f) + RECORD_OVERHEAD for f in frames)
        for frame in frames:
            self.send_frame(conn, frame)

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

    def discard(self, conn: Connection) -> None:
        """Close ``conn`` at once without a word and without a :class:`Lost` event: its
        unsent bytes are dropped and nothing it still carries is delivered (a newer
        connection of the same node replaces it)."""
        if self._drop(conn):
            conn.writer.transport.abort()

    def _retire(self, old: Connection) -> None:
        """Stop using ``old`` (a new connection of its node replaces it) at once, but
        end the socket only :data:`ASK_OLD_S` later: when both ends dialled at once, the
        other end may not have taken in the new connection yet, and an end of ``old``
        reaching it first would be a loss to it (a gone-and-back blip on its screen)."""
        if self._drop(old, close=False):
            asyncio.get_running_loop().call_later(ASK_OLD_S, old.writer.transport.abort)

    def close_peer(self, conn: Connection, why: Refusal | Farewell, *,
                   seats: int | None = None) -> None:
        """Send ``refuse`` (``why`` a :class:`~p2p8s.wire.Refusal`, with ``seats`` when
        it speaks of them) or ``bye`` (a :class:`~p2p8s.wire.Farewell`), then close the
        connection. A :class:`Lost` event (:attr:`NetCode.CLOSED_HERE`) follows.
        """
        if isinstance(why, Refusal):
            self.send(conn, Refuse(code=why, seats=seats))
        else:
            self.send(conn, Bye(code=why))
        self._lose(conn, Reason(NetCode.CLOSED_HERE, {"why": why, "seats": seats}))

    # --- connecting -------------------------------------------------------------------

    async def connect(self, host: str, port: int, *, role: Role,
                      timeout_s: float = HANDSHAKE_TIMEOUT_S) -> Connection:
        """Dial ``host:port`` and run the handshake; the connection is then in
        :attr:`peers` and a :class:`Connected` event is queued.

        Raises :class:`JoinRefused` if the peer, once it proved the code, refuses (full
        table ...); :class:`Unreachable` if no connection can be made or the peer does
        not prove the code (``not-there``: nothing it sent is shown; ``not-a-table``;
        ``handshake-version``; ``table-busy``: it turned the attempt away, try again
        later); :class:`~p2p8s.errors.RemoteError` if a peer that proved the code
        misbehaves.
        """
        opened = await self._door.dial(host, port, table=self._table, hint_key=self.key,
                                       hello=functools.partial(self._hello, role),
                                       timeout_s=timeout_s)
        try:
            return self._keep(opened, address=opened.address, dialled=True)
        except BaseException:
            opened.writer.close()
            raise

    async def connect_any(self, addresses: Iterable[tuple[str, int]], *, role: Role,
                          timeout_s: float = HANDSHAKE_TIMEOUT_S) -> Connection:
        """Try each ``(host, port)`` in turn; the first that completes the handshake wins.

        An address that does not prove the code is passed over like one that does not
        answer. Raises :class:`JoinRefused` at once if a node that proved the code
        refuses, :class:`Unreachable` (listing every failure) if none completes.
        """
        failures: list[Unreachable] = []
        for host, port in addresses:
            try:
                return await self.connect(host, port, role=role, timeout_s=timeout_s)
            except Unreachable as exc:
                failures.append(exc)
        raise Unreachable(NetCode.NONE_REACHED, failures=tuple(failures))

    def _hello(self, role: Role | None, table: bytes) -> bytes:
        """This node's signed ``hello`` frame (a joiner learns its table id here)."""
        if self._table is None:
            self._table = table  # a joiner learns its table from the host
        my_role = role if role is not None else (Role.HOST if self.seat == 0 else Role.PEER)
        return self.frame(Hello(name=self.name, nonce=secrets.token_bytes(NONCE_LENGTH),
                                port=self.port, role=my_role))

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._table is None:  # a joiner not yet at a table has nothing to offer
            writer.transport.abort()
            return
        opened = await self._door.accept(reader, writer, table=self._table,
                                         hello=functools.partial(self._hello, None))
        if opened is None:
            return
        old = self.peers.get(opened.session.peer_key)
        live: bool | None = None
        if old is not None and (not old.dialled or opened.hello.role is Role.JOIN):
            # the same key dials again: a restarted node (the old one silent; a `p2p8s
            # join` run again is a new process, whoever dialled the old one) — or a copy
            # of this identity on another machine, which must not take the seat over;
            # the old one is asked at once, so a live copy is refused within a heartbeat
            # interval and the refusal is final (the joiner does not retry)
            live = await self._answers(old)
            if not live and not self.replace_old and not old.closed:
                # in the lobby: the old one is dead (its node came back): it is lost as
                # any dead connection is (its seat freed), the new one sits again
                self._lose(old, Reason(NetCode.NO_HEARTBEAT,
                                       {"timeout_s": self._ask_old_s()}))
        try:
            self._keep(opened, address=opened.address, dialled=False, old_live=live)
        except JoinRefused as exc:
            log.info("refused %s: %s", opened.decoder.peer, exc)
            writer.close()  # a close, not a reset: the peer reads the refuse first

    async def _answers(self, conn: Connection) -> bool:
        """Whether ``conn`` still answers: unless it is already silent for two heartbeat
        intervals, a heartbeat goes out on it (a ping) and anything heard from it within
        :data:`ASK_OLD_S` (a live node sends at least one frame per interval) says yes;
        a connection that ends meanwhile says no."""
        loop = asyncio.get_running_loop()
        hb = self._heartbeats
        if conn.closed or hb.silent_for(conn, now=loop.time()) >= 2 * hb.interval_s:
            return False
        conn.heard.clear()
        self.send_frame(conn, self.frame(Heartbeat()))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.heard.wait(), self._ask_old_s())
        return conn.heard.is_set() and not conn.closed

    def _ask_old_s(self) -> float:
        """Seconds an old connection has to answer a ping (:meth:`_answers`)."""
        return max(ASK_OLD_S, 2 * self._heartbeats.interval_s)

    def _keep(self, opened: Opened, *, address: str, dialled: bool,
              old_live: bool | None = None) -> Connection:
        """Keep a connection that proved the code (or refuse it: ``duplicate``, raised
        as :class:`JoinRefused`), report it and start reading it. ``old_live``: the
        key's old connection was pinged just now (None: it was not) and answered — the
        new one does not replace it — or not: it does (protocol/wire.md, "Lobby and
        mesh" step 5)."""
        session, writer = opened.session, opened.writer
        peer_key = session.peer_key
        old = self.peers.get(peer_key)
        now = asyncio.get_running_loop().time()
        sealer = session.sealer
        if old is not None and self.replace_old and not old_live and (
                old_live is False or self._new_wins(old, dialled=dialled, now=now)):
            self._retire(old)
        elif old is not None:
            writer.write(sealer.seal(self.frame(Refuse(code=Refusal.DUPLICATE))))
            raise JoinRefused(NetCode.ALREADY_CONNECTED, refusal=Refusal.DUPLICATE,
                              peer=opened.decoder.peer)
        if not dialled:
            writer.write(sealer.seal(opened.my_hello))
        conn = Connection(key=peer_key, hello=opened.hello, address=address,
                          dialled=dialled, decoder=opened.decoder, writer=writer,
                          reader=opened.reader, sealer=sealer, opener=session.opener,
                          last_seq=opened.first.message.seq)
        self.peers[peer_key] = conn
        self._heartbeats.add(conn, now=now)
        self._wake.set()
        self._events.put_nowait(Connected(conn))
        # Frames that came with the hello are checked by the read loop, so a bad one
        # loses the connection like any later frame (not a half-dead peer).
        conn.task = self._spawn(self._read_loop(conn, opened.pending))
        return conn

    def _new_wins(self, old: Connection, *, dialled: bool, now: float) -> bool:
        """Whether a new connection to ``old``'s node (``dialled`` by this node or not)
        replaces ``old`` after the deal; both ends decide alike (protocol/wire.md,
        "Lobby and mesh" step 5). A second dial by the peer (both dialled by it: once
        the old one did not answer a ping, :meth:`_answers`) and a
        connection after ``old`` fell silent (nothing heard for two heartbeat intervals:
        its address may have changed while the socket still looks open) win. Two live
        connections dialled from both ends at once: the one the higher seat dialled wins
        (who dials, protocol/table.md), so neither end closes the one the other keeps."""
        if old.dialled == dialled:
            return not dialled
        if self._heartbeats.silent_for(old, now=now) >= 2 * self._heartbeats.interval_s:
            return True
        seat = self.seats.get(old.key)
        if self.seat is None or seat is None:
            return not dialled
        return dialled == (self.seat > seat)

    # --- reading, heartbeats ----------------------------------------------------------

    def _deliver(self, conn: Connection, received: Received) -> None:
        if conn.closed:
            return
        message = received.message
        if message.seq <= conn.last_seq:
            raise PeerError(NetCode.SEQUENCE, conn=conn, seq=message.seq,
                            last=conn.last_seq)
        conn.last_seq = message.seq
        if message.table != self.table:
            raise PeerError(NetCode.OTHER_TABLE, conn=conn)
        body = message.body
        if isinstance(body, Heartbeat):
            return
        if isinstance(body, Refuse):
            self._lose(conn, Reason(body.code, {"seats": body.seats}))
            return
        if isinstance(body, Bye):
            self._lose(conn, Reason(body.code))
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
                    self._lose_at_eof(conn)
                    return
                self._heartbeats.on_received(conn, now=loop.time())
                conn.heard.set()
                for plain in conn.opener.receive_data(data):
                    for received in conn.decoder.receive_data(plain):
                        self._deliver(conn, received)
                    if conn.decoder.error is not None:  # after the good frames before it
                        raise conn.decoder.error
                if conn.opener.error is not None:
                    raise conn.opener.error
        except RemoteError as exc:
            self._lose(conn, Reason(NetCode.BAD_DATA, {"error": exc}), error=exc)
        except ConnectionResetError:
            self._lose(conn, Reason(NetCode.CONNECTION_CLOSED))
        except OSError as exc:
            self._lose(conn, Reason(NetCode.CONNECTION_ERROR,
                                    {"error": exc.strerror or str(exc)}))

    def _lose_at_eof(self, conn: Connection) -> None:
        """``conn``'s stream ended. A frame cut short by the end is named (its words)
        but is no :attr:`Lost.error`: a connection that drops or a process that dies
        mid-write cuts frames, so it is no evidence against the peer (issue #11)."""
        try:
            conn.opener.receive_eof()  # a sealed record cut short: the same
            conn.decoder.receive_eof()
        except (WireError, SessionError) as exc:
            if exc.code not in (WireCode.CUT_SHORT, SessionCode.CUT_SHORT):
                raise
            self._lose(conn, Reason(NetCode.BAD_DATA, {"error": exc}))
            return
        self._lose(conn, Reason(NetCode.CONNECTION_CLOSED))

    def _drop(self, conn: Connection, *, close: bool = True) -> bool:
        """Stop using ``conn`` (nothing it carries is delivered any more) and, with
        ``close``, close its socket; False if it was dropped before."""
        if conn.closed:
            return False
        conn.closed = True
        conn.heard.set()  # a ping waiting on it: the connection ended
        self._heartbeats.remove(conn)
        if self.peers.get(conn.key) is conn:
            del self.peers[conn.key]
        if close:
            conn.writer.close()
        return True

    def _lose(self, conn: Connection, reason: Reason, *,
              error: RemoteError | None = None) -> None:
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
                self._lose(conn, Reason(NetCode.NO_HEARTBEAT,
                                        {"timeout_s": self._heartbeats.timeout_s}))
            if due:
                frame = self.frame(Heartbeat())
                for conn in due:
                    self.send_frame(conn, frame)
            deadline = self._heartbeats.next_deadline()
            self._wake.clear()
            delay = None if deadline is None else max(0.0, deadline - loop.time())
            # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancel
            # that comes as the wake is set (a connection kept as the node closes),
            # and this loop never ends
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()
