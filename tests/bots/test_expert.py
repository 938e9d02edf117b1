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


def test_utility_is_match_aware_under_table_rules() -> None:
    import dataclasses

    view = _positions()[0][0]
    assert view.players == 4 and view.seat in range(4)
    s = view.seat
    pts = [10, 10, 10, 10]
    pts[s] = 0
    # no match: the others' mean minus the own points
    base = dataclasses.replace(view, totals=(), target=0)
    assert expert_mod.utility(base, pts) == 10.0
    # the match goes on: no bonus
    calm = dataclasses.replace(view, totals=(50, 50, 50, 50), target=200)
    assert expert_mod.utility(calm, pts) == 10.0
    # someone reaches the target and the expert's total is the lowest: it wins the match
    ends = [150, 150, 190, 190]
    ends[s], ends[(s + 2) % 4] = 120, 195
    won = dataclasses.replace(view, totals=tuple(ends), target=200)
    assert expert_mod.utility(won, pts) == 10.0 + expert_mod.MATCH_BONUS
    # ... and when another total is lower, it loses it
    ends[(s + 1) % 4] = 100
    lost = dataclasses.replace(view, totals=tuple(ends), target=200)
    assert expert_mod.utility(lost, pts) == 10.0 - expert_mod.MATCH_BONUS
    # a shared lowest total (120 + 0 and 110 + 10): another round, no bonus either way
    ends[(s + 1) % 4] = 110
    tied = dataclasses.replace(view, totals=tuple(ends), target=200)
    assert expert_mod.utility(tied, pts) == 10.0
    # classic and countdown ignore the match
    assert expert_mod.utility(dataclasses.replace(won, rules=Ruleset.classic()), pts) == -10.0


def test_the_expert_plays_out_greedily_by_default_and_smart_on_request() -> None:
    assert ExpertBot().policy == p2p8s.playout.Policy.GREEDY
    view, legal = _positions()[0]
    greedy = ExpertBot(playouts=32, policy=p2p8s.playout.Policy.SMART)
    assert greedy.choose(view, legal, random.Random(1)) in legal
