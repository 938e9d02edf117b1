"""A non-interactive zero-knowledge proof of one exponentiation-shuffle step.

Statement (protocol/mental-poker.md §5.3.1): inputs ``x_0..x_{N-1}``, outputs
``y_0..y_{N-1}`` and ``Y``; the prover knows ``e`` and a permutation ``π`` with
``y_i = e·x_{π(i)}`` for every ``i`` and ``Y = e·G``.

Construction: the permutation-commitment proof of Terelius–Wikström (*Proofs of
restricted shuffles*, AFRICACRYPT 2010; as specified for Verificatum and in Haenni et
al., *Pseudo-code algorithms for verifiable re-encryption mix-nets*, 2017), with the
re-encryption part replaced by an exponentiation:

* Pedersen commitments ``c_i = r_i·G + H_{π(i)}`` to the columns of π's matrix, on
  independent generators ``H_j`` (:func:`generators`, hashed to the group);
* challenges ``u_i`` from the transcript; ``u'_j = u_{π⁻¹(j)}`` (so ``Σ u_i c_i``
  commits to ``u'``);
* the permutation-matrix check: ``Σ c_i − Σ H_j = r̄·G`` (columns sum to one) and the
  commitment chain ``ĉ_j = r̂_j·G + u'_j·ĉ_{j−1}``, ``ĉ_{−1} = h``, ending in
  ``ĉ_{N−1} − (∏ u_i)·h = r̂·G`` (the product of ``u'`` is that of ``u``);
* the exponentiation, linear in the witness through a blinded ``P = Σ u'_j x_j + s·G``:
  ``Y = e·G`` and ``Σ u_i y_i = e·P − s·Y``.

One Schnorr-style sigma protocol (Maurer's linear-relation form, made non-interactive
by Fiat–Shamir) proves every relation at once with shared witnesses
``(r̄, r̂, r̃, s, e, r̂_j, u'_j)``. Costs (scalar multiplications, ``N`` cards): prover
``5N + 2`` variable-base and ``3N + 6`` fixed-base (plus the ``N`` of the shuffle);
verifier ``6N + 9`` variable-base and ``N + 5`` fixed-base.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2p8s.crypto import group
from p2p8s.crypto.group import GroupError, Point, Rand, Scalar
from p2p8s.crypto.transcript import NONCE_TAG, Transcript

#: domain tag of the commitment generators ``h``, ``H_0, H_1, …``
GENERATOR_TAG = b"p2p8s/v1/shuffle-generator"
#: the proof kind in the Fiat–Shamir transcript (§6)
KIND = b"shuffle"
#: how many scalars :attr:`ShuffleProof.responses` holds (s̄, ŝ, s̃, s_s, s_e)
RESPONSES = 5

_L = group.ORDER


@dataclass(frozen=True, slots=True, kw_only=True)
class ShuffleProof:
    """The proof of one shuffle step of ``N`` points (all 32-byte encodings).

    ``commitments``: ``c_0..c_{N-1}`` (per output); ``chain``: ``ĉ_0..ĉ_{N-1}`` (per
    input); ``blinded``: ``P``; ``challenge``: ``c``; ``responses``: ``(s̄, ŝ, s̃, s_s,
    s_e)``; ``chain_responses``: ``ŝ_0..ŝ_{N-1}``; ``perm_responses``: ``s'_0..s'_{N-1}``.
    """

    commitments: tuple[Point, ...]
    chain: tuple[Point, ...]
    blinded: Point
    challenge: Scalar
    responses: tuple[Scalar, ...]
    chain_responses: tuple[Scalar, ...]
    perm_responses: tuple[Scalar, ...]

    def to_wire(self) -> list[object]:
        """``[commitments, chain, blinded, challenge, responses, chain_responses,
        perm_responses]`` (lists of 32-byte strings; the message encoding)."""
        return [list(self.commitments), list(self.chain), self.blinded, self.challenge,
                list(self.responses), list(self.chain_responses), list(self.perm_responses)]

    @classmethod
    def from_parts(cls, parts: Sequence[object]) -> ShuffleProof:
        """The proof of a decoded ``to_wire`` list (32-byte strings already checked);
        raises ValueError for a non-canonical scalar, a wrong count of responses or
        lists of different lengths."""
        commitments, chain, blinded, challenge, responses, chain_r, perm_r = parts
        assert isinstance(commitments, tuple) and isinstance(chain, tuple)
        assert isinstance(responses, tuple) and isinstance(chain_r, tuple)
        assert isinstance(perm_r, tuple) and isinstance(blinded, bytes)
        assert isinstance(challenge, bytes)
        scalars = (challenge, *responses, *chain_r, *perm_r)
        if not all(group.is_canonical_scalar(s) for s in scalars):
            raise ValueError("a response is not a canonical scalar")
        n = len(commitments)
        if len(responses) != RESPONSES or not len(chain) == len(chain_r) == len(perm_r) == n:
            raise ValueError("the proof's lists differ in length")
        return cls(commitments=commitments, chain=chain, blinded=Point(blinded),
                   challenge=Scalar(challenge), responses=responses,
                   chain_responses=chain_r, perm_responses=perm_r)


@lru_cache(maxsize=4)
def generators(count: int) -> tuple[Point, tuple[Point, ...]]:
    """``(h, (H_0..H_{count-1}))``: ``h = hash_to_point(tag, b"h")``,
    ``H_j = hash_to_point(tag, u64 j)`` with :data:`GENERATOR_TAG` — nobody knows a
    discrete-log relation between them and ``G`` (the commitments are binding)."""
    h = group.hash_to_point(GENERATOR_TAG, b"h")
    return h, tuple(group.hash_to_point(GENERATOR_TAG, j.to_bytes(8, "big"))
                    for j in range(count))


@lru_cache(maxsize=4)
def _generator_sum(count: int) -> Point:
    """``Σ H_j`` over :func:`generators` ``(count)`` (the verifier's ``C̄``), once per deck
    size."""
    return _sum(generators(count)[1])


def _s(value: int) -> Scalar:
    return Scalar((value % _L).to_bytes(32, "little"))


def _i(s: bytes) -> int:
    return int.from_bytes(s, "little")


def _statement(t: Transcript, key: Point, inputs: Sequence[Point],
               outputs: Sequence[Point], commitments: Sequence[Point]) -> list[int]:
    """Append the statement and the commitments to ``t``; the challenges ``u_i``."""
    t.append(b"key", key)
    t.append_points(b"in", list(inputs)).append_points(b"out", list(outputs))
    t.append_points(b"commit", list(commitments))
    seed = t.digest()
    return [_i(group.scalar_reduce(hashlib.sha512(seed + b"u" + i.to_bytes(4, "big"))
                                   .digest())) for i in range(len(outputs))]


def _commit_round(t: Transcript, blinded: Point, chain: Sequence[Point],
                  ts: Sequence[Point], t_chain: Sequence[Point]) -> Scalar:
    t.append(b"blinded", blinded).append_points(b"chain", list(chain))
    for label, p in zip((b"T-bar", b"T-hat", b"T-tilde", b"T-P", b"T-Y", b"T-C"), ts,
                        strict=True):
        t.append(label, p)
    t.append_points(b"T-chain", list(t_chain))
    return t.challenge(b"c")


class _Nonces:
    """Hedged prover randomness: ``SHA-512(seed ‖ label ‖ u32 i)`` mod l, with ``seed =
    SHA-512(tag ‖ e ‖ π ‖ transcript digest ‖ rand(32))`` (cf. §6's hedged nonces)."""

    __slots__ = ("_seed",)

    def __init__(self, key: Scalar, perm: Sequence[int], t: Transcript, rand: Rand) -> None:
        perm_bytes = b"".join(j.to_bytes(4, "big") for j in perm)
        self._seed = hashlib.sha512(len(NONCE_TAG).to_bytes(2, "big") + NONCE_TAG + key
                                    + perm_bytes + t.digest() + rand(32)).digest()

    def __call__(self, label: bytes, i: int = 0) -> int:
        while True:
            d = hashlib.sha512(self._seed + label + i.to_bytes(4, "big")).digest()
            v = _i(group.scalar_reduce(d))
            if v:
                return v
            i += 1 << 31  # never seen (probability 2^-252): draw again


def _sum(points: Sequence[Point]) -> Point:
    acc = points[0]
    for p in points[1:]:
        acc = group.add(acc, p)
    return acc


def prove(t: Transcript, key: Scalar, perm: Sequence[int], inputs: Sequence[Point],
          outputs: Sequence[Point], rand: Rand) -> ShuffleProof:
    """Prove ``outputs[i] = key·inputs[perm[i]]`` and ``Y = key·G`` (``Y`` is
    :func:`~p2p8s.crypto.group.base_mul` of ``key``), appending to ``t`` (its header
    names table, round, round id, epoch, kind :data:`KIND` and the shuffler's seat).
    Draws 32 bytes from ``rand``. Raises GroupError for an invalid input point."""
    n = len(inputs)
    if n < 1 or len(outputs) != n or sorted(perm) != list(range(n)):
        raise ValueError("a shuffle proof needs 1+ points and a permutation of them")
    h, gens = generators(n)
    Y = group.base_mul(key)
    nonce = _Nonces(key, perm, t.fork().append_points(b"in", list(inputs)), rand)
    r = [nonce(b"r", i) for i in range(n)]
    commitments = [group.add(group.base_mul(_s(r[i])), gens[perm[i]]) for i in range(n)]
    u = _statement(t, Y, inputs, outputs, commitments)
    up = [0] * n
    for i in range(n):
        up[perm[i]] = u[i]
    r_hat = [nonce(b"r-hat", j) for j in range(n)]
    chain: list[Point] = []
    prev = h
    for j in range(n):
        prev = group.add(group.base_mul(_s(r_hat[j])), group.mul(_s(up[j]), prev))
        chain.append(prev)
    s = nonce(b"s")
    blinded = group.add(group.combine([_s(x) for x in up], inputs), group.base_mul(_s(s)))
    # aggregate witnesses: r̄ = Σ r_i, r̃ = Σ u_i r_i, r̂ = Σ r̂_j Π_{k>j} u'_k
    r_bar = sum(r) % _L
    r_tilde = sum(a * b for a, b in zip(u, r, strict=True)) % _L
    r_agg, v = 0, 1
    for j in range(n - 1, -1, -1):
        r_agg = (r_agg + r_hat[j] * v) % _L
        v = v * up[j] % _L
    w_bar, w_hat, w_tilde, w_s, w_e = (nonce(b"w", k) for k in range(RESPONSES))
    w_chain = [nonce(b"w-hat", j) for j in range(n)]
    w_perm = [nonce(b"w-perm", j) for j in range(n)]
    wp = [_s(x) for x in w_perm]
    ts = [
        group.base_mul(_s(w_bar)),
        group.base_mul(_s(w_hat)),
        group.add(group.base_mul(_s(w_tilde)), group.combine(wp, gens)),
        group.add(group.base_mul(_s(w_s)), group.combine(wp, inputs)),
        group.base_mul(_s(w_e)),
        group.sub(group.mul(_s(w_e), blinded), group.mul(_s(w_s), Y)),
    ]
    t_chain = [group.add(group.base_mul(_s(w_chain[j])),
                         group.mul(wp[j], chain[j - 1] if j else h)) for j in range(n)]
    c = _i(_commit_round(t, blinded, chain, ts, t_chain))
    witnesses = (r_bar, r_agg, r_tilde, s, _i(key))
    return ShuffleProof(
        commitments=tuple(commitments), chain=tuple(chain), blinded=blinded,
        challenge=_s(c),
        responses=tuple(_s(w + c * x) for w, x in zip((w_bar, w_hat, w_tilde, w_s, w_e),
                                                     witnesses, strict=True)),
        chain_responses=tuple(_s(w + c * x) for w, x in zip(w_chain, r_hat, strict=True)),
        perm_responses=tuple(_s(w + c * x) for w, x in zip(w_perm, up, strict=True)),
    )


def verify(t: Transcript, key: Point, inputs: Sequence[Point], outputs: Sequence[Point],
           proof: ShuffleProof) -> bool:
    """Check a :func:`prove` proof that ``outputs`` is a permutation of ``key``'s
    discrete log times ``inputs`` (``t``: the same transcript header). ``False`` for any
    failure: wrong lengths, an invalid or identity point, a failed equation."""
    n = len(inputs)
    if n < 1 or not len(outputs) == len(proof.commitments) == len(proof.chain) == n:
        return False
    h, gens = generators(n)
    u = _statement(t, key, inputs, outputs, proof.commitments)
    c = proof.challenge
    neg_c = _s(-_i(c))
    s_bar, s_hat, s_tilde, s_s, s_e = proof.responses
    try:
        c_bar = group.sub(_sum(proof.commitments), _generator_sum(n))
        c_hat = group.sub(proof.chain[-1], group.mul(_s(_product(u)), h))
        c_tilde = group.combine([_s(x) for x in u], proof.commitments)
        folded = group.combine([_s(x) for x in u], outputs)
        P = proof.blinded
        ts = [
            group.add(group.base_mul(s_bar), group.mul(neg_c, c_bar)),
            group.add(group.base_mul(s_hat), group.mul(neg_c, c_hat)),
            group.add(group.add(group.base_mul(s_tilde), group.combine(
                proof.perm_responses, gens)), group.mul(neg_c, c_tilde)),
            group.add(group.add(group.base_mul(s_s), group.combine(
                proof.perm_responses, inputs)), group.mul(neg_c, P)),
            group.add(group.base_mul(s_e), group.mul(neg_c, key)),
            group.add(group.sub(group.mul(s_e, P), group.mul(s_s, key)),
                      group.mul(neg_c, folded)),
        ]
        t_chain = [
            group.add(group.add(group.base_mul(proof.chain_responses[j]),
                                group.mul(proof.perm_responses[j],
                                          proof.chain[j - 1] if j else h)),
                      group.mul(neg_c, proof.chain[j]))
            for j in range(n)]
    except GroupError:
        return False
    return _commit_round(t, P, proof.chain, ts, t_chain) == c


def _product(values: Sequence[int]) -> int:
    acc = 1
    for v in values:
        acc = acc * v % _L
    return acc
