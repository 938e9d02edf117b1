"""The prime-order group: libsodium's ed25519 subgroup of order l, through PyNaCl.

This is the only module that touches the group; swap it (e.g. for ristretto255) and the
rest of :mod:`p2p8s.crypto` stays. Points and scalars are plain ``bytes`` (32 each):

* a :data:`Point` is the RFC 8032 encoding of an element of the prime-order subgroup
  (order ``l = 2**252 + 27742317777372353535851937790883648493``);
* a :data:`Scalar` is a canonical little-endian integer in ``0..l-1``.

Every point received from a peer goes through :func:`check_point` (canonical, on the
curve, in the prime-order subgroup, not the identity). libsodium's variable-base
scalar multiplication performs the same checks on its input and refuses the identity as
output; :func:`mul` turns that refusal into :class:`GroupError`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import NewType

from nacl import bindings as _na
from nacl.exceptions import RuntimeError as _NaclRuntimeError

from p2p8s.errors import Code, Error

Point = NewType("Point", bytes)
Scalar = NewType("Scalar", bytes)

#: ``rand(n) -> n bytes``: the injected randomness (``os.urandom`` in production).
Rand = Callable[[int], bytes]

POINT_BYTES = 32
SCALAR_BYTES = 32
#: The group order l (RFC 8032 §5.1).
ORDER = 2**252 + 27742317777372353535851937790883648493
#: The encoding of the neutral element (0, 1).
IDENTITY = Point(bytes([1]) + bytes(31))
#: The scalar 1.
ONE = Scalar((1).to_bytes(32, "little"))
#: The RFC 8032 base point B, used as the generator G.
GENERATOR = Point(_na.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little")))


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
    return Scalar(_na.crypto_core_ed25519_scalar_reduce(wide))


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
    return Scalar(_na.crypto_core_ed25519_scalar_add(a, b))


def scalar_sub(a: Scalar, b: Scalar) -> Scalar:
    """``a - b mod l``."""
    return Scalar(_na.crypto_core_ed25519_scalar_sub(a, b))


def scalar_mul(a: Scalar, b: Scalar) -> Scalar:
    """``a * b mod l``."""
    return Scalar(_na.crypto_core_ed25519_scalar_mul(a, b))


def scalar_neg(a: Scalar) -> Scalar:
    """``-a mod l``."""
    return Scalar(_na.crypto_core_ed25519_scalar_negate(a))


def scalar_inv(a: Scalar) -> Scalar:
    """``a**-1 mod l``; raises :class:`GroupError` for zero."""
    if not any(a):
        raise GroupError(GroupProblem.ZERO_INVERSE)
    return Scalar(_na.crypto_core_ed25519_scalar_invert(a))


def is_valid_point(data: bytes) -> bool:
    """True if ``data`` encodes a prime-order-subgroup element other than the identity."""
    return len(data) == POINT_BYTES and bool(_na.crypto_core_ed25519_is_valid_point(data))


def base_mul(s: Scalar) -> Point:
    """``s·G``; raises :class:`GroupError` if ``s`` is zero (the identity)."""
    try:
        return Point(_na.crypto_scalarmult_ed25519_base_noclamp(s))
    except _NaclRuntimeError:
        raise GroupError(GroupProblem.BASE_IDENTITY) from None


def mul(s: Scalar, p: Point) -> Point:
    """``s·p``; raises :class:`GroupError` if ``p`` is invalid or the result is the identity."""
    try:
        return Point(_na.crypto_scalarmult_ed25519_noclamp(s, p))
    except _NaclRuntimeError:
        raise GroupError(GroupProblem.MUL) from None


def add(p: Point, q: Point) -> Point:
    """``p + q`` of two subgroup elements (results of :func:`mul`/:func:`base_mul` or
    checked points); raises :class:`GroupError` if the sum is the identity."""
    try:
        r = Point(_na.crypto_core_ed25519_add(p, q))
    except _NaclRuntimeError:
        raise GroupError(GroupProblem.ADD_INVALID) from None
    if r == IDENTITY:
        raise GroupError(GroupProblem.ADD_IDENTITY)
    return r


def sub(p: Point, q: Point) -> Point:
    """``p - q`` of two subgroup elements; raises :class:`GroupError` for the identity."""
    try:
        r = Point(_na.crypto_core_ed25519_sub(p, q))
    except _NaclRuntimeError:
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


def map_to_point(uniform: bytes) -> Point:
    """libsodium's Elligator 2 map of 32 bytes into the prime-order subgroup.

    This is the non-uniform ``map_to_curve`` + ``clear_cofactor`` of RFC 9380 for
    edwards25519 (the top bit selects the sign of x).
    """
    return Point(_na.crypto_core_ed25519_from_uniform(uniform))


def hash_to_point(tag: bytes, data: bytes) -> Point:
    """Hash to the group, random-oracle style (RFC 9380 §3 ``hash_to_curve`` shape).

    ``h = SHA-512(len(tag)‖tag‖data)``; the two 32-byte halves of ``h`` are mapped with
    :func:`map_to_point` and the images added, so the output's discrete logarithm to any
    other hashed point is unknown. ``tag`` must be a domain tag.
    """
    h = hashlib.sha512(len(tag).to_bytes(2, "big") + tag + data).digest()
    return add(map_to_point(h[:32]), map_to_point(h[32:]))
