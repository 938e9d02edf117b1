"""Whole games between real ``p2p8s`` processes on 127.0.0.1 (joined by address, no mDNS).

Every node plays with ``--auto`` for ``--rounds`` rounds; the nodes must print the same
match table, write logs with the same signed broadcast frames and the same transcript
hash at every round end, and ``p2p8s audit`` must pass every node's log and fail a
tampered copy.
"""

from __future__ import annotations

import re
from pathlib import Path

from net.procs import Proc

from p2p8s.store.tablelog import MAGIC, TableLogWriter
from p2p8s.wire import decode_body

from .lan import broadcast_frames, finish, log_file, match_tables, open_table


def _same_game(table_procs: list[Proc], logs: list, rounds: int) -> int:
    """Check every node saw the same game; returns the rounds played (the match may end
    sooner than ``rounds``)."""
    outputs = [p.output for p in table_procs]
    played = outputs[0].count("audit: every card checked ✓")
    assert played == rounds or (0 < played < rounds and "the match is over" in outputs[0])
    for out in outputs:
        assert out.count("audit: every card checked ✓") == played, out
        assert "Leaving the table: " in out, out
    tables = [match_tables(out) for out in outputs]
    assert len(tables[0]) == played
    assert all(t == tables[0] for t in tables), tables
    for log in logs:
        assert not log.torn
        assert [m["round_over"] for m in log.marks] == list(range(1, played + 1))
    # The same transcript hash and totals after every round, on every node.
    marks = [[(m["transcript"], m["totals"]) for m in log.marks] for log in logs]
    assert all(m == marks[0] for m in marks), marks
    # Every node logged the same signed broadcast frames of the rounds played.
    frames = [broadcast_frames(log, up_to=played) for log in logs]
    assert all(f == frames[0] for f in frames)
    assert len(frames[0]) > 10 * len(logs)
    # Each log holds what its node signed and what it received, and nothing twice.
    for seat, log in enumerate(logs):
        assert len(set(log.frames)) == len(log.frames)
        authors = {decode_body(f).message.seat for f in log.frames}
        assert authors == set(range(len(logs)))
        assert log.header["me"] == seat
    return played


def test_three_nodes_play_two_rounds(procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=3, seats=4, rounds=2,
                       host_extra=("--no-mdns", "--target", "200"))
    finish(table, timeout_s=90)
    host = table.procs[0].output
    assert "Everyone is connected (3 people and 1 computer player)" in host
    assert "(computer, plays like" in host
    logs = table.logs()
    played = _same_game(table.procs, logs, 2)
    assert logs[0].header["seats"][3]["computer"] is not None

    # p2p8s audit passes every node's log ...
    for home in table.homes:
        audit = Proc(["audit", str(log_file(home))], home=tmp_path / "auditor")
        procs.append(audit)
        assert audit.wait(60) == 0, audit.output
        for n in range(1, played + 1):
            assert f"round {n}: audit ok" in audit.output, audit.output
        assert "verdict: ok" in audit.output, audit.output
    # ... calls damaged (exit 2, not a verdict on a seat) a copy in which one signed
    # frame of another seat was altered (the signature no longer verifies: the log was
    # changed after the fact), naming the frame and its byte offset ...
    log = logs[1]
    victim = next(i for i, f in enumerate(log.frames)
                  if i > len(log.frames) // 2 and decode_body(f).message.seat == 2)
    frame = bytearray(log.frames[victim])
    frame[60] ^= 0x01
    tampered = tmp_path / "tampered.p2p8slog"
    with TableLogWriter.create(tampered, log.header) as copy:
        for i, f in enumerate(log.frames):
            copy.append(bytes(frame) if i == victim else f)
    audit = Proc(["audit", str(tampered)], home=tmp_path / "auditor")
    procs.append(audit)
    assert audit.wait(60) == 2, audit.output
    assert "it claims to be from Cat (seat 2)" in audit.output, audit.output
    assert re.search(rf"^damaged log at byte \d+: frame {victim} does not verify",
                     audit.output, re.M), audit.output
    assert "verdict: damaged log" in audit.output, audit.output
    # ... and refuses a file that is no table log (exit 2).
    junk = tmp_path / "junk.p2p8slog"
    junk.write_bytes(b"hello")
    audit = Proc(["audit", str(junk)], home=tmp_path / "auditor")
    procs.append(audit)
    assert audit.wait(30) == 2, audit.output
    assert "not a p2p8s table log" in audit.output
    assert MAGIC.startswith(b"p2p8s")


def test_seven_nodes_play_a_round(procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=7, seats=7, rounds=1)
    finish(table, timeout_s=120)
    assert "Everyone is connected (7 people)" in table.procs[0].output
    _same_game(table.procs, table.logs(), 1)
