"""Group, transcript, proofs, randomness and message encoding of p2p8s.crypto."""

from __future__ import annotations

import dataclasses
from collections import Counter

import msgpack
import pytest

from p2p8s.crypto import group, proofs
from p2p8s.crypto.deck import card_point, card_points
from p2p8s.crypto.errors import CheatDetected, Fault
from p2p8s.crypto.messages import KINDS, Accuse, PartialStrip, PlayCards, Reveal, Strip, decode
from p2p8s.crypto.rand import permutation, seeded, uniform_below
from p2p8s.crypto.transcript import Context, Transcript

CTX = Context(table=b"T", round_no=1, round_id=bytes(32))
#: the generator's encoding with its lowest bit set: a negative field element, never a
#: canonical ristretto255 encoding (RFC 9496 §4.3.1)
NEGATIVE = bytes([group.GENERATOR[0] | 1]) + group.GENERATOR[1:]


def test_group_rejects_invalid_identity_and_non_canonical_points() -> None:
    p = group.hash_to_point(b"t", b"x")
    assert group.is_valid_point(p)
    assert not group.is_valid_point(group.IDENTITY)
    assert not group.is_valid_point(NEGATIVE)
    assert not group.is_valid_point(b"\xff" * 32)
    with pytest.raises(group.GroupError):
        group.mul(group.scalar_from_int(3), group.Point(NEGATIVE))
    with pytest.raises(group.GroupError):
        group.mul(group.scalar_from_int(0), p)
    with pytest.raises(group.GroupError):
        group.sub(p, p)


def test_scalar_arithmetic_matches_integers_mod_l() -> None:
    a, b = group.scalar_from_int(10**70), group.scalar_from_int(-5)
    order = group.ORDER
    assert group.scalar_to_int(group.scalar_mul(a, b)) == (10**70 * -5) % order
    assert group.scalar_to_int(group.scalar_add(a, b)) == (10**70 - 5) % order
    assert group.scalar_mul(a, group.scalar_inv(a)) == group.ONE
    assert group.is_canonical_scalar(a)
    assert not group.is_canonical_scalar(order.to_bytes(32, "little"))


def test_card_points_are_distinct_for_both_decks_and_bound_to_round_and_epoch() -> None:
    pts = card_points(b"T", 1, bytes(32), 0, tuple(range(104)))
    assert len(set(pts)) == 104 and all(group.is_valid_point(p) for p in pts)
    assert card_point(b"T", 1, bytes(32), 1, 0) != pts[0]
    assert card_point(b"T", 2, bytes(32), 0, 0) != pts[0]
    with pytest.raises(ValueError):
        card_points(b"T", 1, bytes(32), 0, (3, 3))


def test_transcripts_separate_every_field() -> None:
    base = Transcript(CTX, kind=b"k", seat=0).digest()
    assert Transcript(CTX, kind=b"k", seat=1).digest() != base
    assert Transcript(CTX, kind=b"j", seat=0).digest() != base
    assert Transcript(dataclasses.replace(CTX, epoch=1), kind=b"k", seat=0).digest() != base
    a = Transcript(CTX, kind=b"k", seat=0).append(b"ab", b"c").digest()
    b = Transcript(CTX, kind=b"k", seat=0).append(b"a", b"bc").digest()
    assert a != b


def test_proofs_verify_and_fail_for_another_statement_or_context() -> None:
    rand = seeded(b"proofs")
    x = group.random_scalar(rand)
    X = group.base_mul(x)
    A = group.hash_to_point(b"t", b"A")
    B = group.mul(x, A)
    p = proofs.prove_dleq(Transcript(CTX, kind=b"d", seat=0), x, X, A, B, rand)
    assert proofs.verify_dleq(Transcript(CTX, kind=b"d", seat=0), X, A, B, p)
    assert not proofs.verify_dleq(Transcript(CTX, kind=b"d", seat=1), X, A, B, p)
    assert not proofs.verify_dleq(Transcript(CTX, kind=b"d", seat=0), X, A, A, p)
    pairs = [(group.hash_to_point(b"t", bytes([i])), group.Point(b"")) for i in range(4)]
    pairs = [(a, group.mul(x, a)) for a, _ in pairs]
    bp = proofs.prove_dleq_batch(Transcript(CTX, kind=b"b", seat=0), x, X, pairs, rand)
    assert proofs.verify_dleq_batch(Transcript(CTX, kind=b"b", seat=0), X, pairs, bp)
    swapped = [pairs[1], pairs[0], *pairs[2:]]
    assert not proofs.verify_dleq_batch(Transcript(CTX, kind=b"b", seat=0), X, swapped, bp)
    bad = [*pairs[:3], (pairs[3][0], group.mul(group.scalar_from_int(2), pairs[3][1]))]
    assert not proofs.verify_dleq_batch(Transcript(CTX, kind=b"b", seat=0), X, bad, bp)
    negative = [*pairs[:3], (pairs[3][0], group.Point(NEGATIVE))]
    assert not proofs.verify_dleq_batch(Transcript(CTX, kind=b"b", seat=0), X, negative, bp)
    sp = proofs.prove_schnorr(Transcript(CTX, kind=b"s", seat=0), x, X, rand)
    assert proofs.verify_schnorr(Transcript(CTX, kind=b"s", seat=0), X, sp)
    assert not proofs.verify_schnorr(Transcript(CTX, kind=b"s", seat=0), B, sp)


def test_hedged_nonces_differ_with_fresh_randomness() -> None:
    x = group.random_scalar(seeded(b"k"))
    X = group.base_mul(x)
    p1 = proofs.prove_schnorr(Transcript(CTX, kind=b"s", seat=0), x, X, seeded(b"1"))
    p2 = proofs.prove_schnorr(Transcript(CTX, kind=b"s", seat=0), x, X, seeded(b"2"))
    assert p1 != p2


def test_permutation_is_uniform_enough_and_deterministic() -> None:
    rand = seeded(b"perm")
    counts = Counter(tuple(permutation(3, rand)) for _ in range(6000))
    assert len(counts) == 6 and all(900 < c < 1100 for c in counts.values())
    assert permutation(52, seeded(b"a")) == permutation(52, seeded(b"a"))
    assert sorted(permutation(104, seeded(b"b"))) == list(range(104))
    assert all(0 <= uniform_below(7, rand) < 7 for _ in range(100))


def test_messages_round_trip_and_reject_non_canonical_bytes() -> None:
    echo = ((0, bytes(32)), (2, bytes([7]) * 32))
    proof = proofs.Proof(group.scalar_from_int(1), group.scalar_from_int(2))
    msgs = [
        Reveal(table=b"T", round_no=1, seat=1, seq=3, echo=echo, nonce=bytes(32)),
        Strip(table=b"T", round_no=1, seat=0, seq=9, echo=echo, op=2, layer=0,
              items=((0, 5, group.hash_to_point(b"t", b"x")),), proof=proof),
        PlayCards(table=b"T", round_no=1, seat=0, seq=9, echo=echo, holder=0,
                  items=((1, 2, 103),), proof=proof),
        Accuse(table=b"T", round_no=1, seat=2, seq=4, echo=echo, dealer=0,
               box_secret=bytes([9]) * 32),
        PartialStrip(table=b"T", round_no=1, seat=2, seq=5, echo=echo, dealer=1, op=3,
                     items=((0, 5, group.hash_to_point(b"t", b"y")),), proof=proof),
    ]
    for m in msgs:
        assert decode(m.encode(), sender=m.seat) == m
    data = msgs[0].encode()
    for bad in (data + b"\x00", data[:-1], b"\x90",
                msgpack.packb([1, 99, b"T", 1, 1, 1, []]),
                msgpack.packb([1, 2, b"T", 1, 1, 1, [], "not bytes"])):
        with pytest.raises(CheatDetected) as info:
            decode(bad, sender=1)
        assert (info.value.seat, info.value.fault) == (1, Fault.MALFORMED)
    with pytest.raises(CheatDetected):
        decode(data, sender=2)  # claims seat 1 on seat 2's link
    # 10 = Act (table-layer actions), 11 = Accuse, 12 = PartialStrip (§8.1)
    assert sorted(KINDS) == list(range(1, 13))
