"""The wire format: known-answer frames, round trips, refusals, and fuzzing."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p8s.errors import LocalError, RemoteError
from p2p8s.rules import Ruleset
from p2p8s.wire import (
    MAX_FRAME,
    MAX_GAME_PAYLOAD,
    MIN_BODY,
    SIGN_TAG,
    VERSION,
    Echo,
    FrameDecoder,
    Game,
    Heartbeat,
    Hello,
    Message,
    Role,
    Roster,
    RosterBody,
    SeatEntry,
    decode_body,
    decode_payload,
    encode,
    encode_payload,
    message_hash,
    public_key_bytes,
    roster_digest,
)

from .vectors import FRAMES, compute, message_from_json, signer

VECTORS = json.loads(FRAMES.read_text())["vectors"]
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
TABLE = bytes.fromhex("54ed5ade9914a66a")


def _msg(body: Any = None, *, seq: int = 0, seat: int | None = 1) -> Message:
    return Message(table=TABLE, seat=seat, seq=seq, body=body or Heartbeat())


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_known_answer_frames(vector: dict[str, Any]) -> None:
    assert compute(vector) == vector  # same bytes, same hash
    frame = bytes.fromhex(vector["frame_hex"])
    [received] = FrameDecoder().receive_data(frame)
    assert received.message == message_from_json(vector["message"])
    assert received.key == public_key_bytes(signer(vector))
    assert received.digest.hex() == vector["hash_hex"]


def test_vector_signer_is_the_rfc8032_test_key() -> None:
    assert public_key_bytes(signer(VECTORS[0])).hex() == (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")


ROSTER = Roster(size=3, rules=Ruleset.classic(target=200), open=False, seats=(
    SeatEntry(seat=0, name="Ann", key=public_key_bytes(KEY), addrs=("10.0.0.1", "fd00::1"),
              port=4242),
    SeatEntry(seat=2, name="Bob", key=public_key_bytes(OTHER), addrs=(), port=0)))

BODIES = [Hello(name="Ann", nonce=b"n" * 32, port=1, role=Role.PEER), Heartbeat(),
          Game(to=None, payload=b"x" * 1000), Game(to=6, payload=b""),
          Echo(index=7, digest=b"d" * 32), RosterBody(roster=ROSTER)]


@pytest.mark.parametrize("body", BODIES, ids=lambda b: type(b).__name__)
def test_round_trip_every_kind(body: Any) -> None:
    message = Message(table=TABLE, seat=0, seq=5, prev=b"p" * 32, body=body)
    frame = encode(message, KEY)
    [received] = FrameDecoder(expected_key=public_key_bytes(KEY), seat=0).receive_data(frame)
    assert received.message == message
    assert received.body == frame[4:]
    assert received.digest == message_hash(frame[4:])


def test_byte_by_byte_delivery_and_many_frames_in_one_chunk() -> None:
    frames = [encode(_msg(seq=i), KEY) for i in range(5)]
    decoder = FrameDecoder()
    got = [r for byte in b"".join(frames) for r in decoder.receive_data(bytes([byte]))]
    assert [r.message.seq for r in got] == list(range(5))
    assert [r.message.seq for r in FrameDecoder().receive_data(b"".join(frames))] == list(
        range(5))


def test_flipped_bit_anywhere_is_refused() -> None:
    frame = encode(_msg(Game(to=None, payload=b"abc")), KEY)
    for i in range(4, len(frame)):
        bad = bytearray(frame)
        bad[i] ^= 0x01
        with pytest.raises(RemoteError):
            FrameDecoder(peer="10.0.0.9:1").receive_data(bytes(bad))


def test_signature_is_checked_before_decoding() -> None:
    # A body whose msgpack is garbage but whose signature is wrong: "bad signature".
    signed = bytes([VERSION]) + public_key_bytes(KEY) + b"\xc1"
    body = signed + OTHER.sign(SIGN_TAG + signed)
    with pytest.raises(RemoteError, match="bad signature"):
        decode_body(body)
    body = signed + KEY.sign(SIGN_TAG + signed)
    with pytest.raises(RemoteError, match="malformed"):
        decode_body(body)


def test_unknown_version_is_refused_cleanly() -> None:
    frame = bytearray(encode(_msg(), KEY))
    frame[4] = VERSION + 1
    with pytest.raises(RemoteError, match=f"protocol version {VERSION + 1}, this program "
                                          f"speaks {VERSION}"):
        FrameDecoder(peer="Bob").receive_data(bytes(frame))


def test_oversize_length_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(peer="10.0.0.2:5", seat=3)
    with pytest.raises(RemoteError, match="frame length 65537") as info:
        decoder.receive_data((MAX_FRAME + 1).to_bytes(4, "big"))
    assert info.value.seat == 3 and "10.0.0.2:5 (seat 3)" in str(info.value)
    assert decoder.buffered == 0
    with pytest.raises(RemoteError):  # stays failed
        decoder.receive_data(encode(_msg(), KEY))


def test_tiny_length_is_refused() -> None:
    with pytest.raises(RemoteError):
        FrameDecoder().receive_data((MIN_BODY - 1).to_bytes(4, "big"))


def test_sending_an_oversize_message_is_a_local_error() -> None:
    encode(_msg(Game(to=None, payload=b"x" * MAX_GAME_PAYLOAD)), KEY)
    with pytest.raises(LocalError, match="too large"):
        encode(_msg(Game(to=None, payload=b"x" * MAX_FRAME)), KEY)


def test_pinned_key_and_claimed_seat() -> None:
    frame = encode(_msg(seat=2), OTHER)
    with pytest.raises(RemoteError, match="different identity key"):
        FrameDecoder(expected_key=public_key_bytes(KEY)).receive_data(frame)
    with pytest.raises(RemoteError, match="claims seat 2") as info:
        FrameDecoder(seat=1).receive_data(frame)
    assert info.value.seat == 1


def test_eof_mid_frame_is_an_error_and_clean_eof_is_not() -> None:
    frame = encode(_msg(), KEY)
    decoder = FrameDecoder()
    decoder.receive_data(frame)
    decoder.receive_eof()
    decoder.receive_data(frame[:10])
    with pytest.raises(RemoteError, match="middle of a message"):
        decoder.receive_eof()


@pytest.mark.parametrize("payload", [
    {"k": "hello", "t": TABLE, "a": 0, "n": 0, "p": b"", "b": {}},
    {"k": "nope", "t": TABLE, "a": 0, "n": 0, "p": b"", "b": {}},
    {"k": "heartbeat", "t": TABLE, "a": 9, "n": 0, "p": b"", "b": {}},
    {"k": "heartbeat", "t": TABLE, "a": 0, "n": -1, "p": b"", "b": {}},
    {"k": "heartbeat", "t": TABLE, "a": True, "n": 0, "p": b"", "b": {}},
    {"k": "heartbeat", "t": b"short", "a": 0, "n": 0, "p": b"", "b": {}},
    {"k": "heartbeat", "t": TABLE, "a": 0, "n": 0, "p": b"x", "b": {}},
    {"k": "game", "t": TABLE, "a": 0, "n": 0, "p": b"", "b": {"payload": b""}},
    {"k": "hello", "t": TABLE, "a": 0, "n": 0, "p": b"",
     "b": {"name": "\x1b[2J", "nonce": b"n" * 32, "port": 1, "role": "peer"}},
    {"k": "roster", "t": TABLE, "a": 0, "n": 0, "p": b"",
     "b": {"roster": {"size": 2, "rules": {"cheat": True}, "open": True, "seats": []}}},
])
def test_schema_violations_are_refused(payload: dict[str, Any]) -> None:
    import msgpack

    with pytest.raises(ValueError):
        decode_payload(msgpack.packb(payload, use_bin_type=True))


def test_roster_digest_depends_on_every_field() -> None:
    from dataclasses import replace

    base = roster_digest(ROSTER)
    assert base == roster_digest(replace(ROSTER))
    assert base != roster_digest(replace(ROSTER, open=True))
    assert base != roster_digest(replace(ROSTER, rules=Ruleset()))


# --- fuzzing --------------------------------------------------------------------------

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_arbitrary_bytes_only_raise_remote_error(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        try:
            decoder.receive_data(chunk)
        except RemoteError:
            return
        assert decoder.buffered <= 4 + MAX_FRAME


@FUZZ
@given(st.binary(min_size=1, max_size=2000))
def test_arbitrary_payloads_decode_or_raise_value_error(payload: bytes) -> None:
    with contextlib.suppress(ValueError):
        decode_payload(payload)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_signed_payloads_never_crash(data: st.DataObject) -> None:
    # Sign arbitrary msgpack so it passes the signature and reaches the schema checks.
    import msgpack

    leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.binary(max_size=40),
                     st.text(max_size=40), st.floats(allow_nan=True))
    tree = st.recursive(leaf, lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["k", "t", "a", "n", "p", "b", "roster", "seats", "name", "to"]), c,
        max_size=6), max_leaves=30)
    base = {"k": data.draw(st.sampled_from(["hello", "proof", "roster", "welcome", "game",
                                            "echo", "refuse", "bye", "sit", "heartbeat"])),
            "t": TABLE, "a": 0, "n": 0, "p": b"", "b": data.draw(tree)}
    try:
        payload = msgpack.packb(base, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return
    signed = bytes([VERSION]) + public_key_bytes(KEY) + payload
    body = signed + KEY.sign(SIGN_TAG + signed)
    if len(body) > MAX_FRAME:
        return
    with contextlib.suppress(RemoteError):
        decode_body(body)


def test_deeply_nested_payload_is_refused_not_crashing() -> None:
    payload = b"\x91" * 100_000 + b"\xc0"
    with pytest.raises(ValueError):
        decode_payload(payload)


def test_encode_payload_keys_in_spec_order() -> None:
    import msgpack

    assert list(msgpack.unpackb(encode_payload(_msg()))) == ["k", "t", "a", "n", "p", "b"]


def test_good_frames_before_a_bad_one_in_the_same_bytes_are_kept() -> None:
    """What TCP delivers in one read must not decide which good frames count: the frames
    before the bad one come out, then the decoder is failed (error set, next call raises)."""
    good = [encode(_msg(seq=i), KEY) for i in range(2)]
    bad = bytearray(encode(_msg(seq=2), KEY))
    bad[-1] ^= 1
    decoder = FrameDecoder(peer="10.0.0.3:7")
    got = decoder.receive_data(b"".join(good) + bytes(bad))
    assert [r.message.seq for r in got] == [0, 1]
    assert decoder.error is not None and "bad signature" in str(decoder.error)
    with pytest.raises(RemoteError, match="bad signature"):
        decoder.receive_data(b"")
    with pytest.raises(RemoteError, match="bad signature"):
        decoder.receive_eof()
    only_bad = FrameDecoder()
    with pytest.raises(RemoteError):  # nothing good first: raised at once
        only_bad.receive_data(bytes(bad))
