"""A match: rounds until a winner (RULES.md §7, §8), dealer rotation (R-DEALER).

The match never shuffles: :meth:`Match.start_round` takes the round's :class:`Deck`
from the caller (a seeded order in solo play, the cryptographic deck at a table).

>>> from p2p8s.rules import Ruleset
>>> m = Match(Ruleset(), players=4, dealer=3, target=200)
>>> m.record([210, 95, 95, 120])  # R-WIN-TABLE: lowest total shared, play on
>>> m.over, m.winner
(False, None)
>>> m.record([0, 5, 0, 0])
>>> m.over, m.winner, m.totals
(True, 2, [210, 100, 95, 120])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2p8s.engine import Deck, EndedBy, Round
from p2p8s.errors import MalformedInput
from p2p8s.rules import COUNTDOWN_START, Ruleset, check_players, default_target


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How one round ended: ``points`` is the score change per seat."""

    number: int
    dealer: int
    ended_by: EndedBy
    winner: int | None
    points: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]


class Match:
    """Totals, dealer and match end across rounds.

    ``target`` defaults to :func:`~p2p8s.rules.default_target` (``solo`` picks the
    solo or friends' table default). In the countdown variant ``numbers`` holds each
    player's number (cards dealt and wild rank, R-COUNTDOWN) and nobody scores points.
    """

    def __init__(
        self,
        rules: Ruleset,
        *,
        players: int,
        dealer: int,
        target: int | None = None,
        solo: bool = True,
    ) -> None:
        check_players(players)
        if not 0 <= dealer < players:
            raise MalformedInput(f"dealer must be a seat 0..{players - 1}")
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.target = target if target is not None else default_target(rules, players, solo=solo)
        self.totals = [0] * players
        self.numbers = [COUNTDOWN_START] * players
        self.results: list[RoundResult] = []
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        """True once the match has a winner."""
        return self.winner is not None

    @property
    def round_number(self) -> int:
        """1-based number of the round being played (or next to be played)."""
        return len(self.results) + 1

    def start_round(self, deck: Deck) -> Round:
        """Deal the next round from ``deck`` with the current dealer (R-DEALER).

        ``deck`` holds the full deck (two decks for 6-7 players, R-DECK) in the order
        to deal, top first for an :class:`~p2p8s.engine.OrderedDeck`. Countdown: each
        seat is dealt its number and that rank is its wild rank (R-COUNTDOWN). Raises
        MalformedInput once the match is over or if the deck is too small.
        """
        if self.over:
            raise MalformedInput("the match is over")
        if self.rules.countdown:
            return Round.deal(self.rules, players=self.players, dealer=self.dealer, deck=deck,
                              hand_size=self.numbers, wild=self.numbers)
        return Round.deal(self.rules, players=self.players, dealer=self.dealer, deck=deck)

    def finish_round(self, rnd: Round) -> RoundResult:
        """Score a finished round, rotate the dealer and decide the match.

        Adds :meth:`~p2p8s.engine.Round.points` to the totals (countdown: lowers the
        winner's number), passes the deal one seat left (R-DEALER) and sets
        :attr:`winner` per R-WIN-TABLE, R-TARGET-CLASSIC or R-COUNTDOWN. Raises
        MalformedInput if the round has not ended, the match is already over, or the
        round was not dealt for this match (another number of seats or another dealer).
        """
        if rnd.ended_by is None:
            raise MalformedInput("the round is not over")
        self._check_open()
        if rnd.players != self.players:
            raise MalformedInput(f"a {rnd.players}-seat round cannot be scored in a "
                                 f"{self.players}-seat match")
        if rnd.dealer != self.dealer:
            raise MalformedInput(f"the round was dealt by seat {rnd.dealer}, but seat "
                                 f"{self.dealer} deals this round (R-DEALER)")
        result = RoundResult(
            number=self.round_number,
            dealer=self.dealer,
            ended_by=rnd.ended_by,
            winner=rnd.winner,
            points=tuple(rnd.points()),
            hands=tuple(tuple(str(c) for c in h if c is not None) for h in rnd.hands),
        )
        self._settle(result)
        return result

    def record(self, points: Sequence[int], *, went_out: int | None = None) -> None:
        """Add a round's points directly (tests, replays); see :meth:`finish_round`.

        ``points`` holds one whole number per seat; ``went_out`` is the seat that went
        out (None: the round was blocked). Raises MalformedInput for anything else, or
        once the match is over.

        >>> Match(Ruleset(), players=3, dealer=0).record([1, 2])
        Traceback (most recent call last):
        ...
        p2p8s.errors.MalformedInput: record: 2 points for 3 seats; give one per seat
        """
        self._check_open()
        if isinstance(points, str | bytes) or not isinstance(points, Sequence):
            raise MalformedInput(f"record: points must be a list of whole numbers, "
                                 f"not {type(points).__name__}")
        if len(points) != self.players:
            raise MalformedInput(f"record: {len(points)} points for {self.players} seats; "
                                 "give one per seat")
        for seat, p in enumerate(points):
            if not isinstance(p, int) or isinstance(p, bool):
                raise MalformedInput(f"record: seat {seat}'s points must be a whole number, "
                                     f"not {p!r}")
        if went_out is not None and (not isinstance(went_out, int) or isinstance(went_out, bool)
                                     or not 0 <= went_out < self.players):
            raise MalformedInput(f"record: went_out must be a seat 0..{self.players - 1} "
                                 f"or None, not {went_out!r}")
        result = RoundResult(
            number=self.round_number, dealer=self.dealer,
            ended_by=EndedBy.OUT if went_out is not None else EndedBy.BLOCKED,
            winner=went_out, points=tuple(points), hands=(),
        )
        self._settle(result)

    def _check_open(self) -> None:
        if self.over:
            raise MalformedInput(f"the match is over (seat {self.winner} won): "
                                 "no more rounds")

    def _settle(self, result: RoundResult) -> None:
        self.results.append(result)
        n = self.players
        for s in range(n):
            self.totals[s] += result.points[s]
        self.dealer = (self.dealer + 1) % n
        if self.rules.countdown:
            if result.ended_by is EndedBy.OUT and result.winner is not None:
                self.numbers[result.winner] -= 1
                if self.numbers[result.winner] == 0:
                    self.winner = result.winner
        elif self.rules.action_cards:
            # R-WIN-TABLE: someone reached the target -> lowest total wins, unless shared
            if max(self.totals) >= self.target:
                low = min(self.totals)
                if self.totals.count(low) == 1:
                    self.winner = self.totals.index(low)
        else:
            # R-TARGET-CLASSIC: first to the target; highest wins; a tie at the top plays on
            if max(self.totals) >= self.target:
                high = max(self.totals)
                if self.totals.count(high) == 1:
                    self.winner = self.totals.index(high)

    def standings(self) -> list[int]:
        """Seats from best to worst (table rules: lowest total first)."""
        if self.rules.countdown:
            return sorted(range(self.players), key=lambda s: (self.numbers[s], s))
        sign = 1 if self.rules.action_cards else -1
        return sorted(range(self.players), key=lambda s: (sign * self.totals[s], s))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :meth:`from_dict`)."""
        return {
            "rules": self.rules.to_dict(), "players": self.players, "dealer": self.dealer,
            "target": self.target, "totals": list(self.totals), "numbers": list(self.numbers),
            "winner": self.winner,
            "results": [
                {"number": r.number, "dealer": r.dealer, "ended_by": str(r.ended_by),
                 "winner": r.winner, "points": list(r.points),
                 "hands": [list(h) for h in r.hands]}
                for r in self.results
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild from :meth:`to_dict`; raises MalformedInput on bad data."""
        try:
            m = cls(Ruleset.from_dict(data["rules"]), players=int(data["players"]),
                    dealer=int(data["dealer"]), target=int(data["target"]))
            m.totals = [int(x) for x in data["totals"]]
            m.numbers = [int(x) for x in data["numbers"]]
            m.winner = None if data["winner"] is None else int(data["winner"])
            m.results = [
                RoundResult(number=int(r["number"]), dealer=int(r["dealer"]),
                            ended_by=EndedBy(r["ended_by"]),
                            winner=None if r["winner"] is None else int(r["winner"]),
                            points=tuple(int(p) for p in r["points"]),
                            hands=tuple(tuple(str(c) for c in h) for h in r["hands"]))
                for r in data["results"]
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedInput(f"bad match data: {exc}") from None
        if len(m.totals) != m.players or len(m.numbers) != m.players:
            raise MalformedInput("bad match data: totals do not fit the players")
        return m
