"""Errors by origin (issue #10, deliverable 6): the decoders of table payloads take bytes
from a peer, so what they refuse is a remote error (BadPayload), never a local one; the
caller names the seat. Its words are said in p2p8s.cli.words, as before the codes."""

from __future__ import annotations

import doctest
from collections.abc import Callable

import msgpack
import pytest

from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.engine import EngineCode
from p2p8s.errors import LocalError, MalformedInput, RemoteError
from p2p8s.rules import RulesCode, Ruleset
from p2p8s.table import TableConfig, decoding
from p2p8s.table.actions import (
    ActRecord,
    Choice,
    StopNotice,
    decode_ownkey,
    decode_records,
    decode_round,
    encode_round,
)
from p2p8s.table.decoding import BadPayload, PayloadCode, PayloadProblem
from p2p8s.table.errors import TableCode
from p2p8s.table.harness import make_config

DECODERS: list[tuple[Callable[[bytes], object], PayloadCode, str]] = [
    (ActRecord.decode, PayloadCode.ACTION, "malformed action: "),
    (Choice.decode, PayloadCode.CHOICE, "malformed choice: "),
    (StopNotice.decode, PayloadCode.STOP, "malformed stop notice: "),
    (decode_round, PayloadCode.ROUND, "malformed round notice: "),
    (decode_ownkey, PayloadCode.OWNKEY, "malformed ownkey payload: "),
    (decode_records, PayloadCode.RESYNC, "malformed resync payload: "),
    (TableConfig.from_bytes, PayloadCode.CONFIG, "bad table config: "),
]


@pytest.mark.parametrize(("decode", "code", "head"), DECODERS,
                         ids=[code.value for _, code, _ in DECODERS])
@pytest.mark.parametrize("raw", [b"", b"\xc1", b"\x91\xc0", b"\x01", b"\xa3abc", b"\x93\x01\x02"])
def test_bad_bytes_are_a_remote_error_of_their_payload(
        decode: Callable[[bytes], object], code: PayloadCode, head: str, raw: bytes) -> None:
    with pytest.raises(BadPayload) as info:
        decode(raw)
    err = info.value
    assert isinstance(err, RemoteError) and not isinstance(err, LocalError)
    assert err.code is code and err.seat is None  # the caller knows the sender
    assert isinstance(err.params["problem"], PayloadProblem)
    assert PLAIN.error(err).startswith(head)


def test_the_problem_is_said_as_before() -> None:
    with pytest.raises(BadPayload) as info:
        decode_round(encode_round(3) + b"\x00")
    assert info.value.params["problem"] is PayloadProblem.UNDECODABLE
    assert PLAIN.error(info.value) == "malformed round notice: undecodable bytes (ExtraData)"
    with pytest.raises(BadPayload) as info:
        decode_round(msgpack.packb([-1]))
    assert PLAIN.error(info.value) == "malformed round notice: bad round"
    with pytest.raises(BadPayload) as info:
        decode_records(msgpack.packb({"a": 1}))
    assert PLAIN.error(info.value) == "malformed resync payload: not a list"


def test_a_value_its_own_layer_refuses_is_the_cause_inside() -> None:
    """An action text the engine refuses, rules the ruleset refuses: the peer's bad
    bytes still (a BadPayload), with the layer's own error as the cause."""
    raw = msgpack.packb([1, 0, 0, bytes(32), "qs", []], use_bin_type=True)
    with pytest.raises(BadPayload) as info:
        ActRecord.decode(raw)
    err = info.value
    assert err.params["problem"] is PayloadProblem.INVALID
    cause = err.params["cause"]
    assert isinstance(cause, MalformedInput) and cause.code is EngineCode.ACTION_FORM
    assert PLAIN.error(err) == "malformed action: bad action 'qs': not in canonical form"

    obj = msgpack.unpackb(make_config(2).to_bytes())
    obj[1] = {**Ruleset().to_dict(), "jacks": True}
    with pytest.raises(BadPayload) as info:
        TableConfig.from_bytes(msgpack.packb(obj, use_bin_type=True))
    assert info.value.params["cause"].code is RulesCode.UNKNOWN_OPTION
    assert PLAIN.error(info.value).startswith("bad table config: unknown rule option 'jacks'")


def test_a_config_made_here_that_breaks_a_rule_stays_a_local_error() -> None:
    config = make_config(2)
    with pytest.raises(MalformedInput) as info:
        TableConfig(table=config.table, rules=config.rules, target=100,
                    seats=config.seats, turn_timeout_s=0.0)
    assert info.value.code is TableCode.TIMER_NOT_POSITIVE


def test_the_table_names_the_sender_of_bad_bytes() -> None:
    """The words a player reads: the sender by name, then the decoder's own words."""
    from p2p8s.cli.words.table import said
    from p2p8s.table.actions import LEAVE
    from p2p8s.table.harness import TableNet

    net = TableNet(make_config(3), seed=b"decoding", idle=range(3))
    net.start()
    node = net.nodes[0]
    node.receive(2, bytes([LEAVE]) + msgpack.packb([-1]), net.now)
    fault = node.failed
    assert fault is not None and fault.seat == 2 and fault.code is TableCode.MALFORMED
    assert isinstance(fault.params["cause"], BadPayload)
    speaker = Speaker(names=net.config.names, me=0)
    assert said(fault, speaker) == f"{net.config.names[2]} sent a malformed round notice: bad round"


def test_doctests() -> None:
    result = doctest.testmod(decoding)
    assert result.failed == 0 and result.attempted > 0
