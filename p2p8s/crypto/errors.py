"""Errors of the mental-poker protocol.

Every detected cheat is a :class:`CheatDetected` (a :class:`~p2p8s.errors.RemoteError`)
whose ``seat`` names the offender and whose ``fault`` says what was wrong, so a table
layer and the tests can tell a bad strip from a replayed message. A call this program
makes at the wrong time is a :class:`ProtocolMisuse` (a local error).
"""

from __future__ import annotations

from enum import Enum

from p2p8s.errors import LocalError, RemoteError


class Fault(Enum):
    """What a cheating (or broken) seat did; the value is a stable wire/log name."""

    MALFORMED = "malformed"  # bytes that do not decode to a message, or wrong field shapes
    BAD_POINT = "bad-point"  # a point that is not a valid, non-identity group element
    DUPLICATE_POINT = "duplicate-point"  # a shuffle output with a repeated point
    BAD_NONCE = "bad-nonce"  # a nonce reveal that does not match its commitment
    BAD_KEY_PROOF = "bad-key-proof"  # Schnorr proof of knowledge of e_j fails
    BAD_SHARE = "bad-share"  # an escrow share that fails the Feldman check or decryption
    BAD_STRIP = "bad-strip"  # a strip whose DLEQ proof fails or that is out of order
    BAD_PLAY = "bad-play"  # a played card whose proof fails or that the seat does not hold
    BAD_SHUFFLE = "bad-shuffle"  # a shuffle step that is not a permutation of e_j * input
    BAD_KEY = "bad-key"  # a revealed key that does not match Y_j
    FALSE_DISPUTE = "false-dispute"  # a seat claimed a bad card where the audit found none
    REPLAY = "replay"  # a message whose sequence number was already used
    REORDER = "reorder"  # a message that skips sequence numbers
    EQUIVOCATION = "equivocation"  # different data sent to different peers (echo mismatch)
    UNEXPECTED = "unexpected"  # a message that the protocol does not allow at this point
    ILLEGAL_CLAIM = "illegal-claim"  # a hidden claim (e.g. "no playable card") was false


class CheatDetected(RemoteError):
    """A peer broke the mental-poker protocol; ``seat`` names it and ``fault`` says how."""

    def __init__(self, message: str, *, seat: int | None, fault: Fault) -> None:
        super().__init__(f"seat {seat}: {message}" if seat is not None else message, seat=seat)
        self.fault = fault


class ProtocolMisuse(LocalError):
    """This node asked the mental-poker session for something it cannot do now."""
