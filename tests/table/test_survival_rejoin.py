"""Coming back (issue #6): the away player's computer (R-TIMER), a node back from a
network drop, a restarted node restored from the log."""

from __future__ import annotations

import pytest
from table_helpers import drop_on_turn, said, texts, until

from p2p8s.table import events as tev
from p2p8s.table.core import AWAY_GRACE_S
from p2p8s.table.harness import TableNet, make_config


def _same_end(net: TableNet) -> None:
    assert net.faults() == {}
    nodes = [net.nodes[s] for s in net.humans]
    for node in nodes:
        assert node.finished
        assert node.transcript == nodes[0].transcript
        assert node.transcript_index == nodes[0].transcript_index
        assert node.match.totals == nodes[0].match.totals


def test_an_away_player_is_played_at_each_turn_after_a_short_grace_until_they_act() -> None:
    net = TableNet(make_config(3, target=200, turn_timeout_s=30.0), seed=b"away",
                   idle=(1,))
    net.start()

    def stood() -> list[tev.Event]:
        return [e for e in net.events[1] if isinstance(e, tev.Info)
                and said(e, net, 1).startswith("the computer played for you")]

    until(net, lambda: len(stood()) >= 3)
    # node 0 shows seat 1's full timer; node 1 (the away player's own) a short grace
    # once the computer has played for them
    full = [e.deadline for e in net.events[0] if isinstance(e, tev.TurnStarted) and e.seat == 1]
    own = [e.deadline for e in net.events[1] if isinstance(e, tev.TurnStarted) and e.seat == 1]
    assert own[0] == full[0]
    for mine, theirs in zip(own[1:], full[1:], strict=False):
        assert mine is not None and theirs is not None
        assert mine == pytest.approx(theirs - 30.0 + AWAY_GRACE_S)
    net.idle.clear()
    until(net, lambda: any(t.startswith("you were away") for t in texts(net, 1)))
    back = [t for t in texts(net, 1) if t.startswith("you were away")]
    n = len(stood())
    assert back == [f"you were away — the computer played {n} turns for you"]
    net.run()
    _same_end(net)


@pytest.mark.parametrize(("players", "steps", "seed"), [(3, 60, b"n3"), (4, 300, b"n4"),
                                                         (5, 150, b"n5")])
def test_a_node_back_from_a_network_drop_plays_its_seat_again(
    players: int, steps: int, seed: bytes
) -> None:
    net = TableNet(make_config(players, target=150), seed=seed)
    gone = players - 1
    drop_on_turn(net, gone, steps)
    taken_round = net.nodes[0].round_number
    net.reconnect(gone)
    net.run()
    _same_end(net)  # the node that was away ends with the identical log and scores
    assert net.of(0, tev.SeatBack)[-1].seat == gone
    # it plays its own seat again from the next round it was welcomed to
    last = net.nodes[0].match.round_number
    assert last > taken_round
    final = [e for e in net.events[gone] if isinstance(e, tev.RoundStarted)][-1]
    after = net.events[gone][net.events[gone].index(final):]
    assert not any(isinstance(e, tev.SeatTakenOver) for e in after)
    mine = [e for e in after if isinstance(e, tev.Applied) and e.seat == gone]
    assert mine


def _deals_in_again(net: TableNet, seat: int, since_round: int) -> None:
    """``seat`` played its own seat (no takeover) in a round after ``since_round``."""
    events = net.events[seat]
    starts = [i for i, e in enumerate(events)
              if isinstance(e, tev.RoundStarted) and e.number > since_round]
    assert starts, "no later round"
    after = events[starts[0]:]
    assert any(isinstance(e, tev.Applied) and e.seat == seat for e in after)
    later = [e for e in after if isinstance(e, tev.SeatTakenOver) and e.seat == seat]
    assert not later


@pytest.mark.parametrize(("players", "steps", "stale", "seed"), [
    (3, 40, False, b"r3"), (4, 200, True, b"r4"), (6, 400, False, b"r6"),
])
def test_a_restarted_node_is_rebuilt_from_the_log_and_deals_in_next_round(
    players: int, steps: int, stale: bool, seed: bytes
) -> None:
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table

    net = TableNet(make_config(players, target=150), seed=seed)
    net.start()
    gone = players - 1
    until(net, lambda: net.nodes[gone].my_turn)
    net.crash(gone)
    early = net.nodes[0].resync_payload()  # a log taken before the others went on
    for _ in range(steps):
        net.step()
    assert gone in net.nodes[0].taken_over
    payload = early if stale else net.nodes[0].resync_payload()
    node = Table.restore(net.config, me=gone, records=payload, rand=seeded(b"restarted"),
                         seed=b"restarted", now=net.now)
    assert node.failed is None and not node.my_turn
    # every peer's log (each holds all it sent) fills what the first lacked; copies
    # are skipped, messages after a gap wait for it
    for peer in range(players - 1):
        net._post(gone, node.receive(peer, net.nodes[peer].resync_payload(), net.now))
    assert node.failed is None
    assert node.transcript == net.nodes[0].transcript
    assert node.round_number == net.nodes[0].round_number
    restored_round = node.round_number
    net.replace(gone, node)
    net.reconnect(gone)
    net.run()
    _same_end(net)
    _deals_in_again(net, gone, restored_round)


def test_a_restored_node_checks_the_log_it_is_given() -> None:
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table
    from p2p8s.table.actions import CRYPTO, decode_records, encode_records

    net = TableNet(make_config(3, target=150), seed=b"forge")
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    for _ in range(40):
        net.step()
    records = decode_records(net.nodes[0].resync_payload()[1:])
    # the helper alters one of Bea's messages: the restored node names Bea's message
    i = max(i for i, (s, p) in enumerate(records) if s == 1 and p[0] == CRYPTO)
    sender, payload = records[i]
    records[i] = (sender, payload[:-1] + bytes([payload[-1] ^ 1]))
    node = Table.restore(net.config, me=2, records=bytes([6]) + encode_records(records),
                         rand=seeded(b"r"))
    assert node.failed is not None and node.failed.seat == 1


def test_a_restarted_node_can_be_rebuilt_from_signed_frames() -> None:
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table
    from p2p8s.table.actions import RESYNC, encode_records
    from p2p8s.table.harness import make_keys
    from p2p8s.table.logverify import records_from_frames

    keys = make_keys(3)
    net = TableNet(make_config(3, target=100, keys=keys), seed=b"frames", keys=keys)
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    for _ in range(60):
        net.step()
    node = Table.restore(net.config, me=2, rand=seeded(b"again"),
                         records=records_from_frames(net.config, net.frames[0], me=2))
    for peer in (0, 1):
        records = records_from_frames(net.config, net.frames[peer], me=2)
        node.receive(peer, bytes([RESYNC]) + encode_records(records), net.now)
    assert node.failed is None and node.transcript == net.nodes[0].transcript
    net.replace(2, node)
    net.reconnect(2)
    net.run()
    _same_end(net)


@pytest.mark.parametrize(("players", "gone", "seed"), [(6, 2, b"m6"), (3, 1, b"m3"),
                                                       (7, 5, b"m7")])
def test_a_node_cut_off_mid_deal_with_shuffled_delivery_ends_identical(
    players: int, gone: int, seed: bytes
) -> None:
    # the node cut off keeps stripping into its held messages; once its key is rebuilt
    # it drops them and follows the round as the others saw it
    net = TableNet(make_config(players, target=80), seed=seed, order_seed=seed)
    net.start()
    until(net, lambda: net.nodes[gone].round_number != 0
          and net.nodes[gone]._deal.hand_op is not None and net.nodes[gone]._log.round is None)
    net.cut_off(gone)
    for _ in range(120):
        net.step()
    net.reconnect(gone)
    net.run()
    _same_end(net)


def test_a_node_restarted_before_anyone_noticed_asks_to_be_taken_over() -> None:
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table

    net = TableNet(make_config(4, target=80), seed=b"quick")
    net.start()
    until(net, lambda: net.nodes[3].my_turn)
    net.crash(3, notify=False)  # back before the heartbeats failed
    net.deliver_all()  # what it sent before the crash reached its peers
    node = Table.restore(net.config, me=3, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"quick"))
    for peer in (0, 1, 2):
        net._post(3, node.receive(peer, net.nodes[peer].resync_payload(), net.now))
    net.replace(3, node)
    net.run()
    _same_end(net)
    away = net.of(0, tev.SeatAway)
    assert away and away[0].seat == 3 and "restarted" in said(away[0], net, 0)


def test_a_restarted_adopter_is_rebuilt_from_a_log_holding_its_moves_for_an_adopted_seat(
) -> None:
    # Dag's node is gone for good; from round 2 Ann adopts its seat and sends its
    # messages. Ann's process restarts: the log it is rebuilt from holds Ann's own moves
    # for Dag's seat (not "Ann sent a message signed as seat 3")
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table

    net = TableNet(make_config(4, target=150), seed=b"adopt")
    net.start()
    until(net, lambda: net.nodes[3].my_turn)
    net.crash(3)
    until(net, lambda: net.nodes[0].round_number >= 2 and 3 in net.nodes[0]._seats.adopted
          and net.nodes[0]._log.round is not None)
    net.crash(0)
    net.deliver_all()  # what it sent before the crash reached its peers
    node = Table.restore(net.config, me=0, records=net.nodes[1].resync_payload(),
                         rand=seeded(b"adopter"), now=net.now)
    assert node.failed is None
    for peer in (1, 2):
        net._post(0, node.receive(peer, net.nodes[peer].resync_payload(), net.now))
    assert node.failed is None
    assert node.transcript == net.nodes[1].transcript
    net.replace(0, node)
    net.reconnect(0)
    net.run()
    assert net.faults() == {}
    for seat in (0, 1, 2):
        assert net.nodes[seat].finished
        assert net.nodes[seat].match.totals == net.nodes[1].match.totals
