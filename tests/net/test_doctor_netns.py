"""``p2p8s doctor`` and the join fallback as real processes in network namespaces (root
only): a LAN where it hears a table hosted next door, a namespace with loopback only and
one with an interface but no multicast route."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .netns import Lan, unavailable
from .procs import Proc

REASON = unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@pytest.fixture(scope="module")
def lan() -> Iterator[Lan]:
    with Lan(2) as made:
        yield made


@pytest.fixture
def bare() -> Iterator[str]:
    """A namespace with only loopback (up); deleted after."""
    name = f"p8s{os.getpid() % 10000}{secrets.token_hex(2)}-lo"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


def test_doctor_hears_a_table_next_door_and_reaches_it(lan: Lan, procs: list[Proc],
                                                       tmp_path: Path) -> None:
    host = Proc(["host", "--name", "Ann", "--seats", "3"], home=tmp_path / "ann",
                prefix=lan.prefix(0))
    procs.append(host)
    code = host.expect(r"^Table code: (\w{6})$").group(1)
    port = host.expect(rf"run: p2p8s join {code}@{lan.addresses[0]}:(\d+)$").group(1)
    host.expect(r"Type deal")
    doctor = Proc(["doctor", f"{code}@{lan.addresses[0]}:{port}"], home=tmp_path / "bob",
                  prefix=lan.prefix(1))
    procs.append(doctor)
    assert doctor.wait(30) == 0, doctor.output
    out = doctor.output
    assert f"  ✓ eth0: {lan.addresses[1]} (local network)" in out, out
    assert "  ✓ Multicast has a route: 224.0.0.0/4 by eth0." in out, out
    assert "  ✓ Joined the mDNS group 224.0.0.251, port 5353." in out, out
    assert "  ✓ mDNS self-test: this machine heard its own test service " in out, out
    assert "  ✓ 1 table answered:\n    · \"Ann's table\" (as it announces itself): 1/3 " \
           "seated, table rules" in out, out
    assert f"Reaching {lan.addresses[0]}:{port}\n  ✓ Connected: a p2p8s table answers " \
           "there (the code is checked when you join)." in out, out
    assert out.endswith("Every check passed."), out
    assert "What to try" not in out, out


def test_doctor_says_a_closed_port_is_refused(lan: Lan, procs: list[Proc],
                                              tmp_path: Path) -> None:
    doctor = Proc(["doctor", "--listen-seconds", "1", f"{lan.addresses[0]}:9"],
                  home=tmp_path / "bob", prefix=lan.prefix(1))
    procs.append(doctor)
    assert doctor.wait(30) == 1, doctor.output
    out = doctor.output
    assert "  ✗ Refused: the machine is there but nothing listens on port 9." in out, out
    assert "  - The table is closed or the port is wrong: ask the host for the line its " \
           "screen shows now." in out, out
    assert out.endswith("checks failed.") or out.endswith("1 check failed."), out


def test_doctor_on_loopback_only_says_so_and_exits_1(bare: str, procs: list[Proc],
                                                     tmp_path: Path) -> None:
    doctor = Proc(["doctor", "--listen-seconds", "1"], home=tmp_path,
                  prefix=["ip", "netns", "exec", bare])
    procs.append(doctor)
    assert doctor.wait(30) == 1, doctor.output
    out = doctor.output
    assert "  ✗ Only loopback (127.0.0.1): this machine is on no network." in out, out
    assert "  ✗ No route for multicast: mDNS cannot leave this machine (ENETUNREACH)." \
           in out, out
    assert "  ✗ Could not join the mDNS group 224.0.0.251 (ENODEV)." in out, out
    assert "  - This machine is on no local network: connect it to the same Wi-Fi or " \
           "wired network as the others." in out, out
    assert out.endswith("checks failed."), out


def test_doctor_without_a_multicast_route_but_heard_itself_says_it_is_a_note(
        procs: list[Proc], tmp_path: Path) -> None:
    """No multicast route on a namespace with a network: the self-test still hears
    itself (zeroconf sends on each interface), so the route is a note and nothing
    failed (issue 14)."""
    with Lan(1) as one:
        subprocess.run(["ip", "-n", one.names[0], "route", "del", "224.0.0.0/4"],
                       check=True)
        doctor = Proc(["doctor", "--listen-seconds", "1"], home=tmp_path,
                      prefix=one.prefix(0))
        procs.append(doctor)
        assert doctor.wait(30) == 0, doctor.output
    out = doctor.output
    assert f"  ✓ eth0: {one.addresses[0]} (local network)" in out, out
    assert "  ✓ mDNS self-test: this machine heard its own test service" in out, out
    assert "  ✓ No default route for multicast, yet mDNS was heard: zeroconf sends " \
           "on each interface, nothing to fix (ENETUNREACH)." in out, out
    assert "  - A firewall here may drop mDNS" not in out, out
    # the notes with nothing to fix are not counted: only "no table answered" is
    assert out.endswith("No check failed; 1 line marked ! may explain trouble."), out


def test_doctor_that_hears_a_table_without_a_multicast_route_passes(
        procs: list[Proc], tmp_path: Path) -> None:
    """Issue 14: no multicast route, yet the self-test and the table next door are
    heard (zeroconf binds per interface): the route and group findings are notes, the
    verdict follows what was heard (exit 0), and no "join without mDNS" advice."""
    with Lan(2) as two:
        for name in two.names:
            subprocess.run(["ip", "-n", name, "route", "del", "224.0.0.0/4"], check=True)
        host = Proc(["host", "--name", "Ann", "--seats", "3"], home=tmp_path / "ann",
                    prefix=two.prefix(0))
        procs.append(host)
        host.expect(r"Type deal")
        doctor = Proc(["doctor", "--listen-seconds", "3"], home=tmp_path / "bob",
                      prefix=two.prefix(1))
        procs.append(doctor)
        code = doctor.wait(30)
        host.send("quit")
        host.wait(10)
    out = doctor.output
    assert "  ✓ 1 table answered:" in out, out
    assert code == 0, out
    assert "  ✓ No default route for multicast, yet mDNS was heard" in out, out
    assert "✗" not in out and "Join without mDNS" not in out, out
    # nothing to fix is not trouble: the verdict does not contradict the lines
    assert out.endswith("Every check passed."), out


def test_join_that_hears_nothing_says_how_to_type_the_address(lan: Lan, procs: list[Proc],
                                                              tmp_path: Path) -> None:
    joiner = Proc(["join", "QZ7K2M", "--timeout", "1", "--yes"], home=tmp_path,
                  prefix=lan.prefix(1))
    procs.append(joiner)
    assert joiner.wait(30) == 1, joiner.output
    assert joiner.output.endswith(
        "p2p8s: no table with code QZ7K2M answered by mDNS within 1 s.\n"
        "  Ask the host for the line its screen shows and type it: "
        "p2p8s join QZ7K2M@HOST:PORT\n"
        "  To see why this network hides tables, run: p2p8s doctor"), joiner.output


def test_join_at_an_address_says_it_goes_there_directly(lan: Lan, procs: list[Proc],
                                                        tmp_path: Path) -> None:
    host = Proc(["host", "--name", "Ann", "--seats", "2", "--no-mdns"],
                home=tmp_path / "ann", prefix=lan.prefix(0))
    procs.append(host)
    where = host.expect(rf"run: p2p8s join (\w{{6}}@{lan.addresses[0]}:\d+)$").group(1)
    joiner = Proc(["join", where, "--name", "Bob", "--yes"], home=tmp_path / "bob",
                  prefix=lan.prefix(1))
    procs.append(joiner)
    joiner.expect(rf"^Going straight to {where.split('@')[1]} \(no mDNS look-up\)\.$")
    host.expect(r"^Bob \[key .*\] sat down at seat 1$", timeout_s=15)
