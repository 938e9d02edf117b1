"""How a connection gets in: dialling, accepting, admission and the handshake, driven
over asyncio streams (the machine is :mod:`p2p8s.net.handshake`; protocol/wire.md,
"Handshake" and "Limits").

:class:`Door` is one node's entrance. :meth:`Door.dial` and :meth:`Door.accept` run the
handshake over a stream and then exchange the signed ``hello`` frames inside the sealed
channel; they return an :class:`Opened` connection for the node to keep (or refuse as a
duplicate). A dialled handshake that times out is tried again on a fresh connection
(:data:`HANDSHAKE_ATTEMPTS`: on a lossy link one lost segment can hold an attempt past
the timeout); any other failure ends the dial at once. An accepted connection passes
:class:`~p2p8s.net.admission.Admission` first: one turned away gets a ``busy`` record
(unsigned; the dialler says it in fixed words and tries again) unless its hello carries
the rejoin hint of a seat the node knows (then it passes its address's limits). A peer
that does not prove the code is closed without a word: the dialler says "could not join
there" (:func:`not_there`), nothing the peer sent; a connection closed before a byte of
the acceptor's hello is "did not answer, or busy" (tried again), never a wrong code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.codes import format_address
from p2p8s.errors import Note, RemoteError
from p2p8s.net.admission import Admission, Limits, Verdict
from p2p8s.net.channel import SessionCode, SessionError
from p2p8s.net.errors import (
    JoinRefused,
    NetCode,
    NotATable,
    Unreachable,
    connect_failure,
)
from p2p8s.net.handshake import (
    HELLO_LENGTH,
    Done,
    Failed,
    Handshake,
    Heard,
    Send,
    Session,
    Side,
    busy_record,
    hinted_key,
)
from p2p8s.wire import PREFIX_LENGTH, FrameDecoder, Hello, Received, Refuse

__all__ = ["FIRST_MESSAGE_S", "HANDSHAKE_ATTEMPTS", "HANDSHAKE_TIMEOUT_S", "Door",
           "HelloFrame", "Opened", "busy_wait", "not_there"]

log = logging.getLogger("p2p8s.net.node")

#: Seconds a connection may take to connect and finish the handshake.
HANDSHAKE_TIMEOUT_S = 5.0
#: Handshakes a dial tries (each on a fresh connection) before a timeout fails it: one
#: lost segment on a bad Wi-Fi (5 % loss, 100 ms) can hold an attempt past the timeout.
HANDSHAKE_ATTEMPTS = 3
#: Seconds an acceptor gives a connection to send its first message (``hello``) and to
#: finish the handshake; an idle connection is closed after this. Longer than the
#: dialler's :data:`HANDSHAKE_TIMEOUT_S`: on a lossy link (a hello lost twice is resent
#: 3 s after it was first sent) the dialler gives up first and tries again on a fresh
#: connection — an acceptor that closed first would look to it like a wrong code.
FIRST_MESSAGE_S = ACCEPT_TIMEOUT_S = HANDSHAKE_TIMEOUT_S + 1.0
#: Seconds a connection turned away is given to read its ``busy`` record and close.
_TURN_AWAY_S = 1.0
#: Connections turned away at once that are given :data:`_TURN_AWAY_S` to read their
#: ``busy`` record; beyond, a flood's connections get it and a close at once (never a
#: reset without it: a dialler would take that for a table that did not answer).
_TURN_AWAY_AT_ONCE = 8
_READ_SIZE = 65536

#: Makes the signed ``hello`` frame of this node for a table id (plaintext, unsealed).
HelloFrame = Callable[[bytes], bytes]


@dataclass(eq=False, slots=True)
class Opened:
    """A confirmed connection whose peer sent its signed ``hello``: the ``session``
    (keys, the peer's identity), that ``hello`` and its frame (``first``), the frames
    that came with it (``pending``), the ``decoder`` of the peer's frames, this node's
    own signed hello frame (``my_hello``, not yet sealed: an acceptor seals and sends it
    once it keeps the connection, else its ``refuse`` is the first record), the peer's
    IP ``address`` (as dialled, or as it connected from) and the streams."""

    session: Session
    hello: Hello
    first: Received
    pending: list[Received]
    decoder: FrameDecoder
    my_hello: bytes
    address: str
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


class Door:
    """One node's entrance: ``code`` (the handshake's password), ``identity``, the
    admission ``limits`` of accepted connections. ``keys()`` gives the identity keys
    whose rejoin hint passes an address's limits (the seats the node knows);
    ``on_notice`` receives the ``slowed`` notices."""

    def __init__(self, *, code: str, identity: Ed25519PrivateKey, limits: Limits,
                 keys: Callable[[], Collection[bytes]]) -> None:
        self._code = code
        self._identity = identity
        self.admission = Admission(limits)
        self._keys = keys
        self._slot_freed = asyncio.Event()  # set (and replaced) when a handshake ends
        self._peeking = 0  # turned-away connections whose hello is being read for a hint
        self._turning = 0  # connections being turned away with a busy record
        self.on_notice: Callable[[Note], None] | None = None

    # --- dialling ----------------------------------------------------------------------

    async def dial(self, host: str, port: int, *, table: bytes | None, hint_key: bytes,
                   hello: HelloFrame, timeout_s: float, attempts: int | None = None) -> Opened:
        """Dial ``host:port``, run the handshake (announcing ``hint_key``'s rejoin hint)
        and send this node's ``hello`` frame; the peer's hello comes back. A handshake
        that does not finish within ``timeout_s`` (the node is there: the TCP connection
        was made, but a segment lost on a bad link costs 1 s + 2 s + … of retransmission)
        is tried again on a fresh connection, ``attempts`` in all (None:
        :data:`HANDSHAKE_ATTEMPTS`); a connection that cannot be made (the kernel already
        resent its SYN within ``timeout_s``) or a refusal is not.

        Raises :class:`JoinRefused` if the peer, once it proved the code, refuses;
        :class:`Unreachable` if no connection can be made, the last attempt timed out
        (``handshake-timeout``) or the peer does not prove the code (:func:`not_there`);
        :class:`~p2p8s.errors.RemoteError` if a peer that proved the code misbehaves."""
        tries = max(1, HANDSHAKE_ATTEMPTS if attempts is None else attempts)
        attempt = 1
        while True:
            try:
                return await self._dial_once(host, port, table=table, hint_key=hint_key,
                                             hello=hello, timeout_s=timeout_s)
            except Unreachable as exc:
                if exc.code is not NetCode.HANDSHAKE_TIMEOUT or attempt >= tries:
                    raise
                log.info("handshake with %s timed out (attempt %d of %d): trying again",
                         exc.params["where"], attempt, tries)
            attempt += 1

    async def _dial_once(self, host: str, port: int, *, table: bytes | None,
                         hint_key: bytes, hello: HelloFrame, timeout_s: float) -> Opened:
        """One attempt of :meth:`dial` on a fresh connection (raises as it does)."""
        where = format_address(host, port)
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                                    timeout_s)
        except (OSError, TimeoutError) as exc:
            raise Unreachable(NetCode.CANNOT_REACH, where=where,
                              **connect_failure(exc)) from None
        shake = Handshake(side=Side.DIALLER, code=self._code, identity=self._identity,
                          table=table, peer=where, hint_key=hint_key)
        try:
            return await asyncio.wait_for(
                _open(shake, reader, writer, hello=hello, where=where, address=host),
                timeout_s)
        except TimeoutError:
            writer.close()
            raise Unreachable(NetCode.HANDSHAKE_TIMEOUT, where=where) from None
        except SessionError as exc:
            writer.close()
            raise not_there(exc, where=where) from None
        except OSError as exc:  # e.g. a broken pipe while writing
            writer.close()
            raise Unreachable(NetCode.CANNOT_REACH, where=where,
                              **connect_failure(exc)) from None
        except BaseException:
            writer.close()
            raise

    # --- accepting ---------------------------------------------------------------------

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                     table: bytes, hello: HelloFrame) -> Opened | None:
        """Admit an accepted connection and run its handshake; the opened connection,
        or None when it was turned away or failed (closed, said only in the log)."""
        peer = writer.get_extra_info("peername")
        host = str(peer[0]) if peer else "?"
        where = format_address(host, int(peer[1])) if peer else "?"
        loop = asyncio.get_running_loop()
        verdict = self.admission.arrive(host, now=loop.time())
        if verdict is Verdict.WAIT:
            try:
                verdict = await self._wait_for_slot(host)
            except asyncio.CancelledError:  # the node is closing
                writer.close()
                return None
        first, key = b"", None
        keys = self._keys()
        if verdict is Verdict.RESERVED or (
                not verdict.admitted and verdict is not Verdict.FULL and keys
                and self._peeking < self.admission.limits.reserved):
            # only a known seat's rejoin hint gets this one in: read the hello first
            first = await self._peek(reader)
            key = hinted_key(first, keys)
            if key is not None and not verdict.admitted:
                verdict = self.admission.priority(key, now=loop.time())
            elif key is None and verdict is Verdict.RESERVED:
                self.admission.leave(host, verdict, confirmed=False)
                verdict = Verdict.FULL
        if not verdict.admitted:
            log.info("turned %s away: %s", where, verdict)
            await self._turn_away(reader, writer, self.admission.retry_after(
                host, verdict, now=loop.time(), key=key), read=not first)
            return None
        shake = Handshake(side=Side.ACCEPTOR, code=self._code, identity=self._identity,
                          table=table, peer=where)
        try:
            return await asyncio.wait_for(
                _open(shake, reader, writer, hello=hello, where=where, address=host,
                      first=first),
                ACCEPT_TIMEOUT_S)
        except (RemoteError, JoinRefused, OSError, TimeoutError,
                asyncio.IncompleteReadError) as exc:
            log.info("handshake with %s failed: %s", where, exc)
            writer.transport.abort()
        except asyncio.CancelledError:
            # The node or the program is closing. End quietly: Python 3.11's
            # start_server callback would log a cancelled task with a traceback.
            writer.close()
        finally:
            self.admission.leave(host, verdict, confirmed=shake.confirmed, key=key)
            self._slot_freed.set()  # wake the connections waiting for a slot
            self._slot_freed = asyncio.Event()
            if shake.guessed:
                notice = self.admission.failed(host, now=loop.time(), key=key)
                if notice is not None and self.on_notice is not None:
                    self.on_notice(notice)
        return None

    async def _peek(self, reader: asyncio.StreamReader) -> bytes:
        """The dialler's hello record, unanswered (b"" if it does not come in time)."""
        self._peeking += 1
        try:
            return await asyncio.wait_for(reader.readexactly(PREFIX_LENGTH + HELLO_LENGTH),
                                          FIRST_MESSAGE_S)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            return b""
        finally:
            self._peeking -= 1

    async def _turn_away(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         retry_s: float, *, read: bool) -> None:
        """Send the ``busy`` record and close. The dialler's hello is read first
        (``read``) so that the close is no reset that would drop the record unread;
        beyond :data:`_TURN_AWAY_AT_ONCE` connections at once, the record is sent and the
        connection closed at once (a close, after the record: never a bare reset)."""
        if self._turning >= _TURN_AWAY_AT_ONCE:
            with contextlib.suppress(OSError):
                writer.write(busy_record(retry_s))
                writer.write_eof()
            writer.close()
            return
        self._turning += 1
        try:
            if read:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(reader.read(_READ_SIZE), _TURN_AWAY_S / 2)
            writer.write(busy_record(retry_s))
            writer.write_eof()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader.read(_READ_SIZE), _TURN_AWAY_S)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            self._turning -= 1
        writer.transport.abort()

    async def _wait_for_slot(self, host: str) -> Verdict:
        """Wait (at most :data:`FIRST_MESSAGE_S`) until admission lets a connection
        that was told to wait in; the verdict then (``busy`` when the time is up)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FIRST_MESSAGE_S
        verdict = Verdict.WAIT
        while verdict is Verdict.WAIT:
            try:
                async with asyncio.timeout_at(deadline):  # not wait_for (Node._heartbeat_loop)
                    await self._slot_freed.wait()
            except TimeoutError:
                self.admission.give_up(host)
                return Verdict.BUSY
            except asyncio.CancelledError:
                self.admission.give_up(host)
                raise
            verdict = self.admission.retry(host, now=loop.time())
        return verdict


async def _session(shake: Handshake, reader: asyncio.StreamReader,
                   writer: asyncio.StreamWriter, *, first: bytes) -> Session:
    """Run the handshake machine over the stream until it is confirmed (``first``: the
    peer's bytes already read); raises :class:`SessionError` when it fails (the peer did
    not prove the code, …)."""
    writer.write(shake.start())
    heard = False
    answered = bool(first)  # the peer sent a byte
    data = first
    while True:
        if not data and not heard and shake.side is Side.ACCEPTOR:
            try:
                async with asyncio.timeout(FIRST_MESSAGE_S):  # not wait_for (Node._heartbeat_loop)
                    data = await _read(reader)
            except TimeoutError:
                raise SessionError(SessionCode.CUT_SHORT, peer=shake.peer) from None
        elif not data:
            data = await _read(reader)
            answered = answered or bool(data)
            if not answered and shake.side is Side.DIALLER:
                # closed or reset before a byte of its hello: the table did not answer
                # (out of connections, or turned this one away) — not a wrong code
                raise SessionError(SessionCode.BUSY, peer=shake.peer, retry_s=1,
                                   answered=False)
        for event in shake.receive_data(data) if data else shake.receive_eof():
            match event:
                case Send(data=out):
                    writer.write(out)
                case Heard():
                    heard = True
                case Failed(error=error):
                    raise error
                case Done(session=session):
                    return session
        data = b""


async def _open(shake: Handshake, reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter, *, hello: HelloFrame, where: str,
                address: str, first: bytes = b"") -> Opened:
    """The handshake, then the signed hellos inside the channel (the dialler sends its
    own first; the acceptor's waits in :attr:`Opened.my_hello`, unsealed: the records
    of a direction open only in the order they were sealed)."""
    session = await _session(shake, reader, writer, first=first)
    my_hello = hello(session.table)
    if shake.side is Side.DIALLER:
        writer.write(session.sealer.seal(my_hello))
    decoder = FrameDecoder(peer=where, expected_key=session.peer_key)
    opener = session.opener
    pending: list[Received] = []
    data = session.leftover
    while not pending:
        if data:
            for plain in opener.receive_data(data):
                pending.extend(decoder.receive_data(plain))
            if decoder.error is not None and not pending:
                raise decoder.error
            if pending:
                break
        data = await _read(reader)
        if not data:
            opener.receive_eof()
            decoder.receive_eof()
            raise RemoteError(NetCode.CLOSED_IN_HANDSHAKE, peer=where)
    received = pending.pop(0)
    body = received.message.body
    if isinstance(body, Refuse):
        raise JoinRefused(body.code, refusal=body.code, seats=body.seats)
    if not isinstance(body, Hello):
        raise RemoteError(NetCode.BEFORE_HELLO, peer=where, kind=received.message.kind)
    if received.message.table != session.table:
        raise RemoteError(NetCode.OTHER_TABLE, peer=where)
    return Opened(session=session, hello=body, first=received, pending=pending,
                  decoder=decoder, my_hello=my_hello, address=address, reader=reader,
                  writer=writer)


async def _read(reader: asyncio.StreamReader) -> bytes:
    """The next bytes of a connection in its handshake; b"" at its end, whether the peer
    closed it or reset it (a node that turns a connection away resets it: to the
    dialler that is the same as a close before the peer proved the code)."""
    try:
        return await reader.read(_READ_SIZE)
    except ConnectionResetError:
        return b""


def not_there(exc: SessionError, *, where: str) -> Unreachable:
    """The error for a dialled node that did not prove the code: fixed words, nothing of
    what it sent (protocol/wire.md, "Nothing unauthenticated on screen"). A node that
    does not speak this handshake at all is ``not-a-table``; one of another version says
    no number it sent (``handshake-version``: "another version, or not p2p8s"); one
    that sent a ``busy`` record, or closed before a byte of its hello (``answered``
    False), is ``table-busy`` (its ``retry_s``, at most 30 s, fixed local words)."""
    if exc.code is SessionCode.VERSION:
        return Unreachable(SessionCode.VERSION, where=where, peer=where,
                           ours=exc.params.get("ours"))
    if exc.code is SessionCode.BUSY:
        return Unreachable(SessionCode.BUSY, where=where, retry_s=exc.params["retry_s"],
                           answered=exc.params.get("answered", True))
    if exc.code is SessionCode.BAD_HELLO and exc.params.get("cause") == "length":
        return NotATable(NetCode.NOT_A_TABLE, peer=where)
    return Unreachable(SessionCode.NOT_THERE, where=where,
                       wrong_code=exc.code is SessionCode.WRONG_CODE)


def busy_wait(exc: Unreachable, *, recorded: bool = False) -> int | None:
    """Seconds to wait before trying again when a table turned the attempt away
    (``table-busy``, :func:`not_there`: the longest wait any address of a
    ``none-reached`` said, each at most :data:`~p2p8s.net.handshake.MAX_RETRY_S`), or
    None when no address said busy; ``recorded``: only an address that sent a ``busy``
    record counts (not one that closed before a byte of its hello)."""
    failures = exc.params.get("failures", (exc,)) if exc.code is NetCode.NONE_REACHED \
        else (exc,)
    waits = [f.params["retry_s"] for f in failures if f.code is SessionCode.BUSY
             and (f.params.get("answered", True) or not recorded)]
    return max(waits) if waits else None
