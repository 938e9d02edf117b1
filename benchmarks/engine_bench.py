"""Engine benchmark (issue #2, item 6): complete rounds per second, decisions per second.

Plays complete rounds, table rules (action cards on, the other options at their
defaults), 2 and 4 players, with the policy "play a random legal card if you have one
(an 8 declares a random suit), otherwise draw, otherwise pass" (facing a penalty: a
random 2, else take it), through

* the fast path (:func:`p2p8s.playout.bench_round`),
* the full engine (:meth:`Round.legal_actions` + :meth:`Round.apply`), for reference,
* OpenSpiel's ``crazy_eights`` (``use_special_cards=true``, other parameters at their
  defaults) with the same policy, if ``pyspiel`` is importable
  (``pip install 'p2p8s[bench]'`` or ``pip install open-spiel``),

and the same for every other preset (classic, countdown, and through
:mod:`p2p8s.playout_house` wildcards and zimbabwe, RULES.md §11; ``--presets``), and
prints rounds/s, decisions/s and the ratio fast path (table rules) / OpenSpiel in
decisions/s.
A decision is one applied action: play, draw, pass or take for p2p8s; one non-chance
``apply_action`` (a play, a draw, a pass or a suit nomination) for OpenSpiel. Every
measurement includes dealing: a fresh shuffled deck (``random.Random.shuffle``) per
p2p8s round, OpenSpiel's chance nodes per OpenSpiel round.

Run: ``python benchmarks/engine_bench.py [--seconds 2] [--players 2 4] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from p2p8s.cards import Card, Suit, decks_for, standard_deck
from p2p8s.cli.words.rules import describe_rules
from p2p8s.engine import DRAW, PASS, TAKE, Action, OrderedDeck, Play, Round
from p2p8s.playout import Policy, bench_round
from p2p8s.rules import PRESET_NAMES, Ruleset

RULES = Ruleset()  # table rules: action cards on, multi_play on, draw_limit 3

Runner = Callable[[random.Random, int], int]  # (rng, round number) -> decisions


def fast_runner(players: int, rules: Ruleset = RULES) -> Runner:
    """One round on the fast path per call."""
    deck = [int(c) for c in standard_deck(decks_for(players), jokers=rules.rule_table.jokers)]

    def run(rng: random.Random, i: int) -> int:
        rng.shuffle(deck)
        return bench_round(rules, players, i % players, deck, rng, Policy.RANDOM)[0]

    return run


def engine_choose(r: Round, rng: random.Random) -> Action:
    """The benchmark policy on the engine's legal actions (single cards only)."""
    legal = r.legal_actions()
    firsts = sorted({a.cards[0] for a in legal if isinstance(a, Play)})
    if firsts:
        c = firsts[int(rng.random() * len(firsts))] if len(firsts) > 1 else firsts[0]
        if r.rules.preset != "table":  # a suit or a declared choice (RULES.md §11)
            ones = [a for a in legal if isinstance(a, Play) and a.cards == (c,)]
            return ones[int(rng.random() * len(ones))]
        hand = r.hands[r.turn]
        if c.rank == r.wild[r.turn] and len(hand) > 1:
            return Play((c,), Suit(int(rng.random() * 4)))
        return Play((c,))
    if r.pending_draw:
        return TAKE
    return DRAW if DRAW in legal else PASS


def engine_runner(players: int, rules: Ruleset = RULES) -> Runner:
    """One round through the full engine per call."""
    deck = standard_deck(decks_for(players), jokers=rules.rule_table.jokers)

    def run(rng: random.Random, i: int) -> int:
        rng.shuffle(deck)

        def reshuffle(cards: Sequence[Card]) -> list[Card]:
            new = list(cards)
            rng.shuffle(new)
            return new

        r = Round.deal(rules, players=players, dealer=i % players,
                       deck=OrderedDeck(deck, reshuffle))
        n = 0
        while r.ended_by is None and n < 5000:
            r.apply(engine_choose(r, rng))
            n += 1
        return n

    return run


def openspiel_runner(pyspiel: Any, players: int) -> Runner:
    """One OpenSpiel crazy_eights round per call, the same policy."""
    game = pyspiel.load_game("crazy_eights", {"players": players, "use_special_cards": True})
    play_ids = 52  # actions 0..51 play a card, 52 draw, 53 pass, 54..57 nominate a suit

    def run(rng: random.Random, i: int) -> int:
        choice = rng.choice
        s = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(choice(s.chance_outcomes())[0])
                continue
            legal = s.legal_actions()
            plays = [a for a in legal if a < play_ids]
            if plays:
                a = choice(plays)
            elif legal[0] >= 54:
                a = choice(legal)  # nominate a random suit
            else:
                a = legal[0]  # draw if allowed, else pass
            s.apply_action(a)
            n += 1
        return n

    return run


class Tally:
    """Rounds, decisions and seconds measured for one runner."""

    def __init__(self) -> None:
        self.rounds = 0
        self.decisions = 0
        self.seconds = 0.0

    def figures(self) -> tuple[float, float, float]:
        """(rounds/s, decisions/s, decisions per round)."""
        return (self.rounds / self.seconds, self.decisions / self.seconds,
                self.decisions / self.rounds)


def measure(run: Runner, seconds: float, rng: random.Random, tally: Tally) -> None:
    """Run whole rounds for about ``seconds`` and add them to ``tally``."""
    rounds = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            decisions += run(rng, tally.rounds + rounds)
            rounds += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    tally.rounds += rounds
    tally.decisions += decisions
    tally.seconds += now - start


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark and print its table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="seconds per engine and player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slices", type=int, default=4,
                    help="alternate the engines this many times per measurement")
    ap.add_argument("--no-engine", action="store_true", help="skip the full engine")
    ap.add_argument("--presets", nargs="*", default=list(PRESET_NAMES),
                    help="presets measured beside table rules (RULES.md §11)")
    args = ap.parse_args(argv)
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        pyspiel = None

    print(f"p2p8s engine benchmark: {describe_rules(RULES)}; policy: a random playable card "
          "(random suit after an 8), else draw, else pass; {:.1f} s per line".format(
              args.seconds))
    print(f"{'players':>7}  {'engine':<24} {'rounds/s':>10} {'decisions/s':>12} "
          f"{'decisions/round':>15}")
    ratios: list[str] = []
    for players in args.players:
        runs: list[tuple[str, Runner]] = [("p2p8s fast path", fast_runner(players))]
        if not args.no_engine:
            runs.append(("p2p8s full engine", engine_runner(players)))
        for name in args.presets:
            if name == "table":
                continue
            rules = Ruleset.for_preset(name)
            runs.append((f"fast path {name}", fast_runner(players, rules)))
            if not args.no_engine:
                runs.append((f"full engine {name}", engine_runner(players, rules)))
        if pyspiel is not None:
            runs.append(("OpenSpiel crazy_eights", openspiel_runner(pyspiel, players)))
        figures: dict[str, tuple[float, float, float]] = {}
        tallies = {name: Tally() for name, _ in runs}
        rngs = {name: random.Random(args.seed) for name, _ in runs}
        for name, run in runs:  # warm up
            for i in range(10):
                run(rngs[name], i)
        # interleave short slices so that a machine's changing load hits all alike
        for _ in range(args.slices):
            for name, run in runs:
                measure(run, args.seconds / args.slices, rngs[name], tallies[name])
        for name, _ in runs:
            rps, dps, dpr = figures[name] = tallies[name].figures()
            print(f"{players:>7}  {name:<24} {rps:>10,.0f} {dps:>12,.0f} {dpr:>15.1f}",
                  flush=True)
        if pyspiel is not None:
            ours, theirs = figures["p2p8s fast path"], figures["OpenSpiel crazy_eights"]
            ratios.append(f"{players} players {ours[1] / theirs[1]:.2f} "
                          f"(rounds/s: {ours[0] / theirs[0]:.2f})")
    if pyspiel is None:
        print("OpenSpiel: skipped (pyspiel is not importable); install it with "
              "pip install 'p2p8s[bench]'  (or: pip install open-spiel)")
    else:
        print("ratio fast path / OpenSpiel, decisions/s: " + ", ".join(ratios))


if __name__ == "__main__":
    main()
