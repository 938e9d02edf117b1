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

from p2p8s.engine import Deck, EndedBy, EngineCode, Round
from p2p8s.errors import Code, MalformedInput
from p2p8s.rules import COUNTDOWN_START, Ruleset, check_players, default_target
from p2p8s.ruletable import next_dealer


class MatchCode(Code):
    """Why the match refuses a round or its data (MalformedInput)."""

    OVER = "match-over"  #: no more rounds; ``winner`` the seat that won, if known
    ROUND_NOT_OVER = "round-not-over"
    SEATS = "match-seats"  #: a ``seats``-seat round in a ``players``-seat match
    DEALER = "match-dealer"  #: the round was dealt by ``dealer``, not ``expected``
    POINTS_NOT_LIST = "points-not-list"  #: ``kind`` is the type given
    POINTS_COUNT = "points-count"  #: ``count`` points for ``players`` seats
    POINTS_NOT_WHOLE = "points-not-whole"  #: ``seat``'s points ``value`` (its repr)
    WENT_OUT = "went-out-seat"  #: ``value`` (its repr) for ``players`` seats
    BAD_DATA = "bad-match-data"  #: ``detail`` of the stored match data
    TOTALS = "match-totals"  #: the stored totals do not fit the players


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How one round ended: ``points`` is the score change per seat; ``winner`` the
    seat that went out (None: blocked); ``loser`` the round's loser, the highest hand
    (R-ZW-SCORE; None for presets without a loser or an unresolved tie)."""

    number: int
    dealer: int
    ended_by: EndedBy
    winner: int | None
    points: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    loser: int | None = None


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
            raise MalformedInput(EngineCode.DEALER, players=players)
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
            raise MalformedInput(MatchCode.OVER)
        if self.rules.countdown:
            return Round.deal(self.rules, players=self.players, dealer=self.dealer, deck=deck,
                              hand_size=self.numbers, wild=self.numbers)
        return Round.deal(self.rules, players=self.players, dealer=self.dealer, deck=deck)

    def finish_round(self, rnd: Round) -> RoundResult:
        """Score a finished round, rotate the dealer and decide the match.

        Adds :meth:`~p2p8s.engine.Round.points` to the totals (countdown: lowers the
        winner's number), names the round's loser (R-ZW-SCORE: ``Round.loser``),
        passes the deal one seat left (R-DEALER) and sets
        :attr:`winner` per R-WIN-TABLE, R-TARGET-CLASSIC or R-COUNTDOWN. Raises
        MalformedInput if the round has not ended, the match is already over, or the
        round was not dealt for this match (another number of seats or another dealer).
        """
        if rnd.ended_by is None:
            raise MalformedInput(MatchCode.ROUND_NOT_OVER)
        self._check_open()
        if rnd.players != self.players:
            raise MalformedInput(MatchCode.SEATS, seats=rnd.players, players=self.players)
        if rnd.dealer != self.dealer:
            raise MalformedInput(MatchCode.DEALER, dealer=rnd.dealer, expected=self.dealer)
        result = RoundResult(
            number=self.round_number,
            dealer=self.dealer,
            ended_by=rnd.ended_by,
            winner=rnd.winner,
            points=tuple(rnd.points()),
            hands=tuple(tuple(str(c) for c in h if c is not None) for h in rnd.hands),
            loser=rnd.loser,
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
        p2p8s.errors.MalformedInput: points-count count=2 players=3
        """
        self._check_open()
        if isinstance(points, str | bytes) or not isinstance(points, Sequence):
            raise MalformedInput(MatchCode.POINTS_NOT_LIST, kind=type(points).__name__)
        if len(points) != self.players:
            raise MalformedInput(MatchCode.POINTS_COUNT, count=len(points),
                                 players=self.players)
        for seat, p in enumerate(points):
            if not isinstance(p, int) or isinstance(p, bool):
                raise MalformedInput(MatchCode.POINTS_NOT_WHOLE, seat=seat, value=repr(p)[:40])
        if went_out is not None and (not isinstance(went_out, int) or isinstance(went_out, bool)
                                     or not 0 <= went_out < self.players):
            raise MalformedInput(MatchCode.WENT_OUT, value=repr(went_out)[:40],
                                 players=self.players)
        result = RoundResult(
            number=self.round_number, dealer=self.dealer,
            ended_by=EndedBy.OUT if went_out is not None else EndedBy.BLOCKED,
            winner=went_out, points=tuple(points), hands=(),
        )
        self._settle(result)

    def _check_open(self) -> None:
        if self.over:
            raise MalformedInput(MatchCode.OVER, winner=self.winner)

    def _settle(self, result: RoundResult) -> None:
        self.results.append(result)
        n = self.players
        for s in range(n):
            self.totals[s] += result.points[s]
        self.dealer = next_dealer(self.dealer, n)
        if self.rules.countdown:
            if result.ended_by is EndedBy.OUT and result.winner is not None:
                self.numbers[result.winner] -= 1
                if self.numbers[result.winner] == 0:
                    self.winner = result.winner
        else:
            # R-WIN-TABLE / R-TARGET-CLASSIC, as the rule table says
            self.winner = self.rules.rule_table.match_winner(self.totals, self.target)

    def standings(self) -> list[int]:
        """Seats from best to worst (table rules: lowest total first)."""
        if self.rules.countdown:
            return sorted(range(self.players), key=lambda s: (self.numbers[s], s))
        return self.rules.rule_table.standings(self.totals)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :meth:`from_dict`)."""
        return {
            "rules": self.rules.to_dict(), "players": self.players, "dealer": self.dealer,
            "target": self.target, "totals": list(self.totals), "numbers": list(self.numbers),
            "winner": self.winner,
            "results": [
                {"number": r.number, "dealer": r.dealer, "ended_by": str(r.ended_by),
                 "winner": r.winner, "points": list(r.points),
                 "hands": [list(h) for h in r.hands],
                 **({} if r.loser is None else {"loser": r.loser})}
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
                            hands=tuple(tuple(str(c) for c in h) for h in r["hands"]),
                            loser=None if r.get("loser") is None else int(r["loser"]))
                for r in data["results"]
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedInput(MatchCode.BAD_DATA, detail=str(exc)) from None
        if len(m.totals) != m.players or len(m.numbers) != m.players:
            raise MalformedInput(MatchCode.TOTALS)
        return m
