"""A node killed (SIGKILL) while not on turn and started again with the same command and
home takes its own seat back from its own log and its table secret (protocol/table.md
"Coming back" → "Restart with the table secret"): it plays its next turn itself, its
hand hidden — the others never open it, never take its seat over — and every log
audits ok. The others think ``PACE_S`` before each move, so its next turn comes after
the restart (about 5 s here on a loaded machine); the test stops the table after the
restarted node's first move (the table tests play such rounds to their end)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from net.procs import Proc

from .lan import join_args, log_files, open_table

pytestmark = pytest.mark.wall_clock

#: seconds each of the others thinks before a move (two moves before its next turn)
PACE_S = float(os.environ.get("P2P8S_TEST_PACE_S", "4"))
BACK = r"^Cat \(seat 2\) is back \((restarted|reconnected); it gets the log"


def _either_says(procs: tuple[Proc, ...], pattern: str, *, timeout_s: float) -> Proc:
    """The first of ``procs`` to print a line matching ``pattern``; AssertionError with
    every output after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for proc in procs:
            try:
                proc.expect(pattern, timeout_s=0.3)
            except AssertionError:
                continue
            return proc
    raise AssertionError("\n\n".join(f"{pattern!r} not seen; {p.args}:\n{p.output}"
                                       for p in procs))


def test_a_killed_node_started_again_plays_its_own_seat_on_with_its_hand_hidden(
        procs: list[Proc], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P8S_PACE_S", str(PACE_S))
    table = open_table(procs, tmp_path, people=3, seats=3, rounds=1,
                       host_extra=("--no-mdns", "--target", "200"))
    ann, bob, cat = table.procs
    cat.expect(r"^You (played|drew|took)", timeout_s=40)  # its move: the others' turns now
    cat.signal(signal.SIGKILL)
    monkeypatch.setenv("P2P8S_PACE_S", "0")
    port = ann.expect(r"run: p2p8s join \w{6}@\S+:(\d+)$", timeout_s=10).group(1)
    again = Proc(join_args(f"{table.code}@127.0.0.1:{port}", 2, 1), home=table.homes[2])
    procs.append(again)
    again.expect(r"^Rejoined the table at seat 2; .*your hand hidden as before",
                 timeout_s=30)
    again.expect(r"^You (played|drew|took)", timeout_s=30)  # it plays its own seat on
    ann.expect(r"^Cat (played|drew|took)", timeout_s=10)
    bob.expect(r"^Cat (played|drew|took)", timeout_s=10)
    # the rejoin races the seats Cat kept: the node that answers first lets Cat in and
    # says so (its paced screen in its own time); the other one, dialled by Cat's node
    # next, within the grace of the drop, may say nothing (a drop healed at once is no
    # news)
    _either_says((ann, bob), BACK, timeout_s=30)
    for proc in (ann, bob, again):
        proc.signal(signal.SIGKILL)
        proc.wait(10)
    for proc in (ann, bob):
        out = proc.output
        assert "taken over" not in out and "hand is open" not in out, out
        assert "handed over its key" not in out, out
    assert "taken over" not in again.output and "Traceback" not in again.output
    audits = [Proc(["audit", str(path)], home=tmp_path / "auditor")
              for home in table.homes for path in log_files(home)]
    procs.extend(audits)
    for audit in audits:
        assert audit.wait(60) == 0, audit.output
        assert "verdict: ok" in audit.output, audit.output
