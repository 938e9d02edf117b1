"""The expert: determinized Monte Carlo search over the legal moves.

The expert samples worlds: it deals the unseen cards consistently with what it has seen
(:func:`~p2p8s.bots.determinize.determinize`: known voids from draws and passes, suits
declared with an 8), then plays every surviving candidate move in that same world
followed by a fast playout (:func:`p2p8s.playout.playout_result`, by default the
greedy policy — in 150-match tests against Karl, Hanna and Max it beat the
regular-like ``SMART`` policy — with its step cap so a cycling world cannot hang a move
or a hint). Common random numbers:
all candidates share the world and the playout's random stream, so their difference
has little noise. The budget is spent by successive halving: ``ceil(log2(k))`` phases
of equal budget for ``k`` candidates, each phase on fresh worlds, dropping the worse
half after each phase, so the last two candidates are compared on the most worlds
(with 8 candidates and 1,000 playouts: 41, 83 and 166 worlds per phase, 290 for the
final pair instead of 125 for all eight evenly). The candidate with the best mean
utility over all its worlds is played. Utility of a round, from the expert's seat:

* table rules (R-PTS-TABLE): mean points of the others minus its own; in a match
  (``view.totals`` and ``view.target`` set), a round after which some total reaches the
  target ends the match (R-WIN-TABLE), so it adds :data:`MATCH_BONUS` if the expert's
  new total is then strictly the lowest and subtracts it if another total is lower;
* classic and wild cards (R-PTS-CLASSIC, R-WC-SCORE): its own points minus the
  others' mean;
* countdown (R-COUNTDOWN): 1 for going out, else 0.

Candidates are the legal moves ranked by the card counter's heuristic (``Max``), the
best ``max_candidates`` kept. The budget is a playout count, never the clock: at most
``playouts`` playouts (at least one world per phase, so tiny budgets round up to
``2 * max_candidates + 2``), each at most :data:`p2p8s.playout.MAX_DECISIONS` actions.
Pure and deterministic given ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2p8s.bots.base import View
from p2p8s.bots.determinize import determinize
from p2p8s.bots.knowledge import read_table
from p2p8s.bots.personalities import MAX, Regular
from p2p8s.engine import Action
from p2p8s.playout import Policy, playout_result
from p2p8s.ruletable import Scoring

#: Table rules, match-aware (R-WIN-TABLE): utility added for a round that ends the match
#: with the expert's total strictly lowest (subtracted when another total is lower).
MATCH_BONUS = 60.0


def utility(view: View, points: Sequence[int], winner: int | None = None) -> float:
    """The expert's value of a finished round's ``points`` (see the module docstring)."""
    seat = view.seat
    if view.rules.countdown:
        return 1.0 if winner == seat else 0.0
    n = view.players
    others = sum(points) - points[seat]
    mean = others / (n - 1)
    if view.rules.rule_table.scoring is Scoring.COLLECT:
        return points[seat] - mean
    value = mean - points[seat]
    totals = view.totals
    if view.target and len(totals) == n:
        own = totals[seat] + points[seat]
        best = min(totals[s] + points[s] for s in range(n) if s != seat)
        if max(t + p for t, p in zip(totals, points, strict=True)) >= view.target:
            if own < best:
                value += MATCH_BONUS
            elif own > best:
                value -= MATCH_BONUS
    return value


class ExpertBot:
    """Determinized Monte Carlo search; ``playouts`` bounds the work per move."""

    def __init__(self, *, playouts: int = 1500, max_candidates: int = 8,
                 name: str = "Expert", policy: Policy = Policy.GREEDY) -> None:
        if playouts < 1 or max_candidates < 1:
            raise ValueError("playouts and max_candidates must be positive")
        self.name = name
        self.playouts = playouts
        self.max_candidates = max_candidates
        self.policy = policy
        self._ranker = Regular(MAX)

    def rank(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Legal moves best first by the heuristic, at most ``max_candidates``."""
        scores = self._ranker.scores(view, legal)
        order = sorted(range(len(legal)), key=lambda i: -scores[i])
        return [legal[i] for i in order[:self.max_candidates]]

    def evaluate(self, view: View, legal: Sequence[Action],
                 rng: random.Random) -> list[tuple[Action, float]]:
        """Candidates with their mean utility, best first.

        Successive halving: the budget is split evenly over ``ceil(log2(k))`` phases
        for ``k`` candidates; in each phase every surviving candidate is played in the
        same fresh worlds (common random numbers), then the worse half (by the mean
        over all the worlds it has seen) is dropped. The survivors of later phases come
        first, each group by its mean (ties: heuristic order).
        """
        cands = self.rank(view, legal)
        k = len(cands)
        if k == 1:
            return [(cands[0], 0.0)]
        know = read_table(view)
        sums = [0.0] * k
        seen = [0] * k
        alive = list(range(k))
        dropped: list[list[int]] = []
        phases = max(1, (k - 1).bit_length())
        per_phase = self.playouts / phases
        while True:
            worlds = max(1, int(per_phase / len(alive)))
            for _ in range(worlds):
                world = determinize(view, rng, know)
                prng = random.Random(rng.getrandbits(64))
                state = prng.getstate()
                for i in alive:
                    r = world.copy(log=False)
                    r.apply(cands[i])
                    prng.setstate(state)
                    out = playout_result(r, prng, self.policy)
                    sums[i] += utility(view, out.points, out.winner)
            for i in alive:
                seen[i] += worlds
            alive.sort(key=lambda i: (-sums[i] / seen[i], i))
            if len(alive) <= 2 and len(dropped) + 1 >= phases:
                break
            keep = (len(alive) + 1) // 2
            dropped.append(alive[keep:])
            alive = alive[:keep]
            if len(alive) == 1:
                break
        order = list(alive)
        for group in reversed(dropped):
            order += sorted(group, key=lambda i: (-sums[i] / seen[i], i))
        return [(cands[i], sums[i] / seen[i]) for i in order]

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """The candidate with the best mean utility; ``legal`` must be non-empty."""
        if len(legal) == 1:
            return legal[0]
        return self.evaluate(view, legal, rng)[0][0]
