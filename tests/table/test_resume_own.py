"""A restarted node with its own log and table secret takes its own seat back, hand
hidden (protocol/table.md "Coming back" → "Restart with the table secret"): no
``ownkey``, no ``restarted``, nobody's hand opened, the round finished by its person,
every transcript equal, the offline audit ok — also with two people, at a
``--no-escrow`` table, after a move that reached nobody and between Commit and Reveal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from table_helpers import put_back, same_end, signed_payloads, until, with_secrets

from p2p8s.crypto.messages import Commit, Reveal
from p2p8s.crypto.messages import decode as decode_message
from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, OWNKEY, RESTARTED
from p2p8s.table.core import Phase
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import records_from_frames, verify


def _secret(seat: int) -> bytes:
    return hashlib.sha256(b"resume secret %d" % seat).digest()


def _net(players: int, seed: bytes, *, escrow: bool = True,
         computers: tuple[int, ...] = ()) -> TableNet:
    keys = make_keys(players)
    net = TableNet(make_config(players, target=1, keys=keys, escrow=escrow,
                               computers=computers), seed=seed, keys=keys)
    return with_secrets(net, seed, _secret)


def _own(net: TableNet, seat: int) -> list[tuple[int, bytes]]:
    """The records of ``seat``'s own log (what the harness logged for it)."""
    return records_from_frames(net.config, net.frames[seat], me=seat)


def _restart(net: TableNet, seat: int, *, source: int = 0, notify: bool = True,
             own: bool = True) -> Table:
    """Crash ``seat``'s node now, rebuild it from ``source``'s log and its own, put it
    back; its first output goes out."""
    net.crash(seat, notify=notify)
    node = Table.restore(net.config, me=seat, records=net.nodes[source].resync_payload(),
                         rand=seeded(b"restarted"), now=net.now, sign=net.signers[seat],
                         key_secret=_secret(seat), own=_own(net, seat) if own else None)
    # its log goes on with the frames of the log it was rebuilt from (as the runner's)
    held = set(net.frames[seat])
    net.frames[seat] += [f for f in net.frames[source] if f not in held]
    return put_back(net, seat, node)


def _sent_kinds(net: TableNet, seat: int) -> set[int]:
    return {payload[0] for payload in signed_payloads(net, seat)}


def _hidden_to_the_end(net: TableNet, seat: int, number: int) -> None:
    """Play the round out; nobody but ``seat`` ever sees its hand before the round
    ends, and ``seat``'s person plays its own seat."""
    others = [s for s in net.humans if s != seat]
    for _ in range(200_000):
        if any(net.nodes[s].round_number != number for s in net.humans):
            break
        for s in others:
            if net.nodes[s].phase not in (Phase.CRYPTO, Phase.PLAY):
                continue  # the round's end: every key is revealed
            assert net.nodes[s]._sessions.primary.hand_of(seat) is None
            assert seat not in net.nodes[s].taken_over
        if not net.step():
            break
    assert net.faults() == {}


def _same_end(net: TableNet, seat: int) -> None:
    net.run()
    same_end(net)
    for s in net.humans:
        assert not [e for e in net.events[s] if isinstance(e, tev.SeatTakenOver)]
        report = verify(net.frames[s])
        assert report.ok and report.finished
    kinds = _sent_kinds(net, seat)
    assert OWNKEY not in kinds and RESTARTED not in kinds


def _in_play_not_on_turn(net: TableNet, seat: int) -> Callable[[], bool]:
    """True at a quiet point of the round where no node has ``seat`` on turn."""
    def pred() -> bool:
        rounds = [net.nodes[s].round for s in net.humans]
        if not all(r is not None and not r.over and r.turn != seat for r in rounds):
            return False
        if any(net.links.values()):
            net.deliver_all()
            return False
        node = net.nodes[seat]
        return node._log.applied >= 3 and not node._log.pending
    return pred


@pytest.mark.parametrize(("players", "escrow", "seat", "computers"),
                         [(3, True, 2, ()), (2, True, 1, ()), (3, False, 1, ()),
                          (3, True, 0, (2,))])
def test_a_restarted_node_plays_its_own_seat_on_with_its_hand_hidden(
        players: int, escrow: bool, seat: int, computers: tuple[int, ...]) -> None:
    """…also the host, which runs the computer seats: it takes them back too."""
    net = _net(players, b"resume%d" % players, escrow=escrow, computers=computers)
    net.start()
    until(net, _in_play_not_on_turn(net, seat))
    number = net.nodes[seat].round_number
    source = next(s for s in net.humans if s != seat)
    node = _restart(net, seat, source=source)
    assert node.resumed and node.round_number == number and seat not in node.taken_over
    assert node._sessions.primary.hand_of(seat)  # its hand, known again
    assert set(node._sessions.by_seat) == {seat, *computers}
    _hidden_to_the_end(net, seat, number)
    _same_end(net, seat)


def test_a_seat_served_while_its_node_restarts_is_its_own_again() -> None:
    """The others serve the gone seat's strips (mental-poker.md §8.1) while its node is
    down; back from its own log it strips for itself again, and they stop serving."""
    net = _net(3, b"resume-served")
    net.start()
    seat = 2
    until(net, _in_play_not_on_turn(net, seat))
    net.crash(seat)
    net.idle = set(net.humans)  # the person on turn thinks while the grace runs out
    others = [s for s in net.humans if s != seat]
    until(net, lambda: all(net.nodes[s]._seats.served == {seat} for s in others))
    assert all(net.nodes[s]._seats.served == {seat} for s in others)
    assert all(seat not in net.nodes[s].taken_over for s in others)
    net.idle = set()
    node = _restart(net, seat)
    net.deliver_all()
    assert all(not net.nodes[s]._seats.served for s in others)
    _hidden_to_the_end(net, seat, node.round_number)
    _same_end(net, seat)


def test_a_move_that_reached_nobody_is_resent_not_equivocated() -> None:
    net = _net(3, b"resume-lost-move")
    net.start()
    seat = 1
    until(net, lambda: net.nodes[seat].my_turn and net.nodes[seat]._log.applied >= 2)
    node = net.nodes[seat]
    view = node.view()
    assert view is not None
    action = net.driver.choose(view, node.legal_actions(), net._rng)
    index = node._log.applied
    net._post(seat, node.act(action, net.now))
    for (a, _), q in net.links.items():  # what it sent reached nobody
        if a == seat:
            q.clear()
    restored = _restart(net, seat)
    net.deliver_all()
    for s in net.humans:
        assert net.nodes[s]._log.applied > index
        assert net.nodes[s]._log.actions[index] == (seat, action)
    assert restored.failed is None
    _hidden_to_the_end(net, seat, restored.round_number)
    _same_end(net, seat)


def test_a_restart_between_commit_and_reveal_goes_on_with_the_derived_nonce() -> None:
    net = _net(3, b"resume-commit")
    seat = 2
    net.start()
    net.cut.add(seat)  # what is sent to it waits: it never gets to its Reveal
    net.deliver_all()
    crypto = [decode_message(p[1:], sender=None) for p in signed_payloads(net, seat)
              if p[:1] == bytes([CRYPTO])]
    assert [type(m) for m in crypto] == [Commit]  # its Commit went out, nothing more
    node = _restart(net, seat, notify=False)
    net.deliver_all()
    assert node._sessions.primary.round_id is not None
    sent = [decode_message(p[1:], sender=None) for p in signed_payloads(net, seat)
            if p[:1] == bytes([CRYPTO])]
    assert any(isinstance(m, Reveal) for m in sent)
    _hidden_to_the_end(net, seat, 1)
    _same_end(net, seat)


def test_without_its_own_log_the_restart_falls_back_to_handing_its_key_over() -> None:
    net = _net(3, b"resume-nolog")
    net.start()
    seat = 2
    until(net, _in_play_not_on_turn(net, seat))
    node = _restart(net, seat, own=False)
    net.deliver_all()
    assert seat in node.taken_over and all(
        seat in net.nodes[s].taken_over for s in net.humans)
    assert OWNKEY in _sent_kinds(net, seat)


def test_a_seat_taken_over_meanwhile_stays_taken_over_after_the_restart() -> None:
    """Its turn came while it was down: the others rebuilt its key (the takeover is
    irrevocable). Back with its own log, the node does not take its seat back: its
    person plays it through signed choices as after any takeover; nobody faults."""
    net = _net(3, b"resume-taken")
    net.start()
    seat = 2
    until(net, _in_play_not_on_turn(net, seat))
    net.crash(seat)
    others = [s for s in net.humans if s != seat]
    until(net, lambda: all(seat in net.nodes[s].taken_over for s in others))
    node = _restart(net, seat)
    assert not node.resumed and seat in node.taken_over
    net.run()
    assert net.faults() == {}
    nodes = [net.nodes[s] for s in net.humans]
    assert all(n.finished and n.transcript == nodes[0].transcript for n in nodes)
    for s in net.humans:
        assert verify(net.frames[s]).ok


def test_a_second_restart_in_the_round_resumes_again() -> None:
    net = _net(3, b"resume-twice")
    net.start()
    seat = 1
    until(net, _in_play_not_on_turn(net, seat))
    first = _restart(net, seat)
    assert first.resumed
    moves = first._log.applied
    until(net, lambda: first._log.applied >= moves + 3 and _in_play_not_on_turn(net, seat)())
    second = _restart(net, seat, source=2)
    assert second.resumed and second.round_number == first.round_number
    _hidden_to_the_end(net, seat, second.round_number)
    _same_end(net, seat)
