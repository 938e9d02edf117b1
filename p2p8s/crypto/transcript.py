"""Fiat–Shamir transcripts with domain separation (Fiat–Shamir 1986; framing in the
spirit of Merlin/STROBE transcripts, with SHA-512 instead of a sponge).

A transcript is the SHA-512 hash of a byte string built from labelled, length-prefixed
items. It always starts with the same header::

    u16 len ‖ b"p2p8s/v1/fs"          the domain tag
    item("version", u64 1)
    item("table", table id) item("round", u64 round number) item("round-id", 32 bytes)
    item("epoch", u64) item("kind", proof kind, e.g. b"dleq-strip") item("seat", u64)

and then the statement: one item per element (positions, points, counts ...). An item
is ``u8 len(label) ‖ label ‖ u32 len(data) ‖ data`` (big-endian lengths), so no two
different item lists hash alike. Challenges are ``SHA-512(transcript ‖ item(label))``
reduced mod l (:func:`Transcript.challenge`).

Proof nonces are hedged (:func:`hedged_nonce`): ``SHA-512(tag ‖ secret ‖ transcript
digest ‖ 32 fresh random bytes)`` mod l, so neither a bad RNG nor a fault alone leaks the
secret (compare RFC 8032's deterministic nonces and RFC 6979 §3.6).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Self

from p2p8s.crypto import group
from p2p8s.crypto.group import Point, Rand, Scalar

#: Protocol version in every transcript and message.
VERSION = 3
FS_TAG = b"p2p8s/v1/fs"
NONCE_TAG = b"p2p8s/v1/nonce"


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """What binds a proof to its place: table id, round number, round id, epoch.

    ``round_id`` is empty (``b""``) only for proofs made before the round id exists.
    """

    table: bytes
    round_no: int
    round_id: bytes = b""
    epoch: int = 0


def _u64(value: int) -> bytes:
    return value.to_bytes(8, "big")


class Transcript:
    """A running Fiat–Shamir transcript: append items, then draw challenges.

    >>> t = Transcript(Context(table=b"T", round_no=1), kind=b"demo", seat=0)
    >>> len(t.append_int(b"x", 5).digest())
    64
    """

    __slots__ = ("_h",)

    def __init__(self, ctx: Context, *, kind: bytes, seat: int) -> None:
        self._h = hashlib.sha512()
        self._h.update(len(FS_TAG).to_bytes(2, "big") + FS_TAG)
        self.append_int(b"version", VERSION)
        self.append(b"table", ctx.table)
        self.append_int(b"round", ctx.round_no)
        self.append(b"round-id", ctx.round_id)
        self.append_int(b"epoch", ctx.epoch)
        self.append(b"kind", kind)
        self.append_int(b"seat", seat)

    def append(self, label: bytes, data: bytes) -> Self:
        """Append one labelled item; returns ``self`` for chaining."""
        self._h.update(
            len(label).to_bytes(1, "big") + label + len(data).to_bytes(4, "big") + data
        )
        return self

    def append_int(self, label: bytes, value: int) -> Self:
        """Append an unsigned integer as 8 bytes big-endian."""
        return self.append(label, _u64(value))

    def append_points(self, label: bytes, points: tuple[Point, ...] | list[Point]) -> Self:
        """Append a count item ``label`` and then each point under ``label``."""
        self.append_int(label + b"-count", len(points))
        for p in points:
            self.append(label, p)
        return self

    def append_ints(self, label: bytes, values: tuple[int, ...] | list[int]) -> Self:
        """Append a count item and then each integer."""
        self.append_int(label + b"-count", len(values))
        for v in values:
            self.append_int(label, v)
        return self

    def fork(self) -> Transcript:
        """An independent copy of the transcript so far."""
        t = Transcript.__new__(Transcript)
        t._h = self._h.copy()
        return t

    def digest(self) -> bytes:
        """SHA-512 of the transcript so far (64 bytes); the transcript is unchanged."""
        return self._h.copy().digest()

    def challenge(self, label: bytes) -> Scalar:
        """The challenge scalar ``SHA-512(transcript ‖ item(label, "")) mod l``."""
        h = self._h.copy()
        h.update(len(label).to_bytes(1, "big") + label + (0).to_bytes(4, "big"))
        return group.scalar_reduce(h.digest())


def hedged_nonce(secret: Scalar, transcript: Transcript, rand: Rand) -> Scalar:
    """A proof nonce ``H(tag, secret, transcript, fresh random) mod l``, never zero."""
    digest = transcript.digest()
    while True:
        r = group.scalar_from_hash(
            len(NONCE_TAG).to_bytes(2, "big"), NONCE_TAG, secret, digest, rand(32)
        )
        if any(r):
            return r
