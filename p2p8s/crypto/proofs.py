"""Zero-knowledge proofs over the group, made non-interactive with Fiat–Shamir.

* :func:`prove_schnorr` — knowledge of ``x`` with ``X = x·G`` (Schnorr 1991).
* :func:`prove_dleq` — equality of discrete logs ``X = x·G`` and ``B = x·A``
  (Chaum–Pedersen 1992).
* :func:`prove_dleq_batch` — the same ``x`` for many pairs ``B_i = x·A_i`` at once: the
  pairs are folded into one by a random linear combination whose coefficients come from
  the transcript (``z_0 = 1``, ``z_i = H(transcript, i) mod l``), then one Chaum–Pedersen
  proof is made for ``(Σ z_i A_i, Σ z_i B_i)``. A false pair survives only with probability
  about ``1/l`` (small-exponent batch verification, Bellare–Garay–Rabin 1998).

A proof is ``(challenge c, response s)`` with ``s = r + c·x`` and hedged nonce ``r``; the
verifier recomputes the commitments ``R = s·G - c·X`` (and ``s·A - c·B``) and checks that
they hash to ``c``. The caller builds the :class:`~p2p8s.crypto.transcript.Transcript`
(context, kind, seat, positions); these functions append the statement and commitments.
Verifiers return ``False`` for any failure (including bad points); callers name the seat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from p2p8s.crypto import group
from p2p8s.crypto.group import GroupError, Point, Rand, Scalar
from p2p8s.crypto.transcript import Transcript, hedged_nonce


@dataclass(frozen=True, slots=True)
class Proof:
    """A Fiat–Shamir proof: challenge ``c`` and response ``s`` (32-byte scalars)."""

    challenge: Scalar
    response: Scalar

    def to_bytes(self) -> bytes:
        """``c ‖ s`` (64 bytes)."""
        return self.challenge + self.response

    @classmethod
    def from_bytes(cls, data: bytes) -> Proof:
        """Parse ``c ‖ s``; raises ValueError unless both are canonical scalars."""
        c, s = data[:32], data[32:]
        if len(data) != 64 or not group.is_canonical_scalar(c) or not group.is_canonical_scalar(s):
            raise ValueError("a proof is two canonical 32-byte scalars")
        return cls(Scalar(c), Scalar(s))


def prove_schnorr(t: Transcript, x: Scalar, X: Point, rand: Rand) -> Proof:
    """Prove knowledge of ``x`` with ``X = x·G``; appends ``X`` and ``R`` to ``t``."""
    t.append(b"X", X)
    r = hedged_nonce(x, t, rand)
    t.append(b"R", group.base_mul(r))
    c = t.challenge(b"c")
    return Proof(c, group.scalar_add(r, group.scalar_mul(c, x)))


def verify_schnorr(t: Transcript, X: Point, proof: Proof) -> bool:
    """Check a :func:`prove_schnorr` proof for ``X`` against the same transcript prefix."""
    try:
        if not group.is_valid_point(X):
            return False
        R = group.sub(group.base_mul(proof.response), group.mul(proof.challenge, X))
    except GroupError:
        return False
    t.append(b"X", X).append(b"R", R)
    return t.challenge(b"c") == proof.challenge


def prove_dleq(t: Transcript, x: Scalar, X: Point, A: Point, B: Point, rand: Rand) -> Proof:
    """Prove ``log_G X = log_A B`` (= ``x``), Chaum–Pedersen; appends the statement to ``t``."""
    t.append(b"X", X).append(b"A", A).append(b"B", B)
    r = hedged_nonce(x, t, rand)
    t.append(b"R1", group.base_mul(r)).append(b"R2", group.mul(r, A))
    c = t.challenge(b"c")
    return Proof(c, group.scalar_add(r, group.scalar_mul(c, x)))


def verify_dleq(t: Transcript, X: Point, A: Point, B: Point, proof: Proof) -> bool:
    """Check a :func:`prove_dleq` proof; ``False`` on any failure."""
    try:
        # mul() rejects A, B (and X) unless they are prime-order, non-identity points
        R1 = group.sub(group.base_mul(proof.response), group.mul(proof.challenge, X))
        R2 = group.sub(group.mul(proof.response, A), group.mul(proof.challenge, B))
    except GroupError:
        return False
    t.append(b"X", X).append(b"A", A).append(b"B", B).append(b"R1", R1).append(b"R2", R2)
    return t.challenge(b"c") == proof.challenge


def _coefficients(t: Transcript, count: int) -> list[Scalar]:
    seed = t.digest()
    coeffs = [group.scalar_from_int(1)]
    for i in range(1, count):
        coeffs.append(
            group.scalar_reduce(hashlib.sha512(seed + b"z" + i.to_bytes(4, "big")).digest())
        )
    return coeffs


def _batch_statement(t: Transcript, X: Point, pairs: Sequence[tuple[Point, Point]]) -> None:
    t.append(b"X", X)
    t.append_int(b"pairs", len(pairs))
    for a, b in pairs:
        t.append(b"A", a).append(b"B", b)


def prove_dleq_batch(
    t: Transcript, x: Scalar, X: Point, pairs: Sequence[tuple[Point, Point]], rand: Rand
) -> Proof:
    """Prove ``B_i = x·A_i`` for every pair and ``X = x·G``, with one proof.

    ``pairs`` is ``[(A_i, B_i), ...]`` (at least one). Costs the prover ``k + 1``
    variable-base multiplications and the verifier ``2k + 1`` (plus one fixed-base each).
    """
    if not pairs:
        raise ValueError("a batch DLEQ proof needs at least one pair")
    _batch_statement(t, X, pairs)
    if len(pairs) == 1:
        return prove_dleq(t, x, X, pairs[0][0], pairs[0][1], rand)
    z = _coefficients(t, len(pairs))
    A = group.combine(z, [a for a, _ in pairs])
    return prove_dleq(t, x, X, A, group.mul(x, A), rand)


def verify_dleq_batch(
    t: Transcript, X: Point, pairs: Sequence[tuple[Point, Point]], proof: Proof
) -> bool:
    """Check a :func:`prove_dleq_batch` proof; ``False`` on any failure or bad point."""
    if not pairs:
        return False
    _batch_statement(t, X, pairs)
    z = _coefficients(t, len(pairs))
    try:
        if len(pairs) == 1:  # z_0 = 1: the pair itself (its points checked in verify_dleq)
            A, B = pairs[0]
        else:
            A = group.combine(z, [a for a, _ in pairs])
            B = group.combine(z, [b for _, b in pairs])
    except GroupError:
        return False
    return verify_dleq(t, X, A, B, proof)
