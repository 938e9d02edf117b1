"""Wi-Fi chaos soak: a table of real nodes on a bad Wi-Fi while links drop (issue #11 §5).

``--nodes`` (4) real ``p2p8s`` processes, each in its own network namespace with real
mDNS: the first hosts, the others join by code (found by mDNS), every seat ``--auto``
with paced play (``P2P8S_PACE_S``, ``--pace`` seconds a computer move, so faults land in
mid-round). The namespaces' switch is the userspace bridge of ``tests/net/wifibridge.py``
(``--delay-ms`` 100 ± ``--jitter-ms`` 30 one way, ``--loss`` 5 % of every frame copy,
multicast included); ``--kernel-bridge`` uses the plain Linux bridge instead.

Each round owes ``--faults-per-round`` K faults, each on a random node, one at a time, a
few moves apart (``--gap`` moves), from ``--seed``:

* **link down** 5–60 s (``--link-down-s``): ``ip link set eth0 down`` in the node's
  namespace, then up (the multicast route is put back, as a network manager would);
* **address change** (DHCP-style): ``ip addr del`` the old address, ``ip addr add`` a new
  one on the same /24;
* **SIGSTOP** 5–30 s (``--stop-s``), then SIGCONT (a laptop asleep);
* **kill -9 and rejoin**: SIGKILL, then after 0.5–3 s ``p2p8s join CODE`` again from the
  same home, found by mDNS, as a person would (tried again up to 3 times if it fails).

Kills and every other fault wait, as in ``benchmarks/soak.py``, until a restarted node
has seen a new round begin: in the round it restarted in it holds no escrow shares, so a
second failure there could not be taken over (protocol/table.md, "Limits"). A fault owed
by a round in which none could be placed is carried to the next.

It prints rounds completed, faults injected (by kind), takeovers, rejoins and the four
figures that must be 0:

* **freezes** — no move for ``--freeze-s`` (90) s on the whole table while a round is in
  play or a node still waits, or on one node (not under a fault) while others move;
* **false accusations** — a screen line that reports a fault, a stopped game, rules broken
  or a cheat (every node is honest here), or a node that ended with a traceback or a
  non-zero exit status;
* **audit failures** — logs that ``p2p8s audit`` does not accept (exit status not 0),
  except, in a match the soak's time ran out in, a log whose last round is incomplete
  only for a message it never got (a node cut off when its match was stopped);
* **lost log entries** — as ``benchmarks/soak.py`` counts them.

Each failure is printed with its evidence: node, time, screen lines, and the fault that
preceded it. A match that froze is abandoned and a new one started while rounds and time
remain. Exit status 1 if any of the four is non-zero or the rounds were not completed.
Root only (network namespaces); the nodes' homes, logs and screens (timestamped) and the
fault timeline are kept in a temporary directory (printed). ``--timeout`` (1650 s) ends
it in time for a ``timeout 1800``; SIGTERM stops the match in play, which is judged and
reported like the others (exit status 143).

Run: ``python benchmarks/wifi_soak.py [--rounds 20] [--faults-per-round 2] [--seed S]``.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(BENCH.parent / "tests")]

from net.netns import Lan, unavailable  # noqa: E402
from net.wifibridge import Air, WifiBridge  # noqa: E402
from soak import (  # noqa: E402
    FINISHED,
    MOVE,
    NAMES,
    P2P8S,
    REJOINED,
    ROUND,
    STYLES,
    TAKEOVER,
    Node,
    broadcast_slots,
    completed_rounds,
    node_logs,
    owed_slots,
)

#: A screen line that accuses someone: a fault, a stopped game, broken rules, a cheat.
ACCUSE = re.compile(r"Fault \(|stopped the game|broke the rules|cheat|sent invalid data"
                    r"|could not rebuild|reports a fault", re.I)
CRASHED = re.compile(r"^Traceback|Error: ")
#: A node whose screen shows no move for the freeze time counts as frozen only while
#: some other node moved in the last ``LIVE_S`` seconds (else the whole table froze).
LIVE_S = 10.0
#: Seconds a node may take to exit after "Leaving the table".
EXIT_S = 30.0
MATCH_DONE = re.compile(r"^Leaving the table|the match cannot go on", re.I)


class Kind(StrEnum):
    """The faults injected."""

    LINK_DOWN = "link down"
    ADDRESS = "address change"
    STOP = "SIGSTOP"
    KILL = "kill -9 and rejoin"


class Trouble(StrEnum):
    """What a failure is counted as."""

    FREEZE = "freeze"
    ACCUSATION = "false accusation"
    AUDIT = "audit failure"
    LOST = "lost log entries"
    CRASH = "crash"  # a traceback, or a node that exited with a status not 0
    REJOIN = "failed rejoin"  # ``p2p8s join CODE`` ended while the table was in play
    SETUP = "setup failure"  # the table did not open or deal (before any fault)


LABELS = {Trouble.FREEZE: "freezes", Trouble.ACCUSATION: "false accusations",
          Trouble.AUDIT: "audit failures", Trouble.LOST: "lost log entries",
          Trouble.CRASH: "crashes", Trouble.REJOIN: "failed rejoins",
          Trouble.SETUP: "setup failures"}
#: The figures that must be 0 (issue #11), and the two more that fail the soak too.
MUST_BE_ZERO = (Trouble.FREEZE, Trouble.ACCUSATION, Trouble.AUDIT, Trouble.LOST)


@dataclass(frozen=True, slots=True, kw_only=True)
class Chaos:
    """The soak's settings (the options of :func:`main`)."""

    nodes: int = 4
    rounds: int = 20
    faults_per_round: int = 2
    seed: int = 1
    air: Air | None = field(default_factory=Air)
    pace_s: float = 0.3
    link_down_s: tuple[float, float] = (5.0, 60.0)
    stop_s: tuple[float, float] = (5.0, 30.0)
    gap: tuple[int, int] = (1, 6)
    kinds: tuple[Kind, ...] = tuple(Kind)
    freeze_s: float = 90.0
    timeout_s: float = 3600.0
    max_matches: int = 50
    workdir: Path | None = None  # where the matches' directories go (default: the temp dir)
    quiet: bool = False


@dataclass(slots=True, kw_only=True)
class Fault:
    """One fault: ``kind`` on ``seat`` from ``at`` (s since the match began) for
    ``seconds``, in round ``round_no``; ``until`` (monotonic) when it is undone."""

    kind: Kind
    seat: int
    at: float
    seconds: float
    round_no: int
    until: float
    detail: str = ""
    match: int = 0

    def said(self) -> str:
        lasting = f" {self.seconds:.1f} s" if self.seconds else ""
        return (f"{self.kind}{lasting} on {NAMES[self.seat]} at t={self.at:.1f} s "
                f"(match {self.match}, round {self.round_no}){self.detail}")


@dataclass(slots=True, kw_only=True)
class Problem:
    """One failure and its evidence (screen lines, log excerpt, the fault before)."""

    trouble: Trouble
    seat: int | None
    at: float | None
    what: str
    evidence: list[str] = field(default_factory=list)
    match: int = 0


@dataclass(slots=True)
class Totals:
    """What the soak counted over every match."""

    completed: int = 0
    matches: int = 0
    faults: list[Fault] = field(default_factory=list)
    takeovers: int = 0
    rejoins: int = 0
    rejoin_retries: int = 0
    problems: list[Problem] = field(default_factory=list)
    lost: int = 0
    frames: int = 0  # frames the Wi-Fi bridge read
    dropped: int = 0  # frame copies it dropped
    stopped: bool = False  # by SIGTERM

    def count(self, trouble: Trouble) -> int:
        if trouble is Trouble.LOST:
            return self.lost
        return sum(1 for p in self.problems if p.trouble is trouble)


@dataclass(slots=True)
class Watch:
    """What the harness read so far of one node's current process."""

    run: int = 0
    index: int = 0
    moves: int = 0
    last_move: float = 0.0
    rounds: list[int] = field(default_factory=list)
    rejoined: bool = False
    finished: bool = False  # "Leaving the table", or the match cannot go on

    def update(self, node: Node, now: float) -> int:
        """Read ``node``'s new lines; the number of new moves."""
        if node.runs != self.run:
            self.run, self.index, self.moves = node.runs, 0, 0
            self.rounds, self.rejoined, self.finished = [], False, False
        node.drain()
        before = self.moves
        for line in node.lines[self.index:]:
            if MOVE.search(line):
                self.moves += 1
            elif m := ROUND.match(line):
                self.rounds.append(int(m.group(1)))
            elif REJOINED.search(line):
                self.rejoined = True
            if MATCH_DONE.search(line) or FINISHED.search(line):
                self.finished = True
        self.index = len(node.lines)
        if self.moves > before:
            self.last_move = now
        return self.moves - before

    def settled(self) -> bool:
        """A restarted node has seen a round begin after the one it rejoined in (see
        ``benchmarks/soak.py``, ``settled``)."""
        return self.rejoined and bool(self.rounds) and max(self.rounds) > self.rounds[0]


class Net:
    """The namespaces' side of the faults: links, addresses (each node's current one)."""

    def __init__(self, lan: Lan) -> None:
        self.lan = lan
        self.address = list(lan.addresses)
        self._next = 100

    def ip(self, seat: int, *args: str) -> None:
        subprocess.run(["ip", "-n", self.lan.names[seat], *args], capture_output=True,
                       check=False)

    def link(self, seat: int, *, up: bool) -> None:
        self.ip(seat, "link", "set", "eth0", "up" if up else "down")
        if up:  # the multicast route went with the link
            self.ip(seat, "route", "replace", "224.0.0.0/4", "dev", "eth0")

    def readdress(self, seat: int) -> str:
        """Give ``seat``'s node a new address on the same /24; the new address."""
        old = self.address[seat]
        new = f"{old.rsplit('.', 1)[0]}.{self._next}"
        self._next = self._next + 1 if self._next < 250 else 100
        self.ip(seat, "addr", "del", f"{old}/24", "dev", "eth0")
        self.ip(seat, "addr", "add", f"{new}/24", "dev", "eth0")
        self.ip(seat, "route", "replace", "224.0.0.0/4", "dev", "eth0")
        self.address[seat] = new
        return new


class Match:
    """One match of the soak: the table, its faults and what was seen."""

    def __init__(self, chaos: Chaos, rng: random.Random, *, number: int, rounds: int,
                 deadline: float, tmp: Path, totals: Totals) -> None:
        self.chaos, self.rng, self.number, self.rounds = chaos, rng, number, rounds
        self.deadline, self.tmp, self.totals = deadline, tmp, totals
        self.table = [Node(seat=i, home=tmp / NAMES[i].lower()) for i in range(chaos.nodes)]
        self.code = ""
        self.started = time.monotonic()
        self.faults: list[Fault] = []
        self.killed_by_us: set[tuple[int, int]] = set()  # (seat, run) we SIGKILLed
        self.exits: dict[tuple[int, int], int] = {}  # (seat, run) -> exit status
        self.lan: Lan | None = None
        self.net: Net | None = None
        self.rejoin_tries: Counter[int] = Counter()
        self.watch = {n.seat: Watch() for n in self.table}
        self.run_starts: dict[int, list[int]] = {n.seat: [] for n in self.table}
        self.failed_rejoins: set[tuple[int, int]] = set()  # (seat, run)
        #: the soak's time ran out in play: a log may stop inside a round (see judge)
        self.cut_short = False

    # --- output ---------------------------------------------------------------------

    def t(self, at: float | None = None) -> float:
        return (time.monotonic() if at is None else at) - self.started

    def say(self, text: str) -> None:
        if not self.chaos.quiet:
            print(f"  [m{self.number} t={self.t():6.1f}] {text}", flush=True)

    def problem(self, trouble: Trouble, seat: int | None, at: float | None, what: str,
                evidence: Sequence[str] = ()) -> None:
        before = self.fault_before(at)
        lines = [*([f"after: {before.said()}"] if before else ["after: no fault yet"]),
                 *evidence]
        self.totals.problems.append(Problem(trouble=trouble, seat=seat, at=self.t(at)
                                            if at is not None else None, what=what,
                                            evidence=lines, match=self.number))
        who = NAMES[seat] if seat is not None else "table"
        self.say(f"{trouble.upper()} ({who}): {what}")

    def fault_before(self, at: float | None) -> Fault | None:
        t = self.t(at) if at is not None else float("inf")
        earlier = [f for f in self.faults if f.at <= t]
        return earlier[-1] if earlier else None

    # --- nodes ----------------------------------------------------------------------

    def prefix(self, seat: int) -> list[str]:
        assert self.lan is not None
        return self.lan.prefix(seat)

    def start(self, node: Node, args: Sequence[str]) -> None:
        self.run_starts[node.seat].append(len(node.history) + len(node.lines))
        node.start(args, prefix=self.prefix(node.seat))

    def join(self, node: Node) -> None:
        self.start(node, ["join", self.code, "--name", NAMES[node.seat], "--yes", "--auto",
                    STYLES[node.seat], "--rounds", str(self.rounds), "--timeout", "30"])

    def open_table(self) -> None:
        host = self.table[0]
        self.start(host, ["host", "--name", NAMES[0], "--seats", str(self.chaos.nodes), "--auto",
                    STYLES[0], "--target", "200", "--rounds", str(self.rounds)])
        self.code = host.expect(r"^Table code: (\w{6})$", 30).group(1)
        host.expect(r"Type deal", 30)
        for node in self.table[1:]:
            self.join(node)
            host.expect(rf"{NAMES[node.seat]} \[key .*\] sat down at seat {node.seat}$", 90)
        host.send("deal")
        for node in self.table:
            node.expect(r"^Round 1: ", 120)
        self.say(f"table {self.code} dealt: {self.chaos.nodes} nodes")

    def note_exits(self) -> None:
        for node in self.table:
            if node.popen is not None and node.popen.poll() is not None:
                self.exits.setdefault((node.seat, node.runs), node.popen.returncode)

    # --- faults ---------------------------------------------------------------------

    def inject(self, kind: Kind, node: Node, round_no: int) -> Fault:
        assert self.net is not None
        c, now = self.chaos, time.monotonic()
        fault = Fault(kind=kind, seat=node.seat, at=self.t(now), seconds=0.0,
                      round_no=round_no, until=now, match=self.number)
        if kind is Kind.LINK_DOWN:
            fault.seconds = self.rng.uniform(*c.link_down_s)
            self.net.link(node.seat, up=False)
        elif kind is Kind.ADDRESS:
            old = self.net.address[node.seat]
            fault.detail = f": {old} -> {self.net.readdress(node.seat)}"
        elif kind is Kind.STOP:
            fault.seconds = self.rng.uniform(*c.stop_s)
            assert node.popen is not None
            node.popen.send_signal(signal.SIGSTOP)
        else:
            fault.seconds = self.rng.uniform(0.5, 3.0)
            self.killed_by_us.add((node.seat, node.runs))
            node.kill()
        fault.until = now + fault.seconds
        self.faults.append(fault)
        self.totals.faults.append(fault)
        self.say(f"fault: {fault.said()}")
        return fault

    def undo(self, fault: Fault) -> None:
        assert self.net is not None
        node = self.table[fault.seat]
        if fault.kind is Kind.LINK_DOWN:
            self.net.link(fault.seat, up=True)
        elif fault.kind is Kind.STOP and node.popen is not None:
            node.popen.send_signal(signal.SIGCONT)
        elif fault.kind is Kind.KILL:
            self.join(node)
            self.say(f"{NAMES[fault.seat]} runs p2p8s join {self.code} again")

    def retry_rejoin(self, node: Node) -> bool:
        """A rejoin that ended before it was let back in is tried again (at most 3
        times, as a person would); True if it was."""
        w = self.watch[node.seat]
        if node.alive() or w.rejoined or w.finished or (
                node.seat, node.runs) in self.failed_rejoins:
            return False
        self.failed_rejoins.add((node.seat, node.runs))
        if not self.table_up(node):
            return False  # the table ended meanwhile: nobody to rejoin
        self.problem(Trouble.REJOIN, node.seat, time.monotonic(),
                     "p2p8s join CODE ended without rejoining the table in play",
                     self.screens([node]))
        if self.rejoin_tries[node.seat] >= 3:
            return False
        self.rejoin_tries[node.seat] += 1
        self.totals.rejoin_retries += 1
        self.say(f"{NAMES[node.seat]}'s rejoin ended ({node.lines[-1:]}): trying again")
        time.sleep(1.0)
        self.join(node)
        return True

    def table_up(self, but: Node) -> bool:
        """Some node other than ``but`` still plays (alive, not left)."""
        return any(n.alive() and not self.watch[n.seat].finished
                   for n in self.table if n is not but)

    def healed(self, fault: Fault, now: float) -> bool:
        """The node of an undone fault is back in play: it showed a move since (a killed
        one: it has also seen a new round begin, see :meth:`Watch.settled`)."""
        w = self.watch[fault.seat]
        if now - fault.until > self.chaos.freeze_s:
            return True  # it never came back: a freeze, counted as such
        if fault.kind is Kind.KILL:  # the watch of the new run, not of the killed one
            return (w.run == self.table[fault.seat].runs and w.settled()
                    and self.peers_see(fault))
        return w.last_move > fault.until and self.peers_see(fault)

    def peers_see(self, fault: Fault) -> bool:
        """No other node still misses the fault's node: each said it is back, or never
        said it lost it (a drop shorter than the heartbeat timeout)."""
        name = NAMES[fault.seat]
        lost = re.compile(rf"^Lost the connection to {name} \(seat")
        back = re.compile(rf"^{name} \(seat \d\) is back")
        since = self.started + fault.at
        for n in self.table:
            if n is self.table[fault.seat] or not n.alive():
                continue
            last = None
            for line in n.lines[bisect.bisect_left(n.stamps, since):]:
                if lost.search(line) or back.search(line):
                    last = line
            if last is not None and lost.search(last):
                return False
        return True

    # --- the match ------------------------------------------------------------------

    def run(self) -> None:
        c = self.chaos
        with Lan(c.nodes) as lan, (WifiBridge(lan, c.air) if c.air is not None
                                   else contextlib.nullcontext()) as bridge:
            self.lan, self.net = lan, Net(lan)
            try:
                try:
                    self.open_table()
                except RuntimeError as exc:  # a node did not get as far as it should
                    self.problem(Trouble.SETUP, None, None, "the table did not open or deal",
                                 str(exc).splitlines()[-12:])
                else:
                    self.play()
            finally:
                self.note_exits()
                for node in self.table:
                    if node.alive():  # stopped here by the harness: not a crash
                        assert node.popen is not None
                        node.popen.send_signal(signal.SIGCONT)
                        self.killed_by_us.add((node.seat, node.runs))
                    node.kill()
                self.note_exits()
                if isinstance(bridge, WifiBridge):
                    counts = bridge.counts()
                    self.totals.frames += counts.received
                    self.totals.dropped += counts.dropped
                self.save()

    def play(self) -> None:
        c, rng = self.chaos, self.rng
        start = time.monotonic()
        for w in self.watch.values():
            w.last_move = start
        last_any = start
        frozen: set[int] = set()
        active: Fault | None = None
        back: Fault | None = None  # undone, until its node is back in play
        owed, round_no, gap, moves_since = 0, 0, rng.randint(*c.gap), 0
        while True:
            now = time.monotonic()
            if now > self.deadline:
                self.say("the soak's time ran out in play: the match is stopped")
                self.cut_short = True
                return
            for n in self.table:
                w = self.watch[n.seat]
                if (new := w.update(n, now)) > 0:
                    moves_since += new
                    last_any = now
                    frozen.discard(n.seat)
                if w.rounds and w.rounds[-1] > round_no:
                    round_no = w.rounds[-1]
                    owed = min(owed + c.faults_per_round, 2 * c.faults_per_round)
            self.note_exits()
            if active is not None and now >= active.until:
                self.undo(active)
                self.watch[active.seat].last_move = max(self.watch[active.seat].last_move, now)
                self.rejoin_tries[active.seat] = 0
                back, active, moves_since, gap = active, None, 0, rng.randint(*c.gap)
            # a rejoin that failed is tried again whatever fault came since (an address
            # change during the join, say): not only while the kill is the last fault
            if any(self.retry_rejoin(n) for n in self.table if n.runs > 1 and (
                    active is None or active.seat != n.seat)):
                continue
            if back is not None and self.healed(back, now):
                back = None
            waiting = [n for n in self.table if n.alive() and not self.watch[n.seat].finished]
            if not waiting and active is None:
                self.wait_for_exits()
                return  # every node left the table
            if (back is not None and back.kind is Kind.KILL and active is None
                    and not self.table_up(self.table[back.seat])
                    and not self.watch[back.seat].rejoined):
                self.say("the table ended before the restarted node was back")
                return
            if now - last_any > c.freeze_s:
                self.problem(Trouble.FREEZE, None, now, f"no move on any node for "
                             f"{c.freeze_s:g} s (round {round_no})", self.screens())
                return
            for n in waiting:
                if (n.seat not in frozen and now - self.watch[n.seat].last_move > c.freeze_s
                        and now - last_any < LIVE_S and (active is None or active.seat != n.seat)):
                    frozen.add(n.seat)
                    self.problem(Trouble.FREEZE, n.seat, now, f"no move on this node for "
                                 f"{c.freeze_s:g} s while the others play (round "
                                 f"{round_no})", self.screens([n]))
            if (active is None and back is None and owed > 0 and moves_since >= gap
                    and len(waiting) == len(self.table) and round_no <= self.rounds
                    and not any(w.finished for w in self.watch.values())):
                active = self.inject(rng.choice(c.kinds), rng.choice(self.table), round_no)
                owed -= 1
            time.sleep(0.1)

    def wait_for_exits(self) -> None:
        """Every node said it leaves: each must exit within ``EXIT_S``."""
        until = time.monotonic() + EXIT_S
        for n in self.table:
            assert n.popen is not None
            try:
                n.popen.wait(max(0.1, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.problem(Trouble.CRASH, n.seat, time.monotonic(),
                             f"still running {EXIT_S:g} s after it left the table",
                             self.screens([n]))
                self.killed_by_us.add((n.seat, n.runs))
        self.note_exits()

    def screens(self, nodes: Sequence[Node] | None = None) -> list[str]:
        """The last lines of some nodes' screens, timestamped."""
        out = []
        for n in nodes or self.table:
            n.drain()
            state = "alive" if n.alive() else f"exited {n.popen.returncode if n.popen else ''}"
            out.append(f"{NAMES[n.seat]}'s screen ({state}), last lines:")
            for stamp, line in list(zip(n.stamps, n.lines, strict=True))[-8:]:
                out.append(f"    {self.t(stamp):7.1f}  {line}")
        return out

    def save(self) -> None:
        for n in self.table:
            stamps = [*n.history_stamps, *n.stamps]
            lines = [*n.history, *n.lines]
            with (self.tmp / f"{NAMES[n.seat].lower()}.out").open("w", encoding="utf-8") as f:
                f.writelines(f"{self.t(s):8.2f} {line}\n"
                             for s, line in zip(stamps, lines, strict=True))
        with (self.tmp / "faults.txt").open("w", encoding="utf-8") as f:
            f.writelines(fault.said() + "\n" for fault in self.faults)

    # --- after ----------------------------------------------------------------------

    def judge(self) -> int:
        """Read every screen and log: accusations, crashes, audits, losses; the rounds
        every node completed."""
        accused: set[tuple[int, int]] = set()  # (seat, run) that said an accusation
        for n in self.table:
            stamps = [*n.history_stamps, *n.stamps]
            lines = [*n.history, *n.lines]
            starts = self.run_starts[n.seat]
            for i, (stamp, line) in enumerate(zip(stamps, lines, strict=True)):
                trouble = (Trouble.ACCUSATION if ACCUSE.search(line) else
                           Trouble.CRASH if CRASHED.search(line) else None)
                run = sum(1 for at in starts if at <= i)
                if trouble is None or (n.seat, run) in accused:
                    continue  # one accusation a run: the lines after it are its words
                if trouble is Trouble.ACCUSATION:
                    accused.add((n.seat, run))
                ctx = [f"    {self.t(s):7.1f}  {x}" for s, x in
                       zip(stamps[max(0, i - 6):i + 3], lines[max(0, i - 6):i + 3],
                           strict=True)]
                self.problem(trouble, n.seat, stamp, line, [f"{NAMES[n.seat]}'s screen:", *ctx])
        for (seat, run), rc in sorted(self.exits.items()):
            if rc != 0 and not {(seat, run)} & (self.killed_by_us | accused
                                                | self.failed_rejoins):
                n = self.table[seat]
                self.problem(Trouble.CRASH, seat, None,
                             f"run {run} of {NAMES[seat]}'s node exited with status {rc}",
                             [f"    {x}" for x in [*n.history, *n.lines][-6:]])
        logs = {n.seat: node_logs(n.home) for n in self.table}
        auditor = {**os.environ, "XDG_DATA_HOME": str(self.tmp / "auditor"),
                   "XDG_CONFIG_HOME": str(self.tmp / "auditor")}
        for n in self.table:
            for path in sorted((n.home / "data" / "p2p8s" / "tables").glob("*.p2p8slog")):
                done = subprocess.run([*P2P8S, "audit", str(path)], capture_output=True,
                                      text=True, timeout=300, env=auditor)
                if done.returncode == 2 and self.cut_short and stops_inside(done.stdout):
                    self.say(f"{path.name}: stopped by the soak inside round "
                             f"{stops_inside(done.stdout)} (not audited past it)")
                elif done.returncode != 0:
                    out = (done.stdout + done.stderr).splitlines()
                    bad = [x for x in out if "ok" not in x.split()] or out
                    self.problem(Trouble.AUDIT, n.seat, None,
                                 f"p2p8s audit {path.name} exited {done.returncode}",
                                 [f"    {x}" for x in bad[-10:]])
        completed = completed_rounds(logs)
        union = owed_slots([lg for lgs in logs.values() for lg in lgs], completed)
        for seat, lgs in logs.items():
            missing = sorted(union - broadcast_slots(lgs, completed))
            if missing:
                self.totals.lost += len(missing)
                self.problem(Trouble.LOST, seat, None,
                             f"{len(missing)} broadcast entries of rounds 1..{completed} "
                             f"missing from {NAMES[seat]}'s logs",
                             [f"    (round, seat, seq) {missing[:8]}"
                              f"{' …' if len(missing) > 8 else ''}"])
        self.totals.takeovers += max(n.count(TAKEOVER, every_run=True) for n in self.table)
        self.totals.rejoins += sum(n.count(REJOINED, every_run=True) for n in self.table)
        return completed


def stops_inside(audit: str) -> int | None:
    """The round a log stops inside, when ``p2p8s audit``'s only complaint (``audit``: its
    output) is that its last, incomplete round waits for a message the log never got —
    what any node's log holds when the soak stops the match while that node is cut off
    (its peers' messages that count one it had not received yet arrived first); None
    for any other verdict."""
    last = re.findall(r"round (\d+): incomplete", audit)
    lacks = re.findall(r"verdict: damaged log \(no seat at fault|lacks message \d+ of \S+ "
                       r"in round (\d+)", audit)
    if not last or "FAILED" in audit or "verdict: damaged log (no seat at fault" not in audit:
        return None
    rounds = {int(r) for r in lacks if r}
    return int(last[-1]) if rounds == {int(last[-1])} else None


class Stopped(Exception):
    """SIGTERM (e.g. ``timeout``): the match in play is stopped, judged and reported."""


def _stop(*_: object) -> None:
    raise Stopped


def soak(chaos: Chaos) -> Totals:
    """Play matches until ``chaos.rounds`` rounds are completed or the time is out."""
    rng = random.Random(chaos.seed)
    totals = Totals()
    started = time.monotonic()
    deadline = started + chaos.timeout_s
    unopened = 0  # matches in a row whose table did not open
    while (totals.completed < chaos.rounds and deadline - time.monotonic() > 30
           and totals.matches < chaos.max_matches):
        totals.matches += 1
        tmp = Path(tempfile.mkdtemp(prefix=f"p2p8s-wifi-soak-m{totals.matches}-",
                                    dir=chaos.workdir))
        match = Match(chaos, rng, number=totals.matches,
                      rounds=chaos.rounds - totals.completed, deadline=deadline, tmp=tmp,
                      totals=totals)
        try:
            match.run()
        except Stopped:
            totals.stopped = True  # its nodes were stopped on the way out of run()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one (the timeout's
            # too): the match is judged and reported all the same
        completed = match.judge()
        totals.completed += completed
        if not chaos.quiet:
            print(f"  match {match.number}: {completed} rounds completed; homes, logs, "
                  f"screens and faults in {tmp}", flush=True)
        opened = not any(p.trouble is Trouble.SETUP and p.match == match.number
                         for p in totals.problems)
        unopened = 0 if opened else unopened + 1
        if unopened >= 2 or totals.stopped:
            break  # the table did not even open twice in a row: do not loop on it
    return totals


def report(chaos: Chaos, totals: Totals, elapsed: float) -> bool:
    """Print the figures and every failure's evidence; True if the soak passed."""
    air = chaos.air
    where = ("the kernel bridge" if air is None else
             f"a bad Wi-Fi ({air.delay_ms:g} ± {air.jitter_ms:g} ms, {air.loss:.0%} loss)")
    print(f"wifi soak: {chaos.nodes} nodes in namespaces on {where}, {chaos.rounds} rounds "
          f"asked, {chaos.faults_per_round} faults a round, seed {chaos.seed}, "
          f"{totals.matches} match{'es' if totals.matches != 1 else ''}, {elapsed:.0f} s")
    kinds = Counter(f.kind for f in totals.faults)
    print(f"  rounds completed   {totals.completed}")
    print(f"  faults injected    {len(totals.faults)} ("
          + ", ".join(f"{kinds[k]} {k}" for k in Kind) + ")")
    print(f"  takeovers          {totals.takeovers}")
    print(f"  rejoins            {totals.rejoins} ({totals.rejoin_retries} retried)")
    for trouble in Trouble:
        print(f"  {LABELS[trouble]:<18} {totals.count(trouble)}")
    if air is not None:
        print(f"  Wi-Fi frames       {totals.frames} read, {totals.dropped} copies dropped")
    ok = totals.completed >= chaos.rounds and all(totals.count(t) == 0 for t in Trouble)
    print("  verdict            " + ("ok" if ok else "FAILED"))
    for p in totals.problems:
        who = NAMES[p.seat] if p.seat is not None else "table"
        when = f" at t={p.at:.1f} s" if p.at is not None else ""
        print(f"\n{p.trouble} — match {p.match}, {who}{when}: {p.what}")
        for line in p.evidence:
            print(f"  {line}")
    return ok


def _pair(text: str) -> tuple[float, float]:
    lo, _, hi = text.partition("-")
    return float(lo), float(hi or lo)


@contextlib.contextmanager
def paced(seconds: float) -> Iterator[None]:
    """Computer moves paced ``seconds`` (``P2P8S_PACE_S``) for the nodes started inside."""
    before = os.environ.get("P2P8S_PACE_S")
    os.environ["P2P8S_PACE_S"] = str(seconds)
    try:
        yield
    finally:
        if before is None:
            del os.environ["P2P8S_PACE_S"]
        else:
            os.environ["P2P8S_PACE_S"] = before


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--faults-per-round", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay-ms", type=float, default=100.0)
    parser.add_argument("--jitter-ms", type=float, default=30.0)
    parser.add_argument("--loss", type=float, default=0.05)
    parser.add_argument("--kernel-bridge", action="store_true",
                        help="the plain Linux bridge: no delay, no loss")
    parser.add_argument("--pace", type=float, default=0.3, help="seconds a computer move")
    parser.add_argument("--link-down-s", type=_pair, default=(5.0, 60.0), metavar="MIN-MAX")
    parser.add_argument("--stop-s", type=_pair, default=(5.0, 30.0), metavar="MIN-MAX")
    parser.add_argument("--gap", type=int, nargs=2, default=(1, 6), metavar=("MIN", "MAX"),
                        help="moves between two faults")
    parser.add_argument("--kinds", default=",".join(k.name.lower() for k in Kind),
                        help="faults to inject: " + ",".join(k.name.lower() for k in Kind))
    parser.add_argument("--freeze-s", type=float, default=90.0)
    parser.add_argument("--timeout", type=float, default=1650.0,
                        help="seconds for the whole soak (under a `timeout 1800` with the "
                             "last judging and the report)")
    args = parser.parse_args(argv)
    if (why := unavailable()) is not None:
        print(f"wifi soak: {why}", file=sys.stderr)
        return 2
    chaos = Chaos(nodes=args.nodes, rounds=args.rounds, faults_per_round=args.faults_per_round,
                  seed=args.seed, pace_s=args.pace, link_down_s=args.link_down_s,
                  stop_s=args.stop_s, gap=tuple(args.gap), freeze_s=args.freeze_s,
                  kinds=tuple(Kind[k.strip().upper()] for k in args.kinds.split(",")),
                  timeout_s=args.timeout,
                  air=None if args.kernel_bridge else Air(
                      delay_ms=args.delay_ms, jitter_ms=args.jitter_ms, loss=args.loss,
                      seed=args.seed))
    signal.signal(signal.SIGTERM, _stop)  # clean up the namespaces, report what was seen
    started = time.monotonic()
    with paced(chaos.pace_s):
        totals = soak(chaos)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ok = report(chaos, totals, time.monotonic() - started)
    return 143 if totals.stopped else 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
