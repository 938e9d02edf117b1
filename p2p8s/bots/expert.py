"""The expert: determinized Monte Carlo search over the legal moves.

For each of ``determinizations`` samples the expert deals the unseen cards consistently
with what it has seen (:func:`~p2p8s.bots.determinize.determinize`: known voids from
draws and passes, suits declared with an 8), then plays every candidate move in that
same world followed by a fast playout (:func:`p2p8s.playout.playout_result`, greedy
policy). Common random numbers: all candidates share the deal and the playout seed,
so their difference has little noise. The candidate with
the best mean utility is played. Utility of a round, from the expert's seat:

* table rules (R-PTS-TABLE): mean points of the others minus its own;
* classic (R-PTS-CLASSIC): its own points minus the others' mean;
* countdown (R-COUNTDOWN): 1 for going out, else 0.

Candidates are the legal moves ranked by the card counter's heuristic (``Max``), the
best ``max_candidates`` kept. The budget is a playout count, never the clock:
``determinizations * candidates <= playouts``. Pure and deterministic given ``rng``.
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


def utility(view: View, points: Sequence[int], winner: int | None = None) -> float:
    """The expert's value of a finished round's ``points`` (see the module docstring)."""
    seat = view.seat
    if view.rules.countdown:
        return 1.0 if winner == seat else 0.0
    others = sum(points) - points[seat]
    mean = others / (view.players - 1)
    if view.rules.action_cards:
        return mean - points[seat]
    return points[seat] - mean


class ExpertBot:
    """Determinized Monte Carlo search; ``playouts`` bounds the work per move."""

    def __init__(self, *, playouts: int = 1000, max_candidates: int = 8,
                 name: str = "Expert") -> None:
        if playouts < 1 or max_candidates < 1:
            raise ValueError("playouts and max_candidates must be positive")
        self.name = name
        self.playouts = playouts
        self.max_candidates = max_candidates
        self._ranker = Regular(MAX)

    def rank(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """Legal moves best first by the heuristic, at most ``max_candidates``."""
        scores = self._ranker.scores(view, legal)
        order = sorted(range(len(legal)), key=lambda i: -scores[i])
        return [legal[i] for i in order[:self.max_candidates]]

    def evaluate(self, view: View, legal: Sequence[Action],
                 rng: random.Random) -> list[tuple[Action, float]]:
        """Candidates with their mean utility, best first (ties: heuristic order)."""
        cands = self.rank(view, legal)
        if len(cands) == 1:
            return [(cands[0], 0.0)]
        know = read_table(view)
        sums = [0.0] * len(cands)
        rounds = max(1, self.playouts // len(cands))
        for _ in range(rounds):
            world = determinize(view, rng, know)
            seed = rng.getrandbits(64)
            for i, action in enumerate(cands):
                r = world.copy(log=False)
                r.apply(action)
                out = playout_result(r, random.Random(seed), Policy.GREEDY)
                sums[i] += utility(view, out.points, out.winner)
        ranked = sorted(range(len(cands)), key=lambda i: (-sums[i], i))
        return [(cands[i], sums[i] / rounds) for i in ranked]

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        """The candidate with the best mean utility; ``legal`` must be non-empty."""
        if len(legal) == 1:
            return legal[0]
        return self.evaluate(view, legal, rng)[0][0]

