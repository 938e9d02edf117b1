"""Bots only ever choose legal actions: every personality, every ruleset, 2..7 players."""

from __future__ import annotations

import random

import pytest
from bots_harness import RULESETS, decisions

from p2p8s.bots import REGULARS, get_bot, hint
from p2p8s.bots.base import Bot
from p2p8s.bots.expert import ExpertBot
from p2p8s.cli.words import PLAIN


def _bots(players: int, offset: int) -> list[Bot]:
    names = [*REGULARS, "random"]
    return [get_bot(names[(offset + s) % len(names)]) for s in range(players)]


@pytest.mark.parametrize("rules_name", sorted(RULESETS))
def test_regulars_choose_legal_actions(rules_name: str) -> None:
    rules = RULESETS[rules_name]
    count = 0
    for players in range(2, 8):
        for seed in range(3):
            for _, _, legal, action in decisions(rules, _bots(players, seed), seed):
                assert action in legal
                count += 1
    assert count > 100


@pytest.mark.parametrize("rules_name", sorted(RULESETS))
def test_expert_and_hint_choose_legal_actions(rules_name: str) -> None:
    rules = RULESETS[rules_name]
    expert = ExpertBot(playouts=24)
    rng = random.Random(5)
    for players in (2, 4, 7):
        bots = _bots(players, players)
        bots[0] = expert
        for rnd, view, legal, action in decisions(rules, bots, players):
            assert action in legal
            if rnd.turn == 0 and len(legal) > 1 and rng.random() < 0.3:
                h = hint(view, legal, rng, playouts=16)
                assert h.action in legal
                reason = PLAIN.say(h.reason.code, **h.reason.params)
                assert reason.strip() and "\n" not in reason
