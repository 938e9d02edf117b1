"""A restarted node recomputes its round keys from its per-table secret (``ownkey``):
the round goes on — also with two people — without waiting for the escrow; forged or
stale keys are named."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_helpers import (
    put_back,
    said,
    same_end,
    signed_payloads,
    texts,
    until,
    with_secrets,
)

from p2p8s.cli.words import PLAIN
from p2p8s.cli.words import table as words
from p2p8s.crypto.derive import round_key
from p2p8s.crypto.group import base_mul, scalar_add, scalar_from_int
from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CHOICE, OWNKEY, RESTARTED, decode_ownkey, encode_ownkey
from p2p8s.table.decoding import BadPayload
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


def _secret(seat: int) -> bytes:
    return hashlib.sha256(b"table secret %d" % seat).digest()


def _net(players: int, seed: bytes, target: int = 100) -> TableNet:
    """A net whose nodes derive their round keys from their table secrets."""
    keys = make_keys(players)
    net = TableNet(make_config(players, target=target, keys=keys), seed=seed, keys=keys)
    return with_secrets(net, seed, _secret)


def _restart(net: TableNet, seat: int, *, notify: bool = True) -> Table:
    """Crash ``seat``'s node on its turn, rebuild it from seat 0's log with its table
    secret, put it back; its first output (``ownkey``) goes out."""
    until(net, lambda: net.nodes[seat].my_turn)
    net.crash(seat, notify=notify)
    net.deliver_all()  # what it sent before the crash reached the others
    node = Table.restore(net.config, me=seat, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"restarted"), now=net.now, sign=net.signers[seat],
                         key_secret=_secret(seat))
    return put_back(net, seat, node)


def _kinds_sent(net: TableNet, seat: int) -> set[int]:
    """The payload kinds ``seat``'s node signed (its log holds what it sent)."""
    return {payload[0] for payload in signed_payloads(net, seat)}


def _same_end(net: TableNet) -> None:
    same_end(net)


def _round_id(net: TableNet) -> bytes:
    """The joint id of the round in play (round keys derive from it, §5.2)."""
    round_id = net.nodes[0]._sessions.primary.round_id
    assert round_id is not None
    return round_id


def test_round_keys_derive_from_the_table_secret() -> None:
    rid, other = bytes(32), bytes([1]) * 32
    a = round_key(_secret(0), b"t" * 16, 3, rid, 1)
    assert a == round_key(_secret(0), b"t" * 16, 3, rid, 1)
    assert len({a, round_key(_secret(0), b"t" * 16, 4, rid, 1),
                round_key(_secret(0), b"t" * 16, 3, rid, 2),
                round_key(_secret(1), b"t" * 16, 3, rid, 1),
                round_key(_secret(0), b"u" * 16, 3, rid, 1),
                round_key(_secret(0), b"t" * 16, 3, other, 1)}) == 6
    with pytest.raises(ValueError, match="32 bytes"):
        round_key(b"short", b"t", 1, rid, 0)


def test_with_two_people_a_restarted_node_sends_its_keys_and_the_match_goes_on() -> None:
    net = _net(2, b"own2")
    net.start()
    lost = net.nodes[1].round_number
    node = _restart(net, 1)
    net.deliver_all()
    assert node.stranded == frozenset() and net.nodes[0].stranded == frozenset()
    assert net.nodes[0].failed is None and node.failed is None
    assert 1 in net.nodes[0].taken_over and 1 in node.taken_over
    taken = net.of(0, tev.SeatTakenOver)
    assert taken and "handed over its key" in said(taken[-1], net, 0)
    # the person plays its seat again from its next turn, through a signed choice
    until(net, lambda: node.choosing or node.round_number != lost)
    assert node.choosing and node.round_number == lost
    net.run()
    _same_end(net)
    for s in net.humans:
        report = verify(net.frames[s])
        assert report.ok and report.finished, words.report_lines(report)
    # the restored node sent its keys (no ``restarted``) and its person's choices
    kinds = _kinds_sent(net, 1)
    assert OWNKEY in kinds and RESTARTED not in kinds and CHOICE in kinds
    assert node.match.results[lost - 1].number == lost


def test_with_three_people_a_restart_needs_no_escrow() -> None:
    net = _net(3, b"own3")
    net.start()
    node = _restart(net, 2, notify=False)  # back before anyone noticed it was gone
    net.deliver_all()
    assert net.nodes[0].stranded == net.nodes[1].stranded == node.stranded == frozenset()
    assert 2 in net.nodes[0].taken_over and 2 in net.nodes[1].taken_over
    # nobody published an escrow share: the key came back from its own node
    for s in (0, 1):
        assert all("handed over its key" in t for t in texts(net, s, tev.SeatTakenOver))
    net.run()
    _same_end(net)


def test_without_the_key_secret_a_restart_is_still_stranded_with_two() -> None:
    net = _net(2, b"own-none")
    net.start()
    until(net, lambda: net.nodes[1].my_turn)
    net.crash(1)
    node = Table.restore(net.config, me=1, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"restarted"), now=net.now)
    assert [o.payload[0] for o in node.handle_timer(net.now).messages] == [RESTARTED]
    assert node.stranded == frozenset({1})


def _forge(net: TableNet, sender: int, body: bytes) -> tev.Fault:
    victim = next(s for s in net.humans if s != sender)
    net.nodes[victim].receive(sender, bytes([OWNKEY]) + body, net.now)
    fault = net.nodes[victim].failed
    assert fault is not None
    return fault


def _in_play(net: TableNet) -> int:
    until(net, lambda: net.nodes[0].round is not None and not net.nodes[0].round.over)
    return net.nodes[0].round_number


def test_a_wrong_key_is_named() -> None:
    net = _net(3, b"forge1")
    net.start()
    number = _in_play(net)
    key = scalar_add(round_key(_secret(1), net.config.table, number, _round_id(net), 1),
                     scalar_from_int(1))
    fault = _forge(net, 1, encode_ownkey(number, 1, [(1, key)]))
    assert fault.seat == 1 and "does not match" in said(fault)


def test_a_key_of_a_seat_the_sender_does_not_run_is_named() -> None:
    net = _net(3, b"forge2")
    net.start()
    number = _in_play(net)
    # even the right key of seat 2 (leaked): node 1 does not run seat 2
    key = round_key(_secret(2), net.config.table, number, _round_id(net), 2)
    assert base_mul(key)
    fault = _forge(net, 1, encode_ownkey(number, 1, [(2, key)]))
    assert fault.seat == 1 and "does not run" in said(fault)


def test_a_key_of_a_past_round_is_a_harmless_late_copy_and_a_future_one_waits() -> None:
    """Every key of a finished round is revealed at its end: a late (relayed, resent)
    ``ownkey`` of a past round changes nothing and is no fault; a key for a round far
    ahead waits for its round (a node that catches up gets later rounds' payloads)."""
    net = _net(3, b"forge3", target=300)
    net.start()
    until(net, lambda: net.nodes[0].round_number >= 2 and net.nodes[0].round is not None)
    number = net.nodes[0].round_number
    victim = net.nodes[0]
    key = round_key(_secret(1), net.config.table, number - 1, _round_id(net), 1)  # an old key
    before = victim.transcript
    out = victim.receive(1, bytes([OWNKEY]) + encode_ownkey(number - 1, 1, [(1, key)]),
                         net.now)
    assert victim.failed is None and out.messages == [] and victim.transcript == before
    assert 1 not in victim.taken_over
    out = victim.receive(1, bytes([OWNKEY]) + encode_ownkey(number + 5, 1, [(1, key)]),
                         net.now)
    assert victim.failed is None and out.messages == [] and victim.transcript == before
    assert 1 not in victim.taken_over


def test_a_key_the_escrow_rebuilt_first_is_not_sent_again() -> None:
    net = _net(3, b"own-late")
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    number = net.nodes[2].round_number
    net.crash(2)  # noticed: the escrow rebuilds its key
    until(net, lambda: 2 in net.nodes[0].taken_over and 2 in net.nodes[1].taken_over)
    assert net.nodes[0].round_number == number
    node = Table.restore(net.config, me=2, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"late"), now=net.now, sign=net.signers[2],
                         key_secret=_secret(2))
    out = node.handle_timer(net.now)
    assert {o.payload[0] for o in out.messages} & {OWNKEY, RESTARTED} == set()
    assert node.failed is None and node.stranded == frozenset()
    assert node.round_number == number and 2 in node.taken_over
    net.replace(2, node)
    net.reconnect(2)
    net._post(2, out)
    net.run()
    _same_end(net)
    assert all("rebuilt from the escrow" in t for t in texts(net, 0, tev.SeatTakenOver))


def test_a_restart_before_its_key_announcement_stays_stranded_with_two() -> None:
    net = _net(2, b"own-early")
    net.start()  # each node's Commit is on its way; no key announced yet
    net.crash(1)
    net.deliver_all()
    node = Table.restore(net.config, me=1, records=net.nodes[0].resync_payload(),
                         rand=seeded(b"early"), now=net.now, key_secret=_secret(1))
    assert [o.payload[0] for o in node.handle_timer(net.now).messages] == [RESTARTED]
    assert node.stranded == frozenset({1})


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 255),
       st.dictionaries(st.integers(0, 255), st.binary(min_size=32, max_size=32),
                       min_size=1, max_size=16), st.binary(max_size=80))
def test_ownkey_bodies_decode_canonically(number: int, node: int, keys: dict[int, bytes],
                                          junk: bytes) -> None:
    items = sorted(keys.items())
    raw = encode_ownkey(number, node, items)
    assert decode_ownkey(raw) == (number, node, tuple(items))
    for bad in (junk, raw[:-1], raw + b"\x00", encode_ownkey(number, node, [])):
        try:
            got = decode_ownkey(bad)
        except BadPayload as exc:
            assert "ownkey" in PLAIN.error(exc)
        else:
            assert encode_ownkey(*got) == bad


def test_a_restarted_host_sends_its_computer_seats_keys_too() -> None:
    keys = make_keys(3)
    net = TableNet(make_config(3, computers=(2,), keys=keys, target=100), seed=b"own-host",
                   keys=keys)
    for s in net.humans:
        net.nodes[s] = Table(net.config, me=s, rand=seeded(b"h" + bytes([s])),
                             seed=b"h" + bytes([s]), sign=net.signers.get(s),
                             key_secret=_secret(s))
    net.start()
    until(net, lambda: net.nodes[0].my_turn)
    number = net.nodes[0].round_number
    net.crash(0)
    net.deliver_all()  # what it sent before the crash reached Bea (the pair waits)
    node = Table.restore(net.config, me=0, records=net.nodes[1].resync_payload(),
                         rand=seeded(b"host again"), now=net.now, sign=net.signers[0],
                         key_secret=_secret(0))
    assert node.failed is None and node.round_number == number
    assert node.taken_over == frozenset({0, 2}) and node.stranded == frozenset()
    net.replace(0, node)
    net.reconnect(0)
    net._post(0, node.handle_timer(net.now))
    net.deliver_all()
    assert net.nodes[1].taken_over == frozenset({0, 2})
    assert net.nodes[1].stranded == frozenset()
    net.run()
    _same_end(net)
