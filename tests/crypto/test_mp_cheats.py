"""Every kind of cheating is detected and the cheater is named (R-AUDIT, issue #4 §3)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from p2p8s.crypto import group
from p2p8s.crypto.audit import audit_round
from p2p8s.crypto.deck import Position
from p2p8s.crypto.errors import CheatDetected, Fault
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.harness import FakeNetwork, Tamper, deal_hands, finish, new_table, start
from p2p8s.crypto.messages import (
    Commit,
    KeyAnnounce,
    KeyReveal,
    Message,
    PlayCards,
    Reveal,
    Shuffle,
    Strip,
)
from p2p8s.crypto.proofs import Proof
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session

#: the generator's encoding with its lowest bit set: a negative field element, never a
#: canonical ristretto255 encoding (RFC 9496 §4.3.1)
NEGATIVE = bytes([group.GENERATOR[0] | 1]) + group.GENERATOR[1:]
IDENTITY = bytes(32)


def other_point(tag: bytes) -> Point:
    return group.hash_to_point(b"test/other", tag)


def rewrite(kind: type[Message], seat: int, change: Callable[[Any], Message],
            *, only_to: int | None = None, times: int = 1) -> Tamper:
    """A tamper hook: seat's first ``times`` messages of ``kind`` are altered (to every
    recipient, i.e. the seat itself cheats; or only to ``only_to``: equivocation)."""
    done: set[int] = set()

    def hook(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if sender != seat or not isinstance(msg, kind):
            return data
        if only_to is not None and recipient != only_to:
            return data
        if msg.seq not in done and len(done) >= times:
            return data
        done.add(msg.seq)
        return change(msg).encode()

    return hook


def detect(net: FakeNetwork, steps: Callable[[FakeNetwork], object]) -> CheatDetected:
    with pytest.raises(CheatDetected) as info:
        steps(net)
    return info.value


def full_round(net: FakeNetwork) -> None:
    start(net)
    deal_hands(net, 3)
    finish(net)


# ----------------------------------------------------------------------------- shuffles


@pytest.mark.parametrize(
    ("bad", "fault"),
    [
        (b"\xff" * 32, Fault.BAD_POINT),  # not a canonical encoding
        (IDENTITY, Fault.BAD_POINT),
        (NEGATIVE, Fault.BAD_POINT),
    ],
)
def test_invalid_point_in_a_shuffle_names_the_shuffler(bad: bytes, fault: Fault) -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, Shuffle)
        return dataclasses.replace(m, points=(Point(bad), *m.points[1:]))

    err = detect(new_table(3, tamper=rewrite(Shuffle, 1, change)), full_round)
    assert (err.seat, err.fault) == (1, fault)


def test_duplicated_point_in_a_shuffle_names_the_shuffler() -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, Shuffle)
        return dataclasses.replace(m, points=(m.points[1], *m.points[1:]))

    err = detect(new_table(4, tamper=rewrite(Shuffle, 2, change)), full_round)
    assert (err.seat, err.fault) == (2, Fault.DUPLICATE_POINT)


def with_cheater(n: int, seat: int, cls: type[Session]) -> FakeNetwork:
    net = new_table(n)
    honest = net.sessions[seat]
    cheat = cls(honest.config, seeded(b"cheater"))
    net.sessions[seat] = cheat
    return net


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_the_audit_names_the_shuffler_of_a_step_that_is_no_permutation(seat: int) -> None:
    """Sessions refuse an unproven step (tests/crypto/test_shuffle_proof.py); a record
    that holds one anyway (a forged log) fails the audit's decode of the final deck, and
    the step-by-step check names the shuffler."""
    net = new_table(3)
    full_round(net)
    record = net.sessions[0].record()
    secrets = [net.sessions[s]._key for s in range(3)]
    ep = record.epochs[0]
    steps = list(ep.steps)
    steps[seat] = (group.mul(secrets[seat], other_point(b"joker")), *steps[seat][1:])
    for later in range(seat + 1, 3):  # the later seats shuffled the forged deck
        steps[later] = tuple(group.mul(secrets[later], p) for p in steps[later - 1])
    forged = dataclasses.replace(record, epochs=(dataclasses.replace(ep, steps=tuple(steps)),
                                                 *record.epochs[1:]))
    assert audit_round(record, secrets).orders
    with pytest.raises(CheatDetected) as info:
        audit_round(forged, secrets)
    assert (info.value.seat, info.value.fault) == (seat, Fault.BAD_SHUFFLE)


def test_false_dispute_names_the_disputer() -> None:
    class Liar(Session):
        def _finish(self, op: int, p: Position, pos: object) -> None:
            self._dispute(p)  # claims every card it gets is bad

    net = with_cheater(3, 0, Liar)
    start(net)
    net.call_all(lambda s: s.draw((0, 5), 0))
    net.roundtrip_until_done()
    reports = []
    net.call_all(lambda s: s.end_round())
    net.roundtrip_until_done()
    with pytest.raises(CheatDetected) as info:
        reports.append(net.sessions[1].audit())
    assert (info.value.seat, info.value.fault) == (0, Fault.FALSE_DISPUTE)


# ----------------------------------------------------------------------------- strips


def test_wrong_strip_names_the_stripper() -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, Strip)
        e, i, _ = m.items[0]
        return dataclasses.replace(m, items=((e, i, other_point(b"s")), *m.items[1:]))

    err = detect(new_table(4, tamper=rewrite(Strip, 2, change)), full_round)
    assert (err.seat, err.fault) == (2, Fault.BAD_STRIP)


def test_strip_with_a_proof_for_other_values_names_the_stripper() -> None:
    class BadStripper(Session):
        def _strip_value(self, position: Position, old: Point) -> Point:
            return group.mul(group.scalar_from_int(2), super()._strip_value(position, old))

    net = with_cheater(3, 1, BadStripper)
    err = detect(net, full_round)
    assert (err.seat, err.fault) == (1, Fault.BAD_STRIP)


def test_strip_of_a_layer_that_is_not_next_names_the_sender() -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, Strip)
        return dataclasses.replace(m, op=0, layer=(m.layer + 1) % 3)

    err = detect(new_table(3, tamper=rewrite(Strip, 0, change)), full_round)
    assert (err.seat, err.fault) == (0, Fault.BAD_STRIP)


# ----------------------------------------------------------------------------- plays


def dealt(n: int, tamper: Tamper | None = None) -> FakeNetwork:
    net = new_table(n, tamper=tamper)
    start(net)
    deal_hands(net, 3)
    return net


def test_playing_a_different_card_than_the_one_held_names_the_player() -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, PlayCards)
        e, i, k = m.items[0]
        return dataclasses.replace(m, items=((e, i, (k + 1) % 52),))

    net = dealt(3, rewrite(PlayCards, 1, change))
    pos = sorted(net.sessions[1].hand())[0]
    err = detect(net, lambda net: (net.call(1, lambda s: s.play([pos])),
                                   net.roundtrip_until_done()))
    assert (err.seat, err.fault) == (1, Fault.BAD_PLAY)


def test_playing_a_position_held_by_another_seat_names_the_player() -> None:
    net = dealt(3)
    theirs = sorted(net.sessions[2].hand())[0]
    mine = sorted(net.sessions[1].hand())[0]
    net.tamper = rewrite(
        PlayCards, 1,
        lambda m: dataclasses.replace(m, items=((*theirs, m.items[0][2]),)))
    err = detect(net, lambda net: (net.call(1, lambda s: s.play([mine])),
                                   net.roundtrip_until_done()))
    assert (err.seat, err.fault) == (1, Fault.BAD_PLAY)


def test_a_played_card_substituted_after_the_fact_fails_its_proof() -> None:
    net = dealt(2)
    pos = sorted(net.sessions[0].hand())[0]
    proof = Proof(group.scalar_from_int(1), group.scalar_from_int(2))
    net.tamper = rewrite(PlayCards, 0, lambda m: dataclasses.replace(m, proof=proof))
    err = detect(net, lambda net: (net.call(0, lambda s: s.play([pos])),
                                   net.roundtrip_until_done()))
    assert (err.seat, err.fault) == (0, Fault.BAD_PLAY)


# ----------------------------------------------------------------------------- keys


def test_revealed_key_that_does_not_match_y_names_the_seat() -> None:
    def change(m: Any) -> Message:
        out: Message = dataclasses.replace(m, key=group.scalar_from_int(12345))
        return out

    err = detect(new_table(3, tamper=rewrite(KeyReveal, 2, change)), full_round)
    assert (err.seat, err.fault) == (2, Fault.BAD_KEY)


def test_key_announcement_with_a_bad_schnorr_proof_names_the_seat() -> None:
    def change(m: Any) -> Message:
        assert isinstance(m, KeyAnnounce)
        return dataclasses.replace(m, proof=Proof(m.proof.challenge, Scalar(bytes(32))))

    err = detect(new_table(2, tamper=rewrite(KeyAnnounce, 1, change)), full_round)
    assert (err.seat, err.fault) == (1, Fault.BAD_KEY_PROOF)


def test_nonce_that_does_not_match_its_commitment_names_the_seat() -> None:
    def change(m: Any) -> Message:
        out: Message = dataclasses.replace(m, nonce=bytes(32))
        return out

    err = detect(new_table(3, tamper=rewrite(Reveal, 0, change)), full_round)
    assert (err.seat, err.fault) == (0, Fault.BAD_NONCE)


# ----------------------------------------------------------------------------- the wire


def test_replayed_message_names_the_sender() -> None:
    net = new_table(3)
    net.call_all(lambda s: s.start_round())
    data, at, serial = net.links[(1, 0)][0]
    net.links[(1, 0)].append((data, at, serial + 1000))
    err = detect(net, lambda net: net.roundtrip_until_done())
    assert (err.seat, err.fault) == (1, Fault.REPLAY)


def test_reordered_messages_name_the_sender() -> None:
    net = new_table(3)
    start(net)
    net.call_all(lambda s: s.draw((0, 0), 0))
    net.call_all(lambda s: s.draw((0, 1), 0))
    link = net.links[(1, 2)]
    assert len(link) == 2  # seat 1 strips first in both draws: two messages to seat 2
    a, b = link.popleft(), link.popleft()
    link.extend([(b[0], a[1], a[2]), (a[0], b[1], b[2])])
    err = detect(net, lambda net: net.roundtrip_until_done())
    assert (err.seat, err.fault) == (1, Fault.REORDER)


def test_message_from_another_table_or_round_is_rejected() -> None:
    net = new_table(2)
    other = new_table(2, round_no=2)
    other.call(1, lambda s: s.start_round())
    data = other.links[(1, 0)][0]
    net.call_all(lambda s: s.start_round())
    net.links[(1, 0)].appendleft(data)
    err = detect(net, lambda net: net.roundtrip_until_done())
    assert err.seat == 1 and err.fault is Fault.REPLAY


def test_sending_different_data_to_different_peers_is_caught_by_the_echo() -> None:
    def change(m: Any) -> Message:
        out: Message = dataclasses.replace(m, box_key=bytes(31) + b"\x09")
        return out

    net = new_table(3, tamper=rewrite(Commit, 0, change, only_to=2), keep_going=True)
    start(net)
    # both honest seats name seat 0 (seat 0's own node blames the echoer: it is the cheat)
    for honest in (1, 2):
        err = net.failures[honest]
        assert (err.seat, err.fault) == (0, Fault.EQUIVOCATION)


def test_bytes_that_are_not_a_canonical_message_name_the_sender() -> None:
    net = new_table(2, tamper=lambda s, r, m, d: d + b"\x00" if s == 1 else d)
    err = detect(net, full_round)
    assert (err.seat, err.fault) == (1, Fault.MALFORMED)


def test_a_failed_session_stays_failed() -> None:
    net = new_table(2, tamper=rewrite(Reveal, 1, lambda m: dataclasses.replace(m, nonce=bytes(32))))
    detect(net, full_round)
    with pytest.raises(CheatDetected):
        net.sessions[0].end_round()
