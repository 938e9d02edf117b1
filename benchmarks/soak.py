"""Soak: a 4-node table on loopback while nodes are killed and come back (issue #6 §7).

Real ``p2p8s`` processes (one per node, all on 127.0.0.1, every seat a person whose
node lets the computer play with ``--auto``) play matches (target 200) until ``--rounds``
rounds are completed. Every few moves (a random number in ``--every``) a random node —
the host included — is killed with SIGKILL and, after a short pause, started again with
``p2p8s join CODE@ADDRESS`` of a random live node, from the same home (the same identity
key) and on the same port: it rejoins from the others' signed logs. The next kill waits
until the node that came back has seen a new round begin: inside the round it restarted
in, it holds no escrow shares any more (they died with its memory), so a second failure
there could not be taken over (protocol/table.md, "Limits") — in practice this makes
about one kill per round.

At the end it prints

* **rounds completed** — rounds every node finished (its logs' round-end marks);
* **kills**, **takeovers** (seats whose key was rebuilt from the escrow and that the
  computer played) and **rejoins** (a restarted node was let back in);
* **audit failures** — rounds of any node's log that ``p2p8s audit`` does not accept
  (must be 0);
* **lost log entries** — broadcast game messages of a completed round that reached the
  table (another node received them) but that some node's log lacks (must be 0): a
  restarted node's log must hold what happened while it was away, too. A seat's
  messages beyond the cut of its takeover are void on every node and not counted.

Run: ``python benchmarks/soak.py [--rounds K] [--nodes N] [--seed S]``. Exit status 1
when an audit failed, a log entry was lost, the table stalled (no move for a minute) or
the rounds were not completed. The nodes' homes, logs and screens are kept in a temporary
directory (printed).
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2p8s.cli.words.table import said
from p2p8s.crypto.messages import Message, ShareReveal
from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.store.tablelog import TableLog, read_log
from p2p8s.table.actions import CRYPTO
from p2p8s.table.logverify import verify
from p2p8s.wire import Game, decode_body

P2P8S = [sys.executable, "-c", "from p2p8s.cli.main import main; main()"]
NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus")
STYLES = ("karl", "vera", "max", "hanna", "karl", "vera", "max")
#: A narrated move on a node's screen ("Bob played 7♠.", "You drew a card …").
MOVE = re.compile(r"^(You|\w+) (played|drew|passed|took)\b")
#: A seat taken over (each node says so once per seat and round).
TAKEOVER = re.compile(r"seat is taken over|the computer plays .* this round \(hand open\)")
REJOINED = re.compile(r"^Rejoined the table", re.I)
ROUND = re.compile(r"^Round (\d+): ")
FINISHED = re.compile(r"^Leaving the table: |match is over", re.I)
MATCH_OVER = re.compile(r"^Leaving the table: the match is over")
#: Seconds without any move on any node after which the table counts as stalled.
STALL_S = 60.0


@dataclass
class Node:
    """One seat's home directory and its current process."""

    seat: int
    home: Path
    popen: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)  # lines of earlier processes
    stamps: list[float] = field(default_factory=list)  # when each line was read (monotonic)
    history_stamps: list[float] = field(default_factory=list)
    _queue: queue.Queue[tuple[float, str] | None] = field(default_factory=queue.Queue)
    runs: int = 0

    def start(self, args: Sequence[str], *, prefix: Sequence[str] = ()) -> None:
        """Run ``p2p8s ARGS`` (after ``prefix``, e.g. ``ip netns exec NS``) from this home."""
        env = {**os.environ, "XDG_DATA_HOME": str(self.home / "data"),
               "XDG_CONFIG_HOME": str(self.home / "config"), "PYTHONUNBUFFERED": "1"}
        self.history += self.lines
        self.history_stamps += self.stamps
        self.lines = []
        self.stamps = []
        self._queue = queue.Queue()
        self.popen = subprocess.Popen([*prefix, *P2P8S, *args], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      env=env, text=True, bufsize=1)
        self.runs += 1
        q, out = self._queue, self.popen.stdout
        assert out is not None

        def pump() -> None:
            for line in out:
                q.put((time.monotonic(), line.rstrip("\n")))
            q.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def send(self, line: str) -> None:
        """Type a line on the node's stdin."""
        assert self.popen is not None and self.popen.stdin is not None
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def drain(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._queue.put(None)
                return
            self.stamps.append(item[0])
            self.lines.append(item[1])

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def expect(self, pattern: str, timeout_s: float) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.drain()
            for line in self.lines:
                if m := regex.search(line):
                    return m
            if not self.alive():
                self.drain()
                break
            time.sleep(0.05)
        raise RuntimeError(f"{NAMES[self.seat]}: {pattern!r} not seen:\n"
                           + "\n".join(self.lines[-40:]))

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)
        self.drain()

    def save(self, path: Path) -> None:
        """Append what this process printed to ``path`` (one file per seat)."""
        self.drain()
        with path.open("a", encoding="utf-8") as f:
            f.write("\n".join([*self.history, *self.lines]) + "\n")

    def count(self, regex: re.Pattern[str], *, every_run: bool = False) -> int:
        """Lines of the current process (``every_run``: of every process of this seat)
        matching ``regex``."""
        self.drain()
        lines = [*self.history, *self.lines] if every_run else self.lines
        return sum(1 for line in lines if regex.search(line))


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1 (each node keeps its port across
    restarts, so the others can always be reached at a known address)."""
    socks = []
    try:
        for _ in range(n):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


@dataclass(frozen=True, slots=True)
class Broadcast:
    """A crypto message sent to all seats, as one log holds it: ``received`` when the
    log's node got it from another node."""

    message: Message
    received: bool

    @property
    def slot(self) -> tuple[int, int, int]:
        """``(round, seat, seq)``."""
        m = self.message
        return (m.round_no, m.seat, m.seq)


def broadcasts(log: TableLog) -> Iterator[Broadcast]:
    """Every crypto message sent to all seats that ``log`` holds, in log order."""
    owner = bytes.fromhex(log.header["seats"][log.header["me"]]["key"])
    for frame in log.frames:
        received = decode_body(frame)
        body = received.message.body
        if (isinstance(body, Game) and body.to is None
                and body.payload[:1] == bytes([CRYPTO])):
            yield Broadcast(message=decode_crypto(body.payload[1:]),
                            received=received.key != owner)


def void_slots(sent: Iterable[Broadcast]) -> set[tuple[int, int, int]]:
    """The slots of ``sent`` (every log's broadcasts) beyond the cut of a seat whose key
    was being rebuilt in their round: no node but the seat's own takes them in, they are
    void once the key is rebuilt and owed to no log (protocol/table.md, "Dropped nodes"
    → "The cut"). A seat's cut is the furthest count of its messages that a share of
    its key states (a ``ShareReveal``'s echo), shares that are void themselves (their
    sender's seat cut before them) left out — to a fixed point."""
    shares: dict[int, set[tuple[int, int, int, int]]] = {}  # round -> (dealer, h, q, read)
    slots: set[tuple[int, int, int]] = set()
    for b in sent:
        m = b.message
        slots.add(b.slot)
        if isinstance(m, ShareReveal) and len(m.echo) > m.dealer:
            shares.setdefault(m.round_no, set()).add((m.dealer, m.seat, m.seq,
                                                      m.echo[m.dealer][0]))
    cuts: dict[tuple[int, int], int] = {}
    for round_no, of_round in shares.items():
        cut: dict[int, int] = {}
        for _ in range(len(of_round) + 1):
            now: dict[int, int] = {}
            for dealer, holder, seq, read in of_round:
                if not (holder in cut and seq > cut[holder]):
                    now[dealer] = max(now.get(dealer, 0), read)
            if now == cut:
                break
            cut = now
        cuts.update({(round_no, seat): c for seat, c in cut.items()})
    return {(r, s, q) for r, s, q in slots if (r, s) in cuts and q > cuts[r, s]}


def broadcast_slots(logs: Sequence[TableLog], up_to: int, *,
                    received_only: bool = False) -> set[tuple[int, int, int]]:
    """(round, seat, seq) of every crypto message sent to all seats in rounds 1..up_to
    found in ``logs``; ``received_only``: only those the log's node got from another
    node (so the message really went out — a node killed between logging a message and
    sending it leaves one in its own log that never reached the table)."""
    return {b.slot for log in logs for b in broadcasts(log)
            if 1 <= b.message.round_no <= up_to and (b.received or not received_only)}


def owed_slots(logs: Sequence[TableLog], up_to: int) -> set[tuple[int, int, int]]:
    """The broadcast slots of rounds 1..up_to that every node's logs must hold: those
    that reached the table (:func:`broadcast_slots` ``received_only``) and are not void
    (:func:`void_slots`: a seat's own node, cut off while its seat was taken over, may
    have sent a few beyond the cut before its table went void and was rebuilt — some
    peers got them, others never will)."""
    return (broadcast_slots(logs, up_to, received_only=True)
            - void_slots(b for log in logs for b in broadcasts(log)))


def node_logs(home: Path) -> list[TableLog]:
    found = sorted((home / "data" / "p2p8s" / "tables").glob("*.p2p8slog"))
    return [read_log(p) for p in found]


@dataclass
class Tally:
    """What one match of the soak counted."""

    completed: int = 0
    match_over: bool = False
    kills: int = 0
    takeovers: int = 0
    rejoins: int = 0
    audit_failures: int = 0
    lost: int = 0
    stalled: bool = False
    elapsed: float = 0.0


def play_match(rng: random.Random, *, nodes: int, rounds: int, every: tuple[int, int],
               down_s: tuple[float, float], timeout_s: float) -> Tally:
    """One match of at most ``rounds`` rounds (target 200) with kills; its tally."""
    tmp = Path(tempfile.mkdtemp(prefix="p2p8s-soak-"))
    table = [Node(seat=i, home=tmp / NAMES[i].lower()) for i in range(nodes)]
    ports = free_ports(nodes)
    common = ["--rounds", str(rounds), "--no-mdns"]
    host = table[0]
    host.start(["host", "--name", NAMES[0], "--seats", str(nodes), "--auto", STYLES[0],
                "--target", "200", "--port", str(ports[0]), *common])
    started = time.monotonic()
    kills = 0
    stalled = False
    try:
        code = host.expect(r"^Table code: (\w{6})$", 15).group(1)
        host.expect(rf"p2p8s join {code}@\S+:{ports[0]}$", 15)

        def join(node: Node, via: int) -> None:
            node.start(["join", f"{code}@127.0.0.1:{ports[via]}", "--name", NAMES[node.seat],
                        "--yes", "--auto", STYLES[node.seat], "--port", str(ports[node.seat]),
                        *common])

        for node in table[1:]:
            join(node, 0)
            host.expect(rf"{NAMES[node.seat]} \[key .*\] sat down at seat {node.seat}$", 20)
        host.send("deal")
        for node in table:
            node.expect(r"^Round 1: ", 30)
        moves = 0
        next_kill = rng.randint(*every)
        deadline = started + timeout_s
        last_move_at = time.monotonic()
        back: Node | None = None  # the last node restarted, until it saw a new round
        while time.monotonic() < deadline:
            if not any(n.alive() for n in table):
                break
            live = [n for n in table if n.alive()]
            seen = max((n.count(MOVE) for n in live), default=0)
            if seen > moves:
                last_move_at = time.monotonic()
            if time.monotonic() - last_move_at > STALL_S:
                stalled = True
                print(f"  no move for {STALL_S:g} s: the table stalled", flush=True)
                break
            if back is not None and settled(back):
                back = None
            if (back is None and seen - moves >= next_kill and len(live) == nodes
                    and not any(n.count(FINISHED) for n in table)):
                victim = rng.choice(table)
                victim.kill()
                kills += 1
                time.sleep(rng.uniform(*down_s))
                other = rng.choice([n for n in table if n is not victim and n.alive()])
                join(victim, other.seat)
                back = victim
                moves = max(n.count(MOVE) for n in table if n.alive())
                next_kill = rng.randint(*every)
            time.sleep(0.05)
        for n in table:
            if n.popen is not None and not stalled:
                try:
                    n.popen.wait(max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    n.kill()
    finally:
        for n in table:
            n.kill()
            n.save(tmp / f"{NAMES[n.seat].lower()}.out")
        print(f"(the nodes' homes, logs and screens are in {tmp})")
    tally = count(table, kills=kills, stalled=stalled)
    tally.elapsed = time.monotonic() - started
    return tally


def settled(node: Node) -> bool:
    """True once a restarted node has seen a round start after the one it rejoined in:
    from then on it holds escrow shares again (or holds none this round), so the next
    node may fail. (A second failure inside the round a node restarted in cannot be
    recovered: the restarted node lost its escrow shares of that round with its memory —
    protocol/table.md, "Limits".)"""
    node.drain()
    rounds = [int(m.group(1)) for line in node.lines if (m := ROUND.match(line))]
    joined = any(REJOINED.search(line) for line in node.lines)
    return joined and len(rounds) >= 1 and max(rounds) > rounds[0]


def completed_rounds(logs: dict[int, list[TableLog]]) -> int:
    """Rounds every seat's node finished: the least, over seats, of the last round-end
    mark in that seat's logs (``logs``: seat -> its logs, every run's)."""
    return min((max((int(m["round_over"]) for lg in lgs for m in lg.marks
                     if "round_over" in m), default=0) for lgs in logs.values()),
               default=0)


def lost_entries(logs: dict[int, list[TableLog]], up_to: int) -> int:
    """Broadcast game messages of rounds 1..``up_to`` that reached the table (another
    node received them, :func:`owed_slots`) but that some seat's logs lack, summed over
    seats."""
    union = owed_slots([lg for lgs in logs.values() for lg in lgs], up_to)
    return sum(len(union - broadcast_slots(lgs, up_to)) for lgs in logs.values())


def count(table: Sequence[Node], *, kills: int, stalled: bool) -> Tally:
    """Read every node's logs and screens: rounds, takeovers, rejoins, audits, losses."""
    logs = {n.seat: node_logs(n.home) for n in table}
    tally = Tally(completed=completed_rounds(logs), kills=kills, stalled=stalled)
    tally.match_over = all(n.count(MATCH_OVER, every_run=True) for n in table)
    for seat, lgs in logs.items():
        for lg in lgs:
            rep = verify(lg.frames)
            tally.audit_failures += sum(1 for r in rep.rounds if r.complete and not r.ok)
            if rep.fault is not None:
                tally.audit_failures += 1
                print(f"  audit of {NAMES[seat]}'s log: {said(rep.fault)}")
    tally.lost = lost_entries(logs, tally.completed)
    tally.takeovers = max(n.count(TAKEOVER, every_run=True) for n in table)
    tally.rejoins = sum(n.count(REJOINED, every_run=True) for n in table)
    return tally


def soak(*, nodes: int, rounds: int, seed: int, every: tuple[int, int],
         down_s: tuple[float, float], timeout_s: float) -> int:
    """Play matches until ``rounds`` rounds are completed; print the totals."""
    rng = random.Random(seed)
    total = Tally()
    matches = 0
    started = time.monotonic()
    while total.completed < rounds and time.monotonic() - started < timeout_s:
        t = play_match(rng, nodes=nodes, rounds=rounds - total.completed, every=every,
                       down_s=down_s, timeout_s=timeout_s - (time.monotonic() - started))
        matches += 1
        total.completed += t.completed
        total.kills += t.kills
        total.takeovers += t.takeovers
        total.rejoins += t.rejoins
        total.audit_failures += t.audit_failures
        total.lost += t.lost
        total.stalled |= t.stalled
        if t.stalled or t.audit_failures or t.lost or t.completed == 0:
            break
    elapsed = time.monotonic() - started
    print(f"soak: {nodes} nodes on loopback, {rounds} rounds asked, {matches} "
          f"match{'es' if matches != 1 else ''}, {elapsed:.1f} s")
    print(f"  rounds completed   {total.completed}")
    print(f"  kills              {total.kills}")
    print(f"  takeovers          {total.takeovers}")
    print(f"  rejoins            {total.rejoins}")
    print(f"  audit failures     {total.audit_failures}")
    print(f"  lost log entries   {total.lost}")
    ok = (total.audit_failures == 0 and total.lost == 0 and total.completed >= rounds
          and not total.stalled)
    print("  verdict            " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, nargs=2, default=(4, 10),
                        metavar=("MIN", "MAX"), help="moves between kills")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    return soak(nodes=args.nodes, rounds=args.rounds, seed=args.seed,
                every=tuple(args.every), down_s=(0.2, 2.0), timeout_s=args.timeout)


if __name__ == "__main__":
    sys.exit(main())
