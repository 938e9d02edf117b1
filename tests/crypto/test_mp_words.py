"""Mental-poker errors are data: every code has words, a cheat says its seat and
details, and bad bytes from a peer raise CheatDetected (a remote error) naming it."""

from __future__ import annotations

from enum import Enum

import pytest

from p2p8s.cli import words
from p2p8s.cli.words import PLAIN
from p2p8s.crypto import group
from p2p8s.crypto import messages as cm
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, Malformed, Misuse
from p2p8s.crypto.group import GroupError, GroupProblem
from p2p8s.engine import EngineCode
from p2p8s.errors import IllegalAction, LocalError, RemoteError


@pytest.mark.parametrize("codes", [Cheat, Malformed, Misuse, GroupProblem],
                         ids=lambda c: c.__name__)
def test_every_code_has_words(codes: type[Enum]) -> None:
    assert words.missing(codes) == []


def test_a_cheat_is_a_code_with_data_and_said_with_its_seat() -> None:
    err = CheatDetected(Cheat.STRIP_NOT_IN_OPERATION, seat=2, fault=Fault.BAD_STRIP,
                        position=(0, 7), op=3)
    assert (err.seat, err.fault, err.code) == (2, Fault.BAD_STRIP, Cheat.STRIP_NOT_IN_OPERATION)
    assert err.params == {"seat": 2, "position": (0, 7), "op": 3}
    assert str(err) == "strip-not-in-operation seat=2 position=(0, 7) op=3"  # for developers
    assert PLAIN.error(err) == "seat 2: strip of (0, 7) not in operation 3"
    anonymous = CheatDetected(Cheat.RESHUFFLE_MISMATCH, seat=None, fault=Fault.BAD_SHUFFLE)
    assert PLAIN.error(anonymous) == "the reshuffled stock does not hold the discards"


def test_an_illegal_claim_says_the_engines_refusal_inside() -> None:
    err = CheatDetected(Cheat.NOT_ALLOWED, seat=1, fault=Fault.ILLEGAL_CLAIM, action="draw",
                        cause=IllegalAction(EngineCode.PLAYABLE_NO_DRAW, rule="R-DRAW"),
                        rule="R-DRAW")
    assert PLAIN.error(err) == ("seat 1: draw was not allowed: you have a playable card, so "
                                "you may not draw (R-DRAW)")


@pytest.mark.parametrize(("raw", "problem"), [
    (b"\xc1", Malformed.UNDECODABLE),
    (b"\x90", Malformed.NOT_AN_ARRAY),
    (b"\x97\x63\x01\xc4\x00\x00\x00\x00\x90", Malformed.VERSION),
])
def test_bytes_from_a_peer_are_its_cheat_never_a_local_error(raw: bytes,
                                                             problem: Malformed) -> None:
    with pytest.raises(CheatDetected) as info:
        cm.decode(raw, sender=3)
    err = info.value
    assert isinstance(err, RemoteError) and not isinstance(err, LocalError)
    assert (err.seat, err.fault, err.code) == (3, Fault.MALFORMED, Cheat.MALFORMED_MESSAGE)
    assert err.params["problem"] is problem
    assert PLAIN.error(err).startswith("seat 3: malformed message: ")


def test_a_misuse_is_local_and_a_group_problem_is_said() -> None:
    err = LocalError(Misuse.NOT_HELD, seat=1, position=(0, 4))
    assert PLAIN.error(err) == "seat 1 does not hold (0, 4)"
    with pytest.raises(GroupError) as info:
        group.scalar_inv(group.Scalar(bytes(32)))
    assert info.value.code is GroupProblem.ZERO_INVERSE
    assert PLAIN.error(info.value) == "zero has no inverse"
