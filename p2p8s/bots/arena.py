"""Playing bots against each other: one round, one match (pure, seeded).

Decks come from a seeded RNG (:class:`~p2p8s.engine.OrderedDeck`, shuffled; every
reshuffle, R-RESHUFFLE, shuffles with the same RNG); the first dealer is drawn from
it too (R-DEALER). Each seat's bot gets its own RNG derived from the seed, so a match
is a pure function of ``(rules, bots, seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2p8s.bots.base import Bot, view_of
from p2p8s.bots.determinize import _Shuffler
from p2p8s.cards import decks_for, standard_deck
from p2p8s.engine import OrderedDeck, Round
from p2p8s.errors import Code, MalformedInput
from p2p8s.match import Match, RoundResult
from p2p8s.rules import Ruleset

#: Actions after which a round is abandoned as stuck (never reached in practice).
MAX_ACTIONS = 5000


class ArenaCode(Code):
    """Why a bot game was abandoned (MalformedInput)."""

    ROUND_CAP = "arena-round-cap"  #: a round did not end within ``cap`` actions
    MATCH_CAP = "arena-match-cap"  #: a match did not end within ``cap`` rounds


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """A finished match: ``winner`` seat, ``totals`` per seat, every round's result."""

    winner: int
    totals: tuple[int, ...]
    rounds: tuple[RoundResult, ...]


def play_round(match: Match, bots: Sequence[Bot], deck_rng: random.Random,
               bot_rngs: Sequence[random.Random]) -> Round:
    """Deal the match's next round from a deck shuffled by ``deck_rng`` and let each
    seat's bot play it out. Raises MalformedInput if a round exceeds MAX_ACTIONS."""
    cards = standard_deck(decks_for(match.players), jokers=match.rules.rule_table.jokers)
    deck_rng.shuffle(cards)
    rnd = match.start_round(OrderedDeck(cards, _Shuffler(deck_rng)))
    for _ in range(MAX_ACTIONS):
        if rnd.over:
            return rnd
        seat = rnd.turn
        legal = rnd.legal_actions()
        action = bots[seat].choose(view_of(rnd, seat, match), legal, bot_rngs[seat])
        rnd.apply(action)
    raise MalformedInput(ArenaCode.ROUND_CAP, cap=MAX_ACTIONS)


def play_match(rules: Ruleset, bots: Sequence[Bot], seed: int | str, *,
               target: int | None = None, max_rounds: int = 1000) -> MatchOutcome:
    """Play a full match (p2p8s.match.Match) of ``len(bots)`` seats from ``seed``."""
    n = len(bots)
    rng = random.Random(f"p2p8s/match/{seed}")
    dealer = rng.randrange(n)
    match = Match(rules, players=n, dealer=dealer, target=target)
    bot_rngs = [random.Random(f"p2p8s/bot/{seed}/{s}") for s in range(n)]
    for _ in range(max_rounds):
        rnd = play_round(match, bots, rng, bot_rngs)
        match.finish_round(rnd)
        if match.winner is not None:
            return MatchOutcome(match.winner, tuple(match.totals), tuple(match.results))
    raise MalformedInput(ArenaCode.MATCH_CAP, cap=max_rounds)
