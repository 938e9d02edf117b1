"""The runners' own payloads (protocol/table.md, "The runner's part"): sync, log, relay,
ack, where.

They travel in wire ``game`` envelopes like the table's payloads, one byte of kind and a
msgpack body, but are never given to the :class:`~p2p8s.table.Table` nor logged (the
table kinds are 1..9). Pure codecs and typed records (a node says goodbye with the wire's
:class:`~p2p8s.wire.Farewell`). Every decoder raises :class:`~p2p8s.errors.RemoteError` (the bytes
come from a peer; the caller names it) and never returns a half-checked value.

>>> Sync.parse(Sync(received=3, posted=5, restarted=False).payload()[1:])
Sync(received=3, posted=5, restarted=False, taken=False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import msgpack

from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.errors import Code, RemoteError
from p2p8s.table.actions import CRYPTO
from p2p8s.table.decoding import PayloadProblem
from p2p8s.wire import MAX_GAME_PAYLOAD, Game, decode_body

#: ``sync`` = msgpack ``[received, posted, restarted, taken]``: the first payload on a new
#: connection of two roster members after the deal.
SYNC = 64
#: ``log`` = msgpack ``[part, parts, [frame, …]]``: the sender's signed game frames, to a
#: restarted node that asked for them (its ``sync`` said ``restarted``).
LOG_PART = 65
#: ``relay`` = msgpack ``[seat, [frame, …]]``: the last crypto broadcasts this node
#: received from ``seat``'s node, sent to every other peer when it loses that node.
RELAY = 66
#: ``ack`` = msgpack ``[received]``: the game payloads received from the peer so far, on
#: the connection in use (:mod:`p2p8s.table.acks`).
ACK = 67
#: ``where`` = msgpack ``[[seat, host, port], …]``: where the sender's connections say
#: those seats' nodes listen now (a restarted node's new port), for a peer whose dial of
#: such a seat fails; at most :data:`WHERE_MAX` entries.
WHERE = 68
RUNNER_KINDS = frozenset({SYNC, LOG_PART, RELAY, ACK, WHERE})
#: The most entries one ``where`` carries (and a node keeps per seat from its peers).
WHERE_MAX = 8
#: How many of a peer's last crypto broadcasts a ``relay`` carries.
RELAY_FRAMES = 16
#: Bytes of frames in one ``log`` part or ``relay`` (the payload stays under the wire limit).
LOG_PART_BYTES = MAX_GAME_PAYLOAD - 4096
#: Bytes a frame counts for beyond its own length when a part is filled.
FRAME_OVERHEAD = 8


class SyncCode(Code):
    """What is wrong with a runner payload a peer sent (``problem``: a
    :class:`~p2p8s.table.decoding.PayloadProblem`)."""

    BAD_SYNC = "bad-sync"  #: ``problem``
    BAD_LOG_PART = "bad-log-part"  #: ``problem``
    LOG_PARTS_DIFFER = "log-parts-differ"
    BAD_RELAY = "bad-relay"  #: ``problem``
    BAD_ACK = "bad-ack"  #: ``problem``
    BAD_WHERE = "bad-where"  #: ``problem``
    RELAYED_BAD_FRAME = "relayed-bad-frame"  #: a frame that does not verify
    RELAYED_NOT_BROADCAST = "relayed-not-broadcast"  #: not a crypto broadcast of ``seat``


@dataclass(frozen=True, slots=True, kw_only=True)
class Sync:
    """A ``sync``: ``received`` game payloads from the peer so far, ``posted`` game payloads
    meant for it so far, whether this node ``restarted`` (lost its state: it asks for the
    log instead of a resend) and whether this node has ``taken`` the peer's seats over
    while it was away (then the peer's payloads this node never received are void)."""

    received: int
    posted: int
    restarted: bool
    taken: bool = False

    def payload(self) -> bytes:
        """The payload (kind byte and body)."""
        packed: bytes = msgpack.packb([self.received, self.posted, self.restarted,
                                       self.taken])
        return bytes([SYNC]) + packed

    @classmethod
    def parse(cls, body: bytes) -> Sync:
        """The sync of a body (a body of three fields has ``taken`` false)."""
        fields = _unpack(body, SyncCode.BAD_SYNC)
        if type(fields) is not list or len(fields) not in (3, 4):
            raise RemoteError(SyncCode.BAD_SYNC, problem=PayloadProblem.FIELDS_3_OR_4)
        received, posted, restarted, taken = (*fields, False)[:4]
        if (type(received) is not int or type(posted) is not int or received < 0
                or posted < 0 or type(restarted) is not bool or type(taken) is not bool):
            raise RemoteError(SyncCode.BAD_SYNC, problem=PayloadProblem.FIELD)
        return cls(received=received, posted=posted, restarted=restarted, taken=taken)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ack:
    """An ``ack``: ``received`` game payloads from the peer so far (cumulative).

    >>> Ack.parse(Ack(received=7).payload()[1:])
    Ack(received=7)
    """

    received: int

    def payload(self) -> bytes:
        """The payload (kind byte and body)."""
        packed: bytes = msgpack.packb([self.received])
        return bytes([ACK]) + packed

    @classmethod
    def parse(cls, body: bytes) -> Ack:
        """The ack of a body."""
        fields = _unpack(body, SyncCode.BAD_ACK)
        if type(fields) is not list or len(fields) != 1:
            raise RemoteError(SyncCode.BAD_ACK, problem=PayloadProblem.NOT_A_LIST)
        [received] = fields
        if type(received) is not int or received < 0:
            raise RemoteError(SyncCode.BAD_ACK, problem=PayloadProblem.FIELD)
        return cls(received=received)


@dataclass(frozen=True, slots=True, kw_only=True)
class Spot:
    """Where ``seat``'s node listens: TCP ``port`` (1–65535) at ``host`` (an address)."""

    seat: int
    host: str
    port: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Where:
    """A ``where``: the listening addresses the sender learnt from its connections (a
    hint only: the handshake of a dial proves who answers).

    >>> Where.parse(Where(spots=(Spot(seat=1, host="127.0.0.1", port=4000),)).payload()[1:])
    Where(spots=(Spot(seat=1, host='127.0.0.1', port=4000),))
    """

    spots: tuple[Spot, ...]

    def payload(self) -> bytes:
        """The payload (kind byte and body); raises ValueError past :data:`WHERE_MAX`."""
        if len(self.spots) > WHERE_MAX:
            raise ValueError(f"{len(self.spots)} spots in one where")
        packed: bytes = msgpack.packb([[s.seat, s.host, s.port] for s in self.spots])
        return bytes([WHERE]) + packed

    @classmethod
    def parse(cls, body: bytes) -> Where:
        """The where of a body (at most :data:`WHERE_MAX` entries, each a seat, a host
        of at most 255 characters and a port 1–65535)."""
        fields = _unpack(body, SyncCode.BAD_WHERE)
        if type(fields) is not list or len(fields) > WHERE_MAX:
            raise RemoteError(SyncCode.BAD_WHERE, problem=PayloadProblem.NOT_A_LIST)
        spots = []
        for f in fields:
            if (type(f) is not list or len(f) != 3 or type(f[0]) is not int
                    or type(f[1]) is not str or not 0 < len(f[1]) <= 255
                    or type(f[2]) is not int or not 0 < f[2] < 65536):
                raise RemoteError(SyncCode.BAD_WHERE, problem=PayloadProblem.FIELD)
            spots.append(Spot(seat=f[0], host=f[1], port=f[2]))
        return cls(spots=tuple(spots))


@dataclass(frozen=True, slots=True, kw_only=True)
class LogPart:
    """Part ``part`` (0-based) of ``parts`` of a ``log`` answer: signed ``frames``."""

    part: int
    parts: int
    frames: list[bytes]

    @classmethod
    def parse(cls, body: bytes) -> LogPart:
        """The part of a body."""
        fields = _unpack(body, SyncCode.BAD_LOG_PART)
        if type(fields) is not list or len(fields) != 3:
            raise RemoteError(SyncCode.BAD_LOG_PART, problem=PayloadProblem.FIELDS_3)
        part, parts, frames = fields
        if (type(part) is not int or type(parts) is not int or not 0 <= part < parts
                or type(frames) is not list or any(type(f) is not bytes for f in frames)):
            raise RemoteError(SyncCode.BAD_LOG_PART, problem=PayloadProblem.FIELD)
        return cls(part=part, parts=parts, frames=frames)


def log_parts(frames: Sequence[bytes], *, limit: int = LOG_PART_BYTES) -> list[bytes]:
    """Split signed frames into ``log`` payloads of at most ``limit`` bytes of frames
    each (every payload is under the 64 KiB wire frame). Raises ValueError for a frame
    larger than ``limit``.

    >>> [LogPart.parse(p[1:]).frames for p in log_parts([b"a" * 10, b"b" * 10], limit=15)]
    [[b'aaaaaaaaaa'], [b'bbbbbbbbbb']]
    """
    groups: list[list[bytes]] = [[]]
    size = 0
    for frame in frames:
        if len(frame) > limit:
            raise ValueError(f"a frame of {len(frame)} bytes does not fit a log part")
        if size + len(frame) > limit and groups[-1]:
            groups.append([])
            size = 0
        groups[-1].append(frame)
        size += len(frame) + FRAME_OVERHEAD
    out = []
    for i, group in enumerate(groups):
        packed: bytes = msgpack.packb([i, len(groups), group], use_bin_type=True)
        out.append(bytes([LOG_PART]) + packed)
    return out


@dataclass(slots=True)
class LogAnswer:
    """The ``log`` parts one peer sent so far."""

    parts: dict[int, list[bytes]] = field(default_factory=dict)
    total: int = 0

    def add(self, body: bytes) -> list[bytes] | None:
        """Take one part (a ``log`` body); the frames in order once every part is in (else
        None). Raises RemoteError for a bad part."""
        got = LogPart.parse(body)
        if self.total and got.parts != self.total:
            raise RemoteError(SyncCode.LOG_PARTS_DIFFER, parts=got.parts, before=self.total)
        self.total = got.parts
        self.parts[got.part] = got.frames
        if len(self.parts) < got.parts:
            return None
        return [f for i in range(got.parts) for f in self.parts[i]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Relay:
    """A ``relay``: the last crypto broadcasts (signed ``frames``, in the order received)
    the sender got from ``seat``'s node, which it just lost."""

    seat: int
    frames: list[bytes]

    def payload(self) -> bytes:
        """The payload (kind byte and body)."""
        packed: bytes = msgpack.packb([self.seat, self.frames])
        return bytes([RELAY]) + packed

    @classmethod
    def parse(cls, body: bytes) -> Relay:
        """The relay of a body (its frames are not checked here: :func:`check_relayed`)."""
        fields = _unpack(body, SyncCode.BAD_RELAY)
        seat, frames = fields if type(fields) is list and len(fields) == 2 else (None, None)
        if (type(seat) is not int or not isinstance(frames, list)
                or len(frames) > RELAY_FRAMES or not all(isinstance(f, bytes) for f in frames)):
            raise RemoteError(SyncCode.BAD_RELAY, problem=PayloadProblem.RELAY)
        return cls(seat=seat, frames=frames)


def _unpack(body: bytes, code: SyncCode) -> object:
    """The msgpack value of ``body`` (one value, nothing after it); raises RemoteError
    with ``code`` (``problem``: :attr:`~p2p8s.table.decoding.PayloadProblem.UNDECODABLE`)."""
    try:
        return msgpack.unpackb(body, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise RemoteError(code, problem=PayloadProblem.UNDECODABLE,
                          error=type(exc).__name__) from None


def last_frames(frames: Sequence[bytes], *, limit: int = LOG_PART_BYTES) -> list[bytes]:
    """The longest suffix of ``frames`` that fits one ``relay`` (``limit`` bytes)."""
    out: list[bytes] = []
    size = 0
    for frame in reversed(frames):
        size += len(frame) + FRAME_OVERHEAD
        if size > limit:
            break
        out.insert(0, frame)
    return out


def check_relayed(frame: bytes, *, seat: int, key: bytes, table: bytes) -> Game:
    """The game envelope of a frame relayed from ``seat``'s node, once checked: signed by
    ``key`` (that node's), of table ``table``, a crypto payload to every seat. Raises
    RemoteError otherwise."""
    try:
        received = decode_body(frame)
    except RemoteError as exc:
        raise RemoteError(SyncCode.RELAYED_BAD_FRAME, error=exc) from None
    content = received.message.body
    if (received.key != key or received.message.table != table
            or not isinstance(content, Game) or content.to is not None
            or content.payload[:1] != bytes([CRYPTO])):
        raise RemoteError(SyncCode.RELAYED_NOT_BROADCAST, signer=seat)
    return content


def round_of(payload: bytes) -> int:
    """The round a game payload belongs to (0: the setup, or not a crypto message)."""
    if payload[:1] != bytes([CRYPTO]):
        return 0
    try:
        return decode_crypto(payload[1:]).round_no
    except Exception:  # malformed: the table reports it when it receives the payload
        return 0
