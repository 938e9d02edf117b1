"""The prime-order group: ristretto255 (RFC 9496) through libsodium, bundled by ``rbcl``.

This is the only module that touches the group; swap it and the rest of
:mod:`p2p8s.crypto` stays. Points and scalars are plain ``bytes`` (32 each):

* a :data:`Point` is the canonical RFC 9496 encoding of a ristretto255 element (a group
  of prime order ``l = 2**252 + 27742317777372353535851937790883648493``: no cofactor,
  no small-order points);
* a :data:`Scalar` is a canonical little-endian integer in ``0..l-1``.

Every point received from a peer goes through :func:`is_valid_point` (or :func:`check_subgroup`)
(a canonical encoding, not the identity). libsodium's variable-base scalar
multiplication decodes (checks) its input and refuses the identity as input and as
output; :func:`mul` turns that refusal into :class:`GroupError`. The switch from the
edwards25519 subgroup (protocol version 1) measured 0.6-0.7x the cost of a
multiplication, 0.13x a point check and 0.2x a hash to the group
(``benchmarks/crypto_bench.py``, "group" table).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import NewType

import rbcl as _rb

from p2p8s.errors import Code, Error

Point = NewType("Point", bytes)
Scalar = NewType("Scalar", bytes)

#: ``rand(n) -> n bytes``: the injected randomness (``os.urandom`` in production).
Rand = Callable[[int], bytes]

POINT_BYTES = 32
SCALAR_BYTES = 32
#: The group order l (RFC 9496 §4).
ORDER = 2**252 + 27742317777372353535851937790883648493
#: The encoding of the neutral element (RFC 9496: 32 zero bytes).
IDENTITY = Point(bytes(32))
#: The scalar 1.
ONE = Scalar((1).to_bytes(32, "little"))
#: The ristretto255 generator (the image of the RFC 8032 base point), used as G.
GENERATOR = Point(_rb.crypto_scalarmult_ristretto255_base(ONE))


class GroupProblem(Code):
    """What a group operation could not do (the code of a :class:`GroupError`)."""

    NOT_AN_ELEMENT = "not-an-element"
    ZERO_INVERSE = "zero-inverse"
    BASE_IDENTITY = "base-identity"
    MUL = "mul"
    ADD_INVALID = "add-invalid"
    ADD_IDENTITY = "add-identity"
    SUB_INVALID = "sub-invalid"
    SUB_IDENTITY = "sub-identity"
    EMPTY_COMBINATION = "empty-combination"


class GroupError(Error):
    """A group operation was given a point or scalar it cannot work with (``code``: a
    :class:`GroupProblem`); callers that got the point from a peer turn it into a
    :class:`~p2p8s.crypto.errors.CheatDetected` naming the seat."""


def check_subgroup(p: Point) -> Point:
    """``p`` itself if it is a valid non-identity subgroup element, else GroupError."""
    if not is_valid_point(p):
        raise GroupError(GroupProblem.NOT_AN_ELEMENT)
    return p


def scalar_from_int(value: int) -> Scalar:
    """The scalar ``value mod l``."""
    return Scalar((value % ORDER).to_bytes(SCALAR_BYTES, "little"))


def scalar_to_int(s: Scalar) -> int:
    """The integer ``0..l-1`` of a scalar."""
    return int.from_bytes(s, "little")


def scalar_reduce(wide: bytes) -> Scalar:
    """A 64-byte string read little-endian and reduced mod l (RFC 8032 style)."""
    return Scalar(_rb.crypto_core_ristretto255_scalar_reduce(wide))


def scalar_from_hash(*parts: bytes) -> Scalar:
    """SHA-512 over the concatenated ``parts``, reduced mod l."""
    h = hashlib.sha512()
    for p in parts:
        h.update(p)
    return scalar_reduce(h.digest())


def is_canonical_scalar(data: bytes) -> bool:
    """True if ``data`` is 32 bytes encoding an integer below l."""
    return len(data) == SCALAR_BYTES and int.from_bytes(data, "little") < ORDER


def random_scalar(rand: Rand) -> Scalar:
    """A uniform non-zero scalar from 64 bytes of ``rand`` (reduced mod l)."""
    while True:
        s = scalar_reduce(rand(64))
        if any(s):
            return s


def scalar_add(a: Scalar, b: Scalar) -> Scalar:
    """``a + b mod l``."""
    return Scalar(_rb.crypto_core_ristretto255_scalar_add(a, b))


def scalar_sub(a: Scalar, b: Scalar) -> Scalar:
    """``a - b mod l``."""
    return Scalar(_rb.crypto_core_ristretto255_scalar_sub(a, b))


def scalar_mul(a: Scalar, b: Scalar) -> Scalar:
    """``a * b mod l``."""
    return Scalar(_rb.crypto_core_ristretto255_scalar_mul(a, b))


def scalar_neg(a: Scalar) -> Scalar:
    """``-a mod l``."""
    return Scalar(_rb.crypto_core_ristretto255_scalar_negate(a))


def scalar_inv(a: Scalar) -> Scalar:
    """``a**-1 mod l``; raises :class:`GroupError` for zero."""
    if not any(a):
        raise GroupError(GroupProblem.ZERO_INVERSE)
    return Scalar(_rb.crypto_core_ristretto255_scalar_invert(a))


def is_valid_point(data: bytes) -> bool:
    """True if ``data`` is the canonical encoding of a ristretto255 element other than
    the identity."""
    return (len(data) == POINT_BYTES and data != IDENTITY
            and bool(_rb.crypto_core_ristretto255_is_valid_point(data)))


def base_mul(s: Scalar) -> Point:
    """``s·G``; raises :class:`GroupError` if ``s`` is zero (the identity)."""
    try:
        return Point(_rb.crypto_scalarmult_ristretto255_base(s))
    except RuntimeError:
        raise GroupError(GroupProblem.BASE_IDENTITY) from None


def mul(s: Scalar, p: Point) -> Point:
    """``s·p``; raises :class:`GroupError` if ``p`` is invalid or the result is the identity."""
    try:
        return Point(_rb.crypto_scalarmult_ristretto255(s, p))
    except RuntimeError:
        raise GroupError(GroupProblem.MUL) from None


def add(p: Point, q: Point) -> Point:
    """``p + q`` of two subgroup elements (results of :func:`mul`/:func:`base_mul` or
    checked points); raises :class:`GroupError` if the sum is the identity."""
    try:
        r = Point(_rb.crypto_core_ristretto255_add(p, q))
    except RuntimeError:
        raise GroupError(GroupProblem.ADD_INVALID) from None
    if r == IDENTITY:
        raise GroupError(GroupProblem.ADD_IDENTITY)
    return r


def sub(p: Point, q: Point) -> Point:
    """``p - q`` of two subgroup elements; raises :class:`GroupError` for the identity."""
    try:
        r = Point(_rb.crypto_core_ristretto255_sub(p, q))
    except RuntimeError:
        raise GroupError(GroupProblem.SUB_INVALID) from None
    if r == IDENTITY:
        raise GroupError(GroupProblem.SUB_IDENTITY)
    return r


def combine(scalars: Iterable[Scalar], points: Iterable[Point]) -> Point:
    """``Σ s_i·p_i`` (one multiplication per term; libsodium has no multi-exponentiation).

    Raises :class:`GroupError` on an invalid point or an identity (partial) result.
    """
    acc: Point | None = None
    for s, p in zip(scalars, points, strict=True):
        term = mul(s, p) if s != ONE else check_subgroup(p)
        acc = term if acc is None else add(acc, term)
    if acc is None:
        raise GroupError(GroupProblem.EMPTY_COMBINATION)
    return acc


def hash_to_point(tag: bytes, data: bytes) -> Point:
    """Hash to the group, random-oracle style (the RFC 9380 ``hash_to_ristretto255``
    shape): ``h = SHA-512(u16 len(tag) ‖ tag ‖ data)`` and the RFC 9496 §4.3.4 one-way
    map of the 64 bytes (two Elligator maps, added), so the output's discrete logarithm
    to any other hashed point is unknown. ``tag`` must be a domain tag."""
    h = hashlib.sha512(len(tag).to_bytes(2, "big") + tag + data).digest()
    return Point(_rb.crypto_core_ristretto255_from_hash(h))
