"""Threshold strips (§8.1): the escrow holders of a lost seat ``j`` remove ``j``'s layer
from a position together, without rebuilding ``j``'s key.

The escrow shares the **inverse** key ``d_j = e_j^-1`` (Feldman, :mod:`~p2p8s.crypto.escrow`):
``f(0) = d_j``, commitments ``A_0 = d_j·G, A_1, …, A_{t-1}``, holder ``h`` holds
``f(x_h)`` with ``x_h = h + 1``. The dealer links ``A_0`` to its key by a Chaum–Pedersen
proof that ``log_G Y_j = log_{A_0} G`` (:func:`prove_inverse_link`: then ``A_0 =
e_j^-1·G``).

A strip of ``j``'s layer from a value ``V`` is ``W = d_j·V``. Holder ``h`` publishes the
**partial strip** ``P_h = f(x_h)·V`` with a (batch) DLEQ proof that ``log_G S_h =
log_V P_h``, where ``S_h = Σ_k x_h^k·A_k`` is the public image of its share
(:func:`~p2p8s.crypto.escrow.share_point`). Any ``t`` checked partials combine by
Lagrange interpolation in the exponent: ``W = Σ_h λ_h·P_h`` (:func:`combine`). Fewer than
``t`` are refused: with ``t - 1`` of them ``W`` is as unknown as ``d_j`` itself
(Shamir's secrecy, in the exponent).

Everything here is pure (no state); :mod:`~p2p8s.crypto.serving` runs it in a session.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2p8s.crypto import escrow, group, proofs
from p2p8s.crypto.deck import Position
from p2p8s.crypto.group import GENERATOR, Point, Rand, Scalar
from p2p8s.crypto.proofs import Proof
from p2p8s.crypto.transcript import Context, Transcript

#: The transcript kind of a partial strip's proof.
PARTIAL_KIND = b"partial-strip"


def prove_inverse_link(t: Transcript, key: Scalar, public: Point, a0: Point,
                       rand: Rand) -> Proof:
    """Chaum–Pedersen proof that ``log_G public = log_{a0} G`` (= ``key``), i.e. ``a0 =
    key^-1·G``: the KeyAnnounce proof of a seat with an escrow (§8.1). It also proves
    knowledge of ``key`` (as the Schnorr proof of a seat without one)."""
    return proofs.prove_dleq(t, key, public, a0, GENERATOR, rand)


def verify_inverse_link(t: Transcript, public: Point, a0: Point, proof: Proof) -> bool:
    """Check :func:`prove_inverse_link`; False on any failure or bad point."""
    return proofs.verify_dleq(t, public, a0, GENERATOR, proof)


def partial_transcript(ctx: Context, *, holder: int, dealer: int, op: int,
                       positions: Sequence[Position]) -> Transcript:
    """The transcript of ``holder``'s partial strips of ``dealer``'s layer for the listed
    positions of operation ``op``."""
    t = Transcript(ctx, kind=PARTIAL_KIND, seat=holder).append_int(b"dealer", dealer)
    t.append_int(b"op", op).append_int(b"positions", len(positions))
    for e, i in positions:
        t.append_int(b"epoch", e).append_int(b"index", i)
    return t


def prove_partials(t: Transcript, share: Scalar, share_image: Point,
                   values: Sequence[Point], rand: Rand) -> tuple[tuple[Point, ...], Proof]:
    """The partial strips ``share·V`` of ``values`` and one batch DLEQ proof that each
    uses the share behind ``share_image`` (``= share·G``). Raises ValueError for no
    values, :class:`~p2p8s.crypto.group.GroupError` for a bad value."""
    partials = tuple(group.mul(share, v) for v in values)
    proof = proofs.prove_dleq_batch(t, share, share_image, list(zip(values, partials,
                                                                    strict=True)), rand)
    return partials, proof


def verify_partials(t: Transcript, share_image: Point, values: Sequence[Point],
                    partials: Sequence[Point], proof: Proof) -> bool:
    """Check :func:`prove_partials`: ``log_G share_image = log_{V_i} P_i`` for every
    ``i``; False on any failure, a bad point or a length mismatch."""
    if len(values) != len(partials):
        return False
    return proofs.verify_dleq_batch(t, share_image, list(zip(values, partials, strict=True)),
                                    proof)


def combine(partials: Mapping[int, Point], threshold: int) -> Point:
    """The strip ``W = d_j·V`` from checked partials (holder seat -> ``P_h``): Lagrange
    interpolation at 0 in the exponent over the ``threshold`` lowest holders given.

    Raises ValueError for fewer than ``threshold`` partials (they determine nothing),
    :class:`~p2p8s.crypto.group.GroupError` for a bad point."""
    if threshold < 1 or len(partials) < threshold:
        raise ValueError(f"a threshold strip needs {threshold} partials, got {len(partials)}")
    used = sorted(partials)[:threshold]
    lams = escrow.lagrange_at_zero([escrow.share_x(h) for h in used])
    return group.combine([group.scalar_from_int(lam) for lam in lams],
                         [partials[h] for h in used])
