"""Helpers for LAN game tests: start a table of real ``p2p8s`` processes, read their logs.

A table is a host and joiners, all with ``--auto`` and ``--rounds``; joiners come in one
after another so seat ``i`` is ``NAMES[i]``. Logs are read back with
:mod:`p2p8s.store.tablelog`; :func:`game_round` tells which round a logged frame belongs
to, so frames of a round that a fast node had already begun when it left can be told
apart from the rounds every node played.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from net.procs import Proc

from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.store.tablelog import TableLog, read_log
from p2p8s.table.actions import CRYPTO
from p2p8s.wire import Game, decode_body

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus")
PERSONALITIES = ("karl", "vera", "max", "hanna", "random", "karl", "vera")


@dataclass
class Table:
    """The processes of one table (``procs[0]`` is the host) and their homes."""

    procs: list[Proc]
    homes: list[Path]
    code: str

    def logs(self) -> list[TableLog]:
        """Every node's table log (each node writes exactly one)."""
        return [read_log(log_file(home)) for home in self.homes]


def log_files(home: Path) -> list[Path]:
    """Every table log under a node's data home, by name (a restarted node writes
    ``…-seatN-2.p2p8slog`` beside its first log)."""
    return sorted((home / "data" / "p2p8s" / "tables").glob("*.p2p8slog"))


def log_file(home: Path) -> Path:
    """The one table log under a node's data home."""
    found = log_files(home)
    assert len(found) == 1, found
    return found[0]


def host_args(seats: int, rounds: int, *extra: str) -> list[str]:
    return ["host", "--name", NAMES[0], "--seats", str(seats), "--auto", PERSONALITIES[0],
            "--rounds", str(rounds), *extra]


def join_args(invite: str, i: int, rounds: int) -> list[str]:
    return ["join", invite, "--name", NAMES[i], "--yes", "--auto", PERSONALITIES[i],
            "--rounds", str(rounds)]


def open_table(procs: list[Proc], tmp_path: Path, *, people: int, seats: int, rounds: int,
               prefixes: Sequence[Sequence[str]] = (), by_code: bool = False,
               host_extra: Sequence[str] = ("--no-mdns",)) -> Table:
    """Start a host and ``people - 1`` joiners (by address, or by code over mDNS), deal."""
    pre = list(prefixes) or [[] for _ in range(people)]
    homes = [tmp_path / NAMES[i].lower() for i in range(people)]
    host = Proc(host_args(seats, rounds, *host_extra), home=homes[0], prefix=pre[0])
    procs.append(host)
    code = host.expect(r"^Table code: (\w{6})$").group(1)
    where = host.expect(rf"run: p2p8s join {code}@(\S+)$").group(1)
    port = where.rsplit(":", 1)[1]
    host.expect(r"Type deal")
    invite = code if by_code else f"{code}@127.0.0.1:{port}"
    table = Table([host], homes, code)
    for i in range(1, people):
        joiner = Proc(join_args(invite, i, rounds), home=homes[i], prefix=pre[i])
        procs.append(joiner)
        table.procs.append(joiner)
        host.expect(rf"^{NAMES[i]} \[key .*\] sat down at seat {i}$", timeout_s=15)
    host.send("deal")
    return table


def two_and_a_kill(procs: list[Proc], tmp_path: Path, *, rounds: int = 3) -> Table:
    """A 2-person table (the host without mDNS, to 200 points) whose joiner Bob is killed
    (SIGKILL: its state is gone, its files are not) in round 1, once Ann noticed."""
    table = open_table(procs, tmp_path, people=2, seats=2, rounds=rounds,
                       host_extra=("--no-mdns", "--target", "200"))
    ann, bob = table.procs
    bob.expect(r"^Round 1: ", timeout_s=20)
    bob.signal(signal.SIGKILL)
    ann.expect(r"^Lost the connection to Bob \(seat 1\)", timeout_s=10)
    return table


def finish(table: Table, *, timeout_s: float) -> None:
    """Wait for every node to exit 0 with no traceback."""
    for proc in table.procs:
        rc = proc.wait(timeout_s)
        assert rc == 0, proc.output
        assert "Traceback" not in proc.output, proc.output


def audited_totals(table: Table, procs: list[Proc], auditor: Path) -> list[list[int]]:
    """The last round's totals in every log of every node, once each log audited ok
    (``p2p8s audit`` exit 0, verdict ok, run with home ``auditor``)."""
    totals = []
    for home in table.homes:
        for path in log_files(home):
            totals.append([m["totals"] for m in read_log(path).marks if "round_over" in m][-1])
            audit = Proc(["audit", str(path)], home=auditor)
            procs.append(audit)
            assert audit.wait(60) == 0, audit.output
            assert "verdict: ok" in audit.output, audit.output
    return totals


def match_tables(output: str) -> list[str]:
    """The printed match tables (one block per round end)."""
    return re.findall(r"^Match table .*?(?=^audit)", output, flags=re.M | re.S)


def game_round(frame: bytes) -> int:
    """The round a logged game frame belongs to (0: the setup payload)."""
    received = decode_body(frame)
    body = received.message.body
    assert isinstance(body, Game)
    if body.payload[0] != CRYPTO:
        return 0
    return decode_crypto(body.payload[1:]).round_no


def broadcast_frames(log: TableLog, *, up_to: int) -> set[bytes]:
    """The frames sent to every seat that belong to rounds ``<= up_to``."""
    out = set()
    for frame in log.frames:
        body = decode_body(frame).message.body
        assert isinstance(body, Game)
        if body.to is None and game_round(frame) <= up_to:
            out.add(frame)
    return out
