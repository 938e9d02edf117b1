"""Fuzzing every decoder of peer data with hypothesis (issue #6 item 5).

Each decoder documents the one error type it raises for bad input; these tests feed it
valid encodings, mutations of them (bytes flipped, cut, spliced; values deep in the
msgpack tree swapped for others) and random bytes, and check that

* a valid encoding decodes to what was encoded (and, where the format is canonical,
  re-encodes to the same bytes);
* anything else either decodes (then to something that re-encodes consistently) or
  raises exactly the documented error — never another exception, never a hang;
* errors name the peer and seat where the module says they do.

Decoders: the wire :class:`~p2p8s.wire.FrameDecoder` (byte streams split anywhere),
:func:`~p2p8s.wire.decode_body`, :func:`~p2p8s.wire.decode_payload` (every kind,
the lobby and roster bodies included), :func:`p2p8s.crypto.messages.decode` (every
kind), the table payloads of :mod:`p2p8s.table.actions` (ActRecord, Choice,
StopNotice, records, round notices) and :meth:`p2p8s.table.config.TableConfig.from_bytes`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p8s.cli.words import PLAIN
from p2p8s.crypto import messages as cm
from p2p8s.crypto.errors import CheatDetected, Fault
from p2p8s.crypto.group import ORDER, Point, Scalar
from p2p8s.crypto.proofs import Proof as ZkProof
from p2p8s.crypto.shuffle_proof import ShuffleProof
from p2p8s.engine import DRAW, PASS, Action, parse_action
from p2p8s.errors import MalformedInput, RemoteError
from p2p8s.rules import Ruleset
from p2p8s.table.actions import (
    SETUP,
    ActRecord,
    Choice,
    StopNotice,
    decode_records,
    decode_round,
    encode_records,
    encode_round,
)
from p2p8s.table.config import TableConfig
from p2p8s.table.decoding import BadPayload
from p2p8s.table.logverify import verify
from p2p8s.wire import (
    MAX_FRAME,
    PREFIX_LENGTH,
    SIGN_TAG,
    VERSION,
    Body,
    Bye,
    Echo,
    Farewell,
    FrameDecoder,
    Game,
    Heartbeat,
    Hello,
    Message,
    Refusal,
    Refuse,
    Role,
    Roster,
    RosterBody,
    SeatEntry,
    Sit,
    Welcome,
    decode_body,
    decode_payload,
    encode,
    encode_payload,
    public_key_bytes,
)

from .said import raises_saying

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PUB = public_key_bytes(KEY)
TABLE = bytes.fromhex("54ed5ade9914a66a")
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- generic mutations ---------------------------------------------------------------

LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**64 - 1),
                 st.integers(-5, 300), st.binary(max_size=70), st.text(max_size=12),
                 st.floats(allow_nan=True), st.sampled_from(["", "\x1b[2J", "draw", "8S/H"]))
TREE = st.recursive(LEAF, lambda c: st.lists(c, max_size=5) | st.dictionaries(
    st.sampled_from(["k", "t", "a", "n", "p", "b", "name", "seat", "rules", "size", "seats",
                     "roster", "open", "key", "addrs", "port", "to", "x"]), c, max_size=5),
    max_leaves=12)


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    """One to three byte-level mutations: flip, cut, splice, duplicate, truncate."""
    out = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "dup", "truncate", "set"]))
        at = data.draw(st.integers(0, len(out)))
        if op == "flip" and out:
            i = min(at, len(out) - 1)
            out[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "set" and out:
            out[min(at, len(out) - 1)] = data.draw(st.sampled_from([0x00, 0xc0, 0xc1, 0xc4,
                                                                    0xd9, 0xdc, 0xde, 0xff]))
        elif op == "cut":
            del out[at:at + data.draw(st.integers(1, 8))]
        elif op == "insert":
            out[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif op == "dup":
            end = min(len(out), at + data.draw(st.integers(1, 16)))
            out[at:at] = out[at:end]
        elif op == "truncate":
            del out[at:]
    return bytes(out)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a msgpack tree (list indexes and map keys)."""
    out = [prefix]
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            out.extend(_paths(v, (*prefix, i)))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.extend(_paths(v, (*prefix, k)))
    return out


def _replace(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, list):
        return [_replace(v, rest, value) if i == head else v for i, v in enumerate(obj)]
    return {k: _replace(v, rest, value) if k == head else v for k, v in obj.items()}


def mutate_tree(data: st.DataObject, raw: bytes) -> bytes | None:
    """Swap one value anywhere in the msgpack tree of ``raw`` (or drop/add a list item)."""
    obj = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    path = data.draw(st.sampled_from(_paths(obj)))
    op = data.draw(st.sampled_from(["swap", "swap", "drop", "extend"]))
    if op == "swap":
        obj = _replace(obj, path, data.draw(TREE))
    else:
        target = obj
        for step in path:
            target = target[step]
        if not isinstance(target, list):
            obj = _replace(obj, path, data.draw(TREE))
        elif op == "drop" and target:
            obj = _replace(obj, path, target[:-1])
        else:
            obj = _replace(obj, path, [*target, data.draw(TREE)])
    try:
        packed: bytes = msgpack.packb(obj, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return None
    return packed


def mutated(data: st.DataObject, raw: bytes) -> bytes:
    """``raw`` mutated at the byte level or in its msgpack tree (or random bytes)."""
    how = data.draw(st.sampled_from(["bytes", "tree", "tree", "random"]))
    if how == "tree":
        out = mutate_tree(data, raw)
        if out is not None:
            return out
    if how == "random":
        return data.draw(st.binary(max_size=200))
    return mutate_bytes(data, raw)


# --- the wire: frames, bodies, payloads ----------------------------------------------

ROSTER = Roster(size=4, rules=Ruleset.classic(target=200), open=True, seats=(
    SeatEntry(seat=0, name="Ann", key=PUB, addrs=("10.0.0.1", "fd00::1"), port=4242),
    SeatEntry(seat=2, name="Bob", key=b"b" * 32, addrs=(), port=0)))

WIRE_BODIES: list[Body] = [
    Hello(name="Ann", nonce=b"n" * 32, port=4242, role=Role.JOIN),
    RosterBody(roster=ROSTER),
    Sit(),
    Welcome(seat=3, roster=ROSTER),
    Refuse(code=Refusal.SEATED),
    Refuse(code=Refusal.FULL, seats=7),
    Heartbeat(),
    Bye(code=Farewell.LEFT),
    Bye(code=Farewell.DONE),
    Game(to=None, payload=b"\x01" + b"x" * 40),
    Game(to=2, payload=b""),
    Echo(index=0, digest=b"d" * 32),
]


def _message(body: Body, seq: int = 7) -> Message:
    return Message(table=TABLE, seat=0, seq=seq, prev=b"p" * 32, body=body)


def _frame(payload: bytes, key: Ed25519PrivateKey = KEY) -> bytes:
    signed = bytes([VERSION]) + public_key_bytes(key) + payload
    body = signed + key.sign(SIGN_TAG + signed)
    return len(body).to_bytes(PREFIX_LENGTH, "big") + body


@pytest.mark.parametrize("body", WIRE_BODIES, ids=lambda b: type(b).__name__)
def test_every_wire_kind_round_trips(body: Body) -> None:
    message = _message(body)
    assert decode_payload(encode_payload(message)) == message
    [received] = FrameDecoder(expected_key=PUB, seat=0).receive_data(encode(message, KEY))
    assert received.message == message


@FUZZ
@given(st.data())
def test_mutated_payloads_of_every_kind_raise_only_value_error(data: st.DataObject) -> None:
    """decode_payload documents ValueError; what it accepts re-encodes to an equal
    message (the lobby and roster bodies included: a host's roster is peer data too)."""
    body = data.draw(st.sampled_from(WIRE_BODIES))
    payload = mutated(data, encode_payload(_message(body)))
    try:
        message = decode_payload(payload)
    except ValueError as exc:
        assert str(exc)
        return
    assert decode_payload(encode_payload(message)) == message


@FUZZ
@given(st.data())
def test_mutated_signed_bodies_raise_only_remote_error_naming_the_peer(
        data: st.DataObject) -> None:
    """decode_body: every failure is a RemoteError whose text starts with the peer (and
    seat) and whose ``seat`` is the connection's."""
    body = data.draw(st.sampled_from(WIRE_BODIES))
    payload = encode_payload(_message(body))
    if data.draw(st.booleans()):
        payload = mutated(data, payload)
        frame = _frame(payload)  # signed after the mutation: reaches the schema checks
    else:
        frame = len(b"").to_bytes(4, "big") + mutate_bytes(data, _frame(payload)[4:])
    seat = data.draw(st.sampled_from([None, 0, 3]))
    try:
        decode_body(frame[4:], expected_key=PUB, peer="10.0.0.9:4242", seat=seat)
    except RemoteError as exc:
        who = "10.0.0.9:4242" if seat is None else f"10.0.0.9:4242 (seat {seat})"
        assert PLAIN.error(exc).startswith(f"{who}: "), PLAIN.error(exc)
        assert exc.seat == seat


def _stream(data: st.DataObject) -> tuple[bytes, int]:
    """Some valid frames, maybe followed by bad bytes; the count of leading good ones."""
    good = [encode(_message(data.draw(st.sampled_from(WIRE_BODIES)), seq=i), KEY)
            for i in range(data.draw(st.integers(0, 4)))]
    tail = data.draw(st.sampled_from(["none", "mutated", "garbage", "huge", "partial"]))
    extra = b""
    if tail == "mutated":
        extra = mutate_bytes(data, encode(_message(Heartbeat(), seq=99), KEY))
    elif tail == "garbage":
        extra = data.draw(st.binary(min_size=1, max_size=300))
    elif tail == "huge":
        extra = data.draw(st.sampled_from([b"\xff\xff\xff\xff", (MAX_FRAME + 1).to_bytes(4, "big"),
                                           b"\x00\x00\x00\x00"]))
    elif tail == "partial":
        extra = encode(_message(Heartbeat(), seq=99), KEY)[:data.draw(st.integers(1, 100))]
    return b"".join(good) + extra, len(good)


@FUZZ
@given(st.data())
def test_frame_decoder_on_streams_split_anywhere(data: st.DataObject) -> None:
    """Bytes split at arbitrary points: only RemoteError (naming the peer and seat), the
    buffer never holds more than one incomplete frame, the decoder stays failed after an
    error, and the valid frames come out in order whatever the split."""
    stream, good = _stream(data)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    decoder = FrameDecoder(peer="10.0.0.7:1", seat=4)
    got: list[int] = []
    error: RemoteError | None = None
    for chunk in chunks:
        try:
            got.extend(r.message.seq for r in decoder.receive_data(chunk))
        except RemoteError as exc:
            error = exc
            break
        assert decoder.buffered < PREFIX_LENGTH + MAX_FRAME
    if error is None:
        try:
            decoder.receive_eof()
        except RemoteError as exc:
            error = exc
    assert got == list(range(len(got))) and len(got) <= good
    if error is None:
        assert got == list(range(good))  # a clean stream: everything, in order
    else:
        assert PLAIN.error(error).startswith("10.0.0.7:1 (seat 4): ") and error.seat == 4
        assert decoder.buffered == 0
        with pytest.raises(RemoteError):  # stays failed
            decoder.receive_data(b"")


# --- the mental-poker messages ---------------------------------------------------------

B32 = st.binary(min_size=32, max_size=32)
SMALL = st.integers(0, 2**32 - 1)
SCALAR = st.integers(0, ORDER - 1).map(lambda n: Scalar(n.to_bytes(32, "little")))
PROOF = st.builds(ZkProof, SCALAR, SCALAR)
POINT = B32.map(Point)
SHUFFLE_PROOF = st.integers(0, 3).flatmap(lambda n: st.builds(
    ShuffleProof, commitments=st.lists(POINT, min_size=n, max_size=n).map(tuple),
    chain=st.lists(POINT, min_size=n, max_size=n).map(tuple), blinded=POINT,
    challenge=SCALAR, responses=st.lists(SCALAR, min_size=5, max_size=5).map(tuple),
    chain_responses=st.lists(SCALAR, min_size=n, max_size=n).map(tuple),
    perm_responses=st.lists(SCALAR, min_size=n, max_size=n).map(tuple)))


def _header() -> dict[str, Any]:
    return {"table": st.binary(max_size=16), "round_no": SMALL, "seat": st.integers(0, 6),
            "seq": st.integers(1, 2**32 - 1),
            "echo": st.lists(st.tuples(SMALL, B32), max_size=4).map(tuple)}


CRYPTO_MESSAGES = st.one_of(
    st.builds(cm.Commit, nonce_hash=B32, box_key=B32, **_header()),
    st.builds(cm.Reveal, nonce=B32, **_header()),
    st.builds(cm.KeyAnnounce, key=POINT, proof=PROOF,
              commitments=st.lists(POINT, max_size=3).map(tuple),
              shares=st.lists(st.tuples(SMALL, st.binary(max_size=60)), max_size=3).map(tuple),
              **_header()),
    st.builds(cm.Shuffle, epoch=SMALL, points=st.lists(POINT, max_size=5).map(tuple),
              proof=SHUFFLE_PROOF, **_header()),
    st.builds(cm.Strip, op=SMALL, layer=SMALL,
              items=st.lists(st.tuples(SMALL, SMALL, POINT), max_size=3).map(tuple),
              proof=PROOF, **_header()),
    st.builds(cm.PlayCards, holder=st.integers(0, 6),
              items=st.lists(st.tuples(SMALL, SMALL, st.integers(0, 51)), max_size=3).map(
                  tuple), proof=PROOF, **_header()),
    st.builds(cm.Dispute, epoch=SMALL, index=SMALL, **_header()),
    st.builds(cm.KeyReveal, key=SCALAR, **_header()),
    st.builds(cm.ShareReveal, dealer=st.integers(0, 6), share=SCALAR, **_header()),
    st.builds(cm.Act, data=st.binary(max_size=100), **_header()),
)


@FUZZ
@given(CRYPTO_MESSAGES)
def test_every_crypto_kind_round_trips_and_names_a_wrong_sender(msg: cm.Message) -> None:
    raw = msg.encode()
    assert cm.decode(raw) == msg and cm.decode(raw, sender=msg.seat) == msg
    other = (msg.seat + 1) % 7
    with pytest.raises(CheatDetected) as info:
        cm.decode(raw, sender=other)
    assert f"claims seat {msg.seat}" in PLAIN.error(info.value)
    assert info.value.seat == other and info.value.fault is Fault.MALFORMED


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(CRYPTO_MESSAGES, st.data())
def test_mutated_crypto_messages_raise_only_cheat_detected(msg: cm.Message,
                                                           data: st.DataObject) -> None:
    """decode documents CheatDetected (MALFORMED) naming the sender; what it accepts is
    canonical (re-encodes to exactly the bytes received)."""
    raw = mutated(data, msg.encode())
    sender = data.draw(st.sampled_from([None, msg.seat]))
    try:
        got = cm.decode(raw, sender=sender)
    except CheatDetected as exc:
        assert exc.fault is Fault.MALFORMED and exc.seat == sender
        if sender is not None:
            assert PLAIN.error(exc).startswith(f"seat {sender}: ")
        return
    assert got.encode() == raw
    assert sender is None or got.seat == sender


def test_crypto_decode_refuses_deep_nesting_and_huge_declared_lengths() -> None:
    for raw in (b"\x91" * 100_000 + b"\xc0", b"\xdd\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff",
                b"\xc6\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"):
        with pytest.raises(CheatDetected) as info:
            cm.decode(raw, sender=3)
        assert info.value.seat == 3 and info.value.fault is Fault.MALFORMED


# --- the table payloads -----------------------------------------------------------------

ACTIONS = st.sampled_from([DRAW, PASS, parse_action("QS,QH"), parse_action("8S/H"),
                           parse_action("TD"), parse_action("take")])
POSITIONS = st.lists(st.tuples(st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1)),
                     max_size=8).map(tuple)
CHOICES = st.builds(Choice, round_no=SMALL, index=SMALL, prev=B32, seat=st.integers(0, 6),
                    action=ACTIONS, signature=st.binary(min_size=64, max_size=64))
RECORDS = st.builds(ActRecord, round_no=SMALL, index=SMALL, seat=st.integers(0, 6),
                    prev=B32, action=ACTIONS, positions=POSITIONS,
                    choice=st.none() | CHOICES)
STOPS = st.builds(StopNotice, round_no=SMALL, seat=st.none() | st.integers(0, 6),
                  message=st.text(max_size=40).filter(str.isprintable),
                  echo=st.lists(st.tuples(SMALL, B32), max_size=8).map(tuple))


def _canonical(decode: Callable[[bytes], Any], encode_: Callable[[Any], bytes],
               raw: bytes) -> None:
    """``decode(raw)`` raises BadPayload (a remote error: the bytes are a peer's), or
    returns what encodes back to ``raw``."""
    try:
        value = decode(raw)
    except BadPayload as exc:
        assert isinstance(exc, RemoteError) and PLAIN.error(exc)
        return
    assert encode_(value) == raw


@FUZZ
@given(RECORDS, st.data())
def test_action_records(record: ActRecord, data: st.DataObject) -> None:
    raw = record.encode()
    assert ActRecord.decode(raw) == record
    _canonical(ActRecord.decode, ActRecord.encode, mutated(data, raw))


@FUZZ
@given(CHOICES, st.data())
def test_choices(choice: Choice, data: st.DataObject) -> None:
    raw = choice.encode()
    assert Choice.decode(raw) == choice
    _canonical(Choice.decode, Choice.encode, mutated(data, raw))


@FUZZ
@given(STOPS, st.data())
def test_stop_notices(notice: StopNotice, data: st.DataObject) -> None:
    """StopNotice is not canonical (it is only shown and checked): BadPayload or a
    notice, whose message is printable text of at most 500 characters."""
    assert StopNotice.decode(notice.encode()) == notice
    try:
        got = StopNotice.decode(mutated(data, notice.encode()))
    except BadPayload as exc:
        assert PLAIN.error(exc).startswith("malformed stop notice: ")
        return
    assert len(got.message) <= 500 and len(got.echo) <= 8 and got.message.isprintable()
    assert StopNotice.decode(got.encode()) == got


def test_a_stop_notice_cannot_drive_the_terminal() -> None:
    """The stop notice's message is shown to every player ("P2 stopped the game: ..."):
    control characters (escape sequences, newlines) are replaced, as the wire refuses
    them in names and reasons."""
    raw = StopNotice(round_no=1, seat=2, message="\x1b[2J\x1b[31mAnn cheated\nreally").encode()
    got = StopNotice.decode(raw)
    assert got.message == "?[2J?[31mAnn cheated?really"
    assert got.message.isprintable()


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 7), st.binary(max_size=30)), max_size=6),
       SMALL, st.data())
def test_records_and_round_notices(records: list[tuple[int, bytes]], number: int,
                                   data: st.DataObject) -> None:
    assert decode_records(encode_records(records)) == records
    assert decode_round(encode_round(number)) == number
    with contextlib.suppress(BadPayload):
        for sender, payload in decode_records(mutated(data, encode_records(records))):
            assert 0 <= sender < 8 and isinstance(payload, bytes)
    _canonical(decode_round, encode_round, mutated(data, encode_round(number)))


def _config() -> TableConfig:
    from p2p8s.table.config import SeatInfo

    return TableConfig(table=TABLE, rules=Ruleset(), target=100, turn_timeout_s=30.0,
                       seats=(SeatInfo(0, "Ann", PUB, None), SeatInfo(1, "Bob", b"b" * 32,
                                                                    "karl")))


@FUZZ
@given(st.data())
def test_table_setups(data: st.DataObject) -> None:
    """A peer's setup payload (and a log's): BadPayload or a canonical config."""
    raw = _config().to_bytes()
    assert TableConfig.from_bytes(raw) == _config()
    try:
        got = TableConfig.from_bytes(mutated(data, raw))
    except BadPayload:
        return
    assert got.to_bytes() == TableConfig.from_bytes(got.to_bytes()).to_bytes()


@pytest.mark.parametrize("obj", [
    [2**63, {}, 1, 1.0, [], True],                      # bytes(2**63): OverflowError
    [TABLE, {}, 1, 1.0, [[0, "A", 2**62, None]], True],  # bytes(2**62): MemoryError
    [TABLE, {}, 1, 1.0, [[0, "A", 10**9, None], [1, "B", b"k" * 32, None]], True],  # 1 GB
], ids=["table-2**63", "key-2**62", "key-10**9"])
def test_a_setup_with_huge_numbers_for_bytes_is_refused_cheaply(obj: list[Any]) -> None:
    """Regression: the config decoder called ``bytes(x)`` on peer values before its
    canonical check, so a number there allocated that many bytes or raised OverflowError
    — and the offline audit of a log holding such a signed frame crashed."""
    raw = msgpack.packb(obj, use_bin_type=True)
    with raises_saying(BadPayload, "bad table config: a field has the wrong type"):
        TableConfig.from_bytes(raw)
    # The audit of a log whose first setup is that frame does not crash either.
    frames = [_frame(encode_payload(Message(table=TABLE, seat=1, seq=0, body=Game(
        to=None, payload=bytes([SETUP]) + raw))))[4:]]
    report = verify(frames)
    assert not report.ok


def test_parse_action_only_raises_malformed_input_on_odd_text() -> None:
    for text in ["", ",", "/", "8S/", "QS,", "QS,,QH", "ZZ", "\x00", "8S/HH", "1" * 200,
                 "draw/", "10S"]:
        with pytest.raises(MalformedInput):
            parse_action(text)


@FUZZ
@given(st.text(max_size=20))
def test_parse_action_on_arbitrary_text(text: str) -> None:
    try:
        action: Action = parse_action(text)
    except MalformedInput:
        return
    assert parse_action(text) == action
