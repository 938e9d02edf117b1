"""What a :class:`~p2p8s.table.Table` tells its runner and terminal client (sans-IO events).

Every call of the table returns an :class:`~p2p8s.table.core.Output` whose ``events`` are
these values, in the order they happened on this node. Every node emits the same
sequence for the same game (they differ only where a node may see its own cards).

Events carry data — seats, cards, numbers, and a :class:`~p2p8s.errors.Code` with its
parameters — never sentences: ``p2p8s.cli.words.table`` says them (the place a
translation hooks in). Seats are numbers; the words name them, and say "you" for the
local seat where a sentence is about it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from p2p8s.cards import Card
from p2p8s.engine import Action
from p2p8s.engine import Event as EngineEvent
from p2p8s.errors import Code, Error
from p2p8s.match import RoundResult


class InfoCode(Code):
    """What an :class:`Info` tells (values are stable names); its parameters below."""

    STOOD_IN = "table-stood-in"  #: the computer played a turn for the local person
    #: the first time of an absence: ``timeout_s`` ran out; each turn now waits ``grace_s``
    STOOD_IN_FIRST = "table-stood-in-first"
    AWAY_TURNS = "table-away-turns"  #: the person is back: the computer played ``n`` turns
    PLAYS_AGAIN = "table-plays-again"  #: the person plays its seat (taken over) again
    SEAT_LEFT = "table-seat-left"  #: ``seat``'s player left; the computer plays the seat
    SEAT_GONE = "table-seat-gone"  #: ``seat``'s node is gone; its key is rebuilt
    #: ``seat``'s node is gone (``left``: its player left) and the game waits (``why``)
    SEAT_WAITS = "table-seat-waits"
    CUT_OFF = "table-cut-off"  #: this node lost most of the table; it waits
    SEAT_RESTARTED = "table-seat-restarted"  #: ``seat``'s node lost its keys of the round
    ADOPTED = "table-adopted"  #: ``seat`` is run this round by ``by``, hand open
    HANDED_OVER = "table-handed-over"  #: ``seat``'s key was handed over; ``by`` sends it
    REBUILT = "table-rebuilt"  #: ``seat``'s key was rebuilt from the escrow; ``by`` sends it
    SEAT_BACK = "table-seat-back"  #: ``seat``'s node is back
    AUDIT_PASSED = "table-audit-passed"  #: the round's audit (R-AUDIT) passed
    AUDIT_FAILED = "table-audit-failed"  #: a RoundOver's failed audit, for ``reason``
    #: ``seat`` accuses ``dealer`` of a bad escrow share; every node checks it, then the
    #: table stops naming the liar (protocol/mental-poker.md §8, "Accusations")
    ACCUSED = "table-accused"
    #: ``seat`` (an escrow holder) has not published its partial strips of ``dealer``'s
    #: layer (a lost seat being served) within ``wait_s``: the draw waits for it
    WITHHOLDS = "table-withholds"


class PauseWhy(Code):
    """Why a gone node's seats cannot be taken over now (the ``why`` of SEAT_WAITS)."""

    #: fewer than three live nodes (people playing their own seats, not taken over, at
    #: the round start: a seat needs two holders besides its runner): no escrow
    NO_ESCROW = "table-no-escrow"
    ESCROW_OFF = "table-escrow-off"  #: the host switched the escrow off (``--no-escrow``)
    NOT_NOW = "table-not-now"  #: a holder is gone too, or the key is not announced yet


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round ``number`` (1-based) is dealt with ``dealer`` (R-DEALER, R-DEALORDER)."""

    number: int
    dealer: int


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """``seat`` is on turn; its node's computer plays for it at ``deadline`` (seconds, the
    same clock as the ``now`` arguments; R-TIMER). ``None`` for a computer seat."""

    seat: int
    deadline: float | None


@dataclass(frozen=True, slots=True)
class Applied:
    """An action passed every check and was applied to this node's engine.

    ``event`` is the engine's record of it (the seat, the action, the cards it drew as
    this node sees them — ``None`` = hidden —, the seats it skipped, a reverse, the
    next turn and direction, R-NEXT); ``out``: the play emptied the hand (R-OUT).
    """

    event: EngineEvent
    out: bool = False

    @property
    def seat(self) -> int:
        """The seat that acted."""
        return self.event.seat

    @property
    def action(self) -> Action:
        """The action applied."""
        return self.event.action

    @property
    def drawn(self) -> tuple[Card | None, ...]:
        """The cards this action moved into the hand as this node sees them."""
        return self.event.drawn


@dataclass(frozen=True, slots=True)
class Fault:
    """A peer broke a rule of the game or of the protocol; ``seat`` names the signer of the
    offending message (``None`` if it cannot be told). The table stops after this.

    ``code`` says what (a :class:`~p2p8s.table.errors.TableCode`, or the code of the
    layer that found it) and ``params`` the data (:mod:`p2p8s.table.errors`).
    """

    seat: int | None
    code: Code
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, error: Error, seat: int | None) -> Fault:
        """The fault for ``error`` found in data from ``seat``'s node."""
        return cls(seat, error.code, dict(error.params))

    @property
    def message(self) -> str:
        """The developer form (``code k=v …``) for logs and the ``stop`` payload; people
        read the words of ``p2p8s.cli.words.table``."""
        details = " ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        return f"{self.code.value} {details}".rstrip()


def _plain(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    if isinstance(value, Error):
        return str(value).replace(" ", "_")
    return str(value)


@dataclass(frozen=True, slots=True)
class RoundOver:
    """The round ended: ``result`` (points, winner), every hand face up (open hands,
    R-AUDIT) as card texts per seat, and the audit verdict: ``audit_ok``, else ``fault``
    names the cheating seat and what it did."""

    result: RoundResult
    hands: tuple[tuple[str, ...], ...]
    audit_ok: bool
    fault: Fault | None = None


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match is decided (R-WIN-TABLE, R-TARGET-CLASSIC, R-COUNTDOWN)."""

    winner: int
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Info:
    """Something worth telling the local player: ``code`` (an :class:`InfoCode`, or the
    code of an error to tell) and its ``params``."""

    code: Code
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, error: Error) -> Info:
        """An error to tell the local player (an action refused, ...)."""
        return cls(error.code, dict(error.params))


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatAway(Info):
    """``seat``'s node is gone (missed heartbeats, :meth:`~p2p8s.table.Table.peer_lost`,
    or it left). ``paused``: no escrow can take the seat over (fewer than 3 live nodes, or
    its key is not announced yet): the game waits until it is back."""

    seat: int
    paused: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTakenOver(Info):
    """``seat``'s key was rebuilt from the escrow (or it is run by the lowest live seat in
    a later round): its hand is open and the deterministic computer plays it, its moves
    sent by ``by`` (the lowest live seat) and checked by every node."""

    seat: int
    by: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatBack(Info):
    """``seat``'s node is back (:meth:`~p2p8s.table.Table.peer_back`); a seat that was
    taken over is played by its person again from its next turn (signed choices, its
    hand open until the round ends) and run by its own node from the next round."""

    seat: int


Event = RoundStarted | TurnStarted | Applied | RoundOver | MatchOver | Fault | Info
