"""Two of three programs killed together (SIGKILL) right at round 1's start and
restarted with the same home and command (issue #11, QA): each is restored from the
host's log, not reaching the other at its restore (each dials the other's old address),
and they may meet only after round 1 ended. When they meet, each sends the other its
log and resends what it posted for it since its restore: neither rebuilds again from
the other, round 2 is not left waiting for their first messages of it, every node
ends the rounds asked for with the same totals, and every log audits ok."""

from __future__ import annotations

import re
import signal
from pathlib import Path

from net.procs import Proc

from .lan import audited_totals, finish, join_args, open_table


def test_two_of_three_killed_together_at_the_start_both_rejoin_and_the_rounds_end(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=3, seats=3, rounds=2,
                       host_extra=("--no-mdns", "--target", "200"))
    ann, bob, cat = table.procs
    port = re.search(r"run: p2p8s join \w{6}@\S+:(\d+)$", ann.output, re.M)
    assert port is not None
    bob.expect(r"^Round 1: ", timeout_s=30)
    bob.signal(signal.SIGKILL)
    cat.signal(signal.SIGKILL)
    again = [Proc(join_args(f"{table.code}@127.0.0.1:{port.group(1)}", i, 2),
                  home=table.homes[i]) for i in (1, 2)]
    procs.extend(again)
    table.procs[1:] = again
    finish(table, timeout_s=60)
    for proc in table.procs:
        assert "cannot be rebuilt" not in proc.output, proc.output
        assert "audit: every card checked" in proc.output, proc.output
    totals = audited_totals(table, procs, tmp_path / "auditor")
    assert len(totals) == 3 and totals[0] == totals[1] == totals[2]
