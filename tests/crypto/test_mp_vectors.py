"""Known-answer vectors of protocol/mental-poker.md §10 (protocol/vectors/*.json).

Each vector is recomputed from its fixed inputs (seeded randomness: SHAKE-256 of the
seed, read in order) and compared byte for byte. To regenerate after a deliberate
protocol change: ``P2P8S_REGEN_VECTORS=1 pytest tests/crypto/test_mp_vectors.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p8s.crypto import escrow, group, proofs, shuffle_proof, threshold
from p2p8s.crypto.deck import DECK_SIZES, card_face, card_point, shuffle_step
from p2p8s.crypto.derive import round_box_secret, round_key, round_nonce
from p2p8s.crypto.harness import deal_hands, new_table, start
from p2p8s.crypto.messages import Reveal, decode
from p2p8s.crypto.rand import permutation, seeded
from p2p8s.crypto.transcript import Context, Transcript

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
TABLE = b"TABLE1"
ROUND_ID = bytes(range(32))
CTX = Context(table=TABLE, round_no=7, round_id=ROUND_ID, epoch=0)


def h(b: bytes) -> str:
    return b.hex()


def v_hash_to_group() -> dict[str, Any]:
    ks = [0, 1, 51, 52, 103]
    return {
        "spec": "mental-poker.md §4 (card points), RFC 9380 hash_to_curve shape",
        "table": h(TABLE), "round": 7, "round_id": h(ROUND_ID),
        "cards": [
            {"epoch": e, "k": k, "point": h(card_point(TABLE, 7, ROUND_ID, e, k))}
            for e in (0, 1) for k in ks
        ],
        "raw": {"tag": h(b"p2p8s/v1/card"), "data": h(b"abc"),
                "point": h(group.hash_to_point(b"p2p8s/v1/card", b"abc"))},
    }


def v_deck_faces() -> dict[str, Any]:
    """The deck sizes and the face and point of the cards where the sizes differ: the
    last French cards and the jokers (52/54/104/108 cards, mental-poker.md §4)."""
    decks = []
    for size in DECK_SIZES:
        french = 104 if size > 54 else 52
        ks = sorted({0, 51, 52, 53, french, french + 1, size - 2, size - 1} & set(range(size)))
        decks.append({"size": size, "cards": [
            {"k": k, "face": str(card_face(k, size)),
             "point": h(card_point(TABLE, 7, ROUND_ID, 0, k))} for k in ks]})
    return {"spec": "mental-poker.md §4 (card indices, faces and points; jokers)",
            "table": h(TABLE), "round": 7, "round_id": h(ROUND_ID), "epoch": 0,
            "decks": decks}


def v_keys() -> dict[str, Any]:
    rand = seeded(b"vector/key")
    e = group.random_scalar(rand)
    return {"spec": "mental-poker.md §5 (keys)", "rand_seed": h(b"vector/key"),
            "e": h(e), "Y": h(group.base_mul(e)),
            "permutation_of_10": permutation(10, seeded(b"vector/perm")),
            "permutation_seed": h(b"vector/perm")}


def v_schnorr() -> dict[str, Any]:
    e = group.random_scalar(seeded(b"vector/key"))
    Y = group.base_mul(e)
    t = Transcript(CTX, kind=b"key", seat=2)
    proof = proofs.prove_schnorr(t, e, Y, seeded(b"vector/nonce"))
    assert proofs.verify_schnorr(Transcript(CTX, kind=b"key", seat=2), Y, proof)
    return {"spec": "mental-poker.md §7 (Schnorr)", "context": _ctx(), "kind": "key",
            "seat": 2, "e": h(e), "Y": h(Y), "nonce_rand_seed": h(b"vector/nonce"),
            "header_digest": h(Transcript(CTX, kind=b"key", seat=2).digest()),
            "proof": h(proof.to_bytes())}


def v_dleq() -> dict[str, Any]:
    e = group.random_scalar(seeded(b"vector/key"))
    Y = group.base_mul(e)
    A = card_point(TABLE, 7, ROUND_ID, 0, 5)
    B = group.mul(e, A)
    single = proofs.prove_dleq(Transcript(CTX, kind=b"dleq", seat=1), e, Y, A, B,
                               seeded(b"vector/nonce"))
    pairs = [(card_point(TABLE, 7, ROUND_ID, 0, k),) for k in (1, 2, 3)]
    full = [(a, group.mul(e, a)) for (a,) in pairs]
    batch = proofs.prove_dleq_batch(Transcript(CTX, kind=b"dleq-batch", seat=1), e, Y,
                                    full, seeded(b"vector/nonce"))
    return {"spec": "mental-poker.md §7 (Chaum–Pedersen, batch)", "context": _ctx(),
            "seat": 1, "e": h(e), "Y": h(Y), "A": h(A), "B": h(B),
            "nonce_rand_seed": h(b"vector/nonce"),
            "proof": h(single.to_bytes()),
            "batch_pairs": [[h(a), h(b)] for a, b in full],
            "batch_proof": h(batch.to_bytes())}


def v_shuffle_proof() -> dict[str, Any]:
    rand = seeded(b"vector/shuffle")
    e = group.random_scalar(rand)
    inputs = [card_point(TABLE, 7, ROUND_ID, 0, k) for k in range(4)]
    perm, outputs = shuffle_step(e, inputs, rand)
    proof = shuffle_proof.prove(Transcript(CTX, kind=shuffle_proof.KIND, seat=1), e, perm,
                                inputs, outputs, rand)
    assert shuffle_proof.verify(Transcript(CTX, kind=shuffle_proof.KIND, seat=1),
                                group.base_mul(e), inputs, outputs, proof)
    h0, gens = shuffle_proof.generators(4)
    return {"spec": "mental-poker.md §5.3.1 (shuffle proof)", "context": _ctx(), "seat": 1,
            "rand_seed": h(b"vector/shuffle"),
            "draw_order": "e (64), Fisher-Yates (8 per draw), proof nonce seed (32)",
            "e": h(e), "Y": h(group.base_mul(e)), "h": h(h0),
            "generators": [h(g) for g in gens], "inputs": [h(x) for x in inputs],
            "permutation": list(perm), "outputs": [h(y) for y in outputs],
            "proof": {"commitments": [h(c) for c in proof.commitments],
                      "chain": [h(c) for c in proof.chain], "blinded": h(proof.blinded),
                      "challenge": h(proof.challenge),
                      "responses": [h(r) for r in proof.responses],
                      "chain_responses": [h(r) for r in proof.chain_responses],
                      "perm_responses": [h(r) for r in proof.perm_responses]}}


def v_round_key() -> dict[str, Any]:
    seed = bytes(range(32))
    box = round_box_secret(seed, TABLE, 7, 2)
    return {"spec": "mental-poker.md §5.2 (derived round keys, nonces and box secrets)",
            "key_seed": h(seed), "table": h(TABLE), "round": 7, "round_id": h(ROUND_ID),
            "seat": 2, "e": h(round_key(seed, TABLE, 7, ROUND_ID, 2)),
            "nonce": h(round_nonce(seed, TABLE, 7, 2)), "box_secret": h(box),
            "box_key": h(escrow.box_public(box))}


def v_round() -> dict[str, Any]:
    net = new_table(2, seed=b"vector/round", table=TABLE, round_no=7)
    start(net)
    deal_hands(net, 2)
    net.call_all(lambda s: s.open([(0, 4)]))
    net.roundtrip_until_done()
    hasher = hashlib.sha512()
    count = 0
    for seat in range(2):
        for m in net.sent[seat]:
            data = m.encode()
            hasher.update(len(data).to_bytes(4, "big") + data)
            count += 1
    s0 = net.sessions[0]
    assert s0.round_id is not None
    return {"spec": "mental-poker.md §10 (round transcript)", "players": 2, "deck": 52,
            "table": h(TABLE), "round": 7,
            "seat_rand_seeds": [h(b"vector/round" + bytes([s])) for s in range(2)],
            "steps": "start_round; deal 2 each from (0,0) round-robin from seat 1; open (0,4)",
            "round_id": h(s0.round_id), "messages": count,
            "transcript_sha512": hasher.hexdigest(),
            "first_message": h(net.sent[0][0].encode()),
            "hands": {str(s): sorted(net.sessions[s].hand().values()) for s in range(2)},
            "starter": s0.known_card((0, 4))}


def v_escrow() -> dict[str, Any]:
    rand = seeded(b"vector/escrow")
    keys = [escrow.box_keypair(rand) for _ in range(3)]
    secret = group.random_scalar(rand)
    deal = escrow.deal(secret, dealer=0, players=3, box_secret=keys[0][0],
                       box_keys={1: keys[1][1], 2: keys[2][1]}, ctx=CTX, rand=rand)
    return {"spec": "mental-poker.md §8 (escrow)", "context": _ctx(),
            "rand_seed": h(b"vector/escrow"),
            "draw_order": "box key pairs of seats 0,1,2 (32 bytes each), e_0 (64), a_1 (64)",
            "box_secrets": [h(k[0]) for k in keys], "box_keys": [h(k[1]) for k in keys],
            "e": h(secret), "commitments": [h(c) for c in deal.commitments],
            "ciphertexts": {str(r): h(c) for r, c in deal.shares}}


def _threshold_case() -> dict[str, Any]:
    """Seat 0's key, the escrow of its inverse to seats 1 and 2, and both holders'
    partial strips of one value (§8.1)."""
    rand = seeded(b"vector/threshold")
    keys = [escrow.box_keypair(rand) for _ in range(3)]
    e = group.random_scalar(rand)
    d = group.scalar_inv(e)
    y = group.base_mul(e)
    deal = escrow.deal(d, dealer=0, players=3, box_secret=keys[0][0],
                       box_keys={1: keys[1][1], 2: keys[2][1]}, ctx=CTX, rand=rand)
    link = threshold.prove_inverse_link(Transcript(CTX, kind=b"key", seat=0), e, y,
                                        deal.commitments[0], rand)
    value = card_point(TABLE, 7, ROUND_ID, 0, 5)
    holders: dict[str, Any] = {}
    partials = {}
    for r, ct in deal.shares:
        share = escrow.open_share(ct, dealer=0, recipient=r, box_secret=keys[r][0],
                                  dealer_box_key=keys[0][1], commitments=deal.commitments,
                                  ctx=CTX)
        image = escrow.share_point(escrow.share_x(r), deal.commitments)
        t = threshold.partial_transcript(CTX, holder=r, dealer=0, op=3, positions=[(0, 5)])
        (part,), proof = threshold.prove_partials(t, share, image, [value], rand)
        partials[r] = part
        holders[str(r)] = {"share": h(share), "share_image": h(image), "partial": h(part),
                           "proof": h(proof.to_bytes())}
    lams = escrow.lagrange_at_zero([escrow.share_x(r) for r in sorted(partials)])
    strip = threshold.combine(partials, 2)
    assert strip == group.mul(d, value)
    return {"spec": "mental-poker.md §8.1 (threshold strips)", "context": _ctx(),
            "rand_seed": h(b"vector/threshold"),
            "draw_order": "box key pairs of seats 0,1,2 (32 bytes each), e_0 (64), a_1 (64), "
                          "then each proof's hedged nonce (32, after the transcript)",
            "e": h(e), "Y": h(y), "inverse": h(d),
            "commitments": [h(c) for c in deal.commitments], "key_proof": h(link.to_bytes()),
            "op": 3, "position": [0, 5], "value": h(value), "holders": holders,
            "lagrange": [h(group.scalar_from_int(x)) for x in lams], "strip": h(strip)}


def v_message() -> dict[str, Any]:
    m = Reveal(table=TABLE, round_no=7, seat=1, seq=2,
               echo=((1, bytes(32)), (1, bytes([255]) * 32)), nonce=bytes(range(32)))
    assert decode(m.encode()) == m
    return {"spec": "mental-poker.md §3 (encoding)", "kind": "Reveal",
            "fields": {"table": h(TABLE), "round_no": 7, "seat": 1, "seq": 2,
                       "echo": [[1, h(bytes(32))], [1, h(bytes([255]) * 32)]],
                       "nonce": h(bytes(range(32)))},
            "bytes": h(m.encode())}


def _ctx() -> dict[str, Any]:
    return {"table": h(CTX.table), "round": CTX.round_no, "round_id": h(CTX.round_id),
            "epoch": CTX.epoch}


CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "hash_to_group": v_hash_to_group,
    "deck_faces": v_deck_faces,
    "key_commitment": v_keys,
    "schnorr": v_schnorr,
    "dleq": v_dleq,
    "round_transcript": v_round,
    "shuffle_proof": v_shuffle_proof,
    "round_key": v_round_key,
    "escrow_share": v_escrow,
    "threshold_strip": _threshold_case,
    "message_encoding": v_message,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_known_answer_vector(name: str) -> None:
    path = VECTORS / f"mp_{name}.json"
    got = json.loads(json.dumps(CASES[name]()))
    if os.environ.get("P2P8S_REGEN_VECTORS"):
        path.write_text(json.dumps(got, indent=2) + "\n")
    assert got == json.loads(path.read_text())


def test_the_stored_shuffle_proof_verifies_and_a_changed_byte_fails() -> None:
    """The known-answer shuffle proof, read from the file (not recomputed), verifies; with
    any one output changed it does not."""
    v = json.loads((VECTORS / "mp_shuffle_proof.json").read_text())
    pts = [group.Point(bytes.fromhex(x)) for x in v["inputs"]]
    outs = [group.Point(bytes.fromhex(x)) for x in v["outputs"]]
    p = v["proof"]

    def scalars(xs: list[str]) -> tuple[group.Scalar, ...]:
        return tuple(group.Scalar(bytes.fromhex(x)) for x in xs)
    proof = shuffle_proof.ShuffleProof(
        commitments=tuple(group.Point(bytes.fromhex(x)) for x in p["commitments"]),
        chain=tuple(group.Point(bytes.fromhex(x)) for x in p["chain"]),
        blinded=group.Point(bytes.fromhex(p["blinded"])),
        challenge=group.Scalar(bytes.fromhex(p["challenge"])),
        responses=scalars(p["responses"]), chain_responses=scalars(p["chain_responses"]),
        perm_responses=scalars(p["perm_responses"]))
    Y = group.Point(bytes.fromhex(v["Y"]))

    def t() -> Transcript:
        return Transcript(CTX, kind=shuffle_proof.KIND, seat=v["seat"])
    assert shuffle_proof.verify(t(), Y, pts, outs, proof)
    assert [h(g) for g in shuffle_proof.generators(4)[1]] == v["generators"]
    for i in range(len(outs)):
        changed = [*outs[:i], group.add(outs[i], group.GENERATOR), *outs[i + 1:]]
        assert not shuffle_proof.verify(t(), Y, pts, changed, proof)


def test_the_stored_threshold_strip_checks_and_combines() -> None:
    """From the file alone (not recomputed): the key proof links A_0 to Y, each partial's
    proof holds against its share image, the two combine to the strip = e^-1·V, and one
    partial is refused."""
    v = json.loads((VECTORS / "mp_threshold_strip.json").read_text())

    def pt(x: str) -> group.Point:
        return group.Point(bytes.fromhex(x))
    y, a = pt(v["Y"]), [pt(c) for c in v["commitments"]]
    key_proof = proofs.Proof.from_bytes(bytes.fromhex(v["key_proof"]))
    assert threshold.verify_inverse_link(Transcript(CTX, kind=b"key", seat=0), y, a[0],
                                         key_proof)
    value = pt(v["value"])
    partials = {}
    for r, x in v["holders"].items():
        image = pt(x["share_image"])
        assert image == escrow.share_point(escrow.share_x(int(r)), a)
        t = threshold.partial_transcript(CTX, holder=int(r), dealer=0, op=v["op"],
                                         positions=[tuple(v["position"])])
        proof = proofs.Proof.from_bytes(bytes.fromhex(x["proof"]))
        assert threshold.verify_partials(t.fork(), image, [value], [pt(x["partial"])], proof)
        assert not threshold.verify_partials(t, image, [value], [value], proof)
        partials[int(r)] = pt(x["partial"])
    assert h(threshold.combine(partials, 2)) == v["strip"]
    assert group.mul(group.Scalar(bytes.fromhex(v["e"])), pt(v["strip"])) == value
    with pytest.raises(ValueError):
        threshold.combine({1: partials[1]}, 2)
