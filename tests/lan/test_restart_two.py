"""Two people, one program restarts (issue #6) and its own table log is gone (the
fallback of "Restart with the table secret and its own log", protocol/table.md): there
is no escrow with two people, but the restarted node recomputes its round keys from its
per-table secret (kept beside its table log) and sends them back (``ownkey``): its seat
is taken over for the rest of the round, its person plays it again from its next turn,
and the match goes on. Both sides end with the same scores; every log audits ok. (With
its own log it takes its seat back, hand hidden: tests/lan/test_resume_restart.py and
tests/table/test_resume_own.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from net.procs import Proc

from p2p8s.store.tablelog import read_log

from .lan import join_args, log_files, two_and_a_kill


def _done(proc: Proc, timeout_s: float) -> None:
    rc = proc.wait(timeout_s)
    assert rc == 0, proc.output
    assert "Traceback" not in proc.output, proc.output


def _last_mark(path: Path) -> tuple[str, list[int]]:
    mark = read_log(path).marks[-1]
    return mark["transcript"], mark["totals"]


def test_with_two_people_a_restarted_program_sends_its_keys_and_the_match_goes_on(
        procs: list[Proc], tmp_path: Path) -> None:
    table = two_and_a_kill(procs, tmp_path)  # Bob's state is gone; its secret file is not
    ann = table.procs[0]
    port = re.search(r"run: p2p8s join \w{6}@\S+:(\d+)$", ann.output, re.M)
    assert port is not None
    secrets = sorted((table.homes[1] / "data" / "p2p8s" / "tables").glob("*-seat1.key"))
    assert len(secrets) == 1 and secrets[0].stat().st_mode & 0o777 == 0o600
    for lost in log_files(table.homes[1]):
        lost.unlink()  # its own log is gone: it cannot know all it sent
    again = Proc(join_args(f"{table.code}@127.0.0.1:{port.group(1)}", 1, 3),
                 home=table.homes[1])
    procs.append(again)
    again.expect(r"your key holds seat 1: rejoining", timeout_s=20)
    again.expect(r"^No log of your own of this match is here", timeout_s=30)
    again.expect(r"^Rejoined the table at seat 1; ", timeout_s=30)
    for proc in (ann, again):
        _done(proc, 120)
        assert "cannot go on" not in proc.output, proc.output
    assert "handed over its key" in ann.output, ann.output
    logs = [log_files(home) for home in table.homes]
    # one file per table and match: Bob's restarted node began a new one, saying so
    assert len(logs[0]) == 1 and len(logs[1]) == 1, logs
    rejoined = [p for p in logs[1] if read_log(p).header.get("rejoined")]
    assert len(rejoined) == 1
    frames = read_log(rejoined[0]).frames
    assert len(set(frames)) == len(frames)
    assert _last_mark(logs[0][0]) == _last_mark(rejoined[0])
    for path in [*logs[0], *logs[1]]:
        audit = Proc(["audit", str(path)], home=tmp_path / "auditor")
        procs.append(audit)
        assert audit.wait(60) == 0, audit.output
        assert "verdict: ok" in audit.output, audit.output
