"""Randomness helpers: a seeded stream for tests and vectors, uniform integers, and the
Fisher–Yates permutation used by every shuffle step.

Production code passes ``os.urandom`` as ``rand``. :func:`seeded` gives the
deterministic stream used by tests and the known-answer vectors of
``protocol/mental-poker.md``: the SHAKE-256 output stream of the seed, read in order.
"""

from __future__ import annotations

import hashlib

from p2p8s.crypto.group import Rand


class _Stream:
    __slots__ = ("_buf", "_pos", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._buf = b""
        self._pos = 0

    def __call__(self, n: int) -> bytes:
        need = self._pos + n
        if need > len(self._buf):
            size = max(need, 2 * len(self._buf), 4096)
            self._buf = hashlib.shake_256(self._seed).digest(size)
        out = self._buf[self._pos : need]
        self._pos = need
        return out


def seeded(seed: bytes) -> Rand:
    """A deterministic ``rand(n)``: consecutive bytes of ``SHAKE-256(seed)``. Tests only."""
    return _Stream(seed)


def uniform_below(bound: int, rand: Rand) -> int:
    """A uniform integer in ``0..bound-1``: 8 bytes big-endian, rejection sampled."""
    if bound < 1:
        raise ValueError("bound must be positive")
    limit = (1 << 64) - (1 << 64) % bound
    while True:
        x = int.from_bytes(rand(8), "big")
        if x < limit:
            return x % bound


def permutation(size: int, rand: Rand) -> list[int]:
    """A uniform permutation of ``range(size)`` (Fisher–Yates / Durstenfeld 1964).

    For ``i = size-1 .. 1``: ``j = uniform_below(i+1)``, swap ``perm[i], perm[j]``.
    """
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = uniform_below(i + 1, rand)
        perm[i], perm[j] = perm[j], perm[i]
    return perm
