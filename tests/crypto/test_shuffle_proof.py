"""The shuffle proof (protocol/mental-poker.md §5.3.1): an honest step verifies, and every
kind of wrong output or tampered proof is rejected; in a round, a substituted card is
caught at the shuffle step with the shuffler named, at every seat count."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.crypto import group, shuffle_proof
from p2p8s.crypto.deck import card_points
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.harness import FakeNetwork, new_table, start
from p2p8s.crypto.messages import Message, Shuffle, decode
from p2p8s.crypto.rand import permutation, seeded
from p2p8s.crypto.session import Session
from p2p8s.crypto.shuffle_proof import ShuffleProof
from p2p8s.crypto.transcript import Context, Transcript

N = 52
CTX = Context(table=b"T", round_no=1, round_id=bytes(32), epoch=0)


def _t(ctx: Context = CTX, seat: int = 1) -> Transcript:
    return Transcript(ctx, kind=shuffle_proof.KIND, seat=seat)


@dataclasses.dataclass(frozen=True)
class Step:
    key: Scalar
    perm: tuple[int, ...]
    inputs: tuple[Point, ...]
    outputs: tuple[Point, ...]
    proof: ShuffleProof

    @property
    def Y(self) -> Point:
        return group.base_mul(self.key)


def _step(n: int = N, seed: bytes = b"sp") -> Step:
    rand = seeded(seed)
    inputs = card_points(b"T", 1, bytes(32), 0, range(n))
    key = group.random_scalar(rand)
    perm = tuple(permutation(n, rand))
    outputs = tuple(group.mul(key, inputs[j]) for j in perm)
    proof = shuffle_proof.prove(_t(), key, perm, inputs, outputs, rand)
    return Step(key, perm, inputs, outputs, proof)


STEP = _step()


def _ok(inputs: Sequence[Point], outputs: Sequence[Point], proof: ShuffleProof,
        key: Point | None = None, t: Transcript | None = None) -> bool:
    return shuffle_proof.verify(t or _t(), key or STEP.Y, inputs, outputs, proof)


def other(tag: bytes) -> Point:
    return group.hash_to_point(b"test/other", tag)


@pytest.mark.parametrize("n", [1, 2, 3, 52])
def test_an_honest_step_verifies(n: int) -> None:
    step = STEP if n == N else _step(n)
    assert shuffle_proof.verify(_t(), step.Y, step.inputs, step.outputs, step.proof)


def _reproven(outputs: Sequence[Point], key: Scalar = STEP.key) -> ShuffleProof:
    """The best a cheating prover can do with the real permutation: run the prover on
    outputs that are not ``key × inputs`` permuted."""
    return shuffle_proof.prove(_t(), key, STEP.perm, STEP.inputs, outputs, seeded(b"cheat"))


def _substituted() -> list[Point]:
    out = list(STEP.outputs)
    out[0] = group.mul(STEP.key, other(b"joker"))  # a point the shuffler knows
    return out


def _duplicated() -> list[Point]:
    out = list(STEP.outputs)
    out[1] = out[0]
    return out


def _wrong_key() -> list[Point]:
    """Reordered, but one card under another key (e.g. to mark it)."""
    out = list(STEP.outputs)
    out[0], out[1] = out[1], group.mul(group.scalar_from_int(2), out[0])
    return out


@pytest.mark.parametrize("wrong", [_substituted, _duplicated, _wrong_key],
                         ids=["substituted", "duplicated", "reordered-wrong-key"])
def test_a_wrong_output_is_rejected(wrong: Callable[[], list[Point]]) -> None:
    outputs = wrong()
    assert not _ok(STEP.inputs, outputs, STEP.proof)  # the honest proof of other outputs
    assert not _ok(STEP.inputs, outputs, _reproven(outputs))  # a proof made for them


def test_a_dropped_point_is_rejected() -> None:
    outputs = STEP.outputs[1:]
    assert not _ok(STEP.inputs, outputs, STEP.proof)
    p = STEP.proof
    short = dataclasses.replace(p, commitments=p.commitments[1:], chain=p.chain[1:],
                                chain_responses=p.chain_responses[1:],
                                perm_responses=p.perm_responses[1:])
    assert not _ok(STEP.inputs, outputs, short)
    assert not _ok(STEP.inputs[1:], outputs, short)  # and not for a smaller deck either


def test_a_whole_step_under_another_key_is_rejected() -> None:
    other_key = group.scalar_from_int(7)
    outputs = tuple(group.mul(other_key, STEP.inputs[j]) for j in STEP.perm)
    proof = shuffle_proof.prove(_t(), other_key, STEP.perm, STEP.inputs, outputs, seeded(b"k"))
    assert _ok(STEP.inputs, outputs, proof, key=group.base_mul(other_key))  # its own Y
    assert not _ok(STEP.inputs, outputs, proof)  # not the announced Y


def test_a_wrong_key_point_is_rejected() -> None:
    assert not _ok(STEP.inputs, STEP.outputs, STEP.proof, key=other(b"Y"))
    assert not _ok(STEP.inputs, STEP.outputs, STEP.proof, key=Point(bytes(32)))


def test_a_proof_for_another_input_or_place_is_rejected() -> None:
    elsewhere = card_points(b"T", 1, bytes(32), 1, range(N))  # another epoch's cards
    assert not _ok(elsewhere, STEP.outputs, STEP.proof)
    for ctx, seat in [(dataclasses.replace(CTX, epoch=1), 1), (CTX, 2),
                      (dataclasses.replace(CTX, round_id=bytes([1]) * 32), 1),
                      (dataclasses.replace(CTX, table=b"U"), 1)]:
        assert not _ok(STEP.inputs, STEP.outputs, STEP.proof, t=_t(ctx, seat))


def _bump(s: Scalar) -> Scalar:
    return group.scalar_add(s, group.ONE)


def _tampered() -> list[tuple[str, ShuffleProof]]:
    p = STEP.proof
    g = group.GENERATOR
    cases = [("challenge", dataclasses.replace(p, challenge=_bump(p.challenge))),
             ("blinded", dataclasses.replace(p, blinded=group.add(p.blinded, g)))]
    for k in range(shuffle_proof.RESPONSES):
        rs = list(p.responses)
        rs[k] = _bump(rs[k])
        cases.append((f"response-{k}", dataclasses.replace(p, responses=tuple(rs))))
    for name in ("chain_responses", "perm_responses"):
        for j in (0, N - 1):
            rs = list(getattr(p, name))
            rs[j] = _bump(rs[j])
            cases.append((f"{name}-{j}", dataclasses.replace(p, **{name: tuple(rs)})))
    for name in ("commitments", "chain"):
        for j in (0, N - 1):
            ps = list(getattr(p, name))
            ps[j] = group.add(ps[j], g)
            cases.append((f"{name}-{j}", dataclasses.replace(p, **{name: tuple(ps)})))
    swapped = list(p.commitments)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    cases.append(("commitments-swapped", dataclasses.replace(p, commitments=tuple(swapped))))
    return cases


@pytest.mark.parametrize(("name", "proof"), _tampered(), ids=[n for n, _ in _tampered()])
def test_a_tampered_proof_is_rejected(name: str, proof: ShuffleProof) -> None:
    assert not _ok(STEP.inputs, STEP.outputs, proof), name


def test_an_invalid_point_in_the_proof_is_rejected() -> None:
    bad = Point(b"\xff" * 32)
    p = STEP.proof
    for proof in (dataclasses.replace(p, blinded=bad),
                  dataclasses.replace(p, commitments=(bad, *p.commitments[1:])),
                  dataclasses.replace(p, chain=(*p.chain[:-1], bad))):
        assert not _ok(STEP.inputs, STEP.outputs, proof)


def test_the_prover_refuses_what_is_not_a_permutation() -> None:
    with pytest.raises(ValueError):
        shuffle_proof.prove(_t(), STEP.key, (0, 0, *STEP.perm[2:]), STEP.inputs,
                            STEP.outputs, seeded(b"x"))


# ---------------------------------------------------------------------- in a round


class Substituter(Session):
    """Replaces the card at slot 0 of its shuffle output by a point it knows (the attack of
    issue #13: the four 8s replaced, located after the next step)."""

    def _shuffle_points(self, epoch: int, prev: tuple[Point, ...]
                        ) -> tuple[tuple[Point, ...], ShuffleProof]:
        out, proof = super()._shuffle_points(epoch, prev)
        return (group.mul(self._key, other(b"joker")), *out[1:]), proof


class Reprover(Session):
    """Substitutes a card and runs the prover on its forged output."""

    def _proven_step(self, epoch: int, layer: int, key: Scalar, prev: tuple[Point, ...]
                     ) -> tuple[tuple[Point, ...], ShuffleProof]:
        out, _ = super()._proven_step(epoch, layer, key, prev)
        forged = (group.mul(key, other(b"joker")), *out[1:])
        perm = tuple(permutation(len(prev), seeded(b"any")))
        t = self._shuffle_transcript(epoch, layer)
        return forged, shuffle_proof.prove(t, key, perm, prev, forged, self._rand)


def _with_cheater(n: int, seat: int, cls: type[Session]) -> FakeNetwork:
    net = new_table(n)
    net.sessions[seat] = cls(net.sessions[seat].config, seeded(b"cheater"))
    return net


@pytest.mark.parametrize("n", range(2, 8))
def test_a_substituted_card_is_caught_at_the_shuffle_step(n: int) -> None:
    for seat, cls in ((n - 1, Substituter), (0, Reprover)):
        net = _with_cheater(n, seat, cls)
        with pytest.raises(CheatDetected) as info:
            start(net)
        err = info.value
        assert (err.seat, err.fault, err.code) == (seat, Fault.BAD_SHUFFLE,
                                                   Cheat.SHUFFLE_PROOF)
        assert "proof" in PLAIN.error(err)


def test_the_next_seat_never_shuffles_on_a_refused_step() -> None:
    net = _with_cheater(4, 1, Substituter)
    with pytest.raises(CheatDetected) as info:
        start(net)
    assert (info.value.seat, info.value.fault) == (1, Fault.BAD_SHUFFLE)
    assert any(isinstance(m, Shuffle) for m in net.sent[1])
    assert not any(isinstance(m, Shuffle) for m in net.sent[2] + net.sent[3])


def test_a_shuffle_message_carries_its_proof_on_the_wire() -> None:
    net = new_table(2)
    start(net)
    shuffles: list[Message] = [m for m in net.sent[0] if isinstance(m, Shuffle)]
    assert shuffles
    m = shuffles[0]
    assert decode(m.encode()) == m
    assert isinstance(m, Shuffle) and len(m.proof.commitments) == len(m.points)
