"""Speed of a friends' table on loopback (issue #5 §5): real processes, real sockets.

For 4 and 7 nodes (one process each, all on 127.0.0.1, every seat a person whose node
lets the computer play with ``--auto``), this measures

* **deal** — from the host's deal (the lobby closes) to the moment the last node has its
  hand (the table's ``RoundStarted``): the mesh, the round id, the keys, every shuffle
  and the batched deal;
* **move** — for every action, from the moment its author's node decided it (just before
  :meth:`Table.act`) to the moment the *last* node accepted it (its ``Applied`` event):
  median and p95, with plays and draws (a draw needs the other nodes' strips) apart.

Times are ``time.monotonic()``, which is one system-wide clock on Linux, so the
processes' timestamps compare directly. Goals: deal <= 1.0 s (4) and <= 3.0 s (7);
move p95 <= 50 ms. Run: ``python benchmarks/table_bench.py [--rounds R]``.

Beside the deal, the group operations one node spent on it (scalar multiplications,
variable and fixed base, and point additions; ``crypto_bench.counting``). Each node
also runs a probe on its event loop (a 1 ms sleep, :func:`_probe`) and reports its
**longest loop stall**: over the whole run, and overlapping a round end (from the
round's last move to its ``RoundOver``, where the audit runs). Every table size runs
twice in one go: *before*, the nodes handling game messages on the loop
(``runner.OFF_LOOP`` off), and *after*, in a worker thread (issue #13 §7). With
``P2P8S_BENCH_PROFILE=DIR`` each node process writes a cProfile of its deal to
``DIR/<n>.prof``.

``--bot-audit`` measures instead, in one process (in-memory nodes), the round end's
replay of the computer seats' bots (:mod:`p2p8s.table.botaudit`, issue #13): per round
and node, the time spent asking the bots again, and per computer move — with the
regulars, and with an ``Expert`` seat (the slowest bot).

Machine speed: as in ``crypto_bench.py``, the parent process measures µs per scalar
multiplication (the *calibration*) just before and after each table size, and after the
raw figures prints them again **scaled to the reference machine** (raw ×
:data:`REFERENCE_MUL_US` / calibration); goals are judged on both, each labelled. The
scaling is rougher here than for the crypto benchmark: besides the cryptography a move
costs socket and scheduling time, which does not follow the calibration exactly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from crypto_bench import (  # the one calibration and counter, beside this script
    REFERENCE_MUL_US,
    Counts,
    counting,
    mul_us,
)
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.bots.base import Bot, View
from p2p8s.bots.registry import get_bot
from p2p8s.engine import Action, Draw, Take
from p2p8s.net import runner
from p2p8s.net.lobby import LobbyView, Seating, host_lobby, join_lobby
from p2p8s.net.node import Node
from p2p8s.net.runner import Options, play_table
from p2p8s.rules import Ruleset
from p2p8s.table import Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.wire import Roster, SeatEntry

CODE = "BENCH1"
#: set to a directory: each node process profiles its deal (cProfile) into ``<n>.prof``
PROFILE_ENV = "P2P8S_BENCH_PROFILE"
#: set (to anything): the node handles game messages on the loop (``runner.OFF_LOOP``
#: off) — the "before" of the worker-thread change, measured in the same run
ON_LOOP_ENV = "P2P8S_BENCH_ON_LOOP"
#: the loop-stall probe's sleep (s): a stall is how much later than this it wakes
PROBE_S = 0.001
GOALS_DEAL_S = {4: 1.0, 7: 3.0}
GOAL_MOVE_P95_S = 0.050


class _Quiet(LobbyView):
    def table(self, roster: Roster) -> None: ...
    def sat_down(self, entry: SeatEntry) -> None: ...
    def left(self, entry: SeatEntry, reason: str) -> None: ...
    def dealing(self, roster: Roster) -> None: ...


class _TimedBot:
    """A regular that notes when it decided each action: ``(round, index) -> time``."""

    def __init__(self, inner: Bot, record: dict[str, Any]) -> None:
        self.name = inner.name
        self._inner = inner
        self._record = record

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        action = self._inner.choose(view, legal, rng)
        kind = "draw" if isinstance(action, Draw | Take) else "play"
        self._record["decided"].append([self._record["round"], len(view.log), kind,
                                        time.monotonic()])
        return action


class _Recorder:
    """A runner frontend that only notes times: round starts and every applied action."""

    def __init__(self, record: dict[str, Any], counts: Counts) -> None:
        self._r = record
        self._index = 0
        self._counts = counts

    def started(self, table: Table, config: TableConfig, **_: object) -> None:
        self._r["started"] = time.monotonic()

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        t = time.monotonic()
        for e in events:
            if isinstance(e, tev.RoundStarted):
                self._r["round"] = e.number
                self._r["dealt"].append([e.number, t])
                if e.number == 1:  # the group operations of the deal, this node
                    c = self._counts
                    self._r["deal_ops"] = [c.var, c.fixed, c.adds]
                if "profiler" in self._r:  # the deal only
                    profiler, where = self._r.pop("profiler")
                    profiler.disable()
                    profiler.dump_stats(where)
                self._index = 0
            elif isinstance(e, tev.Applied):
                self._r["applied"].append([self._r["round"], self._index, t])
                self._index += 1
            elif isinstance(e, tev.RoundOver):
                self._r["over"].append(t)
            elif isinstance(e, tev.Fault):
                self._r["faults"].append(e.message)

    def presence(self, *_: object, **__: object) -> None: ...
    def turn(self, table: Table, now: float) -> None: ...
    def warn(self, table: Table, seconds_left: float) -> None: ...
    def typed(self, table: Table, line: str, now: float) -> None: ...
    def finished(self, table: Table, why: str) -> None: ...


async def _probe(stalls: list[list[float]]) -> None:
    """Note every time the loop woke more than 2 ms late: ``[end, stall]`` (s)."""
    while True:
        t0 = time.monotonic()
        await asyncio.sleep(PROBE_S)
        t1 = time.monotonic()
        if t1 - t0 - PROBE_S > 0.002:
            stalls.append([t1, t1 - t0 - PROBE_S])


async def _node(role: str, seats: int, rounds: int, port_file: Path, out: Path) -> None:
    if os.environ.get(ON_LOOP_ENV):
        runner.OFF_LOOP = False
    with counting() as counts:
        await _node_counted(role, seats, rounds, port_file, out, counts)


async def _node_counted(role: str, seats: int, rounds: int, port_file: Path, out: Path,
                        counts: Counts) -> None:
    tid = b"benchtab"
    record: dict[str, Any] = {"round": 0, "decided": [], "applied": [], "dealt": [],
                              "faults": [], "over": [], "stalls": []}
    probe = asyncio.ensure_future(_probe(record["stalls"]))
    profile = os.environ.get(PROFILE_ENV)
    if profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
        record["profiler"] = (profiler, Path(profile) / f"{out.stem}.prof")
    name = f"{role}{random.randrange(1000)}"
    async with Node(identity=Ed25519PrivateKey.generate(), name=name[:32], code=CODE,
                    table=tid, host="127.0.0.1") as node:
        if role == "host":
            node.seat = 0
            seating = Seating(size=seats, rules=Ruleset.table().with_changes(target=100),
                              host=SeatEntry(seat=0, name=name, key=node.key,
                                             addrs=("127.0.0.1",), port=node.port))
            port_file.write_text(str(node.port))
            commands: asyncio.Queue[str] = asyncio.Queue()
            lobby = asyncio.ensure_future(host_lobby(node, seating, view=_Quiet(),
                                                     commands=commands))
            while len(seating.roster.seats) < seats:
                await asyncio.sleep(0.01)
            record["deal"] = time.monotonic()
            commands.put_nowait("deal")
            mesh = await lobby
        else:
            async def yes(roster: Roster) -> bool:
                return True
            mesh = await join_lobby(node, [("127.0.0.1", int(port_file.read_text()))],
                                    view=_Quiet(), confirm=yes)
        assert mesh is not None
        record["seat"] = mesh.seat
        bot = _TimedBot(get_bot("karl"), record)
        await play_table(mesh, _Recorder(record, counts),
                         options=Options(auto=bot, rounds=rounds, write_log=False))
    probe.cancel()
    out.write_text(json.dumps(record))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _stalls(record: dict[str, Any]) -> tuple[float, float]:
    """(longest loop stall of the node, longest one overlapping a round end — from the
    round's last applied move to its RoundOver, where the audit runs), in s."""
    ends = []
    for over in record["over"]:
        last = max((t for _, _, t in record["applied"] if t <= over), default=over)
        ends.append((last, over))
    worst = max((lag for _, lag in record["stalls"]), default=0.0)
    at_end = max((lag for end, lag in record["stalls"]
                  for a, b in ends if end - lag <= b and end >= a), default=0.0)
    return worst, at_end


def run(nodes: int, rounds: int, *, on_loop: bool = False) -> dict[str, Any]:
    """Play ``rounds`` rounds on ``nodes`` processes; returns the figures (``on_loop``:
    the nodes handle game messages on the loop, as before the worker thread)."""
    env = dict(os.environ, **({ON_LOOP_ENV: "1"} if on_loop else {}))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        port = d / "port"
        me = [sys.executable, __file__, "--node"]
        procs = [subprocess.Popen([*me, "host", str(nodes), str(rounds), str(port),
                                   str(d / "0.json")], env=env)]
        while not port.exists() or not port.read_text():
            time.sleep(0.01)
        for i in range(1, nodes):
            procs.append(subprocess.Popen([*me, "join", str(nodes), str(rounds), str(port),
                                           str(d / f"{i}.json")], env=env))
            time.sleep(0.05)  # in seat order
        for p in procs:
            if p.wait(300) != 0:
                raise SystemExit(f"a node failed (exit {p.returncode})")
        records = [json.loads((d / f"{i}.json").read_text()) for i in range(nodes)]
    faults = [f for r in records for f in r["faults"]]
    if faults:
        raise SystemExit(f"faults: {faults}")
    host = next(r for r in records if r["seat"] == 0)
    dealt = max(t for r in records for n, t in r["dealt"] if n == 1)
    deal_s = dealt - host["deal"]
    mesh_s = max(r["started"] for r in records) - host["deal"]
    accepted: dict[tuple[int, int], float] = {}
    for r in records:
        for rnd, idx, t in r["applied"]:
            accepted[(rnd, idx)] = max(accepted.get((rnd, idx), 0.0), t)
    lat: dict[str, list[float]] = {"play": [], "draw": []}
    for r in records:
        for rnd, idx, kind, t in r["decided"]:
            if (rnd, idx) in accepted:
                lat[kind].append(accepted[(rnd, idx)] - t)
    every = lat["play"] + lat["draw"]
    stalls = [_stalls(r) for r in records]
    ops = [r["deal_ops"] for r in records]
    return {"nodes": nodes, "deal_s": deal_s, "mesh_s": mesh_s, "moves": len(every),
            "stall_s": statistics.median(w for w, _ in stalls),
            "stall_max_s": max(w for w, _ in stalls),
            "end_stall_s": statistics.median(e for _, e in stalls),
            "end_stall_max_s": max(e for _, e in stalls),
            "deal_ops": Counts(*(sum(o[k] for o in ops) // len(ops) for k in range(3))),
            "median_s": statistics.median(every), "p95_s": _pct(every, 0.95),
            "play_p95_s": _pct(lat["play"], 0.95) if lat["play"] else 0.0,
            "draw_p95_s": _pct(lat["draw"], 0.95) if lat["draw"] else 0.0}


def bot_audit(rounds: int) -> None:
    """Print the round-end bot replay's cost (see the module docstring)."""
    from dataclasses import replace

    import p2p8s.table.roundend as roundend
    from p2p8s.table.harness import TableNet, make_config

    spent: list[list[float]] = []  # per round end: [seconds in the replay, moves replayed]
    real = roundend.checker

    def timed(moves: Any, number: int, match: Any) -> Any:
        before = real(moves, number, match)
        record = [0.0, 0.0]
        spent.append(record)

        def hook(index: int, rnd: Any) -> None:
            t0 = time.perf_counter()
            before(index, rnd)
            record[0] += time.perf_counter() - t0
            record[1] += index in moves
        return hook

    roundend.checker = timed  # type: ignore[assignment]
    try:
        for label, expert in (("regulars (Vera, Max)", False),
                              ("with Expert (not a table regular: the slowest bot)", True)):
            spent.clear()
            config = make_config(4, computers=(2, 3), target=10_000)
            if expert:
                seats = list(config.seats)
                seats[3] = replace(seats[3], name="Expert", computer="Expert")
                config = replace(config, seats=tuple(seats))
            net = TableNet(config, seed=b"bench/bots")
            net.start()
            while len(spent) < rounds * len(net.humans) and not net.faults():
                if not net.step():
                    break
            total = sum(r[0] for r in spent)
            moves = sum(r[1] for r in spent)
            print(f"bot replay at round end, 4 seats, 2 computer seats, {label}: "
                  f"{total / max(len(spent), 1) * 1e3:.1f} ms per round and node "
                  f"({moves / max(len(spent), 1):.0f} moves), "
                  f"{total / max(moves, 1) * 1e3:.2f} ms per move")
    finally:
        roundend.checker = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--bot-audit", action="store_true",
                        help="measure the round end's replay of the computer seats' bots")
    parser.add_argument("--nodes", type=int, nargs="*", default=[4, 7])
    parser.add_argument("--node", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.node:
        role, seats, rounds, port_file, out = args.node
        asyncio.run(_node(role, int(seats), int(rounds), Path(port_file), Path(out)))
        return
    if args.bot_audit:
        bot_audit(args.rounds)
        return
    print(f"p2p8s table on loopback, real processes, {args.rounds} round(s) each")
    print(f"calibration: {mul_us():.0f} µs per scalar multiplication right now; the "
          f"reference machine: {REFERENCE_MUL_US:.0f} µs on an idle core. Raw figures "
          "first,\nthen the same scaled to the reference machine (raw x reference/"
          "calibration, approximate); goals are judged on both.")
    for n in args.nodes:
        for label, on_loop in (("before: game messages handled on the loop", True),
                               ("after: in a worker thread (runner.OFF_LOOP)", False)):
            cal_before = mul_us()
            f = run(n, args.rounds, on_loop=on_loop)
            cal_after = mul_us()
            _report(f"{n} nodes, {label}", f, cal_before, cal_after)


def _report(title: str, f: dict[str, Any], cal_before: float, cal_after: float) -> None:
    """Print one run's figures, raw, then scaled."""
    n = f["nodes"]
    goal = GOALS_DEAL_S.get(n)
    ok = "ok" if goal is None or f["deal_s"] <= goal else "MISSED"
    goal_ms = goal * 1e3 if goal else 0.0
    print(f"{title}\n"
          f"         deal {f['deal_s'] * 1e3:7.1f} ms (goal <= {goal_ms:.0f} ms, {ok}); "
          f"of which connecting the mesh {f['mesh_s'] * 1e3:.1f} ms; "
          f"per node [{f['deal_ops']}]")
    ok = "ok" if f["p95_s"] <= GOAL_MOVE_P95_S else "MISSED"
    print(f"         move to acceptance on every node ({f['moves']} moves): median "
          f"{f['median_s'] * 1e3:5.1f} ms, p95 {f['p95_s'] * 1e3:5.1f} ms "
          f"(goal p95 <= {GOAL_MOVE_P95_S * 1e3:.0f} ms, {ok}); plays p95 "
          f"{f['play_p95_s'] * 1e3:.1f} ms, draws p95 {f['draw_p95_s'] * 1e3:.1f} ms")
    print(f"         longest loop stall per node: median {f['stall_s'] * 1e3:.1f} ms, "
          f"max {f['stall_max_s'] * 1e3:.1f} ms; at the round end (the audit): median "
          f"{f['end_stall_s'] * 1e3:.1f} ms, max {f['end_stall_max_s'] * 1e3:.1f} ms")
    _scaled(f, goal, cal_before, cal_after)


def _scaled(f: dict[str, Any], goal: float | None, cal_before: float,
            cal_after: float) -> None:
    """The raw figures ``f`` again, scaled to the reference machine (labelled as such)."""
    cal = (cal_before + cal_after) / 2
    k = REFERENCE_MUL_US / cal
    print(f"         raw figures above; calibration {cal_before:.0f} -> {cal_after:.0f} "
          f"µs/mul, scale factor {REFERENCE_MUL_US:.0f}/{cal:.0f} = {k:.2f}"
          + ("  (the speed changed during the run: rough)"
             if max(cal_before, cal_after) > 1.25 * min(cal_before, cal_after) else ""))
    deal = f["deal_s"] * k
    ok = "ok" if goal is None or deal <= goal else "MISSED"
    goal_ms = goal * 1e3 if goal else 0.0
    p95 = f["p95_s"] * k
    move_ok = "ok" if p95 <= GOAL_MOVE_P95_S else "MISSED"
    print(f"         scaled to reference: deal {deal * 1e3:7.1f} ms (goal <= {goal_ms:.0f} "
          f"ms, {ok}); move median {f['median_s'] * k * 1e3:5.1f} ms, p95 "
          f"{p95 * 1e3:5.1f} ms (goal p95 <= {GOAL_MOVE_P95_S * 1e3:.0f} ms, {move_ok})")


if __name__ == "__main__":
    main()
