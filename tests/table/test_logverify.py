"""The offline log verifier (``p2p8s audit FILE``): honest logs pass, tampering is named."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import on_turn, quiet, said

from p2p8s import wire
from p2p8s.cli.words import table as words
from p2p8s.crypto.messages import Act, decode
from p2p8s.engine import DRAW, Play
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, ActRecord
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


@pytest.fixture(scope="module")
def honest() -> TableNet:
    keys = make_keys(3)
    net = TableNet(make_config(3, computers=(2,), keys=keys, target=60), seed=b"log",
                   keys=keys)
    net.start()
    net.run()
    assert net.faults() == {}
    return net


def test_an_honest_log_verifies_on_every_node(honest: TableNet) -> None:
    for s in honest.humans:
        node = honest.nodes[s]
        report = verify(honest.frames[s])
        assert report.ok and report.finished and report.fault is None
        assert report.totals == tuple(node.match.totals)
        assert report.winner == node.match.winner
        assert [r.points for r in report.rounds] == [r.points for r in node.match.results]
        assert all(r.ok and r.complete for r in report.rounds)
        assert words.report_lines(report)[-1] == "verdict: ok"


def test_a_log_cut_short_reports_the_round_as_incomplete(honest: TableNet) -> None:
    frames = honest.frames[0]
    report = verify(frames[: len(frames) // 3])
    assert report.fault is None and not report.finished
    assert not report.rounds[-1].complete


def _frame_at(frames: list[bytes]) -> int:
    """The first frame carrying a play's Act."""
    for i, f in enumerate(frames):
        msg = wire.decode_body(f[4:]).message
        body = msg.body
        if isinstance(body, wire.Game) and body.payload[:1] == bytes([CRYPTO]):
            m = decode(body.payload[1:])
            if isinstance(m, Act) and isinstance(ActRecord.decode(m.data).action, Play):
                return i
    raise AssertionError("no such frame")


def _resign(frame: bytes, key: object, payload: bytes) -> bytes:
    msg = wire.decode_body(frame[4:]).message
    body = msg.body
    assert isinstance(body, wire.Game)
    return wire.encode(replace(msg, body=wire.Game(to=body.to, payload=payload)),
                       key)  # type: ignore[arg-type]


def _altered_act(frame: bytes) -> bytes:
    body = wire.decode_body(frame[4:]).message.body
    assert isinstance(body, wire.Game)
    m = decode(body.payload[1:])
    assert isinstance(m, Act)
    rec = replace(ActRecord.decode(m.data), action=DRAW, positions=())
    return bytes([CRYPTO]) + replace(m, data=rec.encode()).encode()


def test_a_flipped_byte_is_named_by_its_claimed_key(honest: TableNet) -> None:
    frames = list(honest.frames[0])
    i = _frame_at(frames)
    seat = wire.decode_body(frames[i][4:]).message.seat
    frames[i] = frames[i][:-70] + bytes([frames[i][-70] ^ 1]) + frames[i][-69:]
    report = verify(frames)
    assert not report.ok and report.fault is not None
    assert report.fault.seat == seat and "does not verify" in said(report.fault)


def test_an_action_changed_and_resigned_by_its_author_is_named(honest: TableNet) -> None:
    frames = list(honest.frames[1])
    i = _frame_at(frames)
    seat = wire.decode_body(frames[i][4:]).message.seat
    assert seat is not None
    frames[i] = _resign(frames[i], make_keys(3)[seat], _altered_act(frames[i]))
    report = verify(frames)
    assert not report.ok and report.fault is not None and report.fault.seat == seat


def test_two_signed_versions_of_one_message_are_named(honest: TableNet) -> None:
    frames = list(honest.frames[0])
    i = _frame_at(frames)
    seat = wire.decode_body(frames[i][4:]).message.seat
    assert seat is not None
    twin = _resign(frames[i], make_keys(3)[seat], _altered_act(frames[i]))
    frames.insert(i + 1, twin)
    report = verify(frames)
    assert report.fault is not None and report.fault.seat == seat
    assert "equivocation" in said(report.fault)


def test_a_false_hidden_claim_in_the_log_is_named_at_the_audit() -> None:
    keys = make_keys(3, b"k2")
    for seed in (b"v1", b"v2", b"v3", b"v4"):
        net = TableNet(make_config(3, keys=keys, target=1), seed=seed, keys=keys,
                       idle=range(3))
        net.start()
        quiet(net)
        turn = on_turn(net)
        rnd = net.nodes[turn].round
        if rnd is not None and rnd.playable_cards():
            break
    assert rnd is not None
    rnd.rules = replace(rnd.rules, draw_when_playable=True)
    net.inject(turn, lambda n: n._log.author(turn, DRAW, ()))
    net.idle = set()
    net.run()
    honest_seat = (turn + 1) % 3
    report = verify(net.frames[honest_seat])
    assert not report.ok
    assert report.rounds[0].ok is False and report.rounds[0].seat == turn
    assert "R-DRAW" in said(report.rounds[0].fault)
    assert any("FAILED" in line for line in words.report_lines(report))
    assert isinstance(report.fault, tev.Fault) and report.fault.seat == turn


def test_a_log_without_setup_is_refused() -> None:
    report = verify([])
    assert not report.ok and report.config is None and report.fault is not None
