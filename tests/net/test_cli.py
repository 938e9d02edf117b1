"""Real ``p2p8s host`` / ``p2p8s join`` processes on 127.0.0.1 (no mDNS)."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .procs import Proc


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()


def _host(procs: list[Proc], tmp_path: Path, *args: str) -> tuple[Proc, str, int]:
    host = Proc(["host", "--name", "Ann", "--no-mdns", *args], home=tmp_path / "ann")
    procs.append(host)
    code = host.expect(r"^Table code: (\w{6})$").group(1)
    host.expect(rf"^On the other computers, run: p2p8s join {code}$")
    port = int(host.expect(rf"run: p2p8s join {code}@[\d.]+:(\d+)$").group(1))
    host.expect(rf"^Link: p2p8s://{code}@[\d.]+:{port}$")
    host.expect(r"Type deal")
    return host, code, port


def test_host_and_two_joiners_sit_and_deal(procs: list[Proc], tmp_path: Path) -> None:
    host, code, port = _host(procs, tmp_path, "--seats", "3", "--classic", "--target", "200")
    bob = Proc(["join", f"{code.lower()}@127.0.0.1:{port}", "--name", "Bob"],
               home=tmp_path / "bob")
    procs.append(bob)
    bob.expect(r"^Ann's table: classic, multi-play, draw limit 3, target 200$")
    bob.expect(r"Seats: 3 \(1 taken, 2 free")
    bob.expect(r"seat 0: Ann \[key [0-9A-Z-]{19}\]")
    time.sleep(0.3)
    assert "sat down" not in host.output  # the rules come before the seat, and a question
    bob.send("y")
    bob.expect(r"^Sit down at this table\? \[Y/n\] Bob \[key .*\] \(you\) sat down at seat 1")
    host.expect(r"^Bob \[key .*\] sat down at seat 1$")
    cat = Proc(["join", f"p2p8s://{code}@127.0.0.1:{port}", "--name", "Cat", "--yes"],
               home=tmp_path / "cat")
    procs.append(cat)
    host.expect(r"^Cat \[key .*\] sat down at seat 2$")
    bob.expect(r"^Cat \[key .*\] sat down at seat 2$")
    host.send("deal")
    for proc in (host, bob, cat):
        proc.expect(r"^Everyone is connected \(3 people\); the game begins\.$", timeout_s=15)
        proc.expect(r"^  seat 2: Cat \((you|connected)\)$")
        proc.expect(r"^Round 1: ", timeout_s=15)
    # A player who leaves mid-match is named on every other node, which stops.
    cat.signal(signal.SIGTERM)
    assert cat.wait() == 143
    assert host.wait(10) == 1, host.output
    assert ("p2p8s: Cat (seat 2) left the table (left the table); the match cannot go "
            "on without them") in host.output, host.output
    assert bob.wait(10) == 1, bob.output  # Cat's bye, or Ann's (who stopped for Cat)
    assert re.search(r"p2p8s: (Cat \(seat 2\)|Ann \(seat 0\)) left the table \(left the "
                     r"table\); the match cannot go on without them", bob.output), bob.output
    assert "Traceback" not in host.output + bob.output


def test_wrong_code_is_refused_with_a_clear_message(procs: list[Proc], tmp_path: Path) -> None:
    host, code, port = _host(procs, tmp_path)
    wrong = "ZZZZZZ" if code != "ZZZZZZ" else "000000"
    eve = Proc(["join", f"{wrong}@127.0.0.1:{port}", "--name", "Eve", "--yes"],
               home=tmp_path / "eve")
    procs.append(eve)
    assert eve.wait() == 1
    assert "p2p8s: wrong table code: this table has a different code" in eve.output
    assert "Traceback" not in eve.output
    assert "sat down" not in host.output
    host.send("quit")
    assert host.wait() == 0


def test_malformed_code_exits_2(procs: list[Proc], tmp_path: Path) -> None:
    bad = Proc(["join", "7KQ4M"], home=tmp_path / "x")
    procs.append(bad)
    assert bad.wait() == 2
    assert "p2p8s: a table code has 6 characters, '7KQ4M' has 5" in bad.output


def test_a_hung_joiner_is_noticed_within_5_s(procs: list[Proc], tmp_path: Path) -> None:
    host, code, port = _host(procs, tmp_path)
    bob = Proc(["join", f"{code}@127.0.0.1:{port}", "--name", "Bob", "--yes"],
               home=tmp_path / "bob")
    procs.append(bob)
    host.expect(r"Bob .* sat down at seat 1")
    bob.signal(signal.SIGSTOP)  # alive, sockets open, but silent
    start = time.monotonic()
    host.expect(r"^Bob left seat 1 \(no heartbeat for 5 s\)$", timeout_s=8)
    # Silence began up to 1 s (one heartbeat) before SIGSTOP: noticed 4-5 s later.
    assert 3.5 <= time.monotonic() - start <= 7.0
    bob.signal(signal.SIGKILL)
    carl = Proc(["join", f"{code}@127.0.0.1:{port}", "--name", "Carl", "--yes"],
                home=tmp_path / "carl")
    procs.append(carl)
    host.expect(r"Carl .* sat down at seat 1")  # the freed seat is given again
    carl.signal(signal.SIGKILL)  # a crash: the closed socket is noticed at once
    host.expect(r"^Carl left seat 1 \(connection closed\)$", timeout_s=3)
    assert host.popen.poll() is None


def test_host_leaving_closes_the_lobby_for_joiners(procs: list[Proc], tmp_path: Path) -> None:
    host, code, port = _host(procs, tmp_path)
    bob = Proc(["join", f"{code}@127.0.0.1:{port}", "--name", "Bob", "--yes"],
               home=tmp_path / "bob")
    procs.append(bob)
    host.expect(r"Bob .* sat down at seat 1")
    host.signal(signal.SIGTERM)  # leaves cleanly: Bob gets a bye, not a 5 s silence
    assert host.wait() == 143
    assert bob.wait(5) == 1
    assert "p2p8s: the host left; the table is closed (left the table)" in bob.output
    assert "Traceback" not in bob.output + host.output
