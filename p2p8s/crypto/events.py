"""What a mental-poker session tells its table layer (sans-IO events) and the
:class:`Output` every call returns."""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.cards import Card
from p2p8s.crypto.deck import Position
from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.messages import Message


@dataclass(frozen=True, slots=True)
class RoundIdReady:
    """All nonces are revealed; ``round_id`` (32 bytes) seeds the round's public choices."""

    round_id: bytes


@dataclass(frozen=True, slots=True)
class KeysReady:
    """Every seat's key commitment ``Y_j`` (and, 3+ seats, escrow share) is verified."""


@dataclass(frozen=True, slots=True)
class EpochReady:
    """The shuffle of ``epoch`` is complete: positions ``(epoch, 0..size-1)`` exist."""

    epoch: int
    size: int


@dataclass(frozen=True, slots=True)
class CardReceived:
    """This seat now holds ``position``; only this node knows ``card`` (index ``k``)."""

    op: int
    position: Position
    card: Card
    k: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    """Another seat (``seat``) now holds ``position``; its face stays hidden here."""

    op: int
    position: Position
    seat: int


@dataclass(frozen=True, slots=True)
class CardOpened:
    """``position`` was turned face up for everyone (e.g. the starter)."""

    op: int
    position: Position
    card: Card
    k: int


@dataclass(frozen=True, slots=True)
class OpDone:
    """Every position of operation ``op`` (deal, draw or open) has reached its owner."""

    op: int


@dataclass(frozen=True, slots=True)
class CardsPlayed:
    """``seat`` showed ``items`` — ``(position, card, k)`` each — with a valid proof;
    ``by`` is the seat whose message it was (``seat`` itself, or the proxy of a seat
    whose key was recovered)."""

    seat: int
    items: tuple[tuple[Position, Card, int], ...]
    by: int = -1


@dataclass(frozen=True, slots=True)
class Disputed:
    """``seat`` says ``position`` did not decode to a card; end the round and audit."""

    seat: int
    position: Position


@dataclass(frozen=True, slots=True)
class KeyRecovered:
    """``seat``'s key was rebuilt from the escrow shares of all other seats."""

    seat: int


@dataclass(frozen=True, slots=True)
class StripServed:
    """``layer`` (a lost seat's) was removed from ``position`` of operation ``op`` by
    its escrow holders' partial strips (§8.1), its key not rebuilt."""

    op: int
    position: Position
    layer: int


@dataclass(frozen=True, slots=True)
class KeysRevealed:
    """Every seat's key is known (revealed or recovered): :meth:`audit` can run."""


@dataclass(frozen=True, slots=True)
class Announced:
    """``seat`` sent a table-layer action ``data`` (an :class:`~p2p8s.crypto.messages.Act`);
    events of one seat come in the order it sent them."""

    seat: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Accused:
    """``accuser`` says its escrow share from ``dealer`` is bad; every node checks it
    (a :class:`Verdict` or a raised CheatDetected follows)."""

    accuser: int
    dealer: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """An accusation is settled (:func:`~p2p8s.crypto.escrow.settle`): ``error`` names who
    lied. The session is failed with it from now on (every later call raises it), like
    after a raised CheatDetected, but this call's output still goes out (the accuser's
    Accuse); the table layer stops on it."""

    error: CheatDetected


Event = (
    RoundIdReady
    | KeysReady
    | EpochReady
    | CardReceived
    | CardDealt
    | CardOpened
    | OpDone
    | CardsPlayed
    | Disputed
    | KeyRecovered
    | StripServed
    | KeysRevealed
    | Announced
    | Accused
    | Verdict
)


@dataclass(frozen=True, slots=True)
class Output:
    """The result of one session call: ``messages`` to broadcast to every other seat, in
    order, and ``events`` for this node's table layer."""

    messages: tuple[Message, ...] = ()
    events: tuple[Event, ...] = ()
