"""The words of the mental-poker layer (:mod:`p2p8s.crypto`): cheats, misuses, group
problems.

A :class:`~p2p8s.crypto.errors.CheatDetected` that names a seat is said after
``seat N:`` (the seat of the session that found it; the table names the player)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from p2p8s.cli.words import Speaker, Template
from p2p8s.crypto.errors import Cheat, Malformed, Misuse
from p2p8s.crypto.group import GroupProblem


def _named(text: str) -> Callable[[Speaker, Mapping[str, Any]], str]:
    """``text`` after ``seat N: `` when the cheat names a seat."""

    def say(speaker: Speaker, params: Mapping[str, Any]) -> str:
        said = speaker.format(text, **params)
        if params.get("seat") is None:
            return said
        return speaker.format("seat {seat}: ", seat=params["seat"]) + said

    return say


def _malformed(speaker: Speaker, params: Mapping[str, Any]) -> str:
    problem = speaker.say(params["problem"], **params)
    return _named("malformed message: {problem}")(speaker, {**params, "problem": problem})


def _not_allowed(speaker: Speaker, params: Mapping[str, Any]) -> str:
    text = "{action} was not allowed: {cause}" + (" ({rule})" if params.get("rule") else "")
    return _named(text)(speaker, params)


_CHEATS: dict[Cheat, Template] = {
    Cheat.MALFORMED_MESSAGE: _malformed,
    Cheat.CLAIMS_SEAT: "message claims seat {claimed}",
    Cheat.OTHER_ROUND: "message for another table or round",
    Cheat.IMPOSSIBLE_SEAT: "message from an impossible seat",
    Cheat.ALREADY_RECEIVED: "message {seq} was already received",
    Cheat.ARRIVED_EARLY: "message {seq} arrived before {expected}",
    Cheat.ECHO_LENGTH: "echo has the wrong length",
    Cheat.ECHO_OWN_CHAIN: "echo of its own chain is wrong",
    Cheat.ECHO_UNSENT: "echo of messages this seat never sent",
    Cheat.SAW_DIFFERENT: "seat {reporter} saw different messages from seat {about} "
                         "(message {count})",
    Cheat.UNKNOWN_MESSAGE: "unknown message",
    Cheat.SECOND_COMMITMENT: "second commitment",
    Cheat.REVEAL_OUT_OF_TURN: "reveal out of turn",
    Cheat.NONCE_MISMATCH: "nonce does not match its commitment",
    Cheat.SECOND_KEY: "second key announcement",
    Cheat.KEY_PROOF: "key proof of knowledge fails",
    Cheat.BOX_KEY: "unusable X25519 box key",
    Cheat.KEY_MISMATCH: "revealed key does not match Y",
    Cheat.ESCROW_MALFORMED: "escrow commitments or share list malformed",
    Cheat.ESCROW_NOT_DUE: "escrow where none is due",
    Cheat.SHARE_UNDECRYPTABLE: "escrow share for seat {recipient} does not decrypt",
    Cheat.SHARE_FELDMAN: "escrow share for seat {recipient} fails the Feldman check",
    Cheat.FALSE_ACCUSATION: "falsely accused {dealer:name} of a bad escrow share: every "
                            "node decrypted that share and it checks out",
    Cheat.ACCUSATION_KEY: "accused {dealer:name} of a bad escrow share with a box secret "
                          "that is not its own",
    Cheat.ACCUSATION_NO_ESCROW: "accused {dealer:name} of a bad escrow share it was not due",
    Cheat.RECOVERY_SHARE: "escrow share of seat {dealer}'s key fails the Feldman check",
    Cheat.RECOVERED_KEY: "recovered key does not match its commitment",
    Cheat.SHARE_NO_ESCROW: "share reveal for no escrow",
    Cheat.SECOND_SHARE: "second escrow share of seat {dealer}'s key",
    Cheat.SHARE_WRONG: "escrow share of seat {dealer}'s key is wrong",
    Cheat.PARTIAL_NO_ESCROW: "sent a partial strip of seat {dealer}'s layer without a share "
                             "of its key",
    Cheat.PARTIAL_NOT_DUE: "sent a partial strip of seat {dealer}'s layer for {position}, "
                           "where none is due",
    Cheat.SECOND_PARTIAL: "sent a second partial strip of seat {dealer}'s layer for "
                          "{position}",
    Cheat.PARTIAL_PROOF: "partial strip of seat {dealer}'s layer for operation {op} fails "
                         "its proof",
    Cheat.SHUFFLE_OUT_OF_TURN: "shuffle out of turn",
    Cheat.SHUFFLE_SIZE: "shuffle has {size} points, expected {expected}",
    Cheat.SHUFFLE_POINT: "shuffle point {index} is not a valid group element",
    Cheat.SHUFFLE_REPEATS: "shuffle output repeats a point",
    Cheat.POINT_OUTSIDE_GROUP: "shuffle holds a point outside the group",
    Cheat.SHUFFLE_STEP: "shuffle step of epoch {epoch} is not a permutation of key × input",
    Cheat.SHUFFLE_PROOF: "shuffle step of epoch {epoch} came with a proof that fails",
    Cheat.RESHUFFLE_MISMATCH: "the reshuffled stock does not hold the discards",
    Cheat.STRIPS_OTHER_LAYER: "strips another seat's layer",
    Cheat.STRIP_NOT_IN_OPERATION: "strip of {position} not in operation {op}",
    Cheat.STRIP_ORDER: "strip of {position} out of order",
    Cheat.EMPTY_STRIP: "empty strip",
    Cheat.STRIP_PROOF: "strip proof for operation {op} fails",
    Cheat.STRIP_WRONG: "strip of {position} is wrong",
    Cheat.PLAYS_FOR: "plays for seat {holder}",
    Cheat.EMPTY_PLAY: "empty or repeated play",
    Cheat.NOT_HELD: "plays {position}, which it does not hold",
    Cheat.NOT_IN_EPOCH: "card {card} is not in epoch {epoch}",
    Cheat.FACE_UP_MISMATCH: "shows {shown} for face-up card {known}",
    Cheat.PLAY_PROOF: "played card proof fails (card not held)",
    Cheat.PLAYED_OTHER: "played card {card} but {position} holds {held}",
    Cheat.DISPUTE_NOT_OWN: "disputes {position}, not its card",
    Cheat.FALSE_DISPUTE: "disputed {position}, which holds {held}",
    Cheat.OUT_OF_TURN: "acted ({action}) out of turn",
    Cheat.NOT_ALLOWED: _not_allowed,
}

TEMPLATES: dict[Any, Template] = {
    **{code: t if callable(t) else _named(t) for code, t in _CHEATS.items()},
    Malformed.NOT_AN_ARRAY: "not a message array",
    Malformed.VERSION: "unsupported version {version}",
    Malformed.KIND: "unknown message kind {kind}",
    Malformed.FIELD_COUNT: "wrong number of fields",
    Malformed.NOT_CANONICAL: "not the canonical encoding",
    Malformed.EXPECTED_INT: "expected a small non-negative integer",
    Malformed.EXPECTED_BYTES: "expected a byte string",
    Malformed.EXPECTED_32_BYTES: "expected 32 bytes",
    Malformed.EXPECTED_PROOF: "expected a proof",
    Malformed.BAD_PROOF: "a proof is two canonical 32-byte scalars",
    Malformed.EXPECTED_ARRAY: "expected an array",
    Malformed.ARRAY_TOO_LONG: "array too long",
    Malformed.ARRAY_LENGTH: "wrong array length",
    Malformed.UNDECODABLE: "undecodable bytes ({error})",
    Misuse.STARTED: "the round has already started",
    Misuse.NOT_DISTRIBUTABLE: "position {position} cannot be distributed",
    Misuse.NO_SEAT: "no seat {seat}",
    Misuse.NOT_FACE_UP: "position {position} is not a face-up card to give",
    Misuse.CANNOT_PLAY_FOR: "this seat cannot play for seat {seat}",
    Misuse.PLAY_NOT_DISTINCT: "play needs distinct positions",
    Misuse.NOT_HELD: "seat {seat} does not hold {position}",
    Misuse.NOTHING_TO_RESHUFFLE: "nothing to reshuffle yet",
    Misuse.NOT_A_DISCARD: "position {position} is not a face-up discard",
    Misuse.DISCARD_TWICE: "a discard is listed twice",
    Misuse.NOT_STARTED: "an action can only be announced in a started round",
    Misuse.KEY_NOT_NOW: "the key cannot be revealed now",
    Misuse.NO_SHARE: "no escrow share of seat {seat} to publish",
    Misuse.CANNOT_LEARN: "cannot learn the key of seat {seat}",
    Misuse.KEY_KNOWN: "seat {seat}'s key is not announced, or already known",
    Misuse.KEY_MISMATCH: "the key given for seat {seat} does not match Y",
    Misuse.OWN_WAITING: "a message of seat {seat} still waits for what it follows",
    Misuse.NO_KEYS: "the round has no keys yet",
    Misuse.AUDIT_KEYS: "the audit needs every seat's key",
    Misuse.OBSERVER: "an observer plays no seat",
    GroupProblem.NOT_AN_ELEMENT: "not a prime-order group element",
    GroupProblem.ZERO_INVERSE: "zero has no inverse",
    GroupProblem.BASE_IDENTITY: "s·G is the identity",
    GroupProblem.MUL: "invalid point or identity result in scalar multiplication",
    GroupProblem.ADD_INVALID: "invalid point in addition",
    GroupProblem.ADD_IDENTITY: "point addition gave the identity",
    GroupProblem.SUB_INVALID: "invalid point in subtraction",
    GroupProblem.SUB_IDENTITY: "point subtraction gave the identity",
    GroupProblem.EMPTY_COMBINATION: "empty combination",
}
