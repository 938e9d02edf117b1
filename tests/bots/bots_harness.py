"""Shared helpers for the bot tests: seeded rounds and the decisions in them."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from p2p8s.bots.base import Bot, View, view_of
from p2p8s.cards import decks_for, standard_deck
from p2p8s.engine import Action, OrderedDeck, Round
from p2p8s.match import Match
from p2p8s.rules import Ruleset, Variant

RULESETS: dict[str, Ruleset] = {
    "table": Ruleset(),
    "classic": Ruleset.classic(),
    "no-multi": Ruleset(multi_play=False),
    "unlimited-draw": Ruleset(draw_limit=0),
    "draw-1": Ruleset.classic(draw_limit=1),
    "draw-when-playable": Ruleset(draw_when_playable=True),
    "no-reshuffle": Ruleset(reshuffle=False),
    "countdown": Ruleset(variant=Variant.COUNTDOWN),
    "wildcards": Ruleset.for_preset("wildcards"),
    "wildcards-multi": Ruleset.for_preset("wildcards", multi_play=True, draw_limit=2),
    "zimbabwe": Ruleset.for_preset("zimbabwe"),
    "zimbabwe-no-reshuffle": Ruleset.for_preset("zimbabwe", reshuffle=False, hand_size=5),
}


def new_round(rules: Ruleset, players: int, seed: int) -> tuple[Round, Match, random.Random]:
    """A freshly dealt round of a new match, deck and dealer from ``seed``."""
    rng = random.Random(seed)
    cards = standard_deck(decks_for(players), jokers=rules.rule_table.jokers)
    rng.shuffle(cards)
    match = Match(rules, players=players, dealer=rng.randrange(players))

    def reshuffle(discards: Sequence[object]) -> list[object]:
        order = list(discards)
        rng.shuffle(order)
        return order

    rnd = match.start_round(OrderedDeck(cards, reshuffle))  # type: ignore[arg-type]
    return rnd, match, rng


def decisions(rules: Ruleset, bots: Sequence[Bot], seed: int,
              max_actions: int = 3000) -> Iterator[tuple[Round, View, list[Action], Action]]:
    """Play one round with ``bots`` (one per seat); yield every decision as
    ``(round before the action, view, legal, chosen)``; the chosen action is applied."""
    rnd, match, _ = new_round(rules, len(bots), seed)
    rngs = [random.Random(seed * 31 + s) for s in range(len(bots))]
    for _ in range(max_actions):
        if rnd.over:
            return
        seat = rnd.turn
        legal = rnd.legal_actions()
        view = view_of(rnd, seat, match)
        action = bots[seat].choose(view, legal, rngs[seat])
        yield rnd, view, legal, action
        rnd.apply(action)
