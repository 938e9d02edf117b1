"""The exception root (p2p8s/errors.py): codes and data, a developer form, pickling."""

from __future__ import annotations

import pickle

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.engine import EngineCode
from p2p8s.errors import Error, IllegalAction, RemoteError
from p2p8s.table.decoding import BadPayload, PayloadCode, PayloadProblem
from p2p8s.wire import WireCode, WireError


@pytest.mark.parametrize("error", [
    IllegalAction(EngineCode.MUST_DRAW, rule="R-DRAW"),
    RemoteError(EngineCode.NOT_AN_ACTION, seat=2, value="x"),
    CheatDetected(Cheat.RESHUFFLE_MISMATCH, seat=1, fault=Fault.BAD_SHUFFLE),
    WireError(WireCode.CUT_SHORT, peer="10.0.0.7:4242", seat=3),
    BadPayload(PayloadCode.ROUND, problem=PayloadProblem.ROUND),
], ids=lambda e: type(e).__name__)
def test_an_error_survives_a_pickle_round_trip(error: Error) -> None:
    """Errors cross process pools (``p2p8s simulate``): every attribute comes back, and
    the words are the same."""
    got = pickle.loads(pickle.dumps(error))
    assert type(got) is type(error) and got.__dict__ == error.__dict__
    assert str(got) == str(error) and PLAIN.error(got) == PLAIN.error(error)
