"""A solo match: you (seat 0) against computer opponents, with no I/O.

A :class:`SoloSession` is fully determined by its settings, its seed, the opponents'
names and the list of applied actions, so a saved match is exactly that list and
resuming replays it through the engine (no bot has to think again):

- the first dealer comes from ``Random("p2p8s/solo/{seed}/dealer")`` (R-DEALER);
- round ``n`` deals from a deck shuffled by ``Random("p2p8s/solo/{seed}/round/{n}")``;
- a reshuffle of the discards (R-RESHUFFLE) is shuffled by a ``Random`` seeded from the
  seed, the round and the discards being reshuffled (so it is a pure function of the
  state, whoever copies the deck);
- a computer decision for move ``i`` of round ``n`` uses
  ``Random("p2p8s/solo/{seed}/round/{n}/move/{i}")`` (hints add ``/hint``).

:meth:`SoloSession.digest` hashes the whole state (hands, stock order, discard pile,
turn, scores); a save stores it and a resume checks it.

>>> s = SoloSession.new(SoloSettings(opponents=1), seed=7)
>>> s.phase, s.round_number, len(s.round.hands[0])
(<Phase.TURN: 'turn'>, 1, 7)
>>> t = SoloSession.from_record(s.to_record())
>>> t.digest() == s.digest()
True
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from p2p8s.bots import registry
from p2p8s.bots.base import Bot, View, view_of
from p2p8s.cards import Card, decks_for, standard_deck
from p2p8s.engine import Action, Draw, Event, OrderedDeck, Round, format_action, parse_action
from p2p8s.errors import Code, IllegalAction, MalformedInput
from p2p8s.match import Match, RoundResult
from p2p8s.rules import Ruleset, Variant

#: The human's seat in a solo match.
HUMAN = 0

#: Names for opponents beyond the regulars (they play like a regular).
FALLBACK_NAMES = ("Ada", "Bruno", "Cleo", "Dora", "Emil", "Fritzi")


class SoloCode(Code):
    """Why a solo match refuses a request (IllegalAction) or its settings and saved record
    (MalformedInput); params follow the name."""

    OPPONENTS = "solo-opponents"  #: ``value``: not 1..6 (its repr, at most 40 characters)
    BAD_SETTINGS = "solo-bad-settings"  #: ``detail``: the missing key or the type error
    SEATS = "solo-seats"  #: not one name and one personality per seat
    ROUND_OVER = "solo-round-over"  #: an action after the round ended (R-OUT)
    ROUND_NOT_OVER = "solo-round-not-over"  #: the next round before this one ended
    INCOMPLETE = "solo-incomplete"  #: ``detail``: the missing key or the type error
    WRONG_TYPES = "solo-wrong-types"  #: the save has fields of the wrong type
    ILLEGAL_MOVE = "solo-illegal-move"  #: ``cause``: the engine's refusal of a saved move
    DIGEST = "solo-digest"  #: the replayed match does not match the save's digest


class Phase(StrEnum):
    """Where a solo match stands."""

    TURN = "turn"  #: a round is being played
    ROUND_OVER = "round_over"  #: the round ended; the next one is not dealt yet
    MATCH_OVER = "match_over"  #: the match has a winner


@dataclass(frozen=True, slots=True, kw_only=True)
class SoloSettings:
    """What a solo match is played with: ``opponents`` (1–6) and the ruleset."""

    opponents: int = 3
    rules: Ruleset = field(default_factory=Ruleset)

    def __post_init__(self) -> None:
        if not isinstance(self.opponents, int) or not 1 <= self.opponents <= 6:
            raise MalformedInput(SoloCode.OPPONENTS, value=repr(self.opponents)[:40])

    @property
    def players(self) -> int:
        """Seats at the table: you plus the opponents."""
        return self.opponents + 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"opponents": self.opponents, "rules": self.rules.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SoloSettings:
        """Rebuild from :meth:`to_dict`; raises MalformedInput on bad data."""
        try:
            return cls(opponents=data["opponents"], rules=Ruleset.from_dict(data["rules"]))
        except (KeyError, TypeError) as exc:
            raise MalformedInput(SoloCode.BAD_SETTINGS, detail=str(exc)) from None


def make_rules(*, classic: bool = False, multi: bool = True, draw_limit: int = 3,
               countdown: bool = False, target: int | None = None) -> Ruleset:
    """The ruleset for the ``p2p8s play`` options (RULES.md §2)."""
    return Ruleset(action_cards=not classic and not countdown, multi_play=multi,
                   draw_limit=draw_limit, target=target,
                   variant=Variant.COUNTDOWN if countdown else Variant.STANDARD)


# ----------------------------------------------------------------------- action text

#: The compact text of an action in a save (``draw``, ``QS,QH``, ``8S/H``):
#: :func:`p2p8s.engine.format_action`, under the name the saves have always used.
action_to_text = format_action

#: Inverse of :func:`action_to_text`: :func:`p2p8s.engine.parse_action` (canonical text
#: only; raises MalformedInput).
action_from_text = parse_action


# ----------------------------------------------------------------------- randomness


def _rng(seed: int, *path: object) -> random.Random:
    return random.Random("/".join(["p2p8s/solo", str(seed), *map(str, path)]))


def first_dealer(seed: int, players: int) -> int:
    """The first dealer of a solo match with ``seed`` (R-DEALER)."""
    return _rng(seed, "dealer").randrange(players)


def round_deck(seed: int, number: int, players: int, *, jokers: bool = False) -> OrderedDeck:
    """The stock of round ``number`` (1-based): a seeded shuffle and seeded reshuffles;
    ``jokers``: the deck holds them (R-ZW-DECK)."""
    cards = standard_deck(decks_for(players), jokers=jokers)
    _rng(seed, "round", number).shuffle(cards)

    def reshuffle(discards: Sequence[Card]) -> list[Card]:
        key = hashlib.sha256(bytes(discards)).hexdigest()[:16]
        order = list(discards)
        _rng(seed, "round", number, "reshuffle", key).shuffle(order)
        return order

    return OrderedDeck(cards, reshuffle)


# ----------------------------------------------------------------------- bots


def get_bot(name: str) -> Bot:
    """The computer player called ``name`` (a regular, ``expert`` or ``random``).

    Raises :class:`~p2p8s.errors.MalformedInput` for an unknown name.
    """
    return registry.get_bot(name)


def pick_opponents(seed: int, count: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Names and personalities of ``count`` opponents, chosen by ``seed``.

    The regulars take the first seats in a seeded order; with more opponents than
    regulars, the extra seats get other names and play like a regular.
    """
    pool = list(registry.REGULARS)
    _rng(seed, "names").shuffle(pool)
    extra = [n for n in FALLBACK_NAMES if n not in pool]
    names: list[str] = []
    styles: list[str] = []
    for i in range(count):
        style = pool[i % len(pool)]
        styles.append(style)
        names.append(style if i < len(pool) else extra[(i - len(pool)) % len(extra)])
    return tuple(names), tuple(styles)


# ----------------------------------------------------------------------- the session


class SoloSession:
    """A solo match in progress: the :class:`~p2p8s.match.Match`, the current round,
    and every action applied so far (per round, as text).

    Create one with :meth:`new` or :meth:`from_record`. Seat 0 (:data:`HUMAN`) is the
    person; ``names[s]`` names seat ``s``.
    """

    def __init__(self, settings: SoloSettings, seed: int, names: Sequence[str],
                 styles: Sequence[str]) -> None:
        if len(names) != settings.players or len(styles) != settings.players:
            raise MalformedInput(SoloCode.SEATS)
        self.settings = settings
        self.seed = seed
        self.names = tuple(names)
        self.styles = tuple(styles)
        self.match = Match(settings.rules, players=settings.players,
                           dealer=first_dealer(seed, settings.players),
                           target=settings.rules.target, solo=True)
        self.actions: list[list[str]] = []
        self.result: RoundResult | None = None
        self.bot_faults = 0
        self.round = self._deal()

    @classmethod
    def new(cls, settings: SoloSettings, seed: int) -> SoloSession:
        """A fresh match: "You" against seeded regulars (:func:`pick_opponents`)."""
        names, styles = pick_opponents(seed, settings.opponents)
        return cls(settings, seed, ("You", *names), ("", *styles))

    def bots(self) -> dict[int, Bot]:
        """A fresh bot for every computer seat."""
        return {s: get_bot(style) for s, style in enumerate(self.styles) if s != HUMAN}

    # ------------------------------------------------------------------ state

    @property
    def phase(self) -> Phase:
        """Playing, between rounds, or over."""
        if self.match.over:
            return Phase.MATCH_OVER
        return Phase.ROUND_OVER if self.round.over else Phase.TURN

    @property
    def round_number(self) -> int:
        """1-based number of the current (or just finished) round."""
        return len(self.actions)

    @property
    def move_number(self) -> int:
        """Actions applied so far in the current round."""
        return len(self.actions[-1])

    def legal(self) -> list[Action]:
        """The legal actions of the seat on turn (empty between rounds)."""
        return self.round.legal_actions()

    def view(self, seat: int = HUMAN) -> View:
        """What ``seat`` can see now (with the match scores)."""
        return view_of(self.round, seat, self.match)

    def rng(self, purpose: str = "") -> random.Random:
        """The seeded RNG of the current move (``purpose`` e.g. ``"hint"``)."""
        path: list[object] = ["round", self.round_number, "move", self.move_number]
        if purpose:
            path.append(purpose)
        return _rng(self.seed, *path)

    # ------------------------------------------------------------------ actions

    def apply(self, action: Action) -> Event:
        """Apply ``action`` for the seat on turn; finishes the round when it ends.

        Raises :class:`~p2p8s.errors.IllegalAction` (nothing changes) if illegal.
        """
        if self.phase is not Phase.TURN:
            raise IllegalAction(SoloCode.ROUND_OVER, rule="R-OUT")
        event = self.round.apply(self.round.canonical(action))
        self.actions[-1].append(format_action(event.action))
        if self.round.over:
            self.result = self.match.finish_round(self.round)
        return event

    def choose(self, bot: Bot, seat: int | None = None) -> Action:
        """Ask ``bot`` for the move of the seat on turn, with the move's seeded RNG.

        The choice is checked against the legal actions; an illegal choice counts in
        ``bot_faults`` and is replaced by the first legal action.
        """
        s = self.round.turn if seat is None else seat
        legal = self.legal()
        action = bot.choose(self.view(s), legal, self.rng())
        canon = self.round.canonical(action)
        if canon not in legal:
            self.bot_faults += 1
            return legal[0]
        return canon

    def computer_turn(self, bot: Bot) -> Iterator[Event]:
        """Let ``bot`` play one whole turn of the seat on turn (its draws, then the play,
        pass or take that ends them), yielding each applied event as it is applied (a
        caller saves after each). A play that gives the seat the turn again (R-NEXT)
        ends this turn all the same: the next one is a new call."""
        seat = self.round.turn
        while self.phase is Phase.TURN and self.round.turn == seat:
            event = self.apply(self.choose(bot))
            yield event
            if not isinstance(event.action, Draw):
                return

    def next_round(self) -> Round:
        """Deal the next round (only between rounds)."""
        if self.phase is not Phase.ROUND_OVER:
            raise IllegalAction(SoloCode.ROUND_NOT_OVER)
        self.result = None
        self.round = self._deal()
        return self.round

    def _deal(self) -> Round:
        number = len(self.actions) + 1
        rnd = self.match.start_round(round_deck(self.seed, number, self.settings.players,
                                                     jokers=self.settings.rules.rule_table.jokers))
        self.actions.append([])
        return rnd

    # ------------------------------------------------------------------ records

    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild this session (see :meth:`from_record`)."""
        return {
            "settings": self.settings.to_dict(),
            "seed": self.seed,
            "names": list(self.names),
            "styles": list(self.styles),
            "rounds": [list(r) for r in self.actions],
            "digest": self.digest(),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> SoloSession:
        """Replay a record through the engine and check its digest.

        Raises :class:`~p2p8s.errors.MalformedInput` if the record is malformed, an
        action is illegal, or the replayed state does not match the stored digest.
        """
        try:
            settings = SoloSettings.from_dict(record["settings"])
            seed = record["seed"]
            names = record["names"]
            styles = record["styles"]
            rounds = record["rounds"]
            digest = record.get("digest")
        except (KeyError, TypeError, AttributeError) as exc:
            raise MalformedInput(SoloCode.INCOMPLETE, detail=str(exc)) from None
        if (not isinstance(seed, int) or not isinstance(names, list)
                or not isinstance(styles, list)
                or not all(isinstance(n, str) for n in [*names, *styles])
                or not isinstance(rounds, list) or not rounds
                or not all(isinstance(r, list) for r in rounds)):
            raise MalformedInput(SoloCode.WRONG_TYPES)
        session = cls(settings, seed, names, styles)
        session.bots()  # every personality must exist (MalformedInput otherwise)
        try:
            for i, actions in enumerate(rounds):
                if i:
                    session.next_round()
                for text in actions:
                    session.apply(parse_action(text))
        except IllegalAction as exc:
            raise MalformedInput(SoloCode.ILLEGAL_MOVE, cause=exc) from None
        if digest is not None and digest != session.digest():
            raise MalformedInput(SoloCode.DIGEST)
        return session

    def state(self) -> dict[str, Any]:
        """The complete state as JSON-ready data (what :meth:`digest` hashes)."""
        r = self.round
        deck = r.deck
        stock = ([str(c) for c in deck.top_first()] if isinstance(deck, OrderedDeck)
                 else len(deck))
        return {
            "seed": self.seed,
            "names": list(self.names),
            "styles": list(self.styles),
            "settings": self.settings.to_dict(),
            "match": self.match.to_dict(),
            "round": {
                "number": self.round_number, "moves": self.move_number,
                "dealer": r.dealer,
                "hands": [[str(c) for c in h] for h in r.hands],
                "stock": stock, "discard": [str(c) for c in r.discard],
                "suit": r.suit.letter, "declared": r.declared, "direction": r.direction,
                "turn": r.turn, "pending_draw": r.pending_draw, "drawn": r.drawn,
                "last_drawn": None if r.last_drawn is None else str(r.last_drawn),
                "passes": r.passes, "wild": list(r.wild),
                "ended_by": None if r.ended_by is None else str(r.ended_by),
                "winner": r.winner, "reshuffles": r.reshuffles,
            },
        }

    def digest(self) -> str:
        """SHA-256 (hex) of :meth:`state` as canonical JSON."""
        blob = json.dumps(self.state(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()
