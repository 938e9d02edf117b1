"""A node lists at most the addresses a roster's decoder takes, best first: a host
with many interfaces (Docker bridges, VPNs, IPv6) can still be joined; a roster this
node cannot read is said as such, not as a refusal."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.errors import LocalError, RemoteError
from p2p8s.net.discovery import choose_addresses
from p2p8s.net.errors import LobbyCode
from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.rules import Ruleset
from p2p8s.wire import (
    MAX_ADDRESSES,
    Message,
    Roster,
    RosterBody,
    SeatEntry,
    decode_payload,
    encode_payload,
)

from .netns import unavailable
from .test_mesh import Recorder, _node, _yes

#: 40 addresses of a busy machine: Docker bridges, a VPN, public IPv4, IPv6, loopback.
MANY = ([("lo", "127.0.0.1"), ("lo", "::1"), ("eth0", "fe80::1%eth0")]
        + [(f"docker{i}", f"172.{17 + i}.0.1") for i in range(12)]
        + [("wg0", "10.8.0.2"), ("eth0", "2001:db8::5"), ("eth0", "fd00::5")]
        + [(f"br-{i}", f"192.168.{100 + i}.1") for i in range(10)]
        + [("tun0", f"100.64.0.{i}") for i in range(1, 8)]
        + [("wlan0", "192.168.1.23"), ("wlan0", "192.168.1.23"), ("eth0", "203.0.113.9")]
        + [("eth1", f"2001:db8:1::{i}") for i in range(1, 3)])


def _roster(addrs: tuple[str, ...]) -> Roster:
    return Roster(size=4, rules=Ruleset(), open=True, escrow=True, seats=(SeatEntry(
        seat=0, name="Ann", key=b"a" * 32, addrs=addrs, port=4242),))


def _round_trip(roster: Roster) -> Roster:
    payload = encode_payload(Message(table=bytes(8), seat=0, seq=1,
                                     body=RosterBody(roster=roster)))
    body = decode_payload(payload).body
    assert isinstance(body, RosterBody)
    return body.roster


def test_a_host_with_forty_addresses_lists_the_best_sixteen_and_its_roster_decodes() -> None:
    assert len(MANY) == 40
    chosen = choose_addresses(MANY)
    assert len(chosen) == MAX_ADDRESSES == 16
    # the shared LAN first, then private IPv4 on bridges and tunnels, in the system's order
    assert chosen[:2] == ["192.168.1.23", "172.17.0.1"]
    assert chosen[1:13] == [f"172.{17 + i}.0.1" for i in range(12)]
    assert chosen[13:] == ["10.8.0.2", "192.168.100.1", "192.168.101.1"]
    assert len(set(chosen)) == len(chosen)
    assert not {"127.0.0.1", "::1", "fe80::1"} & set(chosen)
    assert _round_trip(_roster(tuple(chosen))).seats[0].addrs == tuple(chosen)


def test_ipv4_comes_before_ipv6_and_unique_local_before_global() -> None:
    found = [("eth0", "2001:db8::5"), ("eth0", "fd00::5"), ("eth0", "203.0.113.9"),
             ("eth0", "10.0.0.4"), ("eth0", "169.254.3.3"), ("eth0", "0.0.0.0")]
    assert choose_addresses(found) == ["10.0.0.4", "203.0.113.9", "fd00::5", "2001:db8::5"]
    assert choose_addresses([("lo", "127.0.0.1")]) == ["127.0.0.1"]
    assert choose_addresses(found, limit=2) == ["10.0.0.4", "203.0.113.9"]


def test_a_seat_entry_over_the_bound_does_not_decode() -> None:
    addrs = tuple(f"10.0.0.{i}" for i in range(MAX_ADDRESSES + 1))
    with pytest.raises(RemoteError):
        _round_trip(_roster(addrs))
    assert len(_round_trip(_roster(addrs[:MAX_ADDRESSES])).seats[0].addrs) == MAX_ADDRESSES


async def test_a_roster_the_joiner_cannot_read_is_not_a_refusal() -> None:
    """A host of an older release listed 17 addresses: the joiner says it could not
    read what the table sent (real sockets, the real lobby)."""
    async with _node("Ann") as ann, _node("Bob", tid=None) as bob:
        addrs = tuple(f"10.0.0.{i}" for i in range(MAX_ADDRESSES + 1))
        seating = Seating(size=3, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=ann.key, addrs=addrs, port=ann.port))
        host = asyncio.ensure_future(host_lobby(ann, seating, view=Recorder(),
                                                commands=asyncio.Queue(), mesh_timeout_s=5))
        try:
            with pytest.raises(LocalError) as caught:
                await asyncio.wait_for(join_lobby(bob, [("127.0.0.1", ann.port)],
                                                  view=Recorder(), confirm=_yes), 10)
        finally:
            host.cancel()
        assert caught.value.code is LobbyCode.UNREADABLE
        said = PLAIN.error(caught.value)
        assert said.startswith("the table sent something this program could not read: ")
        assert "refused" not in said


_SCRIPT = """
from p2p8s.net.discovery import lan_addresses
from tests.net.test_addresses import _roster, _round_trip
chosen = lan_addresses()
print(len(chosen), chosen[0], len(_round_trip(_roster(tuple(chosen))).seats[0].addrs))
"""


@pytest.mark.skipif(unavailable() is not None, reason=unavailable() or "")
def test_a_machine_with_forty_real_addresses_lists_sixteen() -> None:
    """40 IPv4 addresses on a namespace's interfaces (a Docker-like bridge with 39, the
    LAN with one): its node lists 16, the LAN's first, and its roster decodes."""
    name = f"p8s{os.getpid() % 10000}{secrets.token_hex(2)}-ad"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        def ip(*args: str) -> None:
            subprocess.run(["ip", "-n", name, *args], check=True, capture_output=True)
        ip("link", "add", "docker0", "type", "veth", "peer", "name", "docker0p")
        ip("link", "add", "eth0", "type", "veth", "peer", "name", "eth0p")
        for i in range(39):
            ip("addr", "add", f"172.17.{i}.1/24", "dev", "docker0")
        ip("addr", "add", "192.168.1.23/24", "dev", "eth0")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        done = subprocess.run(["ip", "netns", "exec", name, sys.executable, "-c", _SCRIPT],
                              capture_output=True, text=True, timeout=30, cwd=root)
    finally:
        subprocess.run(["ip", "netns", "del", name], check=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["16", "192.168.1.23", "16"]
