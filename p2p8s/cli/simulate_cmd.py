"""``p2p8s simulate``: a tournament of full matches between computer players.

Every match is :func:`p2p8s.bots.arena.play_match` seeded by ``(seed, game number)``:
the deck orders and the first dealer come from that seed (R-DEALER), so a tournament
is reproducible and does not depend on ``--jobs``. Seats rotate: game ``g`` seats the
bot list rotated by ``g`` places. Per bot it prints the match win rate with a 95%
Wilson interval, rounds won (went out, R-OUT) and mean points per round.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import click

from p2p8s.cli.errors import CliCode
from p2p8s.cli.house import house_choice, house_options
from p2p8s.cli.words.rules import describe_rules
from p2p8s.errors import MalformedInput
from p2p8s.rules import Ruleset


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One match, by bot index into the tournament's bot list."""

    winner: int
    rounds: int
    round_wins: tuple[int, ...]
    points: tuple[int, ...]


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (default 95%) for ``wins`` successes in ``n`` trials.

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(args: tuple[Ruleset, tuple[str, ...], int, int]) -> GameSummary:
    """Play game ``g`` of a tournament (runs in a worker process with ``--jobs``)."""
    from p2p8s.bots.arena import play_match
    from p2p8s.bots.registry import get_bot

    rules, names, seed, g = args
    n = len(names)
    order = [(i + g) % n for i in range(n)]  # seat s holds bot order[s]
    out = play_match(rules, [get_bot(names[i]) for i in order], f"{seed}/{g}")
    round_wins = [0] * n
    points = [0] * n
    for r in out.rounds:
        for s in range(n):
            points[order[s]] += r.points[s]
        if r.winner is not None:
            round_wins[order[r.winner]] += 1
    return GameSummary(order[out.winner], len(out.rounds), tuple(round_wins), tuple(points))


def _labels(names: Sequence[str]) -> list[str]:
    from p2p8s.bots.registry import get_bot

    labels: list[str] = []
    for name in names:
        base = get_bot(name).name  # raises MalformedInput for an unknown name
        label, k = base, 2
        while label in labels:
            label, k = f"{base}#{k}", k + 1
        labels.append(label)
    return labels


@click.command()
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(1),
              help="Matches to play.")
@click.option("--players", "-p", default=None, type=click.IntRange(2, 7),
              help="Seats per match (default: the number of bots).")
@click.option("--bots", "-b", default="expert,hanna,karl,max", show_default=True,
              help="Comma-separated bot names (regulars, expert, random); repeated "
                   "cyclically to fill the seats.")
@house_options()
@click.option("--countdown", is_flag=True, default=None,
              help="The countdown variant (same as --rules countdown).")
@click.option("--seed", "-s", default=1, show_default=True, type=int,
              help="Tournament seed: decks and dealers.")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(1),
              help="Worker processes.")
def simulate(games: int, players: int | None, bots: str, seed: int, jobs: int,
             **house: Any) -> None:
    """Play a tournament of full matches between computer players and print each
    bot's match win rate (95% Wilson interval), rounds won and points per round."""
    choice = house_choice(house)
    choice.ruleset()  # contradicting options are refused before anything else
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise MalformedInput(CliCode.NO_BOTS)
    n = players if players is not None else max(2, len(names))
    if len(names) > n:
        raise MalformedInput(CliCode.TOO_MANY_BOTS, bots=len(names), seats=n)
    names = [names[i % len(names)] for i in range(n)]
    labels = _labels(names)
    rules = choice.ruleset(players=n)
    tasks = [(rules, tuple(names), seed, g) for g in range(games)]
    results: list[GameSummary] = []
    # the description is printed once, as the report's first line (stdout); the bar
    # (stderr, terminals only) just shows progress
    with click.progressbar(length=games, label="playing", file=sys.stderr,
                           hidden=not sys.stderr.isatty()) as bar:
        if jobs == 1:
            for task in tasks:
                results.append(play_game(task))
                bar.update(1)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for res in pool.map(play_game, tasks, chunksize=1):
                    results.append(res)
                    bar.update(1)
    _report(labels, results, rules, n, seed)


def _plural(count: int, word: str, plural: str | None = None) -> str:
    """``1 match``, ``2 matches``."""
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _report(labels: Sequence[str], results: Sequence[GameSummary], rules: Ruleset,
            n: int, seed: int) -> None:
    games = len(results)
    rounds = sum(r.rounds for r in results)
    click.echo(f"{_plural(games, 'match', 'matches')} ({_plural(rounds, 'round')}), "
               f"{n} players, {describe_rules(rules)}, seed {seed}; chance = {100 / n:.1f}%")
    click.echo(f"{'bot':<10} {'wins':>5} {'win rate':>9} {'95% CI':>15} "
               f"{'rounds won':>11} {'pts/round':>10}")
    for i, label in enumerate(labels):
        wins = sum(1 for r in results if r.winner == i)
        lo, hi = wilson(wins, games)
        rw = sum(r.round_wins[i] for r in results)
        pts = sum(r.points[i] for r in results)
        click.echo(f"{label:<10} {wins:>5} {100 * wins / games:>8.1f}% "
                   f"{f'[{100 * lo:.1f}, {100 * hi:.1f}]':>15} "
                   f"{f'{rw} ({100 * rw / max(rounds, 1):.0f}%)':>11} "
                   f"{pts / max(rounds, 1):>10.1f}")


COMMANDS = [simulate]
