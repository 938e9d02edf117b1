"""A peer back at the table is said to be "at" an address only when that address is new
(QA of #14: "Bob is back (reconnected at 127.0.0.1:PORT)" for a node that never moved):
over real sockets on loopback, where the connections come from an address the roster
does not list (Bob advertised his LAN address)."""

from __future__ import annotations

import asyncio
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.net import redial as rd
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connection, Node
from p2p8s.rules import Ruleset
from p2p8s.wire import Role, Roster, SeatEntry

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e02")
#: Where Bob said at the deal that he listens (his LAN address; he dials from loopback).
BOB_LAN = "10.0.0.7"


def _node(name: str, identity: Ed25519PrivateKey | None = None) -> Node:
    return Node(identity=identity or Ed25519PrivateKey.generate(), name=name, code=CODE,
                table=TID, host="127.0.0.1", heartbeat_s=0.2, dead_after_s=5.0)


async def _back(ann: Node, bob: Node, old: Connection | None) -> Connection:
    """Bob dials Ann; Ann's connection of him (a new one: ``old`` ended first)."""
    await bob.connect("127.0.0.1", ann.port, role=Role.PEER)
    async with asyncio.timeout(5):
        while (conn := ann.peers.get(bob.key)) is None or conn is old:
            await asyncio.sleep(0.01)
    return conn


async def _drop(ann: Node, bob: Node) -> None:
    """Bob's connection ends (a plain drop), and Ann has noticed."""
    conn = bob.peers[ann.key]
    bob.discard(conn)
    async with asyncio.timeout(5):
        while bob.key in ann.peers:
            await asyncio.sleep(0.01)


def _redial(ann: Node, bob: Node, dealt: Connection) -> rd.Redial:
    """Ann's redial of a two-seat table dealt over ``dealt``: Bob's roster entry names
    his LAN address (:data:`BOB_LAN`), not the loopback he dials from."""
    roster = Roster(size=2, rules=Ruleset(), open=False, seats=(
        SeatEntry(seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port),
        SeatEntry(seat=1, name="Bob", key=bob.key, addrs=(BOB_LAN,), port=bob.port)))
    return rd.Redial(Mesh(node=ann, roster=roster, seat=0, peers={1: dealt}, digest=b""),
                     away=lambda s: False, find=None, rng=random.Random(1))


@pytest.mark.wall_clock
async def test_a_peer_back_from_where_it_was_did_not_move() -> None:
    async with _node("Ann") as ann, _node("Bob") as bob:
        ann.seats = {ann.key: 0, bob.key: 1}
        dealt = await _back(ann, bob, None)
        redial = _redial(ann, bob, dealt)
        assert dealt.address == "127.0.0.1"  # not the roster's address of Bob
        assert redial.moved(1, dealt) is None
        await _drop(ann, bob)
        again = await _back(ann, bob, dealt)  # back from where he was: not moved
        assert redial.moved(1, again) is None


@pytest.mark.wall_clock
async def test_a_peer_back_at_a_new_port_moved_and_is_said_so_once() -> None:
    key = Ed25519PrivateKey.generate()
    async with _node("Ann") as ann, _node("Bob", key) as bob, _node("Bob", key) as bob2:
        ann.seats = {ann.key: 0, bob.key: 1}
        dealt = await _back(ann, bob, None)
        redial = _redial(ann, bob, dealt)
        await _drop(ann, bob)
        elsewhere = await _back(ann, bob2, dealt)  # his program listens elsewhere now
        assert redial.moved(1, elsewhere) == f"127.0.0.1:{bob2.port}"
        await _drop(ann, bob2)
        again = await _back(ann, bob2, elsewhere)
        assert redial.moved(1, again) is None  # said once: he is where he was last
