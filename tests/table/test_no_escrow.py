"""A table whose host switched the escrow off (``p2p8s host --no-escrow``, issue #13): no
seat's key is shared, nobody serves or rebuilds a lost seat, a lost player pauses the
game as at a table of two; the setting is part of the signed setup; the audit checks
such a log as any other."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import said, until

from p2p8s.crypto.messages import KeyAnnounce, Message, PartialStrip, ShareReveal, decode
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, SETUP
from p2p8s.table.errors import TableCode
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


def _watch(sent: list[Message]) -> object:
    """A tamper that passes everything on and keeps every crypto message sent."""

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if payload[:1] == bytes([CRYPTO]):
            sent.append(decode(payload[1:], sender=None))
        return payload

    return tamper


@pytest.fixture(scope="module")
def paused() -> tuple[TableNet, list[Message], int]:
    """A 4-seat escrow-off table whose seat 2 dropped while another seat was on turn,
    then came back; every crypto message sent."""
    gone, keys, sent = 2, make_keys(4), []
    net = TableNet(make_config(4, target=10, escrow=False, keys=keys), seed=b"noescrow",
                   keys=keys, tamper=_watch(sent))  # type: ignore[arg-type]
    net.start()
    until(net, lambda: net.nodes[0].round is not None
          and net.nodes[0].round.turn not in (None, gone))
    net.cut_off(gone)
    net.run()
    live = [s for s in net.humans if s != gone]
    for s in live:
        node = net.nodes[s]
        assert node.paused == {gone} and not node.finished and not node.taken_over
        away = [e for e in net.of(s, tev.SeatAway) if e.paused]
        assert [e.seat for e in away] == [gone]
        assert away[0].params["why"] is tev.PauseWhy.ESCROW_OFF
        assert said(away[0], net, s) == ("Cem's node is gone: the game waits until it is "
                                         "back (escrow is off at this table)")
        assert not node._sessions.primary.serving(gone)
    net.reconnect(gone)
    net.run()
    return net, sent, gone


def test_a_lost_player_pauses_the_game_until_it_is_back(
        paused: tuple[TableNet, list[Message], int]) -> None:
    net, _, gone = paused
    assert net.faults() == {}
    first = net.nodes[0]
    for s in net.humans:
        node = net.nodes[s]
        assert node.finished and node.transcript == first.transcript
        assert node.match.totals == first.match.totals
        assert not net.of(s, tev.SeatTakenOver)
        assert all(o.audit_ok for o in net.of(s, tev.RoundOver))
    assert net.of(0, tev.SeatBack)[-1].seat == gone


def test_no_escrow_share_is_dealt_published_or_served(
        paused: tuple[TableNet, list[Message], int]) -> None:
    _, sent, _ = paused
    keys = [m for m in sent if isinstance(m, KeyAnnounce)]
    assert keys and all(not k.commitments and not k.shares for k in keys)
    assert not [m for m in sent if isinstance(m, (ShareReveal, PartialStrip))]


def test_the_audit_of_an_escrow_off_log_is_ok(
        paused: tuple[TableNet, list[Message], int]) -> None:
    net, _, _ = paused
    report = verify(net.frames[0])
    assert report.ok and report.finished and report.fault is None
    assert report.totals == tuple(net.nodes[0].match.totals)


@pytest.mark.parametrize("escrow", [True, False])
def test_a_node_whose_escrow_setting_differs_is_named_as_another_setup(escrow: bool) -> None:
    odd = 2
    config = make_config(3, target=30, escrow=escrow)
    other = replace(config, escrow=not escrow).to_bytes()

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender == odd and payload[:1] == bytes([SETUP]):
            return bytes([SETUP]) + other  # seat 2 plays under the other setting
        return payload

    net = TableNet(config, seed=b"setup", tamper=tamper)
    net.start()
    net.run()
    faults = net.faults()
    for s in (0, 1):
        assert faults[s].code is TableCode.OTHER_SETUP and faults[s].seat == odd
        assert said(faults[s], net, s) == ("Cem plays under a different table setup "
                                           "(roster or rules)")
