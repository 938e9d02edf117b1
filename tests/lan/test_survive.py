"""A table that survives (issue #6) between real ``p2p8s`` processes on 127.0.0.1.

A node killed with SIGKILL is taken over through the escrow and the others finish (the
host too: it is a peer like any other once dealt); a stopped node (SIGSTOP: a network
drop as its peers see it) pauses a 2-person table, which goes on when it is back; a
node killed and started again with ``p2p8s join`` is let back in by any node in play,
rebuilt from the signed log and ends with the same scores. Every log audits ok.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from net.procs import Proc

from p2p8s.store.tablelog import read_log

from .lan import join_args, log_files, open_table


def _audit_ok(procs: list[Proc], path: Path, tmp_path: Path) -> str:
    audit = Proc(["audit", str(path)], home=tmp_path / "auditor")
    procs.append(audit)
    assert audit.wait(60) == 0, audit.output
    assert "verdict: ok" in audit.output, audit.output
    return audit.output


def _done(proc: Proc, timeout_s: float) -> None:
    rc = proc.wait(timeout_s)
    assert rc == 0, proc.output
    assert "Traceback" not in proc.output, proc.output


def _last_mark(path: Path) -> tuple[str, list[int]]:
    mark = read_log(path).marks[-1]
    return mark["transcript"], mark["totals"]


@pytest.mark.parametrize("victim", [2, 0])
def test_a_killed_node_is_taken_over_and_the_others_finish(
        procs: list[Proc], tmp_path: Path, victim: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # the killed node never comes back: the others wait 2 s (not 60) to tell it the result
    monkeypatch.setenv("P2P8S_LINGER_S", "2")
    table = open_table(procs, tmp_path, people=3, seats=4 if victim == 0 else 3, rounds=2,
                       host_extra=("--no-mdns", "--target", "200"))
    dead = table.procs[victim]
    dead.expect(r"^Round 1: ", timeout_s=20)
    dead.signal(signal.SIGKILL)  # mid-round: it was just dealt
    live = [p for i, p in enumerate(table.procs) if i != victim]
    name = ("Ann", "Bob", "Cat")[victim]
    for proc in live:
        _done(proc, 90)
        assert re.search(rf"^Lost the connection to {name} \(seat {victim}\)", proc.output,
                         re.M), proc.output
        assert f"{name}'s seat is taken over" in proc.output, proc.output
        assert proc.output.count("audit: every card checked ✓") == 2
        assert f"Waiting up to 2 s for {name} to come back" in proc.output, proc.output
    marks = [_last_mark(log_files(table.homes[i])[0]) for i in range(3) if i != victim]
    assert marks[0] == marks[1]
    for home in table.homes:  # the dead node's log too (it stops inside a round)
        _audit_ok(procs, log_files(home)[0], tmp_path)


def test_a_stopped_peer_pauses_a_two_person_table_which_goes_on_when_it_is_back(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=2, seats=2, rounds=1)
    ann, bob = table.procs
    bob.expect(r"^Round 1: ", timeout_s=20)
    bob.signal(signal.SIGSTOP)  # its peer sees a network drop: no heartbeat for 5 s
    ann.expect(r"^Lost the connection to Bob \(seat 1\): no heartbeat", timeout_s=10)
    ann.expect(r"^Waiting for Bob to come back — Ctrl-C / quit to leave$", timeout_s=10)
    bob.signal(signal.SIGCONT)  # back: it dials Ann again, they resend what is missing
    ann.expect(r"^Bob \(seat 1\) is back \(reconnected\)\.$", timeout_s=15)
    for proc in (ann, bob):
        _done(proc, 60)
    assert _last_mark(log_files(table.homes[0])[0]) == _last_mark(log_files(table.homes[1])[0])
    for home in table.homes:
        _audit_ok(procs, log_files(home)[0], tmp_path)


def test_a_killed_node_started_again_rejoins_and_ends_with_the_same_scores(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=3, seats=3, rounds=3,
                       host_extra=("--no-mdns", "--target", "200"))
    cat = table.procs[2]
    cat.expect(r"^Round 1: ", timeout_s=20)
    cat.signal(signal.SIGKILL)
    ann = table.procs[0]
    ann.expect(r"^Lost the connection to Cat \(seat 2\)", timeout_s=10)
    # the others are told how Cat comes back through them (the address is Ann's node)
    ann.expect(rf"^If Cat's program stopped, they come back by running: p2p8s join "
               rf"{table.code}@\S+:\d+$", timeout_s=10)
    port = re.search(r"run: p2p8s join \w{6}@\S+:(\d+)$", ann.output, re.M)
    assert port is not None
    again = Proc(join_args(f"{table.code}@127.0.0.1:{port.group(1)}", 2, 3),
                 home=table.homes[2])
    procs.append(again)
    again.expect(r"your key holds seat 2: rejoining", timeout_s=20)
    again.expect(r"^Back at the table \(3 people\); the game goes on\.$", timeout_s=30)
    again.expect(r"^Rejoined the table at seat 2; ", timeout_s=30)
    assert "the game begins" not in again.output
    for proc in (ann, table.procs[1], again):
        _done(proc, 120)
    # Cat's join dials Ann and, at once, where Bob was (a player coming back races the
    # seats it kept): let in by Ann, she says "restarted"; let in by Bob, Cat dials her
    # as a peer and she says "reconnected" — either way it gets the log
    assert re.search(r"^Cat \(seat 2\) is back \((restarted|reconnected); it gets the "
                     r"log( at \S+)?\)\.$", ann.output, re.M), ann.output
    logs = [log_files(home) for home in table.homes]
    # one file: the restarted node continued its log (a rejoined mark, then what it lacked)
    assert len(logs[2]) == 1, logs[2]
    rejoined = [p for p in logs[2] if any(m.get("rejoined") for m in read_log(p).marks)]
    assert len(rejoined) == 1
    ends = [_last_mark(logs[0][0]), _last_mark(logs[1][0]), _last_mark(rejoined[0])]
    assert ends[0] == ends[1] == ends[2], ends
    for paths in logs:
        for path in paths:
            _audit_ok(procs, path, tmp_path)


def test_a_saved_solo_match_is_untouched_by_hosting_joining_and_quitting_a_table(
        procs: list[Proc], tmp_path: Path) -> None:
    homes = [tmp_path / "ann", tmp_path / "bob"]
    saves = [home / "data" / "p2p8s" / "solo" / "match.json" for home in homes]
    for home in homes:  # a solo match in progress on both computers
        solo = Proc(["play"], home=home)
        procs.append(solo)
        solo.send("quit")
        assert solo.wait(30) == 0, solo.output
        assert "Saved." in solo.output
    before = [save.read_bytes() for save in saves]
    ann = Proc(["host", "--name", "Ann", "--no-mdns", "--seats", "2"], home=homes[0])
    procs.append(ann)
    code = ann.expect(r"^Table code: (\w{6})$").group(1)
    port = ann.expect(rf"run: p2p8s join {code}@\S+:(\d+)$").group(1)
    bob = Proc(["join", f"{code}@127.0.0.1:{port}", "--name", "Bob", "--yes", "--no-mdns"],
               home=homes[1])
    procs.append(bob)
    ann.expect(r"Bob .* sat down at seat 1", timeout_s=15)
    ann.send("deal")
    bob.expect(r"^Round 1: ", timeout_s=20)
    bob.send("quit")
    assert bob.wait(15) == 0, bob.output
    assert "You left the table; the computer plays your seat." in bob.output
    # Bob's keys went with his leave: Ann plays on against the computer, then quits too
    ann.expect(r"^Bob left the table: the computer plays their seat\.$", timeout_s=15)
    ann.send("quit")
    assert ann.wait(15) == 0, ann.output
    assert [save.read_bytes() for save in saves] == before
