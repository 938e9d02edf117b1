"""Two joiners on the default ``--port 0`` restarted one after the other at a
``--no-mdns`` table (issue #11, QA): each comes back listening on a new port, and only
the host sees both connect. The host tells each peer where the other listens now (a
runner ``where``, protocol/table.md "Who dials"), so the two find each other again:
every node ends the rounds asked for with the same totals, and every log audits ok.
Without the ``where`` each holds only the other's old port and the table freezes."""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest
from net.procs import Proc

from .lan import audited_totals, finish, join_args, open_table

pytestmark = pytest.mark.wall_clock


def test_two_joiners_restarted_in_turn_on_new_ports_find_each_other(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=3, seats=3, rounds=2,
                       host_extra=("--no-mdns", "--target", "200"))
    ann = table.procs[0]
    port = re.search(r"run: p2p8s join \w{6}@\S+:(\d+)$", ann.output, re.M)
    assert port is not None
    invite = f"{table.code}@127.0.0.1:{port.group(1)}"
    time.sleep(0.3)  # as QA did: the last joiner killed during the deal, first
    for seat in (2, 1):
        mark = len(table.procs[2].output)  # Cat's words after this kill
        table.procs[seat].signal(signal.SIGKILL)
        if seat == 1:  # as QA found it: its file lacks Cat's new port (only the old one)
            for where in (table.homes[1] / "data" / "p2p8s" / "tables").glob("*.where.json"):
                where.unlink()
        again = Proc([*join_args(invite, seat, 2), "--no-mdns"], home=table.homes[seat])
        procs.append(again)
        table.procs[seat] = again
        again.expect(rf"^Rejoined the table at seat {seat}", timeout_s=30)
    finish(table, timeout_s=40)
    # the last restarted node and the first met again directly
    assert re.search(r"^Bob \(seat 1\) is back ", table.procs[2].output[mark:], re.M), \
        table.procs[2].output[mark:]
    totals = audited_totals(table, procs, tmp_path / "auditor")
    assert len(totals) == 3 and totals[0] == totals[1] == totals[2], totals
