"""The bot interface and the view of the table one seat has.

A :class:`View` holds exactly what the player in ``seat`` may know: their own hand,
the public table (top card, active suit, penalty, direction, stock and discard sizes,
the discard pile), every seat's hand size, the public log (other seats' drawn cards
hidden) and the match scores.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from p2p8s.cards import Card, Suit
from p2p8s.engine import Action, Event, Round
from p2p8s.rules import Ruleset

if TYPE_CHECKING:
    from p2p8s.match import Match


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """What ``seat`` can see; the log's ``drawn`` cards of other seats are ``None``."""

    seat: int
    rules: Ruleset
    players: int
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    top: Card
    suit: Suit
    declared: bool
    direction: int
    turn: int
    pending_draw: int
    drawn: int
    last_drawn: Card | None
    stock_size: int
    discard: tuple[Card, ...]
    wild: tuple[int, ...]
    log: tuple[Event, ...]
    totals: tuple[int, ...] = ()
    target: int = 0
    numbers: tuple[int, ...] = field(default=())
    #: the public turn state of RULES.md §11 (the engine's Round fields of the same
    #: names): skips the player on turn faces (R-ZW-SEVEN), the seat after whose turn a
    #: bounce flips the direction back (R-ZW-JACK), a ``nopick`` penalty pending, the
    #: player on turn may pick and play (R-ZW-PICKPLAY), who is in the air (R-ZW-OUT)
    pending_skip: int = 0
    bounce_seat: int | None = None
    nopick: bool = False
    picking: bool = False
    air: tuple[bool, ...] = ()


def view_of(rnd: Round, seat: int, match: Match | None = None) -> View:
    """The :class:`View` of ``seat`` in ``rnd`` (and the scores of ``match``)."""
    own_turn = rnd.turn == seat
    log = tuple(
        e if e.seat == seat or not e.drawn else
        replace(e, drawn=tuple(None for _ in e.drawn))
        for e in rnd.log
    )
    return View(
        seat=seat,
        rules=rnd.rules,
        players=rnd.players,
        dealer=rnd.dealer,
        hand=tuple(c for c in rnd.hands[seat] if c is not None),
        hand_sizes=tuple(len(h) for h in rnd.hands),
        top=rnd.top,
        suit=rnd.suit,
        declared=rnd.declared,
        direction=rnd.direction,
        turn=rnd.turn,
        pending_draw=rnd.pending_draw,
        drawn=rnd.drawn if own_turn else 0,
        last_drawn=rnd.last_drawn if own_turn else None,
        stock_size=rnd.stock_size,
        discard=tuple(rnd.discard),
        wild=tuple(rnd.wild),
        log=log,
        totals=tuple(match.totals) if match else (),
        target=match.target if match else 0,
        numbers=tuple(match.numbers) if match else (),
        pending_skip=rnd.pending_skip,
        bounce_seat=rnd.bounce_seat,
        nopick=rnd.nopick,
        picking=rnd.picking,
        air=tuple(rnd.air),
    )


class Bot(Protocol):
    """A computer player. ``name`` is shown at the table; ``choose`` must return one of
    ``legal`` (the engine's :meth:`~p2p8s.engine.Round.legal_actions`)."""

    name: str

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action: ...


class RandomBot:
    """Plays a uniformly random legal action: the baseline every regular must beat."""

    name = "Random"

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        return rng.choice(list(legal))
