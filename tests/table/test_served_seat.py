"""A drop-out opens no hand until it must (issue #13): while a lost node's seat is not on
turn, the others serve its strips (mental-poker.md §8.1) and nobody learns its hand; it
is taken over only when it must act."""

from __future__ import annotations

from table_helpers import said, until

from p2p8s.crypto.messages import PartialStrip, decode
from p2p8s.engine import Draw
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.harness import TableNet, make_config


def _drawing(node: Table) -> int | None:
    """The seat whose draw is pending on ``node`` (None: no draw pending)."""
    pending = node._log.pending
    if node.round_number == 0 or pending is None or not isinstance(pending.record.action,
                                                                   Draw):
        return None
    return pending.seat


def _draws_applied(net: TableNet, seat: int) -> int:
    return sum(1 for e in net.of(seat, tev.Applied) if isinstance(e.event.action, Draw))


def test_a_draw_while_a_node_is_away_opens_no_hand_and_it_plays_on_when_back() -> None:
    gone = 2
    net = TableNet(make_config(4, target=30), seed=b"served4")
    net.start()
    until(net, lambda: _drawing(net.nodes[0]) not in (None, gone))
    drawer = _drawing(net.nodes[0])
    before = _draws_applied(net, 0)
    net.cut_off(gone)
    live = [s for s in net.humans if s != gone]
    until(net, lambda: all(_draws_applied(net, s) > before for s in live))
    for s in live:
        node = net.nodes[s]
        session = node._sessions.primary
        assert session.serving(gone) and not session.recovering(gone)
        assert session.hand_of(gone) is None and not session.knows_key(gone)
        assert not net.of(s, tev.SeatTakenOver)
        gone_news = [e for e in net.of(s, tev.Info) if e.code is tev.InfoCode.SEAT_GONE]
        assert gone_news and "go on without seeing" in said(gone_news[0], net, s)
    assert drawer is not None and drawer != gone
    net.reconnect(gone)
    net.run()
    assert net.faults() == {}
    for s in net.humans:
        assert net.nodes[s].finished and not net.of(s, tev.SeatTakenOver)
        overs = net.of(s, tev.RoundOver)
        assert overs and all(o.audit_ok for o in overs)


def test_a_node_that_stays_away_is_taken_over_at_its_turn() -> None:
    gone = 3
    net = TableNet(make_config(4, target=30), seed=b"served4-late")
    net.start()
    until(net, lambda: _drawing(net.nodes[0]) not in (None, gone))
    net.crash(gone)
    live = [s for s in net.humans if s != gone]
    until(net, lambda: net.nodes[0].round is not None and net.nodes[0].round.turn == gone)
    until(net, lambda: all(net.of(s, tev.SeatTakenOver) for s in live))
    for s in live:
        assert [e.seat for e in net.of(s, tev.SeatTakenOver)] == [gone]
    net.run()
    assert net.faults() == {}
    assert all(net.nodes[s].finished for s in live)


def test_a_holder_that_withholds_its_partial_strips_is_named() -> None:
    gone, mute = 2, 1

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender == mute and payload[:1] == bytes([CRYPTO]) and isinstance(
                decode(payload[1:], sender=None), PartialStrip):
            return None  # Bea's partial strips never reach anyone
        return payload

    net = TableNet(make_config(4, target=30), seed=b"served4", tamper=tamper)
    net.start()
    until(net, lambda: _drawing(net.nodes[0]) not in (None, gone))
    net.cut_off(gone)
    named = []
    for _ in range(20_000):
        named = [e for e in net.of(3, tev.Info) if e.code is tev.InfoCode.WITHHOLDS]
        if named or not net.step():
            break
    assert named and named[0].params["seat"] == mute and named[0].params["dealer"] == gone
    assert "Bea has not served its part of Cem's cards" in said(named[0], net, 3)


def test_when_the_node_is_back_the_others_stop_serving_its_strips() -> None:
    gone, partials = 2, []

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if payload[:1] == bytes([CRYPTO]):
            msg = decode(payload[1:], sender=None)
            if isinstance(msg, PartialStrip) and msg.dealer == gone:
                partials.append((msg.round_no, msg.op, msg.seat))
        return payload

    net = TableNet(make_config(4, target=30), seed=b"served4", tamper=tamper)
    net.start()
    until(net, lambda: _drawing(net.nodes[0]) not in (None, gone))
    net.cut_off(gone)
    live = [s for s in net.humans if s != gone]
    until(net, lambda: all(net.nodes[s]._sessions.primary.serving(gone) for s in live))
    until(net, lambda: _draws_applied(net, 0) > 0 and _drawing(net.nodes[0]) is None)
    number = net.nodes[0].round_number
    net.reconnect(gone)
    assert not any(net.nodes[s]._sessions.primary.serving(gone) for s in live)
    served_before = len(partials)
    draws = _draws_applied(net, 0)
    until(net, lambda: _draws_applied(net, 0) > draws + 2
          or net.nodes[0].round_number != number)
    assert net.nodes[0].round_number == number  # more draws in the same round
    assert len(partials) == served_before  # its own node strips them: nobody serves
    assert net.faults() == {} and not net.of(0, tev.SeatTakenOver)
