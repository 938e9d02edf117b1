"""Errors of the mental-poker protocol, as data.

Every detected cheat is a :class:`CheatDetected` (a :class:`~p2p8s.errors.RemoteError`)
whose ``seat`` names the offender, whose ``fault`` says what kind of thing was wrong (a
bad strip, a replayed message …) and whose ``code`` (a :class:`Cheat`) and ``params``
(seats, positions, counts, cards) say exactly what, so a table layer and the tests can
tell one from another and the CLI can say it (``p2p8s.cli.words.crypto``). A call this
program makes at the wrong time is a :class:`ProtocolMisuse` (a local error, code
:class:`Misuse`). A message that does not decode is a cheat of code
:attr:`Cheat.MALFORMED_MESSAGE` whose ``problem`` param is a :class:`Malformed` code.

>>> err = CheatDetected(Cheat.ALREADY_RECEIVED, seat=2, fault=Fault.REPLAY, seq=5)
>>> (err.seat, err.fault, err.params["seq"])
(2, <Fault.REPLAY: 'replay'>, 5)
>>> str(err)
'already-received seat=2 seq=5'
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from p2p8s.errors import Code, LocalError, RemoteError


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
    FALSE_ACCUSATION = "false-accusation"  # a bad-share accusation the public check refutes


class Cheat(Code):
    """Exactly what a :class:`CheatDetected` found; the params each one carries follow
    its name (``position`` is an ``(epoch, index)`` pair, ``card`` a card index unless
    said otherwise)."""

    # decoding (messages.decode)
    MALFORMED_MESSAGE = "malformed-message"  # problem: Malformed, and its params
    CLAIMS_SEAT = "claims-seat"  # claimed
    # the envelope (session, on receipt)
    OTHER_ROUND = "other-round"
    IMPOSSIBLE_SEAT = "impossible-seat"  # claimed
    ALREADY_RECEIVED = "already-received"  # seq
    ARRIVED_EARLY = "arrived-early"  # seq, expected
    ECHO_LENGTH = "echo-length"
    ECHO_OWN_CHAIN = "echo-own-chain"
    ECHO_UNSENT = "echo-unsent"
    SAW_DIFFERENT = "saw-different"  # reporter, about, count
    UNKNOWN_MESSAGE = "unknown-message"
    # round id and keys
    SECOND_COMMITMENT = "second-commitment"
    REVEAL_OUT_OF_TURN = "reveal-out-of-turn"
    NONCE_MISMATCH = "nonce-mismatch"
    SECOND_KEY = "second-key"
    KEY_PROOF = "key-proof"
    BOX_KEY = "box-key"
    KEY_MISMATCH = "key-mismatch"
    # escrow
    ESCROW_MALFORMED = "escrow-malformed"
    ESCROW_NOT_DUE = "escrow-not-due"
    SHARE_UNDECRYPTABLE = "share-undecryptable"  # recipient
    SHARE_FELDMAN = "share-feldman"  # recipient
    RECOVERY_SHARE = "recovery-share"  # dealer
    FALSE_ACCUSATION = "false-accusation"  # dealer: its share to the accuser is good
    ACCUSATION_KEY = "accusation-key"  # dealer: the published box secret is not the accuser's
    ACCUSATION_NO_ESCROW = "accusation-no-escrow"  # dealer: the accuser holds no share of it
    RECOVERED_KEY = "recovered-key"
    SHARE_NO_ESCROW = "share-no-escrow"
    SECOND_SHARE = "second-share"  # dealer
    SHARE_WRONG = "share-wrong"  # dealer
    # threshold strips of a lost seat's layer (§8.1)
    PARTIAL_NO_ESCROW = "partial-no-escrow"  # dealer: the sender holds no share of it
    PARTIAL_NOT_DUE = "partial-not-due"  # position, dealer
    SECOND_PARTIAL = "second-partial"  # position, dealer
    PARTIAL_PROOF = "partial-proof"  # dealer, op
    # shuffles
    SHUFFLE_OUT_OF_TURN = "shuffle-out-of-turn"
    SHUFFLE_SIZE = "shuffle-size"  # size, expected
    SHUFFLE_POINT = "shuffle-point"  # index
    SHUFFLE_REPEATS = "shuffle-repeats"
    POINT_OUTSIDE_GROUP = "point-outside-group"
    SHUFFLE_STEP = "shuffle-step"  # epoch
    SHUFFLE_PROOF = "shuffle-proof"  # epoch
    RESHUFFLE_MISMATCH = "reshuffle-mismatch"
    # strips
    STRIPS_OTHER_LAYER = "strips-other-layer"
    STRIP_NOT_IN_OPERATION = "strip-not-in-operation"  # position, op
    STRIP_ORDER = "strip-order"  # position
    EMPTY_STRIP = "empty-strip"
    STRIP_PROOF = "strip-proof"  # op
    STRIP_WRONG = "strip-wrong"  # position
    # plays and disputes
    PLAYS_FOR = "plays-for"  # holder
    EMPTY_PLAY = "empty-play"
    NOT_HELD = "not-held"  # position
    NOT_IN_EPOCH = "not-in-epoch"  # card, epoch
    FACE_UP_MISMATCH = "face-up-mismatch"  # shown, known (card indices)
    PLAY_PROOF = "play-proof"
    PLAYED_OTHER = "played-other"  # card, position, held (Cards)
    DISPUTE_NOT_OWN = "dispute-not-own"  # position
    FALSE_DISPUTE = "false-dispute"  # position, held (Card)
    # the hidden-claim replay (R-AUDIT)
    OUT_OF_TURN = "out-of-turn"  # action
    NOT_ALLOWED = "not-allowed"  # action, cause (the engine's IllegalAction), rule


class Malformed(Code):
    """Why bytes are not a canonical mental-poker message (the ``problem`` of
    :attr:`Cheat.MALFORMED_MESSAGE`; params follow the name)."""

    NOT_AN_ARRAY = "not-an-array"
    VERSION = "version"  # version (what the bytes say, shown as received)
    KIND = "kind"  # kind (as received)
    FIELD_COUNT = "field-count"
    NOT_CANONICAL = "not-canonical"
    EXPECTED_INT = "expected-int"
    EXPECTED_BYTES = "expected-bytes"
    EXPECTED_32_BYTES = "expected-32-bytes"
    EXPECTED_PROOF = "expected-proof"
    BAD_PROOF = "bad-proof"  # not two canonical scalars
    EXPECTED_ARRAY = "expected-array"
    ARRAY_TOO_LONG = "array-too-long"
    ARRAY_LENGTH = "array-length"
    UNDECODABLE = "undecodable"  # error (the decoder's exception type name)


class CheatDetected(RemoteError):
    """A peer broke the mental-poker protocol; ``seat`` names it (also in ``params``, as
    ``seat``, for the words), ``fault`` says how and ``code``/``params`` exactly what.
    """

    def __init__(self, code: Code, /, *, seat: int | None, fault: Fault,
                 **params: Any) -> None:
        super().__init__(code, seat=seat, **params)
        self.params = {"seat": seat, **params}
        self.fault = fault


class Misuse(Code):
    """What this node asked of its mental-poker session at the wrong time (params follow
    the name; ``position`` is an ``(epoch, index)`` pair)."""

    STARTED = "started"
    NOT_DISTRIBUTABLE = "not-distributable"  # position
    NO_SEAT = "no-seat"  # seat
    NOT_FACE_UP = "not-face-up"  # position
    CANNOT_PLAY_FOR = "cannot-play-for"  # seat
    PLAY_NOT_DISTINCT = "play-not-distinct"
    NOT_HELD = "seat-does-not-hold"  # seat, position
    NOTHING_TO_RESHUFFLE = "nothing-to-reshuffle"
    NOT_A_DISCARD = "not-a-discard"  # position
    DISCARD_TWICE = "discard-twice"
    NOT_STARTED = "not-started"
    KEY_NOT_NOW = "key-not-now"
    NO_SHARE = "no-share"  # seat
    CANNOT_LEARN = "cannot-learn"  # seat
    KEY_KNOWN = "key-known"  # seat
    KEY_MISMATCH = "given-key-mismatch"  # seat
    OWN_WAITING = "own-message-waiting"  # seat
    NO_KEYS = "no-keys"
    AUDIT_KEYS = "audit-keys"
    OBSERVER = "observer"


class ProtocolMisuse(LocalError):
    """This node asked the mental-poker session for something it cannot do now
    (``code`` is a :class:`Misuse`)."""
