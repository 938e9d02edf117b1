"""R-ZW-DECK at a table: the zimbabwe preset deals 54 (108) cards, jokers included,
through the mental-poker deck; every node agrees and the audit passes."""

from __future__ import annotations

from collections import Counter

import pytest

from p2p8s.cards import decks_for, standard_deck
from p2p8s.rules import Ruleset
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


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


def _signed_zimbabwe(seed: bytes, *, target: int) -> TableNet:
    """A finished zimbabwe match of 3 (seat 1 a computer) with signed frames, no fault."""
    keys = make_keys(3)
    rules = Ruleset.for_preset("zimbabwe")
    net = TableNet(make_config(3, rules=rules, computers=(1,), keys=keys, target=target),
                   seed=seed, keys=keys)
    net.start()
    net.run()
    assert net.faults() == {}
    return net


def test_the_lucky_card_is_turned_for_everyone_in_each_outcome() -> None:
    """R-ZW-LUCKY at a table: every node opens the stock's top; an ace blocks the
    penalty, a 2 adds to it and passes it on, any other card is taken with the penalty
    (hidden draws to that seat) — the same on every node, and the signed logs audit."""
    net = _signed_zimbabwe(b"L85", target=60)  # a seed with an ace, a 2 and a reshuffle
    seen = {s: [a.event for a in net.of(s, tev.Applied)] for s in net.humans}
    public = {s: [(e.seat, e.action, e.lucky, e.lucky_played, e.blocked, e.penalty,
                   e.drawn[:1] if e.lucky else (), len(e.drawn), e.next_turn) for e in v]
              for s, v in seen.items()}
    assert all(v == public[0] for v in public.values())  # the same turned cards everywhere
    lucky = [e for e in seen[0] if e.lucky is not None]
    blocked = [e for e in lucky if e.blocked]
    added = [e for e in lucky if e.lucky_played and not e.blocked]
    taken = [e for e in lucky if not e.lucky_played]
    assert [str(e.lucky) for e in blocked] == ["AD"] and [str(e.lucky) for e in added] == ["2D"]
    assert all(e.penalty == 0 and e.drawn == () for e in blocked)
    assert all(e.penalty >= 4 and e.drawn == () for e in added)  # 2 + the penalty before
    assert len(taken) == 5 and any(e.reshuffled for e in taken)  # R-RESHUFFLE first
    for e in taken:  # the lucky card first, face up, then the penalty, hidden to others
        assert e.drawn[0] == e.lucky and e.penalty == 0
    for s in net.humans:
        node = net.nodes[s]
        for e in seen[s]:
            if e.lucky is not None and not e.lucky_played:
                # the host's node runs the computer (seat 1): it sees its cards too
                sees = e.seat == s or (s == 0 and e.seat == 1)
                assert (None not in e.drawn) if sees else e.drawn[1:] == (None,) * (
                    len(e.drawn) - 1)
        report = verify(net.frames[s])
        assert report.ok and report.finished and all(r.ok for r in report.rounds)
        assert [r.points for r in report.rounds] == [r.points for r in node.match.results]
    assert {e.seat for e in taken} == {0, 1, 2}
    results = net.nodes[0].match.results
    assert len(results) == 4 and all(r.loser is not None for r in results)  # R-ZW-SCORE


def test_the_round_end_draws_come_from_the_audit_the_same_on_every_node() -> None:
    """R-ZW-OUT / R-ZW-SCORE at a table: the cards drawn when the round ends (a player in
    the air here: seat 2) are drawn by the audit's replay, every card known: every node has the
    same round end, the same loser, and the signed logs audit."""
    net = _signed_zimbabwe(b"E8", target=1)
    ends = []
    for s in net.humans:
        node = net.nodes[s]
        rnd = node.round
        assert rnd is not None and None not in [c for h in rnd.hands for c in h]
        ends.append((rnd.log[-1].end_draws, rnd.loser, node.match.results[0]))
        live = net.of(s, tev.Applied)[-1].event
        assert live.end_draws == () and live.loser is None  # not guessed from hidden hands
        report = verify(net.frames[s])
        assert report.ok and report.finished and all(r.ok for r in report.rounds)
    assert all(e == ends[0] for e in ends)
    draws, loser, result = ends[0]
    assert [s for s, _ in draws] == [2] and loser == result.loser == 1
    assert str(draws[0][1]) in result.hands[2]  # the card drawn is in the open hand
