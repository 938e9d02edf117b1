"""The regulars and the expert declare sensibly with the cards of RULES.md §11: every
declaration is legal (test_legal), and where one is plainly better they take it."""

from __future__ import annotations

from collections import Counter

import pytest
from bots_harness import RULESETS, decisions

from p2p8s.bots import REGULARS, get_bot
from p2p8s.engine import Play
from p2p8s.ruletable import Declare


@pytest.mark.parametrize("rules_name", ["wildcards", "zimbabwe"])
def test_regulars_declare_every_choice_the_cards_offer(rules_name: str) -> None:
    rules = RULESETS[rules_name]
    seen: Counter[Declare | None] = Counter()
    for players in (2, 3, 4, 6):
        for seed in range(6):
            bots = [get_bot(REGULARS[(seed + s) % len(REGULARS)]) for s in range(players)]
            for _, _, legal, action in decisions(rules, bots, seed):
                if not isinstance(action, Play):
                    continue
                offered = {a.declare for a in legal if isinstance(a, Play)
                           and a.cards == action.cards and a.suit == action.suit}
                assert action.declare in offered
                if Declare.NOPICK in offered:
                    # R-ZW-PICKPLAY: nopick costs nothing and denies the taker a play
                    assert action.declare is Declare.NOPICK
                seen[action.declare] += 1
    wanted = ({Declare.SKIP, Declare.REVERSE} if rules_name == "wildcards"
              else {Declare.REVERSE, Declare.BOUNCE, Declare.NOPICK})
    assert wanted <= set(seen), seen


def test_the_lucky_card_is_turned_only_when_it_pays() -> None:
    rules = RULESETS["zimbabwe"]
    lucky = taken = 0
    for seed in range(8):
        bots = [get_bot(n) for n in ("karl", "vera", "max", "hanna")]
        for _, view, legal, action in decisions(rules, bots, seed):
            if view.pending_draw and any(str(a) == "lucky" for a in legal):
                if str(action) == "lucky":
                    lucky += 1
                    assert view.pending_draw >= 4  # +1 card at about 4 to 1 against
                elif str(action) == "take":
                    taken += 1
    assert lucky and taken
