"""Time per move of every computer player (wall clock; run on the target machine).

    python benchmarks/bot_bench.py [--rounds 20] [--players 4]

Each bot in turn takes seat 0 of seeded 4-player rounds against the regulars; every
decision of seat 0 with more than one legal action is timed (``time.perf_counter``).
Budgets (issue #3): regulars <= 0.2 s, the expert <= 1 s per move, and a hint (the
expert's move plus its reason, :func:`p2p8s.bots.hint`) <= 1 s. The bots budget by
playout count, not by the clock; this script only measures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from p2p8s.bots import REGULARS, Bot, View, get_bot, hint, view_of
from p2p8s.cards import Card, decks_for, standard_deck
from p2p8s.cli.words.rules import describe_rules
from p2p8s.engine import Action, OrderedDeck
from p2p8s.match import Match
from p2p8s.rules import Ruleset


class _Shuffle:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, cards: Sequence[Card]) -> list[Card]:
        return self.rng.sample(list(cards), len(cards))


class _HintBot:
    """Plays the hint's move: times the whole hint path (search and explanation)."""

    name = "Hint"

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        return hint(view, legal, rng).action


def _bot(name: str) -> Bot:
    return _HintBot() if name == "hint" else get_bot(name)


def bench(name: str, rounds: int, players: int,
          rules: Ruleset) -> tuple[list[float], list[float]]:
    """Seconds per timed move of bot ``name`` in seat 0: wall clock and CPU time of
    this process (the CPU time does not grow when other processes load the machine)."""
    times: list[float] = []
    cpu: list[float] = []
    for seed in range(rounds):
        rng = random.Random(seed)
        cards = standard_deck(decks_for(players))
        rng.shuffle(cards)
        match = Match(rules, players=players, dealer=seed % players)
        rnd = match.start_round(OrderedDeck(cards, _Shuffle(rng)))
        bots = [_bot(name)] + [get_bot(REGULARS[(seed + s) % len(REGULARS)])
                                  for s in range(1, players)]
        rngs = [random.Random(seed * 7 + s) for s in range(players)]
        while not rnd.over:
            seat = rnd.turn
            legal = rnd.legal_actions()
            view = view_of(rnd, seat, match)
            t0, c0 = time.perf_counter(), time.process_time()
            action = bots[seat].choose(view, legal, rngs[seat])
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            if seat == 0 and len(legal) > 1:
                times.append(dt)
                cpu.append(dc)
            rnd.apply(action)
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--classic", action="store_true")
    args = parser.parse_args()
    rules = Ruleset.classic() if args.classic else Ruleset()
    print(f"{args.rounds} rounds, {args.players} players, {describe_rules(rules)}; "
          "moves with more than one legal action")
    print(f"{'bot':<8} {'moves':>6} {'mean ms':>9} {'p95 ms':>8} {'max ms':>8} "
          f"{'cpu mean':>9} {'cpu max':>8}  budget (wall max)")
    for name in (*REGULARS, "expert", "hint"):
        times, cpu = bench(name, args.rounds, args.players, rules)
        budget = 1.0 if name in ("expert", "hint") else 0.2
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else max(times)
        ok = "ok" if max(times) <= budget else "OVER"
        print(f"{_bot(name).name:<8} {len(times):>6} {1000 * statistics.fmean(times):>9.2f} "
              f"{1000 * p95:>8.2f} {1000 * max(times):>8.2f} "
              f"{1000 * statistics.fmean(cpu):>9.2f} {1000 * max(cpu):>8.2f}  "
              f"{budget:.1f} s {ok}")


if __name__ == "__main__":
    main()
