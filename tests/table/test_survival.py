"""A table that survives (issue #6): a dropped node's seats are taken over through the
escrow, the match goes on and every remaining node ends identical."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from table_helpers import said, until

from p2p8s.engine import Draw, Play
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config


def _agree(net: TableNet, seats: list[int]) -> None:
    """The nodes of ``seats`` finished the match identically, every audit passed."""
    assert net.faults() == {}
    nodes = [net.nodes[s] for s in seats]
    first = nodes[0]
    for node in nodes:
        assert node.finished and node.failed is None
        assert node.match.totals == first.match.totals
        assert node.match.winner == first.match.winner
        assert node.transcript == first.transcript
        assert node.transcript_index == first.transcript_index
    overs = [[(e.result, e.hands, e.audit_ok) for e in net.of(s, tev.RoundOver)]
             for s in seats]
    assert all(o == overs[0] for o in overs) and all(ok for *_, ok in overs[0])


def _dealing(node: Table) -> bool:
    return (node.round_number != 0 and node._deal.hand_op is not None
            and node._log.round is None)


def _drawing(node: Table, seat: int) -> bool:
    pending = node._log.pending
    return (node.round_number != 0 and pending is not None and pending.seat == seat
            and isinstance(pending.record.action, Draw))


Moment = Callable[[TableNet, int], bool]
MOMENTS: dict[str, Moment] = {
    "its turn": lambda net, s: net.nodes[s].my_turn,
    "mid-deal": lambda net, s: _dealing(net.nodes[s]),
    "mid-draw": lambda net, s: _drawing(net.nodes[s], s),
}


@pytest.mark.parametrize(("players", "computers", "gone", "moment", "seed"), [
    (3, (), 2, "its turn", b"a3"),
    (3, (), 1, "mid-deal", b"b3"),
    (4, (), 3, "mid-draw", b"c4"),
    (5, (2,), 4, "its turn", b"d5"),
    (6, (), 1, "mid-deal", b"e6"),
    (7, (3, 5), 6, "mid-draw", b"f7"),
])
def test_a_vanished_node_is_taken_over_and_the_match_completes(
    players: int, computers: tuple[int, ...], gone: int, moment: str, seed: bytes
) -> None:
    net = TableNet(make_config(players, computers=computers, target=40), seed=seed)
    net.start()
    until(net, lambda: MOMENTS[moment](net, gone))
    net.crash(gone)
    net.run()
    live = [s for s in net.humans if s != gone]
    _agree(net, live)
    for s in live:
        taken = net.of(s, tev.SeatTakenOver)
        assert taken and all(e.seat == gone for e in taken)
        assert taken[0].by == min(live)
    assert not net.nodes[gone].finished


def test_the_host_vanishes_and_its_computer_seats_are_taken_over_too() -> None:
    net = TableNet(make_config(4, computers=(1,), target=40), seed=b"host")
    net.start()
    until(net, lambda: net.nodes[0].round is not None)
    net.crash(0)
    net.run()
    _agree(net, [2, 3])
    taken = {e.seat for e in net.of(2, tev.SeatTakenOver)}
    assert taken == {0, 1}
    assert {e.by for e in net.of(3, tev.SeatTakenOver)} == {2}


def test_a_player_who_leaves_is_taken_over_at_once() -> None:
    net = TableNet(make_config(4, target=40), seed=b"quit")
    net.start()
    until(net, lambda: net.nodes[1].my_turn)
    net.leave(1)
    net.run()
    live = [0, 2, 3]
    _agree(net, live)
    for s in live:
        away = net.of(s, tev.SeatAway)
        assert away[0].seat == 1 and not away[0].paused
        assert "left the table" in said(away[0], net, s)
    assert net.now < 30.0  # nobody waited for a heartbeat or a turn timer


@pytest.mark.parametrize(("players", "computers"), [(2, ()), (3, (1,))])
def test_with_two_nodes_the_game_pauses_until_the_peer_is_back(
    players: int, computers: tuple[int, ...]
) -> None:
    net = TableNet(make_config(players, computers=computers, target=40), seed=b"pause")
    net.start()
    other = net.humans[-1]
    until(net, lambda: net.nodes[other].my_turn)
    net.cut_off(other)
    net.run()
    away = net.of(0, tev.SeatAway)
    assert away and away[-1].paused and away[-1].seat == other
    assert "waits" in said(away[-1], net, 0)
    assert not net.nodes[0].finished and not net.nodes[0].taken_over
    net.reconnect(other)
    net.run()
    _agree(net, net.humans)
    assert net.of(0, tev.SeatBack)[-1].seat == other
    assert not any(net.of(s, tev.SeatTakenOver) for s in net.humans)


def test_a_wrong_takeover_move_names_the_node_that_sent_it() -> None:
    net = TableNet(make_config(3, target=40), seed=b"liar")
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    liar = net.nodes[0]  # the lowest live seat: it sends Cem's moves
    honest = liar._computer.takeover_move

    def wrong(seat: int, shown: object = ()) -> object:
        move = honest(seat, shown)  # type: ignore[arg-type]
        other = [a for a in liar._log.round.legal_actions() if a != move]  # type: ignore[union-attr]
        return other[0] if other else move

    liar._computer.takeover_move = wrong  # type: ignore[method-assign,assignment]
    net.crash(2)
    net.run()
    fault = net.faults()[1]
    assert fault.seat == 0
    assert "Ann sent" in said(fault, net) and "taken over" in said(fault, net)


def test_a_bad_escrow_share_at_recovery_names_its_holder() -> None:
    from p2p8s.crypto import group
    from p2p8s.crypto.messages import ShareReveal, decode
    from p2p8s.table.actions import CRYPTO

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender == 1 and payload[0] == CRYPTO:
            msg = decode(payload[1:], sender=None)
            if isinstance(msg, ShareReveal):
                bad = dataclasses.replace(msg, share=group.scalar_from_int(7))
                return bytes([CRYPTO]) + bad.encode()
        return payload

    net = TableNet(make_config(4, target=40), seed=b"share", tamper=tamper)
    net.start()
    until(net, lambda: net.nodes[3].my_turn)
    net.crash(3)
    net.run()
    faults = net.faults()
    assert faults[0].seat == faults[2].seat == 1
    assert "escrow share" in said(faults[0], net) or "escrow share" in said(faults[2], net)


@pytest.mark.parametrize(("players", "computers", "leaver"), [
    (2, (), 1), (2, (), 0), (3, (1,), 0), (3, (), 2)])
def test_a_player_who_leaves_gives_up_its_keys_and_the_others_play_on(
    players: int, computers: tuple[int, ...], leaver: int
) -> None:
    """protocol/table.md, "Leaving": the leaver's keys go with its ``leave`` (``ownkey``),
    so its seats are taken over at once even where there is no escrow (two people, or
    a host with computer seats and one other person): the match goes on to its end."""
    net = TableNet(make_config(players, computers=computers, target=40), seed=b"bye")
    net.start()
    until(net, lambda: net.nodes[leaver].round is not None
          and net.nodes[leaver].round.turn != leaver)
    net.leave(leaver)
    net.run()
    live = [s for s in net.humans if s != leaver]
    _agree(net, live)
    for s in live:
        assert not any(e.paused for e in net.of(s, tev.SeatAway)), net.of(s, tev.SeatAway)
        taken = net.of(s, tev.SeatTakenOver)
        assert taken and taken[0].seat == leaver
        assert net.nodes[s].paused == frozenset()


@pytest.mark.parametrize(("players", "seed"), [(3, b"orphan3"), (4, b"orphan4")])
def test_a_node_gone_between_showing_its_cards_and_its_action_has_them_played(
    players: int, seed: bytes
) -> None:
    """Its ``PlayCards`` reached everyone, its ``Act`` never left: the cards are shown (a
    shown card cannot be shown again), so the takeover plays exactly those cards —
    the same move on every node — and the match goes on."""
    net = TableNet(make_config(players, target=40), seed=seed)
    net.start()
    gone = players - 1
    node = net.nodes[gone]

    def about_to_play() -> bool:
        return node.my_turn and any(isinstance(a, Play) for a in node.legal_actions())

    until(net, about_to_play)
    play = next(a for a in node.legal_actions() if isinstance(a, Play))
    out = node.act(play, net.now)
    assert len(out.messages) == 2  # PlayCards, then the Act
    for peer in net.humans:
        if peer != gone:
            net.send_raw(gone, peer, out.messages[0].payload)
    net.crash(gone)
    net.run()
    live = [s for s in net.humans if s != gone]
    _agree(net, live)
    for s in live:
        applied = [e for e in net.of(s, tev.Applied) if e.seat == gone]
        # the shown cards, in the order shown (the computer declares the suit of an 8)
        assert applied and isinstance(applied[0].action, Play)
        assert applied[0].action.cards == play.cards


def test_a_drop_whose_key_a_holder_can_no_longer_share_pauses_instead_of_a_takeover() -> None:
    """Cem's seat is taken over in this round (his escrow shares of the others' keys go
    with it). Then Dag's node drops: his key cannot be rebuilt (Cem's share cannot
    come), so nobody begins a recovery that could never finish — the game waits for
    Dag ("its key cannot be rebuilt this round"), and once he is back it plays on (it froze)."""
    net = TableNet(make_config(4, target=150), seed=b"lost share")
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    net.cut_off(2)
    until(net, lambda: all(2 in net.nodes[s].taken_over for s in (0, 1, 3)))
    net.reconnect(2)
    number = net.nodes[0].round_number
    until(net, lambda: net.nodes[3].my_turn)
    assert net.nodes[0].round_number == number
    net.cut_off(3)
    for _ in range(300):
        net.step()
    for seat in (0, 1):
        assert not net.nodes[seat]._sessions.primary.recovering(3)
        assert net.nodes[seat].paused == {3}
        away = net.of(seat, tev.SeatAway)[-1]
        assert said(away, net, seat) == (
            "Dag's node is gone: the game waits until it is back (its key cannot be rebuilt "
            "this round: a holder of a share of it is gone, or lost its share)")
    net.reconnect(3)
    net.run()
    assert net.faults() == {}
    assert all(n.finished for n in net.nodes.values())
    assert len({n.transcript for n in net.nodes.values()}) == 1
