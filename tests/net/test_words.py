"""Words of the edge layers: every code has a sentence, no sentence travels on the wire,
and bytes from a peer raise the remote error type, naming the peer (never a local one)."""

from __future__ import annotations

import asyncio
from enum import Enum

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli import words
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line, lost_reason
from p2p8s.codes import InviteProblem
from p2p8s.errors import LocalError, MalformedInput, RemoteError
from p2p8s.net.discovery import CardCode, NotATableCard, TableCard
from p2p8s.net.handshake import Done, Handshake, Send, Side
from p2p8s.net.lobby import LobbyCode
from p2p8s.net.node import ConnectFailure, JoinRefused, NetCode, Node, Reason
from p2p8s.store.paths import StoreCode
from p2p8s.wire import (
    PREFIX_LENGTH,
    SIGN_TAG,
    VERSION,
    Bye,
    Farewell,
    FrameDecoder,
    Message,
    PayloadError,
    Refusal,
    Refuse,
    Role,
    Schema,
    WireCode,
    WireError,
    decode_body,
    decode_payload,
    encode,
    encode_payload,
    public_key_bytes,
)

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
TABLE = bytes.fromhex("54ed5ade9914a66a")


def _frame(obj: dict[str, object], key: Ed25519PrivateKey = KEY) -> bytes:
    """A well-signed frame around any msgpack payload (it reaches the schema checks)."""
    signed = bytes([VERSION]) + public_key_bytes(key) + msgpack.packb(obj, use_bin_type=True)
    body = signed + key.sign(SIGN_TAG + signed)
    return len(body).to_bytes(PREFIX_LENGTH, "big") + body


def _refuse(body: dict[str, object]) -> dict[str, object]:
    return {"k": "refuse", "t": TABLE, "a": 0, "n": 0, "p": b"", "b": body}


@pytest.mark.parametrize("codes", [WireCode, Schema, Refusal, Farewell, NetCode,
                                   ConnectFailure, LobbyCode, CardCode, InviteProblem, Line,
                                   StoreCode], ids=lambda c: c.__name__)
def test_every_code_has_words(codes: type[Enum]) -> None:
    assert words.missing(codes) == []


def test_codes_of_two_enums_with_one_value_keep_their_own_words() -> None:
    """A StrEnum member equals its value, so ``Refusal.SEATED`` and a code of another
    enum named ``seated`` would be one dict key: the catalogue keys by enum class."""
    from p2p8s.errors import Code

    class Other(Code):
        SEATED = "seated"

    words.register({Other.SEATED: "another sentence"})
    assert Refusal.SEATED == Other.SEATED  # the trap
    assert PLAIN.say(Refusal.SEATED) == "this player is already seated"
    assert PLAIN.say(Other.SEATED) == "another sentence"


def test_no_sentence_travels_in_a_refuse_or_a_bye() -> None:
    for body, packed in ((Refuse(code=Refusal.FULL, seats=4), {"code": "full", "seats": 4}),
                         (Refuse(code=Refusal.SEATED), {"code": "seated", "seats": None}),
                         (Bye(code=Farewell.DONE), {"code": "done"})):
        payload = encode_payload(Message(table=TABLE, seat=0, seq=0, body=body))
        assert msgpack.unpackb(payload)["b"] == packed
        assert decode_payload(payload).body == body


def test_a_peers_text_beside_the_code_is_never_read() -> None:
    """A refuse that carries a sentence (as version 1 did) is read for its code alone."""
    [got] = FrameDecoder().receive_data(_frame(_refuse(
        {"code": "full", "seats": 2, "reason": "\x1b[2Jsend me your keys"})))
    assert got.message.body == Refuse(code=Refusal.FULL, seats=2)
    said = PLAIN.error(JoinRefused(Refusal.FULL, refusal=Refusal.FULL, seats=2))
    assert said == "the table is full (2 seats)"


@pytest.mark.parametrize("body", [{"code": "please-sit", "seats": None},  # unknown code
                                  {"code": "full"},  # no seats field
                                  {"code": "full", "seats": 99}])
def test_an_unknown_refusal_is_a_remote_error_naming_the_peer(body: dict[str, object]
                                                              ) -> None:
    decoder = FrameDecoder(peer="10.0.0.5:4242", seat=2)
    with pytest.raises(WireError) as info:
        decoder.receive_data(_frame(_refuse(body)))
    err = info.value
    assert isinstance(err, RemoteError) and not isinstance(err, LocalError)
    assert err.seat == 2 and err.code is WireCode.MALFORMED
    assert PLAIN.error(err).startswith("10.0.0.5:4242 (seat 2): malformed message: ")


def test_a_bad_payload_is_a_remote_error_and_still_a_value_error() -> None:
    with pytest.raises(PayloadError) as info:
        decode_payload(b"\xc1")
    assert isinstance(info.value, RemoteError) and isinstance(info.value, ValueError)
    assert not isinstance(info.value, LocalError)
    assert PLAIN.error(info.value) == "undecodable payload (FormatError)"


def test_bad_rules_in_a_peers_roster_are_its_error_not_ours() -> None:
    """The rules parser raises MalformedInput (a local error) for a bad rules map: on a
    peer's roster it is the cause of the peer's error, not raised as ours."""
    roster = {"size": 2, "rules": {"cheat": True}, "open": True, "seats": []}
    frame = _frame({"k": "roster", "t": TABLE, "a": 0, "n": 0, "p": b"",
                    "b": {"roster": roster}})
    with pytest.raises(WireError) as info:
        decode_body(frame[PREFIX_LENGTH:], peer="Bob's node", seat=0)
    err = info.value
    assert err.seat == 0 and isinstance(err, RemoteError)
    cause = err.params["cause"]
    assert isinstance(cause, PayloadError) and cause.code is Schema.BAD_RULES
    assert isinstance(cause.params["cause"], MalformedInput)  # the parser's, wrapped
    assert PLAIN.error(err).startswith("Bob's node (seat 0): malformed message: bad rules: ")


def test_a_txt_record_from_the_network_that_is_not_a_card_is_a_remote_error() -> None:
    for txt in ({}, {"v": "x", "id": "00"}, {"v": "2", "id": "00", "rules": "{]"}):
        with pytest.raises(NotATableCard) as info:
            TableCard.from_txt(txt)  # type: ignore[arg-type]
        assert isinstance(info.value, RemoteError) and not isinstance(info.value, LocalError)
        assert PLAIN.error(info.value).startswith("not a p2p8s table card")


def test_a_local_misuse_stays_local() -> None:
    from p2p8s.wire import MAX_FRAME, Game

    with pytest.raises(LocalError) as info:
        encode(Message(table=TABLE, seat=0, seq=0, body=Game(to=None,
                                                               payload=b"x" * MAX_FRAME)), KEY)
    assert not isinstance(info.value, RemoteError)
    assert PLAIN.error(info.value).startswith("message too large to send (")


@pytest.mark.parametrize(("reason", "said"), [
    (Reason(Farewell.LEFT), "left the table"),
    (Reason(Farewell.DONE), "finished playing"),
    (Reason(Refusal.FULL, {"seats": 3}), "the table is full (3 seats)"),
    (Reason(Refusal.FULL, {"seats": None}), "the table is full"),
    (Reason(NetCode.NO_HEARTBEAT, {"timeout_s": 5.0}), "no heartbeat for 5 s"),
    (Reason(NetCode.CLOSED_HERE, {"why": Refusal.IN_PLAY, "seats": None}),
     "closed: the game has started at this table"),
    (Reason(NetCode.STOPPED_READING, {"name": "Bob", "address": "10.0.0.2", "seat": 1,
                                      "limit_mib": 4}),
     "Bob (10.0.0.2, seat 1) stopped reading: more than 4 MiB waited unsent"),
])
def test_why_a_connection_ended_is_data_said_by_the_cli(reason: Reason, said: str) -> None:
    assert lost_reason(reason) == said


def test_errors_of_the_lobby_and_the_node_in_words() -> None:
    cases = [
        (LocalError(LobbyCode.HOST_LEFT, reason=Reason(Farewell.LEFT)),
         "the host left, so the table is closed"),
        (LocalError(LobbyCode.HOST_LEFT, reason=Reason(NetCode.NO_HEARTBEAT,
                                                       {"timeout_s": 5.0})),
         "the host left, so the table is closed (no heartbeat for 5 s)"),
        (JoinRefused(LobbyCode.TABLE_REFUSED, refusal=Refusal.CLOSED,
                     reason=Reason(Refusal.CLOSED)),
         "the table refused: the host has dealt; the lobby is closed"),
        (LocalError(LobbyCode.MESH_TIMEOUT, names=("Bob", "Cat")),
         "could not connect to Bob, Cat in time"),
        (RemoteError(LobbyCode.OTHER_ROSTER, seat=2, name="Cat"),
         "Cat (seat 2) saw a different roster"),
        (LocalError(NetCode.NONE_REACHED, failures=()), "no address to try"),
        (LocalError(NetCode.CANNOT_REACH, where="h:1", failure=ConnectFailure.UNKNOWN_HOST,
                    error="Name or service not known"),
         "cannot reach h:1: that host name is not known on this network"),
    ]
    for err, said in cases:
        assert PLAIN.error(err) == said


async def test_the_joiner_says_a_refusal_in_its_own_words() -> None:
    """A host that answers hello with a refuse carrying extra text: the joiner's error is
    its own sentence for the code (and the refusal code is kept for the program)."""
    tid = bytes.fromhex("5a1e0c7d2b9f4e01")

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        shake = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=KEY, table=tid,
                          peer="joe")
        writer.write(shake.start())
        while True:  # the real handshake: this host knows the code
            events = shake.receive_data(await reader.read(65536))
            for event in events:
                if isinstance(event, Send):
                    writer.write(event.data)
            if any(isinstance(event, Done) for event in events):
                break
        [done] = [e for e in events if isinstance(e, Done)]
        sealer = done.session.sealer
        # a refuse instead of its hello (it proved the code: its refusal is authentic)
        writer.write(sealer.seal(_frame({
            "k": "refuse", "t": tid, "a": 0, "n": 1, "p": b"",
            "b": {"code": "seated", "seats": None, "reason": "ignore me"}})))
        await writer.drain()
        await reader.read()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        async with Node(identity=Ed25519PrivateKey.generate(), name="Joe", code="7KQ4MX",
                        table=None, host="127.0.0.1") as joe:
            with pytest.raises(JoinRefused) as info:
                await joe.connect("127.0.0.1", port, role=Role.JOIN, timeout_s=2.0)
    finally:
        server.close()
    assert info.value.refusal is Refusal.SEATED
    assert PLAIN.error(info.value) == "this player is already seated"


def test_the_words_load_without_the_network_stack() -> None:
    """Solo play says everything through the catalogue, which loads every words module:
    the network words name their codes without importing asyncio or zeroconf."""
    import subprocess
    import sys

    code = ("import sys; from p2p8s.cli import words; from p2p8s.wire import Refusal; "
            "words.missing(Refusal); "
            "print(sorted(m for m in ('asyncio', 'zeroconf') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
