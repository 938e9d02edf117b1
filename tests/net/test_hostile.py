"""Hostile input over real sockets (issue #6 item 6): a crafted client attacks a node.

Every test runs real :class:`~p2p8s.net.node.Node` objects on 127.0.0.1 in this process
and a :class:`Rogue` that writes whatever bytes it likes: oversize and truncated frames,
garbage, bad signatures, a foreign protocol version, replays, forged keys and seats, a
wrong table code, floods of connections that never finish the handshake. Each attack
must be refused naming the offender (its address, name or seat), without a crash (no
unhandled exception reaches the event loop), without a hang (everything under timeouts)
and without memory that stays behind, while an honest pair of nodes keeps talking.

The table-level attacks (a seated player cheating over real sockets) end with the honest
nodes' runners raising :class:`~p2p8s.net.runner.TableFailed` naming the seat
(protocol/table.md, "Faults").
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import tracemalloc
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import p2p8s.net.connecting as connecting
import p2p8s.net.node as node_module
from p2p8s.bots.registry import get_bot
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import lost_reason
from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.engine import DRAW, PASS, Action, Play
from p2p8s.errors import Error
from p2p8s.net.admission import Limits
from p2p8s.net.channel import Opener, Sealer
from p2p8s.net.handshake import Done, Failed, Handshake, Send, Side, busy_record
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import (
    MAX_HANDSHAKES,
    Connected,
    Connection,
    Incoming,
    Lost,
    NetEvent,
    Node,
    NotATable,
    Unreachable,
)
from p2p8s.net.runner import Options, Result, TableFailed, play_table
from p2p8s.store.tablelog import TableLog, read_log
from p2p8s.table import Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, SETUP
from p2p8s.table.core import Output
from p2p8s.table.logverify import verify
from p2p8s.wire import (
    MAX_FRAME,
    SIGN_TAG,
    VERSION,
    Body,
    FrameDecoder,
    Game,
    Heartbeat,
    Hello,
    Message,
    Received,
    Role,
    encode,
    public_key_bytes,
)

from .test_mesh import table as dealt_table

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")
WRONG_CODE = "000000"
NOT_THERE_TEXT = "could not join there"


# --- helpers ----------------------------------------------------------------------------

def said(lost: Lost) -> str:
    """Why the connection was lost, in the words a person reads."""
    return lost_reason(lost.reason)


def _node(name: str) -> Node:
    """A node on 127.0.0.1; heartbeats every 0.1 s, dead after 3 s (slack for a loaded
    loop: an honest peer must not be lost while the node is under attack)."""
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=CODE, table=TID,
                host="127.0.0.1", heartbeat_s=0.1, dead_after_s=3.0)


class Events:
    """Every event of a node, drained in the background; look-ups are bounded."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.seen: list[NetEvent] = []
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            self.seen.append(await self.node.next_event())

    async def first(self, pred: Callable[[NetEvent], bool], timeout_s: float = 3.0
                    ) -> NetEvent:
        """The first event (seen so far or coming) matching ``pred``."""
        async with asyncio.timeout(timeout_s):
            while True:
                for event in self.seen:
                    if pred(event):
                        return event
                await asyncio.sleep(0.005)

    def lost(self, key: bytes) -> list[Lost]:
        return [e for e in self.seen if isinstance(e, Lost) and e.peer.key == key]

    def close(self) -> None:
        self._task.cancel()


@dataclass
class Honest:
    """An honest pair: ``bob`` dialled ``ann``; both watch their events."""

    ann: Node
    bob: Node
    ann_events: Events
    bob_events: Events
    pings: int = 0

    async def ping(self, timeout_s: float = 3.0) -> None:
        """One game message each way arrives (the pair is unaffected)."""
        self.pings += 1
        tag = f"ping {self.pings}".encode()
        a_conn, b_conn = self.ann.peers[self.bob.key], self.bob.peers[self.ann.key]
        self.bob.send(b_conn, Game(to=None, payload=tag))
        self.ann.send(a_conn, Game(to=None, payload=tag))
        for events, sender in ((self.ann_events, self.bob), (self.bob_events, self.ann)):
            await events.first(lambda e, s=sender: isinstance(e, Incoming)
                               and e.peer.key == s.key and isinstance(
                                   e.received.message.body, Game)
                               and e.received.message.body.payload == tag, timeout_s)

    def unaffected(self) -> None:
        assert self.bob.key in self.ann.peers and self.ann.key in self.bob.peers
        assert not self.ann_events.lost(self.bob.key)
        assert not self.bob_events.lost(self.ann.key)


@pytest.fixture
async def loop_errors() -> AsyncIterator[list[dict[str, Any]]]:
    """Whatever reaches the event loop's exception handler (must stay empty)."""
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx))
    yield errors
    gc.collect()  # "Task exception was never retrieved" comes out on collection
    loop.set_exception_handler(None)


@pytest.fixture
async def honest(loop_errors: list[dict[str, Any]]) -> AsyncIterator[Honest]:
    async with _node("Ann") as ann, _node("Bob") as bob:
        pair = Honest(ann, bob, Events(ann), Events(bob))
        async with asyncio.timeout(5):
            await bob.connect("127.0.0.1", ann.port, role=Role.PEER)
            await pair.ann_events.first(lambda e: isinstance(e, Connected))
        await pair.ping()
        try:
            yield pair
            gc.collect()
            assert not loop_errors, loop_errors
        finally:
            pair.ann_events.close()
            pair.bob_events.close()


class Rogue:
    """A crafted client: raw bytes on a raw stream; after :meth:`handshake` (the real
    machine, with the code it holds) what it sends is sealed, so its frames reach the
    node's frame decoder as it wrote them, signed by a key of its own."""

    def __init__(self, *, name: str = "Rogue", identity: Ed25519PrivateKey | None = None,
                 table: bytes = TID, code: str = CODE) -> None:
        self.identity = identity or Ed25519PrivateKey.generate()
        self.key = public_key_bytes(self.identity)
        self.name = name
        self.table = table
        self.code = code
        self.seq = 0
        self.sent: list[bytes] = []
        self.decoder = FrameDecoder(peer="the node")
        self.pending: list[Received] = []
        self.sealer: Sealer | None = None
        self.opener: Opener | None = None
        self.raw: list[bytes] = []  # what went on the wire during the handshake

    async def open(self, port: int) -> Rogue:
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port), 3)
        self.where = f"127.0.0.1:{self.writer.get_extra_info('sockname')[1]}"
        return self

    def frame(self, body: Body, *, seat: int | None = None, seq: int | None = None,
              signer: Ed25519PrivateKey | None = None, table: bytes | None = None) -> bytes:
        """A signed frame (own key, next seq unless given)."""
        if seq is None:
            seq, self.seq = self.seq, self.seq + 1
        message = Message(table=self.table if table is None else table, seat=seat, seq=seq,
                          body=body)
        return encode(message, signer or self.identity)

    def send(self, data: bytes) -> None:
        """Write ``data``: sealed once the handshake is done, raw before."""
        self.sent.append(data)
        self.writer.write(data if self.sealer is None else self.sealer.seal(data))

    async def receive(self, timeout_s: float = 3.0) -> Received:
        async with asyncio.timeout(timeout_s):
            while not self.pending:
                data = await self.reader.read(65536)
                assert data, "the node closed the connection"
                assert self.opener is not None
                for plain in self.opener.receive_data(data):
                    self.pending.extend(self.decoder.receive_data(plain))
        return self.pending.pop(0)

    async def pake(self, *, table: bytes | None = None) -> Done | Failed:
        """Run the real handshake machine as the dialler (with this rogue's code);
        returns how it ended. Once done, :meth:`send` seals."""
        shake = Handshake(side=Side.DIALLER, code=self.code, identity=self.identity,
                          table=table, peer="the node")
        self.writer.write(hello := shake.start())
        self.raw.append(hello)
        async with asyncio.timeout(3):
            while True:
                data = await self.reader.read(65536)
                for event in shake.receive_data(data) if data else shake.receive_eof():
                    if isinstance(event, Send):
                        self.raw.append(event.data)
                        self.writer.write(event.data)
                    elif isinstance(event, Done):
                        self.sealer, self.opener = event.session.sealer, event.session.opener
                        self.pending.extend(self.decoder.receive_data(
                            b"".join(self.opener.receive_data(event.session.leftover))))
                        return event
                    elif isinstance(event, Failed):
                        return event

    async def handshake(self, *, role: Role = Role.JOIN, hold_hello: bool = False) -> bytes:
        """The PAKE, the node's hello, this rogue's hello; returns the hello frame (with
        ``hold_hello`` it is built but not sent)."""
        assert isinstance(await self.pake(), Done)
        frame = self.frame(Hello(name=self.name, nonce=os.urandom(32), port=0, role=role))
        if not hold_hello:  # the node answers the dialler's hello with its own
            self.send(frame)
            hello = await self.receive()
            assert isinstance(hello.message.body, Hello)
            self.peer_key = hello.key
        return frame

    async def closed_by_peer(self, timeout_s: float = 3.0) -> bytes:
        """Read until the node closes the connection (EOF or reset); returns the rest."""
        rest = b""
        async with asyncio.timeout(timeout_s):
            with contextlib.suppress(ConnectionResetError):
                while data := await self.reader.read(65536):
                    rest += data
        return rest

    def abort(self) -> None:
        self.writer.transport.abort()


async def rogue_on(honest: Honest, **kw: Any) -> tuple[Rogue, Connection]:
    """A rogue that passed the handshake with Ann (it knows the code); Ann's connection."""
    rogue = await Rogue(**kw).open(honest.ann.port)
    await rogue.handshake()
    event = await honest.ann_events.first(lambda e: isinstance(e, Connected)
                                          and e.peer.key == rogue.key)
    assert isinstance(event, Connected)
    return rogue, event.peer


async def lost_of(honest: Honest, rogue: Rogue, timeout_s: float = 3.0) -> Lost:
    event = await honest.ann_events.first(lambda e: isinstance(e, Lost)
                                          and e.peer.key == rogue.key, timeout_s)
    assert isinstance(event, Lost)
    return event


def _flip_last(frame: bytes) -> bytes:
    """The frame with one bit of its signature flipped."""
    return frame[:-1] + bytes([frame[-1] ^ 1])


def _sign_raw(body_without_sig: bytes, key: Ed25519PrivateKey) -> bytes:
    body = body_without_sig + key.sign(SIGN_TAG + body_without_sig)
    return len(body).to_bytes(4, "big") + body


# --- attacks after the handshake: the offender is Lost, named, with the error --------------

OVERSIZE = [(MAX_FRAME + 1, "frame length 65537 is outside 98..65536"),
            (0xFFFFFFFF, "frame length 4294967295 is outside 98..65536"),
            (0, "frame length 0 is outside 98..65536")]


@pytest.mark.parametrize(("length", "words"), OVERSIZE, ids=["64KiB+1", "0xFFFFFFFF", "zero"])
async def test_an_oversize_length_prefix_is_refused_naming_the_peer(
        honest: Honest, length: int, words: str) -> None:
    rogue, conn = await rogue_on(honest)
    rogue.send(length.to_bytes(4, "big") + b"\0" * 1000)  # the body never comes
    lost = await lost_of(honest, rogue)
    assert said(lost) == f"{rogue.where}: {words}"
    assert lost.error is not None and conn.decoder.buffered == 0
    await rogue.closed_by_peer()
    await honest.ping()
    honest.unaffected()


async def test_a_truncated_frame_then_close_is_named(honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    frame = rogue.frame(Game(to=None, payload=b"x" * 500))
    rogue.send(frame[:300])
    rogue.writer.close()
    lost = await lost_of(honest, rogue)
    assert said(lost) == f"{rogue.where}: closed the connection in the middle of a message"
    assert lost.error is None  # a drop cuts frames too: no evidence against the peer
    await honest.ping()
    honest.unaffected()


async def test_garbage_bytes_are_refused_naming_the_peer(honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    # A plausible length, then noise: the signature cannot check out.
    rogue.send((200).to_bytes(4, "big") + bytes(range(200)))
    lost = await lost_of(honest, rogue)
    assert said(lost).startswith(f"{rogue.where}: ")
    assert "protocol version 0" in said(lost)  # the first check that fails
    rogue2, _ = await rogue_on(honest)
    rogue2.send((200).to_bytes(4, "big") + bytes([VERSION]) + rogue2.key + os.urandom(167))
    lost2 = await lost_of(honest, rogue2)
    assert said(lost2) == f"{rogue2.where}: bad signature"
    await honest.ping()
    honest.unaffected()


async def test_a_valid_frame_with_a_bad_signature_is_refused(honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    frame = bytearray(rogue.frame(Game(to=None, payload=b"legit")))
    frame[-1] ^= 0x80
    rogue.send(bytes(frame))
    lost = await lost_of(honest, rogue)
    assert said(lost) == f"{rogue.where}: bad signature"
    assert isinstance(lost.error, Exception)
    assert not any(isinstance(e, Incoming) and e.peer.key == rogue.key
                   for e in honest.ann_events.seen)
    honest.unaffected()


async def test_an_unknown_protocol_version_is_refused_with_both_versions(
        honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    frame = rogue.frame(Game(to=None, payload=b"from the future"))
    body = bytes([VERSION + 1]) + frame[5:-64]
    rogue.send(_sign_raw(body, rogue.identity))
    lost = await lost_of(honest, rogue)
    assert said(lost) == (f"{rogue.where}: speaks p2p8s protocol version {VERSION + 1}, this "
                          f"program speaks {VERSION}; both players need the same p2p8s "
                          "release")
    honest.unaffected()


async def test_a_replayed_frame_is_refused_naming_the_peer(honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    frame = rogue.frame(Game(to=None, payload=b"pay me once"))
    rogue.send(frame)
    got = await honest.ann_events.first(lambda e: isinstance(e, Incoming)
                                        and e.peer.key == rogue.key)
    assert isinstance(got, Incoming)
    rogue.send(frame)  # the same signed bytes again
    lost = await lost_of(honest, rogue)
    seq = got.received.message.seq
    assert said(lost) == f"Rogue (127.0.0.1): sequence number {seq} after {seq}"
    assert sum(isinstance(e, Incoming) and e.peer.key == rogue.key
               for e in honest.ann_events.seen) == 1  # delivered once only
    await honest.ping()
    honest.unaffected()


async def test_a_frame_signed_by_another_key_is_refused(honest: Honest) -> None:
    """The rogue forges a frame signed with Bob's real identity key on its own
    connection (it pretends to be Bob): refused, the rogue is named, Bob is untouched."""
    rogue, _ = await rogue_on(honest)
    rogue.send(rogue.frame(Game(to=None, payload=b"I am Bob"), signer=honest.bob.identity))
    lost = await lost_of(honest, rogue)
    assert said(lost) == (f"{rogue.where}: signed with a different identity key than the "
                          "connection's")
    await honest.ping()
    honest.unaffected()


async def test_a_seated_peer_claiming_another_seat_is_named_by_its_seat(
        honest: Honest) -> None:
    rogue, conn = await rogue_on(honest)
    conn.set_seat(3)
    rogue.send(rogue.frame(Game(to=None, payload=b"from seat 1"), seat=1))
    lost = await lost_of(honest, rogue)
    assert said(lost) == f"{rogue.where} (seat 3): claims seat 1"
    assert lost.error is not None and lost.error.seat == 3
    honest.unaffected()


async def test_a_message_for_another_table_is_refused(honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    rogue.send(rogue.frame(Heartbeat(), table=b"T" * 8))
    lost = await lost_of(honest, rogue)
    assert said(lost) == "Rogue (127.0.0.1): message for another table"
    honest.unaffected()


async def test_frames_right_behind_the_hello_are_checked_too(honest: Honest) -> None:
    """Frames arriving in the same read as the hello are delivered by the handshake
    itself: a replay among them must lose the connection naming the peer (and not leave a
    half-dead connection in ``peers`` until the heartbeat timeout)."""
    rogue = await Rogue().open(honest.ann.port)
    hello = await rogue.handshake(hold_hello=True)
    rogue.send(hello + hello)  # the hello again, same seq 0
    lost = await lost_of(honest, rogue, timeout_s=2.5)  # before the 3 s heartbeat timeout
    assert said(lost) == "Rogue (127.0.0.1): sequence number 0 after 0"
    assert lost.error is not None
    assert rogue.key not in honest.ann.peers
    await rogue.closed_by_peer()
    honest.unaffected()


# --- attacks during the handshake: refused, logged naming the address -------------------

def _handshake_failures(caplog: pytest.LogCaptureFixture, where: str) -> list[str]:
    """The node's log lines of failed handshakes with ``where``, with the error said in
    words (the log record keeps the error; its developer form is what the log shows)."""
    return [f"handshake with {where} failed: {PLAIN.error(r.args[1])}"
            for r in caplog.records
            if r.name == "p2p8s.net.node" and r.getMessage().startswith(
                f"handshake with {where} failed: ")
            and isinstance(r.args, tuple) and isinstance(r.args[1], Error)]


async def _refused_in_handshake(honest: Honest, rogue: Rogue,
                                caplog: pytest.LogCaptureFixture, *, earlier: int = 0) -> str:
    """The node closed on ``rogue`` and logged why, naming its address; the rogue never
    became a peer (``earlier``: handshakes its key completed before)."""
    await rogue.closed_by_peer()
    async with asyncio.timeout(2):
        while not _handshake_failures(caplog, rogue.where):
            await asyncio.sleep(0.005)
    [line] = _handshake_failures(caplog, rogue.where)
    assert rogue.key not in honest.ann.peers
    assert sum(isinstance(e, Connected) and e.peer.key == rogue.key
               for e in honest.ann_events.seen) == earlier
    return line


def _v2_hello(r: Rogue, version: int = 2) -> bytes:
    """A version-2 node's first frame (a signed ``hello``)."""
    return _sign_raw(bytes([version]) + r.frame(Hello(
        name="R", nonce=bytes(32), port=0, role=Role.JOIN))[5:-64], r.identity)


HANDSHAKE_ATTACKS = {
    "0xFFFFFFFF": (lambda r: b"\xff\xff\xff\xff\x03", "not a valid handshake hello"),
    "garbage": (lambda r: b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "not a valid handshake hello"),
    "version-2": (lambda r: _v2_hello(r),
                  f"speaks another version of the p2p8s protocol, or is not p2p8s (this "
                  f"program speaks {VERSION})"),
    "truncated": (lambda r: Handshake(side=Side.DIALLER, code=CODE, identity=r.identity,
                                      table=None, peer="x").start()[:30],
                  "closed the connection in the middle of a record"),
    "not-a-point": (lambda r: (58).to_bytes(4, "big") + bytes([VERSION]) + b"S" + b"\xff" * 32
                    + bytes(24), "not a valid handshake hello"),
}


@pytest.mark.parametrize("attack", list(HANDSHAKE_ATTACKS))
async def test_bad_bytes_in_the_handshake_are_refused_naming_the_address(
        honest: Honest, caplog: pytest.LogCaptureFixture, attack: str) -> None:
    caplog.set_level(logging.INFO, logger="p2p8s.net.node")
    make, words = HANDSHAKE_ATTACKS[attack]
    rogue = await Rogue().open(honest.ann.port)
    rogue.send(make(rogue))
    if attack == "truncated":
        rogue.writer.write_eof()
    line = await _refused_in_handshake(honest, rogue, caplog)
    assert words in line, line
    await honest.ping()
    honest.unaffected()


async def test_a_wrong_table_code_fails_the_pake_and_the_node_says_nothing(
        honest: Honest, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="p2p8s.net.node")
    rogue = await Rogue(code=WRONG_CODE).open(honest.ann.port)
    ended = await rogue.pake()
    assert isinstance(ended, Failed) and ended.error.code == "pake-failed"
    rogue.abort()
    line = await _refused_in_handshake(honest, rogue, caplog)
    assert line.endswith(f"{rogue.where}: it does not know this table's code"), line
    honest.unaffected()


async def test_a_replayed_handshake_is_refused(
        honest: Honest, caplog: pytest.LogCaptureFixture) -> None:
    """Every record of an honest dialler's handshake, replayed on a new connection: the
    node's SPAKE2 message is fresh, so the old ``auth`` does not open."""
    caplog.set_level(logging.INFO, logger="p2p8s.net.node")
    identity = Ed25519PrivateKey.generate()
    first = await Rogue(identity=identity).open(honest.ann.port)
    await first.handshake()
    first.abort()
    await lost_of(honest, first)
    again = await Rogue(identity=identity).open(honest.ann.port)
    again.writer.write(b"".join(first.raw))
    line = await _refused_in_handshake(honest, again, caplog, earlier=1)
    assert line.endswith(f"{again.where}: it does not know this table's code"), line
    honest.unaffected()


def _resequence(frame: bytes, identity: Ed25519PrivateKey, *, seq: int) -> bytes:
    """The same message with another sequence number, signed again."""
    from p2p8s.wire import decode_body

    message = decode_body(frame[4:]).message
    return encode(Message(table=message.table, seat=message.seat, seq=seq, prev=message.prev,
                          body=message.body), identity)


async def test_closing_with_a_handshake_pending_logs_no_traceback(
        loop_errors: list[dict[str, Any]]) -> None:
    """A node that closes (or a program that exits: asyncio.run cancels what is left)
    while a stranger sits in its handshake: the cancelled connection task must not end
    up as "Exception in callback" with a traceback (Python 3.11's start_server callback
    calls ``task.exception()`` on it)."""
    async with _node("Ann") as ann:
        rogue = await Rogue().open(ann.port)
        await rogue.reader.readexactly(4)  # the node's hello: it is waiting for ours
        accepts = [t for t in asyncio.all_tasks()
                   if getattr(t.get_coro(), "__qualname__", "") == "Node._accept"]
        assert len(accepts) == 1
    for task in accepts:  # what asyncio.run does with the tasks left at the end
        task.cancel()
    await asyncio.gather(*accepts, return_exceptions=True)
    await asyncio.sleep(0)  # the done callbacks run
    assert not loop_errors, loop_errors
    rogue.abort()


# --- floods ---------------------------------------------------------------------------

def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@dataclass
class Usage:
    tasks: int
    fds: int
    memory: int

    @classmethod
    def now(cls) -> Usage:
        gc.collect()
        return cls(tasks=len(asyncio.all_tasks()), fds=_fds(),
                   memory=tracemalloc.get_traced_memory()[0])



async def _open_many(port: int, count: int, batch: int = 50
                     ) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    out: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    for start in range(0, count, batch):
        out.extend(await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                          for _ in range(min(batch, count - start)))))
    return out


async def _settle(baseline: Usage, *, timeout_s: float) -> Usage:
    """Wait (bounded) until tasks and descriptors are back to the baseline."""
    async with asyncio.timeout(timeout_s):
        while True:
            now = Usage.now()
            if now.tasks <= baseline.tasks and now.fds <= baseline.fds:
                return now
            await asyncio.sleep(0.05)


def _quiet_handshake_log(caplog: pytest.LogCaptureFixture) -> None:
    """Hundreds of "handshake failed" lines would be kept by pytest's log capture and
    count as memory: keep the node's INFO lines out of these measurements."""
    caplog.set_level(logging.WARNING, logger="p2p8s.net.node")


async def test_a_flood_of_silent_connections_leaves_nothing_behind(
        honest: Honest, caplog: pytest.LogCaptureFixture) -> None:
    """Three waves of 600 connections that never say a word, all open at once, then
    reset by the attacker: the node keeps at most MAX_HANDSHAKES of them, the honest pair
    keeps talking during each wave, and after each the node is back to its tasks and
    descriptors; memory does not grow wave by wave."""
    _quiet_handshake_log(caplog)
    loop = asyncio.get_running_loop()
    tracemalloc.start()
    try:
        baseline = Usage.now()
        waves: list[tuple[Usage, Usage, float, float]] = []
        for _ in range(3):
            async with asyncio.timeout(30):
                start = loop.time()
                conns = await _open_many(honest.ann.port, 600)
                opened = loop.time() - start
                await honest.ping()
                peak = Usage.now()
                for _, writer in conns:
                    writer.transport.abort()
                del conns
                start = loop.time()
                after = await _settle(baseline, timeout_s=10)
                waves.append((peak, after, opened, loop.time() - start))
        print(f"\nsilent flood: baseline {baseline}")
        for peak, after, opened, settled in waves:
            print(f"  600 opened in {opened:.2f} s, peak {peak}; back in {settled:.2f} s: "
                  f"{after}")
        for peak, _, _, _ in waves:
            # This process holds the attacker's 600 ends; the node at most its cap.
            assert 600 <= peak.fds - baseline.fds <= 600 + MAX_HANDSHAKES
            assert peak.tasks - baseline.tasks <= 2 * MAX_HANDSHAKES + 8
        # The first wave grows the event loop's tables (selector map, task set) for good;
        # later waves leave nothing more behind.
        growth = [after.memory for _, after, _, _ in waves]
        assert growth[2] - growth[1] < 64 * 1024, growth
        assert growth[2] - baseline.memory < 512 * 1024, growth
        assert honest.ann.peers.keys() == {honest.bob.key}
        honest.unaffected()
    finally:
        tracemalloc.stop()


async def test_half_open_handshakes_time_out_and_memory_returns(
        honest: Honest, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """300 connections each send part of a hello and then nothing (slowloris): the node
    holds at most a few per address (the rest are turned away at once), for at most the
    first-message deadline, then drops them all; memory and descriptors return to the
    baseline and the honest pair never notices. (A maximal frame's length is refused at
    its first 5 bytes now: only a hello may come before the handshake.)"""
    _quiet_handshake_log(caplog)
    monkeypatch.setattr(connecting, "FIRST_MESSAGE_S", 1.0)
    loop = asyncio.get_running_loop()
    chunk = Handshake(side=Side.DIALLER, code=CODE, identity=Ed25519PrivateKey.generate(),
                      table=None, peer="x").start()[:30]
    tracemalloc.start()
    try:
        before = Usage.now()
        for wave in ("warm-up", "measured"):
            if wave == "measured":
                baseline = Usage.now()
            async with asyncio.timeout(30):
                conns = await _open_many(honest.ann.port, 300)
                for _, writer in conns:
                    writer.write(chunk)
                await honest.ping()
                peak = Usage.now()
                start = loop.time()
                # The node gives up on them: every attacker sees its connection end.
                for reader, _ in conns:
                    with contextlib.suppress(ConnectionResetError):
                        while await reader.read(65536):
                            pass
                dropped = loop.time() - start
                await honest.ping()
                for _, writer in conns:
                    writer.close()
                del conns
                after = await _settle(before, timeout_s=10)
        print(f"\nhalf-open flood: baseline {baseline}, peak {peak}, all dropped "
              f"{dropped:.2f} s later, after {after}")
        # The node holds at most its cap of partial hellos (each with the stream's own
        # buffer); the attacker's sockets are in the kernel, not counted.
        assert peak.memory - baseline.memory < MAX_HANDSHAKES * 192 * 1024
        assert after.memory - baseline.memory < 64 * 1024
        assert dropped < 5.0
        assert honest.ann.peers.keys() == {honest.bob.key}
        honest.unaffected()
    finally:
        tracemalloc.stop()


async def _open_from(source: str, port: int, count: int
                     ) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """``count`` connections to ``port`` from the loopback address ``source``."""
    return list(await asyncio.gather(*(asyncio.open_connection(
        "127.0.0.1", port, local_addr=(source, 0)) for _ in range(count))))


async def test_connections_beyond_the_per_address_cap_are_turned_away_at_once(
        honest: Honest, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``per_source`` silent connections from one address in their handshake and
    ``queue`` more waiting for a slot (they get no hello), the next ones from there are
    closed at once (named in the log), while a newcomer from another address gets in
    at once."""
    caplog.set_level(logging.INFO, logger="p2p8s.net.node")
    monkeypatch.setattr(connecting, "HANDSHAKE_TIMEOUT_S", 60.0)  # none frees its slot
    monkeypatch.setattr(connecting, "ACCEPT_TIMEOUT_S", 60.0)
    monkeypatch.setattr(connecting, "FIRST_MESSAGE_S", 60.0)
    per_source, queue = Limits().per_source, Limits().queue
    async with asyncio.timeout(20):
        held = await _open_from("127.0.0.2", honest.ann.port, per_source)
        # Each connection in its handshake got the node's hello: the node holds them all.
        for reader, _ in held:
            await reader.readexactly(4)
        waiting = await _open_from("127.0.0.2", honest.ann.port, queue)
        await asyncio.sleep(0.2)
        assert all(len(reader._buffer) == 0 for reader, _ in waiting)  # no hello yet
        held += waiting
        [(reader, writer)] = await _open_from("127.0.0.2", honest.ann.port, 1)
        where = f"127.0.0.2:{writer.get_extra_info('sockname')[1]}"
        with contextlib.suppress(ConnectionResetError):  # not even a hello: a busy record
            assert await reader.read() == busy_record(1.0)
        assert any(r.getMessage() == f"turned {where} away: busy" for r in caplog.records)
        async with _node("Cat") as cat:
            conn = await cat.connect("127.0.0.1", honest.ann.port, role=Role.PEER,
                                     timeout_s=2.0)
            assert conn.name == "Ann" and cat.key in honest.ann.peers
        await honest.ping()
        for _, w in held:
            w.transport.abort()
        writer.transport.abort()
    honest.unaffected()


# --- a seated player cheating over real sockets: the honest runners stop naming it ------

class Front:
    """A frontend that records what it is shown; ``answer`` plays a typed line."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.events: list[object] = []
        self.why = ""
        self.answer: Callable[[Table], Action | None] = lambda table: None

    def started(self, table: Table, config: TableConfig, **_: object) -> None:
        self.table = table

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        self.events.extend(events)

    def presence(self, seat: int, name: str, *, connected: bool, reason: str) -> None:
        return None

    def turn(self, table: Table, now: float) -> None:
        return None

    def warn(self, table: Table, seconds_left: float) -> None:
        return None

    def typed(self, table: Table, line: str, now: float) -> Action | None:
        return self.answer(table)

    def finished(self, table: Table, why: str) -> None:
        self.why = why

    def faults(self) -> list[tev.Fault]:
        return [e for e in self.events if isinstance(e, tev.Fault)]


CHEAT = 2  # the cheating seat in the auto-played tables


def _stopped_naming(results: list[Any], fronts: list[Front], culprit: int, *words: str,
                    shown: bool = True) -> list[str]:
    """Every honest runner raised TableFailed naming ``culprit`` (and ``words``); with
    ``shown``, its frontend was shown the fault naming the seat too (a connection lost to
    bad bytes is not a table fault: the runner only raises)."""
    texts = []
    for seat, result in enumerate(results):
        if seat == culprit:
            continue
        assert isinstance(result, TableFailed), (seat, result)
        text = PLAIN.error(result)
        assert f"P{culprit} (seat {culprit})" in text, text
        for word in words:
            assert word in text, text
        if shown:
            faults = fronts[seat].faults()
            assert faults and faults[0].seat == culprit, faults
        texts.append(text)
    return texts


async def _play_auto(meshes: list[Mesh], fronts: list[Front], tmp_path: Path
                     ) -> list[Any]:
    """Every seat auto-played; the honest runners' outcomes (the cheater's runner is
    cancelled once they stopped: alone, it has nobody left to play with)."""
    tasks = [asyncio.ensure_future(play_table(m, f, options=Options(
        auto=get_bot("max"), auto_delay_s=0.01, log_dir=tmp_path / str(i))))
        for i, (m, f) in enumerate(zip(meshes, fronts, strict=True))]
    try:
        async with asyncio.timeout(40):
            honest = await asyncio.gather(*(t for s, t in enumerate(tasks) if s != CHEAT),
                                          return_exceptions=True)
    finally:
        tasks[CHEAT].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    results: list[Any] = list(honest)
    results.insert(CHEAT, None)
    return results


def _logs_flushed(tmp_path: Path, seats: Sequence[int]) -> list[TableLog]:
    """Each honest node's log was closed and reads back whole."""
    logs = []
    for seat in seats:
        [path] = (tmp_path / str(seat)).glob("*.p2p8slog")
        log = read_log(path)
        assert log.header["me"] == seat and log.frames
        logs.append(log)
    return logs


def _no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


def _cheating_post(cheat: Callable[[Mesh, int | None, bytes, bytes], None]
                   ) -> Callable[..., tuple[bytes, bytes]]:
    """Mesh.post for seat CHEAT: post honestly, then ``cheat(mesh, to, payload, body)``
    once, after its third crypto broadcast (mid-round, well into the game)."""
    honest_post = Mesh.post
    state = {"count": 0}

    def post(self: Mesh, to: int | None, payload: bytes, *, prev: bytes = b""
             ) -> tuple[bytes, bytes]:
        digest, body = honest_post(self, to, payload, prev=prev)
        if self.seat == CHEAT and to is None and payload[:1] == bytes([CRYPTO]):
            state["count"] += 1
            if state["count"] == 3:
                cheat(self, to, payload, body)
        return digest, body
    return post


def _replay_frame(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """The same signed frame (same wire sequence number) once more to everyone."""
    for conn in mesh.peers.values():
        conn.writer.write(conn.sealer.seal(len(body).to_bytes(4, "big") + body))


def _claim_seat_1(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """A frame signed by seat 2 that says its author is seat 1."""
    frame = encode(Message(table=mesh.node.table, seat=1, seq=10**9,
                           body=Game(to=None, payload=payload)), mesh.node.identity)
    for seat in (0, 1):
        mesh.peers[seat].writer.write(mesh.peers[seat].sealer.seal(frame))


SEAT_1_KEY: list[Ed25519PrivateKey] = []


def _signed_by_seat_1(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """Seat 1's own identity key signs a frame sent on seat 2's connections."""
    frame = encode(Message(table=mesh.node.table, seat=1, seq=10**9,
                           body=Game(to=None, payload=payload)), SEAT_1_KEY[0])
    for seat in (0, 1):
        mesh.peers[seat].writer.write(mesh.peers[seat].sealer.seal(frame))


def _crypto_claims_seat_1(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """A well-signed frame from seat 2 whose crypto message says it is seat 1's."""
    msg = decode_crypto(payload[1:])
    forged = bytes([CRYPTO]) + dc_replace(msg, seat=1).encode()
    mesh.post(None, forged)


def _replay_crypto(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """Another crypto message under the sequence number just used, in a fresh frame
    (an identical copy is what a resend delivers: dropped, no fault)."""
    msg = decode_crypto(payload[1:])
    other = dc_replace(msg, echo=tuple((c + 1, h) for c, h in msg.echo))
    mesh.post(None, bytes([CRYPTO]) + other.encode())


def _hostile_setup(mesh: Mesh, to: int | None, payload: bytes, body: bytes) -> None:
    """A setup payload whose table id is a huge number (the honest logs keep the signed
    frame; test_fuzz_decoders checks that the offline audit of such a log is safe)."""
    mesh.post(None, bytes([SETUP]) + msgpack.packb([2**63, {}, 1, 1.0, []]))


WIRE_CHEATS = {
    "replayed-frame": (_replay_frame, ("sent invalid data and was disconnected",
                                       "sequence number")),
    "claims-another-seat": (_claim_seat_1, ("sent invalid data and was disconnected",
                                            "claims seat 1")),
    "signed-by-another-seat": (_signed_by_seat_1, (
        "sent invalid data and was disconnected",
        "signed with a different identity key than the connection's")),
}
CRYPTO_CHEATS = {
    "crypto-claims-another-seat": (_crypto_claims_seat_1, (
        "broke the rules (P2 sent a message signed as seat 1)",)),
    "replayed-crypto-message": (_replay_crypto, (
        "broke the rules (P2 signed two different messages for round ",
        " (equivocation))")),
    "hostile-setup": (_hostile_setup, ("broke the rules (P2 plays under a different table "
                                       "setup (roster or rules))",)),
}


@pytest.mark.parametrize("cheat", [*WIRE_CHEATS, *CRYPTO_CHEATS])
async def test_a_cheating_seat_over_tcp_stops_the_table_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        loop_errors: list[dict[str, Any]], cheat: str) -> None:
    """Seat 2 plays honestly, then once sends a bad frame to its peers over the real
    connections: both honest runners stop with TableFailed naming seat 2 (no hang, no
    traceback), and their logs were closed and read back."""
    do, words = (WIRE_CHEATS | CRYPTO_CHEATS)[cheat]
    fronts = [Front() for _ in range(3)]
    async with dealt_table(3) as (nodes, meshes, _views):
        SEAT_1_KEY[:] = [nodes[1].identity]
        monkeypatch.setattr(Mesh, "post", _cheating_post(do))
        results = await _play_auto(meshes, fronts, tmp_path)
    texts = _stopped_naming(results, fronts, CHEAT, *words, shown=cheat in CRYPTO_CHEATS)
    print(f"\n{cheat}: {texts[0]}")
    logs = _logs_flushed(tmp_path, (0, 1))
    if cheat in CRYPTO_CHEATS:  # the signed lie is in the honest logs: the audit names it
        for log in logs:
            report = verify(log.frames)
            assert not report.ok and report.fault is not None
            assert report.fault.seat == CHEAT, report.fault
    _no_tracebacks(caplog)
    gc.collect()
    assert not loop_errors, loop_errors


async def _humans_waiting(fronts: list[Front]) -> int:
    """Wait until every node is dealt and waits for the same person; that seat."""
    async with asyncio.timeout(20):
        while True:
            tables = [f.table for f in fronts]
            rounds = [t.round if t is not None else None for t in tables]
            if all(r is not None for r in rounds):
                turns = {r.turn for r in rounds if r is not None}
                if len(turns) == 1 and any(t is not None and t.my_turn for t in tables):
                    return turns.pop()
            await asyncio.sleep(0.01)


def _lawless(table: Table) -> None:
    """Let ``table.act`` send any action, at any time (the rule checks skipped)."""
    def act(action: Action, now: float) -> Output:
        table._ctx.now = max(table._ctx.now, now)
        positions = table._log.positions_for(table.me, action, table.me)
        table._guarded(lambda: table._log.author(table.me, action, positions, table.me))
        return table._flush()
    table.act = act  # type: ignore[method-assign]


def _an_illegal_move(table: Table) -> Action:
    """A card of this seat's hand that does not match (not an 8), else an early pass."""
    rnd = table.round
    assert rnd is not None
    bad = [c for c in rnd.hands[table.me] if c is not None and not rnd.playable(c)
           and c.rank != 8]
    return Play((bad[0],)) if bad else PASS


@pytest.mark.parametrize("cheat", ["out-of-turn", "illegal-card"])
async def test_a_person_breaking_the_rules_over_tcp_is_named(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        loop_errors: list[dict[str, Any]], cheat: str) -> None:
    """Three people (no computer), everyone waits for the seat on turn. A patched node
    sends a draw out of turn, or the seat on turn plays a card that does not match (or
    passes before drawing): the other runners stop with TableFailed naming that seat."""
    fronts = [Front() for _ in range(3)]
    lines: list[asyncio.Queue[str]] = [asyncio.Queue() for _ in range(3)]
    async with dealt_table(3) as (_nodes, meshes, _views):
        tasks = [asyncio.ensure_future(play_table(m, f, lines=q, options=Options(
            log_dir=tmp_path / str(i), turn_timeout_s=60)))
            for i, (m, f, q) in enumerate(zip(meshes, fronts, lines, strict=True))]
        turn = await _humans_waiting(fronts)
        culprit = (turn + 1) % 3 if cheat == "out-of-turn" else turn
        table = fronts[culprit].table
        assert table is not None
        _lawless(table)
        moves: list[Action] = []

        def illegal(t: Table) -> Action:
            moves.append(_an_illegal_move(t))
            return moves[-1]
        fronts[culprit].answer = (lambda t: DRAW) if cheat == "out-of-turn" else illegal
        lines[culprit].put_nowait("cheat")
        honest = [s for s in range(3) if s != culprit]
        async with asyncio.timeout(20):
            done = await asyncio.gather(*(tasks[s] for s in honest), return_exceptions=True)
        tasks[culprit].cancel()
        await asyncio.gather(tasks[culprit], return_exceptions=True)
    results: list[Any] = [None] * 3
    for s, r in zip(honest, done, strict=True):
        results[s] = r
    if cheat == "out-of-turn":
        words: tuple[str, ...] = (f"P{culprit} acted (draw) out of turn: it is P{turn}'s turn",)
    else:
        [move] = moves
        words = (f"P{culprit} made an illegal move ({move})",
                 "(R-PASS)" if move == PASS else "(R-MATCH)")
    texts = _stopped_naming(results, fronts, culprit, *words)
    print(f"\n{cheat}: {texts[0]}")
    for log in _logs_flushed(tmp_path, honest):
        report = verify(log.frames)
        assert not report.ok and report.fault is not None
        assert report.fault.seat == culprit, report.fault
    _no_tracebacks(caplog)
    gc.collect()
    assert not loop_errors, loop_errors


# --- the dialling side: a hostile listener ------------------------------------------------

@contextlib.asynccontextmanager
async def fake_table(answer: Callable[[Rogue], bytes], *, close: bool
                     ) -> AsyncIterator[tuple[int, list[str]]]:
    """A listener that answers every connection with ``answer(rogue)`` (then closes, or
    keeps the connection open and silent); yields its port and the peers it saw."""
    seen: list[str] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(f"127.0.0.1:{writer.get_extra_info('peername')[1]}")
        writer.write(answer(Rogue(name="Fake")))
        with contextlib.suppress(OSError):
            if close:
                await writer.drain()
                writer.close()
            else:
                await reader.read()  # until the dialler gives up

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], seen
    finally:
        server.close()


def _acceptor(r: Rogue, *, code: str = WRONG_CODE, table: bytes = TID) -> bytes:
    """A listener's hello of the real handshake (a table with another code)."""
    return Handshake(side=Side.ACCEPTOR, code=code, identity=r.identity, table=table,
                     peer="x").start()


PHISHING = (b"This table moved to a new machine. Run: p2p8s join QZ7K2M@198.51.100.7:4242 "
            b"(and tell the others)")

DIALLED = {
    "http-server": (lambda r: b"HTTP/1.1 200 OK\r\n\r\n", True, NotATable,
                    "is not a p2p8s table (it answered with something else)"),
    "0xFFFFFFFF": (lambda r: b"\xff\xff\xff\xff" + b"\0" * 100, False, NotATable,
                   "is not a p2p8s table"),
    "version-2": (lambda r: _v2_hello(r), False, Unreachable,
                  f"speaks another version of the p2p8s protocol, or is not p2p8s (this "
                  f"program speaks {VERSION})"),
    "truncated-then-close": (lambda r: _acceptor(r)[:40], True, Unreachable, NOT_THERE_TEXT),
    "silent": (lambda r: b"", False, Unreachable, " did not answer the handshake in time"),
    # nothing at all, then a close: no wrong code, the table did not answer (issue #14)
    "closes-at-once": (lambda r: b"", True, Unreachable, "did not answer (it may be busy"),
    # it never sends its auth (it cannot: another code): the dialler gives up in time
    "wrong-code": (lambda r: _acceptor(r), False, Unreachable, "did not answer the handshake"),
    "wrong-code-then-text": (lambda r: _acceptor(r) + len(PHISHING).to_bytes(4, "big")
                             + PHISHING, False, Unreachable, NOT_THERE_TEXT),
    "v2-refusal-text": (lambda r: (len(PHISHING) + 1).to_bytes(4, "big") + bytes([2])
                        + PHISHING, True, Unreachable,
                        f"speaks another version of the p2p8s protocol, or is not p2p8s "
                        f"(this program speaks {VERSION})"),
    # a length prefix and junk: its first byte ("P", 80) is no version to show (#14)
    "length-then-junk": (lambda r: (200).to_bytes(4, "big") + PHISHING.ljust(200, b"\0"),
                         True, Unreachable, "another version of the p2p8s protocol, or is "
                         "not p2p8s"),
}


@pytest.mark.parametrize("attack", list(DIALLED))
async def test_a_hostile_listener_is_refused_by_the_dialler_naming_it(
        loop_errors: list[dict[str, Any]], attack: str) -> None:
    """A joiner dials something that is not an honest table: a clear error naming the
    address (no crash, no hang past the handshake timeout)."""
    answer, close, error, words = DIALLED[attack]
    async with fake_table(answer, close=close) as (port, _seen), _node("Joe") as joe:
        with pytest.raises(error) as info:
            async with asyncio.timeout(5):
                await joe.connect("127.0.0.1", port, role=Role.JOIN, timeout_s=1.0)
        text = PLAIN.error(info.value)
        assert words in text, text
        assert "p2p8s join" not in text and "moved" not in text, text  # never its words
        assert "protocol version" not in text, text  # nor a number it chose
        assert f"127.0.0.1:{port}" in text, text
        assert joe.peers == {}
    gc.collect()
    assert not loop_errors, loop_errors


# --- an honest table under a flood ----------------------------------------------------------

async def _harass(ports: list[int], stop: asyncio.Event, counts: dict[str, int]) -> None:
    """Waves of hostile connections at every port until ``stop`` (more at once than a
    node lets into its handshake): silent ones, oversize lengths, garbage, wrong-code
    hellos."""
    wrong = Rogue(code=WRONG_CODE)
    payloads = [b"", b"\xff\xff\xff\xff", os.urandom(300),
                Handshake(side=Side.DIALLER, code=WRONG_CODE, identity=wrong.identity,
                          table=None, peer="x").start()]
    while not stop.is_set():
        wave = []
        for port in ports:
            opened = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                            for _ in range(MAX_HANDSHAKES + 16)),
                                          return_exceptions=True)
            wave.extend(c for c in opened if not isinstance(c, BaseException))
        for i, (_, writer) in enumerate(wave):
            writer.write(payloads[i % len(payloads)])
        counts["connections"] += len(wave)
        counts["waves"] += 1
        await asyncio.sleep(0.05)
        for _, writer in wave:
            writer.transport.abort()


async def test_an_honest_table_plays_a_round_through_a_flood(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        loop_errors: list[dict[str, Any]]) -> None:
    """While waves of hostile connections hit every node's port, the three honest nodes
    play a whole round: nobody is lost, every runner finishes, every log audits ok."""
    _quiet_handshake_log(caplog)
    fronts = [Front() for _ in range(3)]
    counts = {"connections": 0, "waves": 0}
    stop = asyncio.Event()
    async with dealt_table(3) as (nodes, meshes, _views):
        attacker = asyncio.ensure_future(_harass([n.port for n in nodes], stop, counts))
        try:
            async with asyncio.timeout(60):
                results = await asyncio.gather(*(play_table(m, f, options=Options(
                    auto=get_bot("max"), auto_delay_s=0.01, rounds=1,
                    log_dir=tmp_path / str(i))) for i, (m, f) in enumerate(
                        zip(meshes, fronts, strict=True))), return_exceptions=True)
        finally:
            stop.set()
            await attacker
    print(f"\nflood during a round: {counts['connections']} hostile connections in "
          f"{counts['waves']} waves")
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert counts["waves"] >= 2
    for log in _logs_flushed(tmp_path, (0, 1, 2)):
        assert verify(log.frames).ok
    _no_tracebacks(caplog)
    gc.collect()
    assert not loop_errors, loop_errors


async def test_a_peer_that_stops_reading_is_dropped_before_memory_grows(
        honest: Honest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seated peer that never reads: what waits unsent for it is capped (MAX_UNSENT),
    then it is lost, named; the honest pair goes on."""
    monkeypatch.setattr(node_module, "MAX_UNSENT", 256 * 1024)
    rogue, conn = await rogue_on(honest)
    rogue.writer.transport.pause_reading()  # it reads nothing more
    payload = os.urandom(60_000)
    sent = 0
    async with asyncio.timeout(10):
        while not conn.closed:
            honest.ann.send(conn, Game(to=None, payload=payload))
            sent += 1
            await asyncio.sleep(0)  # let the kernel buffers fill
    lost = await lost_of(honest, rogue)
    assert said(lost).startswith(f"Rogue ({conn.address}") and "stopped reading" in said(lost)
    assert conn.writer.transport.get_write_buffer_size() <= 256 * 1024 + 70_000
    assert sent < 1000  # it stopped long before the payloads sent add up to 60 MB
    await honest.ping()
    honest.unaffected()


async def test_a_good_frame_sent_with_garbage_in_one_write_still_arrives(
        honest: Honest) -> None:
    rogue, _ = await rogue_on(honest)
    tag = b"the last good words"
    rogue.send(rogue.frame(Game(to=None, payload=tag)) + b"\x00\x00\x01\x00" + b"\xff" * 256)
    lost = await lost_of(honest, rogue)
    assert lost.error is not None and said(lost).startswith(rogue.where)
    got = [e for e in honest.ann_events.seen if isinstance(e, Incoming)
           and e.peer.key == rogue.key and isinstance(e.received.message.body, Game)]
    assert [e.received.message.body.payload for e in got] == [tag]  # type: ignore[union-attr]
    await honest.ping()
    honest.unaffected()


async def test_a_log_answer_beyond_the_unsent_cap_waits_for_the_peer_but_not_twice(
        honest: Honest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log the peer asked for outgrows MAX_UNSENT in a long match (issue #11, the Wi-Fi
    soak: a 3934-frame log made its sender drop the asker, "stopped reading", again at
    every ask): the whole answer may wait unsent for a peer slow to read. A second answer
    on top of the first, unread, is a peer that stopped reading: it is lost, named."""
    monkeypatch.setattr(node_module, "MAX_UNSENT", 256 * 1024)
    rogue, conn = await rogue_on(honest)
    rogue.writer.transport.pause_reading()  # slow: it reads nothing for now
    payload = os.urandom(60_000)
    parts = [Game(to=None, payload=payload) for _ in range(250)]  # 15 MB: past the kernel's
    async with asyncio.timeout(10):
        honest.ann.send_answer(conn, parts)
        await asyncio.sleep(0.2)  # let the kernel buffers fill
        assert not conn.closed
        assert conn.writer.transport.get_write_buffer_size() > 256 * 1024
        honest.ann.send_answer(conn, parts)  # asked again, the first still unread
        assert conn.closed
    lost = await lost_of(honest, rogue)
    assert said(lost).startswith(f"Rogue ({conn.address}") and "stopped reading" in said(lost)
    await honest.ping()
    honest.unaffected()
