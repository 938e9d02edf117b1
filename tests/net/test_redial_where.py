"""The ``where`` payload (protocol/table.md "Who dials", kind 68): its codec refuses
what a peer must not send, and a redial keeps what peers report as hints after the
addresses it knows, at most ``WHERE_MAX`` a seat, never for the sender's own seat."""

from __future__ import annotations

import random
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.errors import RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Node
from p2p8s.net.redial import Redial
from p2p8s.rules import Ruleset
from p2p8s.store.lastseen import last_addresses, load_where, save_where
from p2p8s.table.sync import WHERE, WHERE_MAX, Spot, SyncCode, Where
from p2p8s.wire import Roster, SeatEntry

TABLE = b"\x01" * 8


def _redial() -> Redial:
    """Ann's (seat 0) redial at a three-seat table; nobody connected."""
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    node = Node(identity=keys[0], name="Ann", code="7KQ4MX", table=b"\x01" * 8,
                host="127.0.0.1")
    seats = tuple(SeatEntry(seat=i, name=n, key=k.public_key().public_bytes_raw(),
                            addrs=("127.0.0.1",), port=4000 + i)
                  for i, (n, k) in enumerate(zip(("Ann", "Bob", "Cat"), keys, strict=True)))
    roster = Roster(size=3, rules=Ruleset(), open=False, seats=seats)
    return Redial(Mesh(node=node, roster=roster, seat=0, peers={}, digest=b""),
                  away=lambda s: False, find=None, rng=random.Random(1))


def test_a_where_round_trips_and_a_bad_one_is_refused() -> None:
    said = Where(spots=(Spot(seat=2, host="127.0.0.1", port=41000),))
    assert said.payload()[0] == WHERE and Where.parse(said.payload()[1:]) == said
    for bad in ([[2, "127.0.0.1", 0]], [[2, "", 4000]], [[2, "h" * 256, 4000]],
                [[2, "127.0.0.1"]], [["2", "127.0.0.1", 4000]],
                [[2, "127.0.0.1", 4000]] * (WHERE_MAX + 1), {"seat": 2}):
        with pytest.raises(RemoteError) as caught:
            Where.parse(msgpack.packb(bad))
        assert caught.value.code is SyncCode.BAD_WHERE
    with pytest.raises(ValueError):
        Where(spots=(Spot(seat=1, host="h", port=1),) * (WHERE_MAX + 1)).payload()


def test_reported_addresses_are_hints_kept_per_seat_newest_first_and_capped() -> None:
    redial = _redial()
    redial.heard([Spot(seat=1, host="127.0.0.1", port=5001),
                  Spot(seat=2, host="127.0.0.1", port=9999),  # the sender's own: no
                  Spot(seat=0, host="127.0.0.1", port=9998),  # this node's: no
                  Spot(seat=5, host="127.0.0.1", port=9997)], sender=2)  # no such seat
    assert redial.reported == {1: [("127.0.0.1", 5001)]}
    for port in range(6000, 6000 + WHERE_MAX + 2):
        redial.heard([Spot(seat=2, host="127.0.0.1", port=port)], sender=1)
    told = redial.reported[2]
    assert len(told) == WHERE_MAX and told[0] == ("127.0.0.1", 6000 + WHERE_MAX + 1)
    # the known addresses stay first: a report does not replace the roster's
    assert redial.where[2] == [("127.0.0.1", 4002)]
    # what this node passes on: the first address of each other seat, not the asker's
    assert redial.spots(but=1) == [Spot(seat=2, host="127.0.0.1", port=4002)]


def test_what_a_redial_keeps_for_the_next_run_holds_the_reported_addresses_too(
        tmp_path: Path) -> None:
    """A restarted node's where-file (p2p8s.store.lastseen) keeps what peers reported
    after the addresses known, so a second restart still tries there (issue #11)."""
    redial = _redial()
    redial.heard([Spot(seat=2, host="10.0.0.7", port=41000),
                  Spot(seat=2, host="127.0.0.1", port=4002)], sender=1)  # known already
    kept = redial.kept()
    assert kept[2] == [("127.0.0.1", 4002), ("10.0.0.7", 41000)]
    assert kept[1] == [("127.0.0.1", 4001)]
    assert redial.where[2] == [("127.0.0.1", 4002)]  # the dialling order is unchanged
    save_where(TABLE, kept, directory=tmp_path)
    again = Redial(redial.mesh, away=lambda s: False, find=None, rng=random.Random(2),
                   where=load_where(TABLE, directory=tmp_path))
    assert again.where[2] == [("127.0.0.1", 4002), ("10.0.0.7", 41000)]
    assert ("10.0.0.7", 41000) in last_addresses(TABLE, directory=tmp_path)
