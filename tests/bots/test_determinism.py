"""Bots are pure: the same view, legal actions and rng seed give the same choice."""

from __future__ import annotations

import random

from bots_harness import decisions

from p2p8s.bots import REGULARS, get_bot, hint
from p2p8s.bots.arena import play_match
from p2p8s.bots.expert import ExpertBot
from p2p8s.rules import Ruleset


def test_every_bot_repeats_its_choice_for_the_same_seed() -> None:
    bots = [get_bot(n) for n in (*REGULARS, "random")] + [ExpertBot(playouts=32)]
    table = [get_bot(n) for n in REGULARS]
    checked = 0
    for _, view, legal, _ in decisions(Ruleset(), table, 3):
        if len(legal) < 2:
            continue
        for bot in bots:
            a = bot.choose(view, legal, random.Random(99))
            b = bot.choose(view, legal, random.Random(99))
            assert a == b
        h1 = hint(view, legal, random.Random(4), playouts=16)
        h2 = hint(view, legal, random.Random(4), playouts=16)
        assert h1 == h2
        checked += 1
    assert checked > 5


def test_a_match_is_a_function_of_its_seed() -> None:
    names = ["Karl", "Max", "Vera"]
    a = play_match(Ruleset(), [get_bot(n) for n in names], 11)
    b = play_match(Ruleset(), [get_bot(n) for n in names], 11)
    assert a == b
    c = play_match(Ruleset(), [get_bot(n) for n in names], 12)
    assert c.rounds != a.rounds
