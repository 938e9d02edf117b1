"""Hidden claims at the audit: a real round played with the rules engine on top of the
crypto sessions, then replayed with every card known (R-AUDIT, R-DRAW)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from p2p8s.cards import Card
from p2p8s.crypto.audit import check_claims
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.errors import CheatDetected, Fault
from p2p8s.crypto.harness import FakeNetwork, finish, new_table, start
from p2p8s.engine import Action, Draw, Play, Round
from p2p8s.rules import Ruleset, hand_size


class CryptoDeck:
    """The engine's Deck backed by the crypto sessions (an omniscient test driver).

    ``stock`` holds positions, top first. The deal is declared as one batched operation
    before the engine deals (:meth:`predeal`); later draws are one operation each.
    """

    def __init__(self, net: FakeNetwork) -> None:
        self.net = net
        self.stock: list[Position] = [(0, i) for i in range(net.sessions[0].config.deck_size)]
        self.discards: list[Position] = []  # face-up positions, oldest first
        self.epoch = 0
        self.opened: set[Position] = set()
        self.given = self.buried = self.refills = 0

    def __len__(self) -> int:
        return len(self.stock)

    def _run(self, items: Sequence[tuple[Position, int | None]]) -> None:
        self.net.call_all(lambda s: s.deal(items))
        self.net.roundtrip_until_done()

    def predeal(self, rules: Ruleset, players: int, dealer: int) -> None:
        size = hand_size(rules, players)
        self._run([((0, i), (dealer + 1 + i) % players) for i in range(size * players)])

    def _card(self, p: Position, seat: int) -> Card:
        k = self.net.sessions[seat].known_card(p)
        assert k is not None
        return card_face(k, self.net.sessions[seat].config.deck_size)

    def draw(self, seat: int | None) -> Card | None:
        p = self.stock.pop(0)
        if seat is None:
            self._run([(p, None)])
            self.discards.append(p)
            self.opened.add(p)
            return self._card(p, 0)
        if p in self.opened:  # a buried starter, face up: no crypto needed
            self.net.call_all(lambda s: s.give(p, seat))
            self.given += 1
        elif self.net.sessions[seat].known_card(p) is None:
            self._run([(p, seat)])
        return self._card(p, seat)

    def bury(self, card: Card, index: int) -> None:
        self.stock.insert(index, self.discards.pop())
        self.buried += 1

    def refill(self, cards: Sequence[Card]) -> None:
        old, self.discards = self.discards[:-1], self.discards[-1:]
        assert [self._card(p, 0) for p in old] == list(cards)
        self.net.call_all(lambda s: s.reshuffle(old))
        self.net.roundtrip_until_done()
        self.epoch += 1
        self.refills += 1
        self.stock = [(self.epoch, i) for i in range(len(old))]

    def copy(self) -> CryptoDeck:
        raise NotImplementedError


def play_round(
    rules: Ruleset, players: int, *, cheat_draw: bool = False, max_turns: int = 200,
    seed: bytes = b"claims",
) -> tuple[FakeNetwork, list[tuple[int, Action]], Round, CryptoDeck]:
    """Play a round: each seat plays its first legal play, else draws, else passes.

    With ``cheat_draw`` the engine runs with draw_when_playable on and seat 1 draws once
    while holding a playable card — a claim its peers cannot check until the audit.
    """
    net = new_table(players, seed=seed)
    start(net)
    deck = CryptoDeck(net)
    engine_rules = replace(rules, draw_when_playable=True) if cheat_draw else rules
    deck.predeal(rules, players, 0)
    rnd = Round.deal(engine_rules, players=players, dealer=0, deck=deck)
    actions: list[tuple[int, Action]] = []
    cheated = False
    for _ in range(max_turns):
        if rnd.over:
            break
        seat = rnd.turn
        legal = rnd.legal_actions()
        plays = [a for a in legal if isinstance(a, Play)]
        if cheat_draw and not cheated and seat == 1 and plays and Draw() in legal:
            action: Action = Draw()
            cheated = True
        else:
            action = plays[0] if plays else legal[0]
        if isinstance(action, Play):
            hand = net.sessions[seat].hand()
            chosen: list[Position] = []
            for c in action.cards:
                p = next(p for p, k in sorted(hand.items())
                         if card_face(k, net.sessions[seat].config.deck_size) == c
                         and p not in chosen)
                chosen.append(p)
            net.call(seat, lambda s, chosen=chosen: s.play(chosen))
            net.roundtrip_until_done()
            deck.discards.extend(chosen)
        rnd.apply(action)
        actions.append((seat, action))
    assert not cheat_draw or cheated
    return net, actions, rnd, deck


@pytest.mark.parametrize(
    ("players", "seed", "buries", "reshuffles"),
    [(2, b"f", 4, 1), (3, b"b", 0, 5)],  # seeds picked to bury starters and reshuffle
)
def test_an_honest_round_replays_through_the_engine(
    players: int, seed: bytes, buries: int, reshuffles: int
) -> None:
    rules = Ruleset(draw_limit=0)
    net, actions, rnd, deck = play_round(rules, players, seed=seed, max_turns=400)
    assert (deck.buried, deck.given, deck.refills) == (buries, buries, reshuffles)
    report = finish(net)[0]
    replay = check_claims(report, rules, players=players, dealer=0, actions=actions)
    assert rnd.over and replay.ended_by == rnd.ended_by and replay.winner == rnd.winner
    assert replay.hands == rnd.hands and replay.discard == rnd.discard


def test_drawing_while_holding_a_playable_card_is_named_at_the_audit() -> None:
    rules = Ruleset(draw_when_playable=False)
    net, actions, _, _ = play_round(rules, 3, cheat_draw=True)
    report = finish(net)[0]
    with pytest.raises(CheatDetected) as info:
        check_claims(report, rules, players=3, dealer=0, actions=actions)
    assert (info.value.seat, info.value.fault) == (1, Fault.ILLEGAL_CLAIM)
    # the same log is fine under the rules it was played with
    check_claims(report, Ruleset(draw_when_playable=True), players=3, dealer=0,
                 actions=actions)


def test_an_action_logged_for_the_wrong_seat_is_named() -> None:
    rules = Ruleset()
    net, actions, _, _ = play_round(rules, 2, max_turns=4)
    report = finish(net)[0]
    seat, action = actions[0]
    with pytest.raises(CheatDetected) as info:
        check_claims(report, rules, players=2, dealer=0, actions=[(1 - seat, action)])
    assert info.value.seat == 1 - seat
