"""The messages of the mental-poker round and their canonical byte encoding.

Every message is a frozen dataclass with a common header (``table``, ``round_no``,
sender ``seat``, per-sender ``seq`` starting at 1, and ``echo``: the sender's view of
every seat's message chain, see :mod:`p2p8s.crypto.session`) and a body. The encoding is
a msgpack array, integers in their shortest form, byte strings as ``bin``, no maps::

    [version, kind, table, round_no, seat, seq, [[count, head], ...], body...]

A received byte string must re-encode to exactly itself (:func:`decode` checks this), so
each message has one encoding and can be hashed, signed and echoed. Message kinds and
bodies (points and scalars are 32 bytes, proofs are ``c ‖ s`` 64 bytes):

=====  ===============  ==========================================================
kind   class            body
=====  ===============  ==========================================================
1      Commit           nonce_hash (32), box_key (X25519 public key, 32)
2      Reveal           nonce (32)
3      KeyAnnounce      key Y_j, proof (Schnorr; with an escrow the DLEQ linking A_0 =
                        e_j^-1·G, §8.1), commitments [A_0..A_{t-1}] (of e_j^-1),
                        shares [[recipient, ciphertext], ...]
4      Shuffle          epoch, points [N], proof (shuffle proof, §5.3.1)
5      Strip            op, layer, items [[epoch, index, point], ...], proof (batch DLEQ)
6      PlayCards        holder, items [[epoch, index, card], ...], proof (batch DLEQ)
7      Dispute          epoch, index
8      KeyReveal        key e_j (scalar)
9      ShareReveal      dealer, share (scalar)
10     Act              data (opaque table-layer bytes: a game action, see
                        protocol/table.md), chained and echoed like every message
11     Accuse           dealer, box_secret (the sender's X25519 round box secret, 32)
12     PartialStrip     dealer, op, items [[epoch, index, point], ...], proof (batch DLEQ
                        against the sender's escrow share image, §8.1)
=====  ===============  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import msgpack

from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, Malformed
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.proofs import Proof
from p2p8s.crypto.shuffle_proof import ShuffleProof
from p2p8s.crypto.transcript import VERSION

#: ``(count, head)``: how many messages of a seat the sender has processed, and the
#: chain hash after the last of them.
Echo = tuple[int, bytes]

_MAX_INT = 2**32


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """Header shared by every message; subclasses add the body fields."""

    KIND: ClassVar[int] = 0
    #: body field name -> schema (see ``_check``)
    BODY: ClassVar[tuple[tuple[str, Any], ...]] = ()

    table: bytes
    round_no: int
    seat: int
    seq: int
    echo: tuple[Echo, ...]

    def encode(self) -> bytes:
        """The canonical msgpack bytes of this message."""
        return encode(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(Message):
    """Commitment to the round nonce, and the seat's X25519 key for escrow shares."""

    KIND = 1
    BODY = (("nonce_hash", "b32"), ("box_key", "b32"))
    nonce_hash: bytes
    box_key: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(Message):
    """The nonce behind the seat's :class:`Commit`."""

    KIND = 2
    BODY = (("nonce", "b32"),)
    nonce: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyAnnounce(Message):
    """``Y_j = e_j·G`` and a proof of ``e_j``; (3+ seats) the Feldman escrow of
    ``e_j^-1``, the proof then linking ``A_0 = e_j^-1·G`` (§8.1)."""

    KIND = 3
    BODY = (
        ("key", "b32"),
        ("proof", "proof"),
        ("commitments", ("list", "b32")),
        ("shares", ("list", ("tuple", "int", "bytes"))),
    )
    key: Point
    proof: Proof
    commitments: tuple[Point, ...]
    shares: tuple[tuple[int, bytes], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffle(Message):
    """The sender's shuffle step of ``epoch``: its key times the previous deck, permuted,
    with the proof of it (:mod:`~p2p8s.crypto.shuffle_proof`, §5.3.1)."""

    KIND = 4
    BODY = (("epoch", "int"), ("points", ("list", "b32")), ("proof", "shuffle-proof"))
    epoch: int
    points: tuple[Point, ...]
    proof: ShuffleProof


@dataclass(frozen=True, slots=True, kw_only=True)
class Strip(Message):
    """Layer ``layer`` removed from the listed positions of operation ``op``.

    ``items`` are ``(epoch, index, new value)``; ``proof`` is a batch DLEQ proof that
    ``old = e_layer · new`` for each item.
    """

    KIND = 5
    BODY = (
        ("op", "int"),
        ("layer", "int"),
        ("items", ("list", ("tuple", "int", "int", "b32"))),
        ("proof", "proof"),
    )
    op: int
    layer: int
    items: tuple[tuple[int, int, Point], ...]
    proof: Proof


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayCards(Message):
    """Seat ``holder`` shows cards it holds: ``items`` are ``(epoch, index, card index)``.

    ``holder`` is the sender, or a seat whose key was recovered (then the sender is the
    lowest seat whose key was not). ``proof`` is a batch DLEQ proof that the public value
    of each position is ``e_holder · P_card``.
    """

    KIND = 6
    BODY = (
        ("holder", "int"),
        ("items", ("list", ("tuple", "int", "int", "int"))),
        ("proof", "proof"),
    )
    holder: int
    items: tuple[tuple[int, int, int], ...]
    proof: Proof


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispute(Message):
    """The sender's last layer of a position it received does not give a card."""

    KIND = 7
    BODY = (("epoch", "int"), ("index", "int"))
    epoch: int
    index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyReveal(Message):
    """Round end: the sender's secret key ``e_j``."""

    KIND = 8
    BODY = (("key", "b32"),)
    key: Scalar


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareReveal(Message):
    """Escrow recovery: the sender's decrypted share of ``dealer``'s key."""

    KIND = 9
    BODY = (("dealer", "int"), ("share", "b32"))
    dealer: int
    share: Scalar


@dataclass(frozen=True, slots=True, kw_only=True)
class Act(Message):
    """A game action of the table layer (opaque bytes, at most 4096).

    The crypto layer only orders, chains and echoes it, so an action sent differently to
    different peers is caught like any other equivocation.
    """

    KIND = 10
    BODY = (("data", "bytes"),)
    data: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Accuse(Message):
    """The sender's escrow share from ``dealer`` is bad: its round ``box_secret`` lets
    every node decrypt and check that share (:func:`~p2p8s.crypto.escrow.settle`)."""

    KIND = 11
    BODY = (("dealer", "int"), ("box_secret", "b32"))
    dealer: int
    box_secret: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class PartialStrip(Message):
    """The sender's partial strips of ``dealer``'s layer (a lost seat, §8.1) for the
    listed positions of operation ``op``: ``items`` are ``(epoch, index, f(x)·V)``,
    ``proof`` a batch DLEQ proof against the image of the sender's escrow share."""

    KIND = 12
    BODY = (
        ("dealer", "int"),
        ("op", "int"),
        ("items", ("list", ("tuple", "int", "int", "b32"))),
        ("proof", "proof"),
    )
    dealer: int
    op: int
    items: tuple[tuple[int, int, Point], ...]
    proof: Proof


KINDS: dict[int, type[Message]] = {
    cls.KIND: cls
    for cls in (Commit, Reveal, KeyAnnounce, Shuffle, Strip, PlayCards, Dispute, KeyReveal,
                ShareReveal, Act, Accuse, PartialStrip)
}
_HEADER = ("table", "round_no", "seat", "seq", "echo")


def _to_wire(value: Any) -> Any:
    if isinstance(value, Proof):
        return value.to_bytes()
    if isinstance(value, ShuffleProof):
        return value.to_wire()
    if isinstance(value, tuple):
        return [_to_wire(v) for v in value]
    return value


def encode(msg: Message) -> bytes:
    """The canonical msgpack encoding of ``msg``."""
    body = [_to_wire(getattr(msg, name)) for name, _ in msg.BODY]
    header = [msg.table, msg.round_no, msg.seat, msg.seq, _to_wire(msg.echo)]
    return msgpack.packb([VERSION, msg.KIND, *header, *body], use_bin_type=True)  # type: ignore[no-any-return]


class _Bad(Exception):
    """Internal: the bytes break the schema; ``problem`` says how."""

    def __init__(self, problem: Malformed, **params: Any) -> None:
        super().__init__(problem)
        self.problem, self.params = problem, params


def _check(spec: Any, value: Any) -> Any:
    if spec == "int":
        if type(value) is not int or not 0 <= value < _MAX_INT:
            raise _Bad(Malformed.EXPECTED_INT)
        return value
    if spec == "bytes":
        if type(value) is not bytes or len(value) > 4096:
            raise _Bad(Malformed.EXPECTED_BYTES)
        return value
    if spec == "b32":
        if type(value) is not bytes or len(value) != 32:
            raise _Bad(Malformed.EXPECTED_32_BYTES)
        return value
    if spec == "proof":
        if type(value) is not bytes:
            raise _Bad(Malformed.EXPECTED_PROOF)
        try:
            return Proof.from_bytes(value)
        except ValueError:
            raise _Bad(Malformed.BAD_PROOF) from None
    if spec == "shuffle-proof":
        try:
            return ShuffleProof.from_parts(_check(_SHUFFLE_PROOF_SPEC, value))
        except ValueError:
            raise _Bad(Malformed.BAD_PROOF) from None
    kind = spec[0]
    if type(value) is not list and type(value) is not tuple:
        raise _Bad(Malformed.EXPECTED_ARRAY)
    if kind == "list":
        if len(value) > 1024:
            raise _Bad(Malformed.ARRAY_TOO_LONG)
        return tuple(_check(spec[1], v) for v in value)
    if kind == "tuple":
        if len(value) != len(spec) - 1:
            raise _Bad(Malformed.ARRAY_LENGTH)
        return tuple(_check(s, v) for s, v in zip(spec[1:], value, strict=True))
    raise AssertionError(spec)


_ECHO_SPEC = ("list", ("tuple", "int", "b32"))
_B32S = ("list", "b32")
_SHUFFLE_PROOF_SPEC = ("tuple", _B32S, _B32S, "b32", "b32", _B32S, _B32S, _B32S)


def _shown(value: Any) -> str:
    """A received value as it may appear in a message: its repr, at most 20 characters."""
    text = repr(value)
    return text if len(text) <= 20 else text[:19] + "…"


def decode(data: bytes, *, sender: int | None = None) -> Message:
    """Parse canonical bytes into a message.

    ``sender`` is the seat the transport got the bytes from (named in the error).
    Raises :class:`CheatDetected` (MALFORMED) for anything but a canonical encoding of
    a known kind whose ``seat`` equals ``sender`` (when given).
    """
    try:
        obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
        if type(obj) is not list or len(obj) < 7:
            raise _Bad(Malformed.NOT_AN_ARRAY)
        version, kind = obj[0], obj[1]
        if version != VERSION:
            raise _Bad(Malformed.VERSION, version=_shown(version))
        cls = KINDS.get(kind) if type(kind) is int else None
        if cls is None:
            raise _Bad(Malformed.KIND, kind=_shown(kind))
        if len(obj) != 7 + len(cls.BODY):
            raise _Bad(Malformed.FIELD_COUNT)
        table = _check("bytes", obj[2])
        values: dict[str, Any] = {
            "table": table,
            "round_no": _check("int", obj[3]),
            "seat": _check("int", obj[4]),
            "seq": _check("int", obj[5]),
            "echo": _check(_ECHO_SPEC, obj[6]),
        }
        for (name, spec), raw in zip(cls.BODY, obj[7:], strict=True):
            values[name] = _check(spec, raw)
        msg = cls(**values)
        if encode(msg) != data:
            raise _Bad(Malformed.NOT_CANONICAL)
    except _Bad as e:
        raise CheatDetected(Cheat.MALFORMED_MESSAGE, seat=sender, fault=Fault.MALFORMED,
                            problem=e.problem, **e.params) from None
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError) as e:
        raise CheatDetected(Cheat.MALFORMED_MESSAGE, seat=sender, fault=Fault.MALFORMED,
                            problem=Malformed.UNDECODABLE, error=type(e).__name__) from None
    if sender is not None and msg.seat != sender:
        raise CheatDetected(Cheat.CLAIMS_SEAT, seat=sender, fault=Fault.MALFORMED,
                            claimed=msg.seat)
    return msg

