"""Two people, one program restarts (issue #6): with two people there is no escrow, so
the restarted node cannot finish the round (its secret keys are lost). Both sides end
cleanly and say why, instead of waiting for ever; both logs are kept and audit ok."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from net.procs import Proc

from .lan import join_args, open_table


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()


def _logs(home: Path) -> list[Path]:
    return sorted((home / "data" / "p2p8s" / "tables").glob("*.p2p8slog"))


def test_with_two_people_a_restarted_program_ends_the_match_on_both_sides(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=2, seats=2, rounds=3,
                       host_extra=("--no-mdns", "--target", "200"))
    ann, bob = table.procs
    bob.expect(r"^Round 1: ", timeout_s=20)
    bob.signal(signal.SIGKILL)  # its secret keys of the round are gone with it
    ann.expect(r"^Lost the connection to Bob \(seat 1\)", timeout_s=10)
    port = re.search(r"run: p2p8s join \w{6}@\S+:(\d+)$", ann.output, re.M)
    assert port is not None
    again = Proc(join_args(f"{table.code}@127.0.0.1:{port.group(1)}", 1, 3),
                 home=table.homes[1])
    procs.append(again)
    again.expect(r"your key holds seat 1: rejoining", timeout_s=20)
    assert again.wait(40) == 1, again.output
    assert ann.wait(20) == 1, ann.output
    ends = {
        "Bob": (again, "Your program restarted and lost your cards of this round"),
        "Ann": (ann, "Bob's program restarted and lost their cards of this round"),
    }
    for proc, start in ends.values():
        m = re.search(rf"^p2p8s: {start}; with two people nobody holds a share of them, "
                      r"so this match cannot go on\. Both logs are kept \(p2p8s audit "
                      r"(\S+)\)\.$", proc.output, re.M)
        assert m is not None, proc.output
        assert Path(m.group(1)).exists()
        assert "Traceback" not in proc.output, proc.output
    paths = [*_logs(table.homes[0]), *_logs(table.homes[1])]
    assert len(paths) == 3  # Ann's, Bob's up to the kill, Bob's rejoined one
    for path in paths:
        audit = Proc(["audit", str(path)], home=tmp_path / "auditor")
        procs.append(audit)
        assert audit.wait(60) == 0, audit.output
        assert "verdict: ok" in audit.output, audit.output
