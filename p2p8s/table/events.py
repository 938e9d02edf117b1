"""What a :class:`~p2p8s.table.Table` tells its runner and terminal client (sans-IO events).

Every call of the table returns an :class:`~p2p8s.table.core.Output` whose ``events`` are
these values, in the order they happened on this node. Every node emits the same
sequence for the same game (texts differ only where a node may see its own cards).
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.cards import Card
from p2p8s.engine import Action
from p2p8s.match import RoundResult


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
    """``seat``'s ``action`` passed every check and was applied to this node's engine.

    ``text`` is a sentence for people ("Bea played Q♠ — Cem misses a turn"); cards drawn
    by another seat stay hidden. ``drawn`` holds the cards this action moved into the
    hand as this node sees them (``None`` = hidden).
    """

    seat: int
    action: Action
    text: str
    drawn: tuple[Card | None, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundOver:
    """The round ended: ``result`` (points, winner), every hand face up (open hands,
    R-AUDIT) as card texts per seat, and the audit verdict (``audit_ok``; the message
    names the cheating seat when it failed)."""

    result: RoundResult
    hands: tuple[tuple[str, ...], ...]
    audit_ok: bool
    audit_message: str


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match is decided (R-WIN-TABLE, R-TARGET-CLASSIC, R-COUNTDOWN)."""

    winner: int
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Fault:
    """A peer broke a rule of the game or of the protocol; ``seat`` names the signer of the
    offending message (``None`` if it cannot be told). The table stops after this."""

    seat: int | None
    message: str


@dataclass(frozen=True, slots=True)
class Info:
    """Something worth telling the local player ("the computer played for you")."""

    text: str


@dataclass(frozen=True, slots=True)
class SeatAway(Info):
    """``seat``'s node is gone (missed heartbeats, :meth:`~p2p8s.table.Table.peer_lost`,
    or it left). ``paused``: no escrow can take the seat over (fewer than 3 live nodes, or
    its key is not announced yet): the game waits until it is back."""

    seat: int
    paused: bool


@dataclass(frozen=True, slots=True)
class SeatTakenOver(Info):
    """``seat``'s key was rebuilt from the escrow (or it is run by the lowest live seat in
    a later round): its hand is open and the deterministic computer plays it, its moves
    sent by ``by`` (the lowest live seat) and checked by every node."""

    seat: int
    by: int


@dataclass(frozen=True, slots=True)
class SeatBack(Info):
    """``seat``'s node is back (:meth:`~p2p8s.table.Table.peer_back`); a seat that was
    taken over is played by its person again from its next turn (signed choices, its
    hand open until the round ends) and run by its own node from the next round."""

    seat: int


Event = RoundStarted | TurnStarted | Applied | RoundOver | MatchOver | Fault | Info
