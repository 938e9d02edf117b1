"""R-ZW-DECK at a table: the zimbabwe preset deals 54 (108) cards, jokers included,
through the mental-poker deck; every node agrees and the audit passes."""

from __future__ import annotations

from collections import Counter

import pytest

from p2p8s.cards import decks_for, standard_deck
from p2p8s.rules import Ruleset
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config


@pytest.mark.parametrize(("preset", "players", "size"), [
    ("table", 4, 52), ("wildcards", 7, 104), ("zimbabwe", 2, 54), ("zimbabwe", 5, 54),
    ("zimbabwe", 6, 108), ("zimbabwe", 7, 108),
])
def test_the_deck_size_follows_players_and_rules(preset: str, players: int, size: int) -> None:
    assert make_config(players, rules=Ruleset.for_preset(preset)).deck_size == size


@pytest.mark.parametrize(("players", "seed"), [(3, b"z3"), (6, b"z6")])
def test_a_zimbabwe_round_deals_the_jokers_and_audits(players: int, seed: bytes) -> None:
    rules = Ruleset.for_preset("zimbabwe")
    net = TableNet(make_config(players, rules=rules, computers=(2,), target=1), seed=seed)
    net.start()
    net.run()
    assert net.faults() == {}
    first = net.nodes[0]
    assert first.finished and first.failed is None
    overs = [net.of(s, tev.RoundOver) for s in net.humans]
    assert all(o == overs[0] for o in overs) and all(e.audit_ok for e in overs[0])
    rnd = first.round
    assert rnd is not None
    # R-ZW-DECK: every card of the 54/108-card deck is somewhere, each once per deck
    deck = standard_deck(decks_for(players), jokers=True)
    cards = [c for h in overs[0][0].hands for c in h] + list(rnd.discard)
    assert len(cards) + rnd.stock_size == len(deck)
    assert not Counter(str(c) for c in cards) - Counter(str(c) for c in deck)
    result = first.match.results[0]
    assert result.winner is not None and result.loser is not None  # R-ZW-SCORE
