"""Measuring each personality's signature behaviour over seeded rounds (used by the
tests and printed by ``python tests/bots/signatures.py`` for the report)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from bots_harness import decisions

from p2p8s.bots import REGULARS, get_bot
from p2p8s.bots.knowledge import read_table
from p2p8s.engine import Play
from p2p8s.rules import Ruleset, card_value


@dataclass
class Tally:
    """Counts per bot name."""

    wild_plays: int = 0
    wild_last: int = 0
    wild_with_plain: int = 0
    early_value: int = 0
    early_cards: int = 0
    attack_chances: int = 0
    attacks: int = 0
    calm_chances: int = 0
    calm_actions: int = 0
    shed_chances: int = 0
    shed_max: int = 0
    void_chances: int = 0
    void_chosen: int = 0
    plays: dict[int, int] = field(default_factory=dict)


def _suit_after(play: Play) -> int:
    return int(play.suit) if play.suit is not None else play.cards[-1] // 13


def measure(rounds: int, players: int = 4, rules: Ruleset | None = None) -> dict[str, Tally]:
    """Play ``rounds`` rounds with the regulars rotating seats; tally signatures."""
    rules = rules or Ruleset()
    tallies: dict[str, Tally] = defaultdict(Tally)
    names = list(REGULARS)
    for seed in range(rounds):
        bots = [get_bot(names[(seed + s) % len(names)]) for s in range(players)]
        plays_by_seat = [0] * players
        for _rnd, view, legal, action in decisions(rules, bots, 10_000 + seed):
            t = tallies[bots[view.seat].name]
            seat = view.seat
            hand = view.hand
            wild = view.wild[seat]
            plays = [a for a in legal if isinstance(a, Play)]
            nxt = (seat + view.direction) % players
            if isinstance(action, Play):
                cards = action.cards
                if cards[0] % 13 + 1 == wild:
                    t.wild_plays += 1
                    t.wild_last += len(cards) == len(hand)
                    t.wild_with_plain += any(p.cards[0] % 13 + 1 != wild for p in plays)
                if plays_by_seat[seat] < 3 and cards[0] % 13 + 1 != wild:
                    t.early_value += sum(card_value(c, rules) for c in cards)
                    t.early_cards += len(cards)
                plays_by_seat[seat] += 1
            if view.pending_draw or not plays:
                continue
            action_plays = [p for p in plays if p.cards[-1] % 13 + 1 in (1, 2, 12)
                            and len(p.cards) < len(hand)]
            if rules.action_cards and action_plays:
                chose = action in action_plays
                if view.hand_sizes[nxt] <= 2:
                    t.attack_chances += 1
                    t.attacks += chose
                elif min(view.hand_sizes[s] for s in range(players) if s != seat) >= 4:
                    t.calm_chances += 1
                    t.calm_actions += chose
            plain = [p for p in plays if p.cards[0] % 13 + 1 != wild and len(p.cards) == 1
                     and len(hand) > 1]
            values = {card_value(p.cards[0], rules) for p in plain}
            if len(values) > 1 and len(plain) == len(plays):
                t.shed_chances += 1
                t.shed_max += (isinstance(action, Play)
                               and card_value(action.cards[0], rules) == max(values))
            know = read_table(view)
            live = [p for p in plays if len(p.cards) < len(hand)]
            void = [p for p in live if know.void(nxt, _suit_after(p))]
            if void and len(void) < len(live):
                t.void_chances += 1
                t.void_chosen += action in void
    return dict(tallies)


def summary(tallies: dict[str, Tally]) -> dict[str, dict[str, float]]:
    """Rates per bot: hoard (share of 8 plays that went out), wild_early (8s played
    while another card fitted), early_value (mean value of the first three plays'
    cards), shed_max (share of choices among single plain cards of different values
    that took the costliest), attack (Q/2/A play rate when the next player has <= 2 cards), calm
    (the same when everybody has >= 4), void (share of choices keeping the pile in a
    suit the next player provably lacks)."""
    out: dict[str, dict[str, float]] = {}
    for name, t in sorted(tallies.items()):
        out[name] = {
            "hoard": t.wild_last / max(t.wild_plays, 1),
            "wild_early": t.wild_with_plain / max(t.wild_plays, 1),
            "early_value": t.early_value / max(t.early_cards, 1),
            "shed_max": t.shed_max / max(t.shed_chances, 1),
            "attack": t.attacks / max(t.attack_chances, 1),
            "calm": t.calm_actions / max(t.calm_chances, 1),
            "void": t.void_chosen / max(t.void_chances, 1),
        }
    return out


if __name__ == "__main__":
    for name, rates in summary(measure(400)).items():
        print(f"{name:<6}", "  ".join(f"{k} {v:.3f}" for k, v in rates.items()))
