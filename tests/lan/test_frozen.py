"""A node whose process did not run for a while (SIGSTOP … SIGCONT: a laptop that slept)
at a 3-person table, between real ``p2p8s`` processes on 127.0.0.1.

Its peers lose it after 5 s of silence and take its seat over; when it runs again every
timer and buffered event is due at once. It must send nothing from its stale table (no
move the computer makes for it on its turn timer, nothing it held), notice that it was
frozen, and rebuild its table from a peer's signed log — no honest seat accused, every
node ends with the same scores and every log audits ok (QA: a frozen node broke the
table: "Kay sent action 9 again (replayed)", "showed other cards", or a hang).
"""

from __future__ import annotations

import signal
from pathlib import Path

from net.procs import Proc

from p2p8s.store.tablelog import read_log

from .lan import log_files, open_table


def _read(proc: Proc) -> str:
    """Every line the process printed so far."""
    while True:
        count = len(proc.lines)
        proc.output  # noqa: B018 (takes in one more line)
        if len(proc.lines) == count:
            return "\n".join(proc.lines)


def test_a_node_frozen_past_its_takeover_rebuilds_and_the_table_goes_on(
        procs: list[Proc], tmp_path: Path) -> None:
    table = open_table(procs, tmp_path, people=3, seats=3, rounds=4,
                       host_extra=("--no-mdns", "--target", "200"))
    ann, bob, cat = table.procs
    bob.expect(r"^Round 1: ", timeout_s=20)
    bob.signal(signal.SIGSTOP)  # seat 1: it dials seat 0 again, seat 2 dials it
    ann.expect(r"^Lost the connection to Bob \(seat 1\): no heartbeat", timeout_s=10)
    ann.expect(r"^Bob's seat is taken over", timeout_s=10)
    bob.signal(signal.SIGCONT)
    try:
        bob.expect(r"^This computer did not run for \d+ s \(asleep\?\): catching up with "
                   r"the table…$", timeout_s=10)
        bob.expect(r"rebuilding the\s+table from the others' signed log", timeout_s=15)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- Ann:\n{_read(ann)}\n--- Cat:\n{_read(cat)}"
                             ) from None
    for proc in table.procs:
        rc = proc.wait(60)
        assert rc == 0, proc.output
        assert "Traceback" not in proc.output, proc.output
        assert "Fault" not in proc.output, proc.output
    logs = [log_files(home) for home in table.homes]
    # the rebuilt node continued its one file (a rejoined mark, then what it lacked)
    assert len(logs[1]) == 1, logs[1]
    rebuilt = [p for p in logs[1] if any(m.get("rejoined") for m in read_log(p).marks)]
    assert len(rebuilt) == 1, logs[1]
    ends = [read_log(p).marks[-1] for p in (logs[0][0], logs[2][0], rebuilt[0])]
    assert ends[0]["transcript"] == ends[1]["transcript"] == ends[2]["transcript"]
    assert ends[0]["totals"] == ends[1]["totals"] == ends[2]["totals"]
    for paths in logs:
        for path in paths:
            audit = Proc(["audit", str(path)], home=tmp_path / "auditor")
            procs.append(audit)
            assert audit.wait(60) == 0, audit.output
            assert "verdict: ok" in audit.output, audit.output
