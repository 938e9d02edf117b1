"""Errors by origin (issue #10): bytes from a peer are a remote error naming it, never a
local one; a broken rule of the game at the table is a table error (RuleBroken), not a
fault of the mental-poker protocol."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from table_helpers import on_turn, quiet

from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.rand import seeded
from p2p8s.engine import DRAW, Action, Play
from p2p8s.errors import Error, LocalError, RemoteError
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CHOICE, CRYPTO, LEAVE, RESTARTED, RESYNC, STOP, WELCOME
from p2p8s.table.errors import RuleBroken, TableCode, TableError
from p2p8s.table.harness import TableNet, make_config


def _ready(seed: bytes) -> TableNet:
    """Three people, dealt, waiting for the first action (nobody acts by itself)."""
    net = TableNet(make_config(3), seed=seed, idle=range(3))
    net.start()
    quiet(net)
    return net


@pytest.fixture
def raised(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Error]]:
    """Every error a table stopped on, as it was raised."""
    errors: list[Error] = []
    honest = tev.Fault.of.__func__  # type: ignore[attr-defined]

    def spy(cls: type[tev.Fault], error: Error, seat: int | None) -> tev.Fault:
        errors.append(error)
        fault: tev.Fault = honest(cls, error, seat)
        return fault
    monkeypatch.setattr(tev.Fault, "of", classmethod(spy))
    yield errors


@pytest.mark.parametrize("kind", [LEAVE, WELCOME, RESTARTED, CHOICE, STOP])
def test_an_unreadable_payload_body_is_a_remote_error_naming_its_sender(
        kind: int, raised: list[Error]) -> None:
    # before, a bad ``[round]`` body stopped the table as a local error, naming nobody
    net = _ready(b"body")
    node = net.nodes[0]
    node.receive(2, bytes([kind]) + b"\xc1", net.now)
    fault = node.failed
    assert fault is not None and fault.seat == 2
    assert fault.code is TableCode.MALFORMED and fault.params["peer"] == 2
    assert [type(e) for e in raised] == [TableError]


def test_an_unreadable_resync_payload_names_its_sender(raised: list[Error]) -> None:
    net = _ready(b"resync")
    node = Table.restore(net.config, me=2, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"back"))
    node.receive(1, bytes([RESYNC]) + b"\xc1", net.now)
    assert node.failed is not None and node.failed.seat == 1
    assert node.failed.code is TableCode.MALFORMED
    assert all(isinstance(e, RemoteError) for e in raised)


def _illegal(table: Table) -> Action:
    rnd = table.round
    assert rnd is not None
    bad = [c for c in rnd.hands[table.me] if c is not None and not rnd.playable(c)
           and c.rank != 8]
    assert bad
    return Play((bad[0],))


def test_game_rules_broken_at_the_table_are_table_errors_not_crypto_faults(
        raised: list[Error]) -> None:
    net = _ready(b"c1")
    cheat = (on_turn(net) + 1) % 3
    net.inject(cheat, lambda n: n._log.author(cheat, DRAW, ()))
    quiet(net)
    honest = [s for s in net.humans if s != cheat]
    assert all(net.faults()[s].code is TableCode.OUT_OF_TURN for s in honest)
    assert raised and all(type(e) is RuleBroken for e in raised)
    assert not any(isinstance(e, CheatDetected) for e in raised)

    raised.clear()
    net = _ready(b"c1")
    turn = on_turn(net)
    node = net.nodes[turn]
    play = _illegal(node)
    net.inject(turn, lambda n: n._log.author(turn, play, n._log.positions_for(turn, play)))
    quiet(net)
    for s in net.humans:
        if s != turn:
            fault = net.faults()[s]
            assert fault.seat == turn and fault.code is TableCode.ILLEGAL_MOVE
            assert fault.params["rule"] == "R-MATCH" and fault.params["action"] == play
    assert raised and all(type(e) is RuleBroken and e.rule == "R-MATCH" for e in raised)


def test_a_message_signed_for_another_seat_is_a_table_error_not_a_broken_rule(
        raised: list[Error]) -> None:
    net = _ready(b"sig")
    node = net.nodes[0]
    theirs = next(p for s, p in net.nodes[1]._resync.records
                  if s == 1 and p[:1] == bytes([CRYPTO]))
    node.receive(2, theirs, net.now)  # seat 1's message, from seat 2's node
    assert node.failed is not None and node.failed.seat == 2
    assert node.failed.code is TableCode.SIGNED_AS and node.failed.params["claimed"] == 1
    assert [type(e) for e in raised] == [TableError]
    assert not isinstance(raised[0], LocalError)


def test_a_stop_notice_carries_the_code_and_data_and_names_the_accused() -> None:
    net = _ready(b"stop")
    cheat = (on_turn(net) + 1) % 3
    net.inject(cheat, lambda n: n._log.author(cheat, DRAW, ()))
    net.deliver_all()
    faults = net.faults()
    assert {f.seat for s, f in faults.items() if s != cheat} == {cheat}
    first = next(f for s, f in faults.items() if s != cheat and f.code is not TableCode.STOPPED)
    assert first.message.startswith("table-out-of-turn ")  # no sentence on the wire
