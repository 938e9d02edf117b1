"""Never accuse an honest player (issue #11): copies, reordering and stale payloads from
reconnects, resends and relays are absorbed; a fault needs signed evidence the offline
audit fails on too, naming the same seat."""

from __future__ import annotations

import functools
import random
from dataclasses import replace

import pytest
from chaosnet import ChaosNet
from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import drop_on_turn, quiet, until

from p2p8s import wire
from p2p8s.crypto.messages import Message, ShareReveal, decode
from p2p8s.crypto.rand import seeded
from p2p8s.table import Table, intake
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, WELCOME, encode_round
from p2p8s.table.errors import LogCode, TableCode
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify
from p2p8s.table.seats import TAKEOVER_GRACE_S

KEYS = make_keys(4)
#: One round: the race is in the first round; the rest of a match tests nothing more here.
TARGET = 1


def _config(players: int, **kw: object) -> object:
    return make_config(players, keys=KEYS[:players], **kw)  # type: ignore[arg-type]


def _results(net: TableNet) -> tuple[object, ...]:
    """What the match came to on node 0: each round's points and every applied action."""
    node = net.nodes[0]
    actions = [(e.seat, str(e.action)) for e in net.of(0, tev.Applied)]
    return tuple(r.points for r in node.match.results), tuple(actions)


def _audited_ok(net: TableNet) -> None:
    """No node stopped, all agree, and every node's log audits ok with its own verdict."""
    assert net.faults() == {}
    assert len({n.transcript for n in net.nodes.values()}) == 1
    for s in net.humans:
        report = verify(net.frames[s])
        assert report.ok, (s, report.fault)
        assert report.totals == tuple(net.nodes[s].match.totals)
        assert [r.points for r in report.rounds] == [
            r.points for r in net.nodes[s].match.results]


@functools.cache
def _in_order(players: int, seed: bytes, target: int) -> tuple[object, ...]:
    net = TableNet(_config(players, target=target), seed=seed,  # type: ignore[arg-type]
                   keys=KEYS[:players])
    net.start()
    net.run()
    return _results(net)


@settings(max_examples=3, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=2**32))
def test_copies_reordering_and_stale_frames_change_nothing(chaos: int) -> None:
    # every node gets copies (resends, relays), crypto frames out of order within a
    # window of 5 and old frames of past rounds; the match is the in-order one
    net = ChaosNet(_config(3, target=100), seed=b"wifi", keys=KEYS[:3],  # type: ignore[arg-type]
                   chaos=random.Random(chaos))
    net.start()
    net.run()
    _audited_ok(net)
    assert _results(net) == _in_order(3, b"wifi", 100)
    assert len(net.nodes[0].match.results) >= 2 and net.nodes[0].finished
    assert net.copies and net.reordered and net.stale


def test_copies_and_reordering_with_the_hosts_computer_seats() -> None:
    # the host's node runs two sessions: their messages are local, never waited for
    net = ChaosNet(_config(4, target=100, computers=(2,)), seed=b"wifi-c",  # type: ignore[arg-type]
                   keys=KEYS[:4], chaos=random.Random(7))
    net.start()
    net.run()
    _audited_ok(net)
    assert net.nodes[0].finished


@pytest.mark.parametrize(("players", "steps", "first", "seed"), [
    (4, 300, 0, b"d1"),   # back in the same round
    (4, 3000, 2, b"d3"),  # back rounds later: later rounds' messages wait for theirs
    (3, 2000, 0, b"d4"),
])
def test_a_node_back_from_a_drop_takes_one_peers_resend_before_the_others(
        players: int, steps: int, first: int, seed: bytes) -> None:
    # its seat was taken over meanwhile: it strips nothing, so a play of one peer (from
    # that peer's resend) came before the draw it plays from (in another's) — once
    # "plays (0, 29), which it does not hold" about an honest player; and messages of
    # rounds ahead of its own were "of round 3 during round 1 (replayed?)"
    net = ChaosNet(_config(players, target=150), seed=seed,  # type: ignore[arg-type]
                   keys=KEYS[:players], chaos=random.Random(seed), copy_p=0.05)
    gone = players - 1
    drop_on_turn(net, gone, steps)
    net.reconnect(gone, first=first)
    net.run()
    _audited_ok(net)
    assert net.nodes[gone].finished


def test_moves_a_node_sent_before_its_seat_was_taken_over_accuse_nobody() -> None:
    # its Wi-Fi died as it played: the others took its seat over (the computer played
    # on), then its play arrived — once "seat 3: plays (0, 13), which it does not hold"
    net = ChaosNet(_config(4, target=150), seed=b"bh3", keys=KEYS[:4],  # type: ignore[arg-type]
                   chaos=random.Random(0), copy_p=0, stale_p=0, window=1)
    net.start()
    until(net, lambda: net.nodes[3].my_turn)
    node = net.nodes[3]
    net.holed.add(3)
    view = node.view()
    assert view is not None
    net._post(3, node.act(net.driver.choose(view, node.legal_actions(), random.Random(0)),
                          net.now))
    net.cut.add(3)
    net.notify_lost(3)
    until(net, lambda: 3 in net.nodes[0].taken_over and net.actions >= 3)
    net.holed.clear()  # its frames arrive late; it still hears nothing
    net.run()
    for s in (0, 1, 2):
        assert net.nodes[s].failed is None and net.nodes[s].finished
        report = verify(net.frames[s])
        assert report.ok, report.fault


def test_a_copy_of_a_welcome_is_a_no_op() -> None:
    net = ChaosNet(_config(4, target=150), seed=b"d1", keys=KEYS[:4],  # type: ignore[arg-type]
                   chaos=random.Random(0), copy_p=0, stale_p=0, window=1)
    drop_on_turn(net, 3, 300)
    net.reconnect(3)

    seen: list[bytes] = []

    def welcomed() -> bool:
        frames = net.frames[3]
        while len(seen) < len(frames):
            seen.append(frames[len(seen)])
            if _payload(seen[-1])[:1] == bytes([WELCOME]):
                return True
        return False
    until(net, welcomed)
    quiet(net)
    net.send_raw(0, 3, seen[-1])  # resent after a reconnect
    net.run()
    _audited_ok(net)


@pytest.mark.parametrize("number", [0, 1])  # before the deal; the round in play
def test_a_welcome_that_does_not_fit_is_a_no_op(number: int) -> None:
    # the audit ignores welcomes, so live it can be no fault either (once "Bob sent an
    # unexpected welcome"): one from a node that adopted nobody, for a round in play
    net = TableNet(_config(3, target=100), seed=b"welcome", keys=KEYS[:3])  # type: ignore[arg-type]
    if number:
        net.start()
        quiet(net)
    for s in (0, 1):
        net.send_raw(2, s, _signed(net, 2, bytes([WELCOME]) + encode_round(number)))
    if not number:
        net.start()
    net.run()
    _audited_ok(net)
    assert net.nodes[0].finished


def _plays_then_some_arrive(net: TableNet, seat: int, seed: int) -> None:
    """``seat``'s node plays its turn, then ``3 * seed`` payloads in flight arrive."""
    node = net.nodes[seat]
    view = node.view()
    assert view is not None
    net._post(seat, node.act(net.driver.choose(view, node.legal_actions(),
                                               random.Random(seed)), net.now))
    for _ in range(seed * 3):
        net.deliver()


def _rebuilt(net: TableNet, seat: int) -> list[bytes]:
    """``seat``'s table went void (messages of it beyond its cut): rebuild it from every
    other node's records, as its runner does from their logs; returns its old log."""
    old = net.frames[seat]
    node = Table.restore(net.config, me=seat, records=net.nodes[1].resync_payload(),
                         rand=seeded(b"rebuilt"), now=net.now, sign=net.signers[seat])
    for other in net.humans:
        if other not in (seat, 1):
            node.receive(other, net.nodes[other].resync_payload(), net.now)
    net.replace(seat, node)
    net.frames[seat] = []
    net.reconnect(seat)
    net._post(seat, node.handle_timer(net.now))
    return old




@pytest.mark.parametrize("seed", range(40))
def test_a_node_acting_while_everyone_takes_its_seat_over_accuses_nobody(seed: int) -> None:
    # every other node lost Ann for longer than the grace and published its share of her
    # key; Ann's node was not cut off (it lost nobody) and plays its turn meanwhile, then
    # everyone has Ann back: her play is concurrent with the rebuild of her key. The cut
    # (the furthest of Ann's messages a share's echo counts) voids her play on every
    # node alike (once SEAT_TAKEN, ACT_AGAIN, SECOND_ACTION, NOT_HELD about her); her
    # own table goes void, no fault, and is rebuilt from the others' records.
    net = TableNet(_config(4, target=TARGET), seed=b"race%d" % seed, keys=KEYS,  # type: ignore[arg-type]
                   order_seed=b"o%d" % seed)
    net.start()
    # Ann is on turn on every node: the others take her over at the grace (a seat not
    # on turn would be served instead, mental-poker.md §8.1)
    until(net, lambda: net.nodes[0].my_turn and all(_turn(net, s) == 0 for s in (1, 2, 3)))
    for s in (1, 2, 3):
        net._post(s, net.nodes[s].peer_lost(0, net.now))
    net.now += TAKEOVER_GRACE_S + 0.1
    for s in (1, 2, 3):
        net._post(s, net.nodes[s].handle_timer(net.now))
    ann = net.nodes[0]
    _plays_then_some_arrive(net, 0, seed)
    for s in (1, 2, 3):
        net._post(s, net.nodes[s].peer_back(0, net.now))
    while not ann.void and net.step():
        pass
    assert ann.failed is None and ann.void  # her play is beyond the cut
    old = _rebuilt(net, 0)
    net.run()
    report = verify(old)  # her old log audits ok up to the cut, naming nobody
    assert report.ok, report.fault
    assert net.faults() == {}
    assert len({n.transcript for n in net.nodes.values()}) == 1
    assert all(n.finished for n in net.nodes.values())
    for s in (1, 2, 3):
        report = verify(net.frames[s])
        assert report.ok, (s, report.fault)
        assert report.totals == tuple(net.nodes[s].match.totals)


def _turn(net: TableNet, seat: int) -> int | None:
    """The seat on turn as ``seat``'s node sees it (None: no round in play)."""
    rnd = net.nodes[seat].round
    return None if rnd is None else rnd.turn


def _shared(net: TableNet, dealer: int) -> set[int]:
    """The nodes whose own log holds a share of ``dealer``'s key they published."""
    holders = set()
    for s in net.humans:
        for frame in net.frames[s]:
            message = wire.decode_body(frame[wire.PREFIX_LENGTH:]).message
            payload = _payload(frame)
            if message.seat == s and payload[:1] == bytes([CRYPTO]):
                msg = decode(payload[1:], sender=s)
                if isinstance(msg, ShareReveal) and msg.dealer == dealer:
                    holders.add(s)
    return holders


@pytest.mark.parametrize("seen", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_one_holder_publishing_takes_the_seat_over_on_every_node(seed: int, seen: bool) -> None:
    # only Bob lost Ann for longer than the grace and published his share of her key;
    # Cat and Dan still hear her. They publish theirs at once (a takeover once begun is
    # irrevocable), so her key is rebuilt and its cut fixed everywhere. Ann plays her
    # turn after she saw Bob's share (``seen``: held, never sent, void) or before (it
    # stands if a share counts it, else it is void alike on every node).
    net = TableNet(_config(4, target=TARGET), seed=b"follow%d" % seed, keys=KEYS,  # type: ignore[arg-type]
                   order_seed=b"f%d" % seed)
    net.start()
    until(net, lambda: net.nodes[0].my_turn and _turn(net, 1) == 0)  # Bob sees her turn
    net._post(1, net.nodes[1].peer_lost(0, net.now))
    net.now += TAKEOVER_GRACE_S + 0.1
    net._post(1, net.nodes[1].handle_timer(net.now))
    assert _shared(net, 0) == {1}
    ann = net.nodes[0]
    if seen:
        while net.links[(1, 0)]:  # Bob's share reaches Ann
            net._deliver_on((1, 0))
        assert ann.my_turn  # it changes no turn
    _plays_then_some_arrive(net, 0, seed)
    net._post(1, net.nodes[1].peer_back(0, net.now))
    while not ann.void and net.step():
        pass
    if seen:
        assert ann.void  # her play is beyond the cut: it never left her node
    if ann.void:
        assert ann.failed is None
        old = _rebuilt(net, 0)
        report = verify(old)  # her old log audits ok up to the cut, naming nobody
        assert report.ok, report.fault
    net.run()
    assert _shared(net, 0) == {1, 2, 3}  # Cat and Dan followed, hearing Ann all along
    for s in (1, 2, 3):
        assert [e.seat for e in net.of(s, tev.SeatTakenOver)][:1] == [0]
    assert net.faults() == {}
    assert len({n.transcript for n in net.nodes.values()}) == 1
    assert all(n.finished for n in net.nodes.values())
    for s in (1, 2, 3) if ann.void else (0, 1, 2, 3):
        report = verify(net.frames[s])
        assert report.ok, (s, report.fault)
        assert report.totals == tuple(net.nodes[s].match.totals)


# ---------------------------------------------------------------------- real cheats


def _payload(frame: bytes) -> bytes:
    body = wire.decode_body(frame[wire.PREFIX_LENGTH:]).message.body
    assert isinstance(body, wire.Game)
    return body.payload


def _signed(net: TableNet, seat: int, payload: bytes) -> bytes:
    """A frame signed by ``seat``'s key, as its runner would send it."""
    assert net.keys is not None
    return wire.encode(wire.Message(table=net.config.table, seat=seat, seq=10**6,
                                    body=wire.Game(to=None, payload=payload)), net.keys[seat])


def _sent_by(net: TableNet, receiver: int, seat: int, round_no: int) -> list[Message]:
    """The crypto messages of ``seat`` for ``round_no`` in ``receiver``'s log."""
    out = []
    for f in net.frames[receiver]:
        p = _payload(f)
        if p[:1] == bytes([CRYPTO]):
            m = decode(p[1:])
            if m.seat == seat and m.round_no == round_no:
                out.append(m)
    return out


def _twin(msg: Message) -> bytes:
    """A different message for the same slot (round, seat, seq): another echo."""
    echo = tuple((c + 1, h) for c, h in msg.echo)
    return bytes([CRYPTO]) + replace(msg, echo=echo).encode()


def _named_live_and_by_audit(net: TableNet, victim: int, cheat: int) -> None:
    fault = net.nodes[victim].failed
    assert fault is not None and fault.seat == cheat and fault.code is TableCode.EQUIVOCATION
    report = verify(net.frames[victim])
    assert not report.ok and report.fault is not None
    assert report.fault.seat == cheat and report.fault.code is LogCode.EQUIVOCATION


def _playing(seed: bytes) -> TableNet:
    net = TableNet(_config(3, target=300), seed=seed, keys=KEYS[:3])  # type: ignore[arg-type]
    net.start()
    until(net, lambda: net.actions >= 4)
    quiet(net)
    return net


def test_a_different_message_under_a_used_number_is_named_live_and_by_the_audit() -> None:
    net = _playing(b"eq1")
    used = _sent_by(net, 0, 1, net.nodes[0].round_number)[-2]
    net.send_raw(1, 0, _signed(net, 1, _twin(used)))
    quiet(net)
    _named_live_and_by_audit(net, 0, 1)


@pytest.mark.parametrize("taken", [True, False])
def test_a_different_message_for_a_slot_of_a_past_round_is_named(taken: bool) -> None:
    # ``taken``: a slot this node took in; else one it did without (dropped as late)
    net = _playing(b"eq2" if taken else b"eq4")
    until(net, lambda: net.nodes[0].round_number >= 2)
    quiet(net)
    sent = _sent_by(net, 0, 2, 1)
    old = sent[3] if taken else replace(sent[-1], seq=sent[-1].seq + 1)
    net.send_raw(2, 0, _signed(net, 2, bytes([CRYPTO]) + old.encode()))  # a late copy
    quiet(net)
    assert net.faults() == {}
    net.send_raw(2, 0, _signed(net, 2, _twin(old)))  # a different one: equivocation
    quiet(net)
    _named_live_and_by_audit(net, 0, 2)


def test_two_different_messages_for_a_slot_ahead_are_named_while_they_wait() -> None:
    net = _playing(b"eq3")
    last = _sent_by(net, 0, 1, net.nodes[0].round_number)[-1]
    ahead = replace(last, seq=last.seq + 5)
    net.send_raw(1, 0, _signed(net, 1, bytes([CRYPTO]) + ahead.encode()))
    quiet(net)
    assert net.faults() == {}  # after a gap: it waits
    net.send_raw(1, 0, _signed(net, 1, _twin(ahead)))
    quiet(net)
    _named_live_and_by_audit(net, 0, 1)


def test_messages_after_a_gap_wait_up_to_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "MAX_HELD", 3)
    net = _playing(b"gap")
    last = _sent_by(net, 0, 1, net.nodes[0].round_number)[-1]
    node = net.nodes[0]
    for k in range(3):
        msg = replace(last, seq=last.seq + 2 + k)
        node.receive(1, bytes([CRYPTO]) + msg.encode(), net.now)
        assert node.failed is None
    msg = replace(last, seq=last.seq + 9)
    node.receive(1, bytes([CRYPTO]) + msg.encode(), net.now)
    assert node.failed is not None and node.failed.seat == 1
    assert node.failed.code is TableCode.FLOOD
