"""The wire format: signed, length-prefixed msgpack messages (pure, sans-IO).

Spec: protocol/wire.md. One frame is::

    u32 length (big-endian, 98 <= length <= MAX_FRAME)
    body = u8 version ‖ 32-byte Ed25519 public key ‖ msgpack payload ‖ 64-byte signature

The signature (Ed25519, RFC 8032) covers ``SIGN_TAG ‖ body[:-64]`` — the exact bytes
sent — and is checked before the payload is decoded. The payload is a msgpack map with
the table id, the author seat, the author's sequence number, the hash of the previous
action and a kind-specific body (:class:`Message`). A message's hash is
``SHA-256(HASH_TAG ‖ body)`` (:func:`message_hash`); the next action names it in ``prev``.

Bytes in, messages out, in the manner of h11: :class:`FrameDecoder` takes whatever the
socket delivered and returns the complete, verified messages; :func:`encode` turns a
message into one frame. Everything wrong with received bytes raises a
:class:`WireError` (a :class:`~p2p8s.errors.RemoteError`, code :class:`WireCode`)
naming the peer (and its seat when known); a payload that breaks the schema is a
:class:`PayloadError` (code :class:`Schema`). A misuse on this side (an oversize
payload) raises :class:`~p2p8s.errors.LocalError`.

No English travels: a ``refuse`` carries a :class:`Refusal` code and a ``bye`` a
:class:`Farewell` code; each side says them in its own words (protocol version 2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, NoReturn, TypeVar

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2p8s.errors import Code, Error, LocalError, RemoteError
from p2p8s.rules import Ruleset

#: The protocol version this code speaks (first byte of every frame body). Version 2:
#: ``refuse`` and ``bye`` carry codes (:class:`Refusal`, :class:`Farewell`), no text.
#: Version 3: the mental-poker messages of protocol/mental-poker.md version 2
#: (ristretto255, proven shuffles), which version-2 nodes cannot read, and the
#: SPAKE2 handshake with sealed records (protocol/wire.md). Version 4: mental-poker
#: version 3 (the escrow of the inverse key, threshold-served strips). Version 5: the
#: roster and the table setup say whether the table escrows its keys (``--no-escrow``).
VERSION = 6
#: Largest frame body in bytes (the 4-byte length prefix not counted).
MAX_FRAME = 64 * 1024
#: Bytes of the length prefix.
PREFIX_LENGTH = 4
KEY_LENGTH = 32
SIGNATURE_LENGTH = 64
HASH_LENGTH = 32
NONCE_LENGTH = 32
#: Smallest possible body: version, key, a one-byte payload, signature.
MIN_BODY = 1 + KEY_LENGTH + 1 + SIGNATURE_LENGTH
#: Longest player name, in characters.
MAX_NAME = 32
#: Most addresses one seat entry of a roster may list (:class:`SeatEntry`), and the
#: longest address text; a node lists at most this many of its own
#: (:func:`p2p8s.net.discovery.lan_addresses`).
MAX_ADDRESSES = 16
MAX_ADDRESS_TEXT = 64
#: Largest opaque payload of a ``game`` message, in bytes (leaves room for the envelope).
MAX_GAME_PAYLOAD = MAX_FRAME - 1024
SIGN_TAG = b"p2p8s/v1/msg"
HASH_TAG = b"p2p8s/v1/msg-hash"


class Kind(StrEnum):
    """Message kinds (protocol/wire.md, "Message kinds")."""

    HELLO = "hello"
    ROSTER = "roster"
    SIT = "sit"
    WELCOME = "welcome"
    REFUSE = "refuse"
    HEARTBEAT = "heartbeat"
    BYE = "bye"
    GAME = "game"
    ECHO = "echo"


class Role(StrEnum):
    """Why a connection was opened: to join a table, by a host, or within the mesh."""

    JOIN = "join"
    HOST = "host"
    PEER = "peer"


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """First message on every connection, both ways (inside the sealed channel): who I
    am, a fresh 32-byte ``nonce`` (random; unused since version 3, kept in the schema),
    ``port`` is the TCP port this node listens on (0: none).
    """

    name: str
    nonce: bytes
    port: int
    role: Role


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatEntry:
    """One taken seat: number, player name, identity key and where its node listens."""

    seat: int
    name: str
    key: bytes
    addrs: tuple[str, ...]
    port: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Roster:
    """The table as the host sees it: ``size`` seats (2–7), the rules, the taken seats;
    ``open`` is False once the host has closed the lobby to deal. ``escrow`` False: the
    host switched the key escrow off (``--no-escrow``: a lost player pauses the game,
    protocol/table.md "Dropped nodes"); part of the setup every node signs."""

    size: int
    rules: Ruleset
    seats: tuple[SeatEntry, ...]
    open: bool = True
    escrow: bool = True

    def entry(self, seat: int) -> SeatEntry | None:
        """The entry for ``seat``, or None if it is free."""
        return next((e for e in self.seats if e.seat == seat), None)

    def seat_of(self, key: bytes) -> int | None:
        """The seat held by identity ``key``, or None."""
        return next((e.seat for e in self.seats if e.key == key), None)

    @property
    def free(self) -> int:
        """Seats not yet taken."""
        return self.size - len(self.seats)


@dataclass(frozen=True, slots=True, kw_only=True)
class RosterBody:
    """The table shown to a joiner before they sit, and every update after."""

    roster: Roster


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit:
    """A joiner who has seen the rules asks for a seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome:
    """The host gives the joiner ``seat``."""

    seat: int
    roster: Roster


class Refusal(Code):
    """Why a node refuses a connection (the ``code`` of :class:`Refuse`; protocol/wire.md,
    "Refusals"). The receiver says it in its own words."""

    FULL = "full"  # every seat is taken (``seats`` says how many there are)
    SEATED = "seated"  # this identity key already holds a seat here
    CLOSED = "closed"  # the host has dealt: the lobby is closed
    IN_PLAY = "in-play"  # the game has started and the key holds no seat
    IN_LOBBY = "in-lobby"  # a peer connection while the table is still in its lobby
    NOT_SEATED = "not-seated"  # a key that is not in the final roster
    DUPLICATE = "duplicate"  # this key is already connected to the node


class Farewell(Code):
    """Why a node leaves (the ``code`` of :class:`Bye`); said in the receiver's words."""

    LEFT = "left"  # the player left the table (quit, Ctrl-C, the program ended)
    DONE = "done"  # the node played to the end of what it was asked to play
    CHANGED_MIND = "changed-mind"  # a joiner who saw the table and did not sit down


@dataclass(frozen=True, slots=True, kw_only=True)
class Refuse:
    """The connection is refused for ``code``; ``seats`` is the table's number of seats
    when the refusal speaks of it (``full``), else None."""

    code: Refusal
    seats: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Heartbeat:
    """I am alive (sent every second when nothing else was)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Bye:
    """I am leaving, for the reason ``code``."""

    code: Farewell = Farewell.LEFT


@dataclass(frozen=True, slots=True, kw_only=True)
class Game:
    """An opaque payload of the table layer (game actions, crypto messages).

    ``to`` is the seat it is meant for, or None for every seat.
    """

    to: int | None
    payload: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Echo:
    """The author's transcript hash after ``index`` log entries, to catch forks early."""

    index: int
    digest: bytes


Body = Hello | RosterBody | Sit | Welcome | Refuse | Heartbeat | Bye | Game | Echo

_KIND_OF: dict[type[Any], Kind] = {
    Hello: Kind.HELLO, RosterBody: Kind.ROSTER, Sit: Kind.SIT,
    Welcome: Kind.WELCOME, Refuse: Kind.REFUSE, Heartbeat: Kind.HEARTBEAT, Bye: Kind.BYE,
    Game: Kind.GAME, Echo: Kind.ECHO,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One message: ``table`` id (8 bytes), author ``seat`` (None before seating), the
    author's sequence number ``seq`` (>= 0, strictly increasing), ``prev`` (the previous
    action's 32-byte hash, or empty) and the kind-specific ``body``."""

    table: bytes
    seat: int | None
    seq: int
    prev: bytes = b""
    body: Body = field(default_factory=Heartbeat)

    @property
    def kind(self) -> Kind:
        """The message kind, from the body type."""
        return _KIND_OF[type(self.body)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Received:
    """A verified message with its author's key, its hash and its exact frame body."""

    message: Message
    key: bytes
    digest: bytes
    body: bytes


def public_key_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The raw 32-byte public key (RFC 8032 §5.1.5 encoding)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def message_hash(body: bytes) -> bytes:
    """SHA-256 of :data:`HASH_TAG` and the frame body (32 bytes): the message's name."""
    return hashlib.sha256(HASH_TAG + body).digest()


# --- encoding -----------------------------------------------------------------------

def _roster_obj(roster: Roster) -> dict[str, Any]:
    return {
        "size": roster.size,
        "rules": roster.rules.to_dict(),
        "open": roster.open,
        "escrow": roster.escrow,
        "seats": [{"seat": e.seat, "name": e.name, "key": e.key, "addrs": list(e.addrs),
                   "port": e.port} for e in roster.seats],
    }


def _body_obj(body: Body) -> dict[str, Any]:
    match body:
        case Hello():
            return {"name": body.name, "nonce": body.nonce, "port": body.port,
                    "role": str(body.role)}
        case RosterBody():
            return {"roster": _roster_obj(body.roster)}
        case Welcome():
            return {"seat": body.seat, "roster": _roster_obj(body.roster)}
        case Refuse():
            return {"code": str(body.code), "seats": body.seats}
        case Bye():
            return {"code": str(body.code)}
        case Game():
            return {"to": body.to, "payload": body.payload}
        case Echo():
            return {"index": body.index, "digest": body.digest}
        case _:  # Sit, Heartbeat
            return {}


def encode_payload(message: Message) -> bytes:
    """The msgpack payload of ``message`` (keys in the fixed order of protocol/wire.md)."""
    obj = {"k": str(message.kind), "t": message.table, "a": message.seat, "n": message.seq,
           "p": message.prev, "b": _body_obj(message.body)}
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


def encode(message: Message, key: Ed25519PrivateKey) -> bytes:
    """One complete frame (length prefix included) carrying ``message`` signed by ``key``.

    Raises :class:`~p2p8s.errors.LocalError` if the frame would exceed :data:`MAX_FRAME`.
    """
    signed = bytes([VERSION]) + public_key_bytes(key) + encode_payload(message)
    body = signed + key.sign(SIGN_TAG + signed)
    if len(body) > MAX_FRAME:
        raise LocalError(WireCode.TOO_LARGE, size=len(body), limit=MAX_FRAME)
    return len(body).to_bytes(PREFIX_LENGTH, "big") + body


# --- decoding -----------------------------------------------------------------------

class WireCode(Code):
    """What is wrong with received bytes (a :class:`WireError`; params follow the name)
    or with a message this side wants to send (``too-large``, a local error)."""

    FRAME_SIZE = "frame-size"  # size, low, high
    FRAME_LENGTH = "frame-length"  # length, low, high
    VERSION = "version"  # theirs, ours
    OTHER_KEY = "other-key"
    BAD_SIGNATURE = "bad-signature"
    MALFORMED = "malformed"  # cause: the PayloadError
    CLAIMS_SEAT = "claims-seat"  # claimed
    CUT_SHORT = "cut-short"
    TOO_LARGE = "too-large"  # size, limit (bytes)


class WireError(RemoteError):
    """Bytes received from ``peer`` (an address, or ``a peer``) are not a valid frame of
    this protocol; ``seat`` is the peer's seat when known. Both are in ``params``."""

    def __init__(self, code: WireCode, /, *, peer: str, seat: int | None = None,
                 **params: Any) -> None:
        super().__init__(code, seat=seat, **params)
        self.params = {"peer": peer, "seat": seat, **params}


class Schema(Code):
    """How a msgpack payload breaks the schema of protocol/wire.md (a
    :class:`PayloadError`; params follow the name, ``field`` is a field name)."""

    UNDECODABLE = "undecodable"  # error (the decoder's exception type name)
    EXTENSION = "extension"
    FIELDS = "fields"
    NOT_A_MAP = "not-a-map"  # what: message, body, roster, rules or seat entry
    UNKNOWN_KIND = "unknown-kind"  # kind (as received, at most 20 characters)
    MISSING_FIELD = "missing-field"  # field
    NOT_WHOLE = "not-whole"  # field
    WRONG_TYPE = "wrong-type"  # field
    OUT_OF_RANGE = "out-of-range"  # field, value
    BYTE_LENGTH = "byte-length"  # field, lengths (allowed lengths)
    TEXT = "text"  # field, limit
    UNKNOWN_CODE = "unknown-code"  # field, value (a refusal, farewell or role)
    BAD_RULES = "bad-rules"  # cause (the Ruleset's error) or error (an exception name)
    TOO_MANY_SEATS = "too-many-seats"
    BAD_ADDRESSES = "bad-addresses"
    SEAT_TWICE = "seat-twice"


class PayloadError(RemoteError, ValueError):
    """A payload that breaks the schema (bytes from a peer: a remote error, and a
    ValueError as :func:`decode_payload` has always documented); ``code`` is a
    :class:`Schema`. :func:`decode_body` wraps it in a :class:`WireError` naming the peer."""


_C = TypeVar("_C", bound=StrEnum)


def _fail(code: Schema, **params: Any) -> NoReturn:
    raise PayloadError(code, **params)


def _get(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in obj:
        _fail(Schema.MISSING_FIELD, field=name)
    value = obj[name]
    if isinstance(value, bool) and kind is int:
        _fail(Schema.NOT_WHOLE, field=name)
    if not isinstance(value, kind):
        _fail(Schema.WRONG_TYPE, field=name)
    return value


def _int(obj: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value: int = _get(obj, name, int)
    if not low <= value <= high:
        _fail(Schema.OUT_OF_RANGE, field=name, value=value)
    return value


def _bytes(obj: Mapping[str, Any], name: str, *lengths: int) -> bytes:
    value: bytes = _get(obj, name, bytes)
    if lengths and len(value) not in lengths:
        _fail(Schema.BYTE_LENGTH, field=name, lengths=lengths)
    return value


def _text(obj: Mapping[str, Any], name: str, *, limit: int, empty: bool = True) -> str:
    value: str = _get(obj, name, str)
    if len(value) > limit or (not empty and not value) or not value.isprintable():
        _fail(Schema.TEXT, field=name, limit=limit)
    return value


def _code(obj: Mapping[str, Any], name: str, codes: type[_C]) -> _C:
    value: str = _get(obj, name, str)
    if value not in set(codes):
        _fail(Schema.UNKNOWN_CODE, field=name, value=value[:20])
    return codes(value)


def _map(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        _fail(Schema.NOT_A_MAP, what=what)
    return value


def _roster(value: Any) -> Roster:
    obj = _map(value, "roster")
    size = _int(obj, "size", 2, 7)
    rules_obj = _map(obj.get("rules"), "rules")
    try:
        rules = Ruleset.from_dict(rules_obj)
    except Error as exc:
        raise PayloadError(Schema.BAD_RULES, cause=exc) from None
    except (TypeError, ValueError) as exc:
        raise PayloadError(Schema.BAD_RULES, cause=None, error=type(exc).__name__) from None
    raw_seats = _get(obj, "seats", list)
    if len(raw_seats) > size:
        _fail(Schema.TOO_MANY_SEATS)
    seats = []
    for raw in raw_seats:
        entry = _map(raw, "seat entry")
        addrs = _get(entry, "addrs", list)
        if len(addrs) > MAX_ADDRESSES or not all(
                isinstance(a, str) and 0 < len(a) <= MAX_ADDRESS_TEXT for a in addrs):
            _fail(Schema.BAD_ADDRESSES)
        seats.append(SeatEntry(seat=_int(entry, "seat", 0, size - 1),
                               name=_text(entry, "name", limit=MAX_NAME, empty=False),
                               key=_bytes(entry, "key", KEY_LENGTH), addrs=tuple(addrs),
                               port=_int(entry, "port", 0, 65535)))
    if len({e.seat for e in seats}) != len(seats) or len({e.key for e in seats}) != len(seats):
        _fail(Schema.SEAT_TWICE)
    return Roster(size=size, rules=rules, seats=tuple(seats), open=_get(obj, "open", bool),
                  escrow=_get(obj, "escrow", bool))


def _body(kind: Kind, obj: Mapping[str, Any]) -> Body:
    match kind:
        case Kind.HELLO:
            return Hello(name=_text(obj, "name", limit=MAX_NAME, empty=False),
                         nonce=_bytes(obj, "nonce", NONCE_LENGTH),
                         port=_int(obj, "port", 0, 65535), role=_code(obj, "role", Role))
        case Kind.ROSTER:
            return RosterBody(roster=_roster(obj.get("roster")))
        case Kind.SIT:
            return Sit()
        case Kind.WELCOME:
            roster = _roster(obj.get("roster"))
            return Welcome(seat=_int(obj, "seat", 0, roster.size - 1), roster=roster)
        case Kind.REFUSE:
            if "seats" not in obj:
                _fail(Schema.MISSING_FIELD, field="seats")
            seats = None if obj["seats"] is None else _int(obj, "seats", 2, 7)
            return Refuse(code=_code(obj, "code", Refusal), seats=seats)
        case Kind.HEARTBEAT:
            return Heartbeat()
        case Kind.BYE:
            return Bye(code=_code(obj, "code", Farewell))
        case Kind.GAME:
            if "to" not in obj:
                _fail(Schema.MISSING_FIELD, field="to")
            to = None if obj["to"] is None else _int(obj, "to", 0, 6)
            return Game(to=to, payload=_bytes(obj, "payload"))
        case Kind.ECHO:
            return Echo(index=_int(obj, "index", 0, 2**63 - 1),
                        digest=_bytes(obj, "digest", HASH_LENGTH))


def _no_ext(code: int, data: bytes) -> NoReturn:
    _fail(Schema.EXTENSION)


def decode_payload(payload: bytes) -> Message:
    """Decode and validate a msgpack payload (no signature check: see :func:`decode_body`).

    Raises :class:`PayloadError` (a RemoteError and a ValueError) saying what is wrong.
    """
    try:
        obj = msgpack.unpackb(payload, raw=False, strict_map_key=True, use_list=True,
                              ext_hook=_no_ext, timestamp=0)
        top = _map(obj, "message")
        if set(top) != {"k", "t", "a", "n", "p", "b"}:
            _fail(Schema.FIELDS)
        kind_text = _get(top, "k", str)
        if kind_text not in set(Kind):
            _fail(Schema.UNKNOWN_KIND, kind=kind_text[:20])
        seat = top["a"]
        if seat is not None:
            seat = _int(top, "a", 0, 6)
        return Message(table=_bytes(top, "t", 8), seat=seat,
                       seq=_int(top, "n", 0, 2**63 - 1),
                       prev=_bytes(top, "p", 0, HASH_LENGTH),
                       body=_body(Kind(kind_text), _map(top["b"], "body")))
    except PayloadError:
        raise
    except (ValueError, TypeError, UnicodeDecodeError, msgpack.UnpackException,
            RecursionError) as exc:
        raise PayloadError(Schema.UNDECODABLE, error=type(exc).__name__) from None


def decode_body(body: bytes, *, expected_key: bytes | None = None, peer: str = "a peer",
                seat: int | None = None) -> Received:
    """Verify and decode one frame body (the bytes after the length prefix).

    Order: size, version, key (against ``expected_key`` when the connection has pinned
    one), signature, then msgpack. Raises :class:`WireError` naming ``peer``/``seat``
    for any failure.
    """

    def refuse(code: WireCode, **params: Any) -> NoReturn:
        raise WireError(code, peer=peer, seat=seat, **params)

    if not MIN_BODY <= len(body) <= MAX_FRAME:
        refuse(WireCode.FRAME_SIZE, size=len(body), low=MIN_BODY, high=MAX_FRAME)
    if body[0] != VERSION:
        refuse(WireCode.VERSION, theirs=body[0], ours=VERSION)
    key = body[1:1 + KEY_LENGTH]
    if expected_key is not None and key != expected_key:
        refuse(WireCode.OTHER_KEY)
    signed, signature = body[:-SIGNATURE_LENGTH], body[-SIGNATURE_LENGTH:]
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, SIGN_TAG + signed)
    except (InvalidSignature, ValueError):
        refuse(WireCode.BAD_SIGNATURE)
    try:
        message = decode_payload(signed[1 + KEY_LENGTH:])
    except PayloadError as exc:
        refuse(WireCode.MALFORMED, cause=exc)
    if seat is not None and message.seat is not None and message.seat != seat:
        refuse(WireCode.CLAIMS_SEAT, claimed=message.seat)
    return Received(message=message, key=bytes(key), digest=message_hash(body), body=body)


_T = TypeVar("_T")
_E = TypeVar("_E", bound=RemoteError)


class Splitter(Generic[_T, _E]):
    """Sans-IO splitter of ``u32 length ‖ record`` streams, shared by
    :class:`FrameDecoder` (signed frames) and :class:`~p2p8s.net.channel.Opener`
    (sealed records).

    A length outside ``low..high`` is refused (``too_long(length)``, an ``error``)
    before the record is read; at most one incomplete record is buffered; ``record(
    prefix, body)`` turns each complete record into a value or raises ``error``. After
    an error the splitter stays failed: values completed before it in the same bytes
    are returned first, the error is in :attr:`error` at once and raised by the next
    call. A stream that ends mid-record raises ``cut_short()``.
    """

    def __init__(self, *, low: int, high: int, record: Callable[[bytes, bytes], _T],
                 error: type[_E], too_long: Callable[[int], _E],
                 cut_short: Callable[[], _E]) -> None:
        self._low, self._high = low, high
        self._record, self._error_type = record, error
        self._too_long, self._cut_short = too_long, cut_short
        self._buffer = bytearray()
        self._error: _E | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete record."""
        return len(self._buffer)

    @property
    def error(self) -> _E | None:
        """The error that failed this splitter, or None."""
        return self._error

    def receive_data(self, data: bytes) -> list[_T]:
        """Feed bytes; the value of every record they complete, in order (raises
        ``error`` as the class says)."""
        if self._error is not None:
            raise self._error
        self._buffer += data
        out: list[_T] = []
        buf = self._buffer
        try:
            while len(buf) >= PREFIX_LENGTH:
                length = int.from_bytes(buf[:PREFIX_LENGTH], "big")
                if not self._low <= length <= self._high:
                    raise self._too_long(length)
                if len(buf) < PREFIX_LENGTH + length:
                    break
                prefix = bytes(buf[:PREFIX_LENGTH])
                body = bytes(buf[PREFIX_LENGTH:PREFIX_LENGTH + length])
                del buf[:PREFIX_LENGTH + length]
                out.append(self._record(prefix, body))
        except self._error_type as exc:
            self._error = exc
            buf.clear()
            if not out:
                raise
        return out

    def receive_eof(self) -> None:
        """The peer closed the stream; raises ``cut_short()`` if it stopped mid-record
        (or the splitter's error if it had failed)."""
        if self._error is not None:
            raise self._error
        if self._buffer:
            self._error = self._cut_short()
            self._buffer.clear()
            raise self._error


class FrameDecoder:
    """Sans-IO reader of one connection: bytes in, verified :class:`Received` out.

    ``peer`` (an address, for messages) and ``seat`` name the other end in errors;
    ``expected_key`` pins its identity key once known (all three may be set later).
    Memory is bounded: an oversize length is refused before its body is read, and at
    most one incomplete frame is buffered. After an error the decoder stays failed
    (:class:`Splitter`).
    """

    def __init__(self, *, peer: str = "a peer", seat: int | None = None,
                 expected_key: bytes | None = None, max_frame: int = MAX_FRAME) -> None:
        self.peer = peer
        self.seat = seat
        self.expected_key = expected_key
        self._frames: Splitter[Received, WireError] = Splitter(
            low=MIN_BODY, high=max_frame, error=WireError,
            record=lambda prefix, body: decode_body(
                body, expected_key=self.expected_key, peer=self.peer, seat=self.seat),
            too_long=lambda length: WireError(
                WireCode.FRAME_LENGTH, peer=self.peer, seat=self.seat, length=length,
                low=MIN_BODY, high=max_frame),
            cut_short=lambda: WireError(WireCode.CUT_SHORT, peer=self.peer, seat=self.seat))

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return self._frames.buffered

    @property
    def error(self) -> WireError | None:
        """The error that failed this decoder, or None."""
        return self._frames.error

    def receive_data(self, data: bytes) -> list[Received]:
        """Feed bytes; return every message completed by them, in order.

        Raises :class:`WireError` (and stays failed) on bad data. Good frames that came
        before the bad one in the same bytes are returned first; the error then shows in
        :attr:`error` at once and is raised by the next call (:meth:`receive_data` or
        :meth:`receive_eof`).
        """
        return self._frames.receive_data(data)

    def receive_eof(self) -> None:
        """The peer closed the stream; raises WireError if it stopped mid-frame (or the
        decoder had failed)."""
        self._frames.receive_eof()


ROSTER_TAG = b"p2p8s/v1/roster"


def roster_digest(roster: Roster) -> bytes:
    """SHA-256 of :data:`ROSTER_TAG` and the roster's msgpack form (32 bytes): what every
    node echoes (``echo`` index 0) when the lobby closes, so all agree on the table."""
    packed: bytes = msgpack.packb(_roster_obj(roster), use_bin_type=True)
    return hashlib.sha256(ROSTER_TAG + packed).digest()
