"""The expert's search: successive halving within a playout budget, pure given the rng."""

from __future__ import annotations

import random

import pytest
from bots_harness import decisions

import p2p8s.bots.expert as expert_mod
import p2p8s.playout
from p2p8s.bots import REGULARS, View, get_bot
from p2p8s.bots.expert import ExpertBot
from p2p8s.engine import Action
from p2p8s.playout import Outcome
from p2p8s.rules import Ruleset


def _positions(min_legal: int = 2) -> list[tuple[View, list[Action]]]:
    table = [get_bot(n) for n in REGULARS]
    found: list[tuple[View, list[Action]]] = []
    for seed in range(3):
        for _, view, legal, _ in decisions(Ruleset(), table, seed):
            if len(legal) >= min_legal:
                found.append((view, legal))
    return found


def test_evaluate_ranks_every_candidate_once_and_choose_takes_the_first() -> None:
    bot = ExpertBot(playouts=64)
    checked = 0
    for view, legal in _positions():
        ranked = bot.evaluate(view, legal, random.Random(5))
        actions = [a for a, _ in ranked]
        assert len(actions) == min(len(legal), bot.max_candidates)
        assert len(set(actions)) == len(actions) and all(a in legal for a in actions)
        assert bot.choose(view, legal, random.Random(5)) == actions[0]
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("playouts", [1, 10, 100, 1000])
def test_the_playout_budget_is_respected(playouts: int, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    real = p2p8s.playout.playout_result

    def counting(*args: object, **kwargs: object) -> Outcome:
        calls[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(expert_mod, "playout_result", counting)
    bot = ExpertBot(playouts=playouts)
    for view, legal in _positions(3)[:6]:
        calls[0] = 0
        k = min(len(legal), bot.max_candidates)
        bot.evaluate(view, legal, random.Random(1))
        # each phase plays at least one world per surviving candidate
        assert calls[0] <= max(playouts, 2 * k + 2)
        assert calls[0] >= min(playouts, k) // 2


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError):
        ExpertBot(playouts=0)
    with pytest.raises(ValueError):
        ExpertBot(max_candidates=0)
