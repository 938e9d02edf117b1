"""What every machine of one node's table shares: the roster, the clock, the outbox.

A :class:`~p2p8s.table.Table` is a facade over small sans-IO machines
(:mod:`~p2p8s.table.sessions`, :mod:`~p2p8s.table.deal`, :mod:`~p2p8s.table.log`,
:mod:`~p2p8s.table.seats`, :mod:`~p2p8s.table.keys`, :mod:`~p2p8s.table.clock`,
:mod:`~p2p8s.table.choices`, :mod:`~p2p8s.table.computer`, :mod:`~p2p8s.table.resync`,
:mod:`~p2p8s.table.roundend`). Each owns the state of one job; they share one
:class:`Ctx`: who this node is (``config``, ``me``), the latest ``now``, the match, the
round's :class:`Phase`, the mode of the node (restoring, replaying, catching up,
leaving), and the outbox — the payloads (:class:`Outgoing`) and events
(:mod:`p2p8s.table.events`) of the call in progress, which the facade hands out as one
:class:`Output`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from p2p8s.crypto.group import Rand
from p2p8s.match import Match
from p2p8s.table import events as tev
from p2p8s.table.config import TableConfig

#: ``me`` of a passive observer table (plays no seat; the offline log verifier).
OBSERVER = -1
#: Most actions a node holds for later indices, and most messages for the next round.
MAX_AHEAD = 64
MAX_FUTURE = 20_000


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A payload to send: to seat ``to``'s node, or (``None``) to every other node."""

    to: int | None
    payload: bytes


@dataclass(frozen=True, slots=True)
class Output:
    """What one call of the table produced: payloads to send, in order, and events."""

    messages: list[Outgoing] = field(default_factory=list)
    events: list[tev.Event] = field(default_factory=list)


class Phase(StrEnum):
    """Where the current round is."""

    CRYPTO = "crypto"  #: nonces, keys, shuffle; then the deal and the starter
    PLAY = "play"  #: actions
    END = "end"  #: keys revealed, waiting to audit
    DONE = "done"  #: the match is over
    FAILED = "failed"  #: a fault stopped the table


class Ctx:
    """One node's shared context (see the module docstring).

    ``number`` is the round being played (0 before the first); ``phase`` its phase.
    ``restoring``: replaying a peer's records into a restored table (it plays no seat
    yet); ``replaying``: taking in a ``resync`` payload; ``catching_up``: restored from
    records, until the next round (copies are skipped, gaps wait).
    """

    def __init__(self, config: TableConfig, *, me: int, rand: Rand, seed: bytes,
                 sign: Callable[[bytes], bytes] | None, key_secret: bytes | None) -> None:
        self.config = config
        self.me = me
        self.observing = me == OBSERVER
        self.rand = rand
        self.seed = seed
        self.sign = sign
        self.key_secret = key_secret
        self.match = Match(config.rules, players=config.players, dealer=0,
                           target=config.target, solo=False)
        self.now = 0.0
        self.number = 0
        self.phase = Phase.CRYPTO
        self.failed: tev.Fault | None = None
        self.leaving = False
        #: messages beyond a recovered seat's cut went in here: the table is void (no
        #: fault; the runner rebuilds it from the others' log)
        self.void = False
        #: then: the node whose share stated the cut (its log holds the seat's messages
        #: up to it), the one to rebuild from
        self.void_reader: int | None = None
        self.restoring = False
        self.replaying = False
        self.catching_up = False
        self.out: list[Outgoing] = []
        self.events: list[tev.Event] = []

    @property
    def names(self) -> tuple[str, ...]:
        """Player names by seat."""
        return self.config.names

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.config.players

    @property
    def going(self) -> bool:
        """True while the match runs on this node (no fault, not over)."""
        return self.failed is None and not self.match.over and not self.void

    def send(self, kind: int, body: bytes, to: int | None = None) -> None:
        """Queue a table payload of ``kind`` (:mod:`p2p8s.table.actions`)."""
        self.out.append(Outgoing(to, bytes([kind]) + body))

    def tell(self, event: tev.Event) -> None:
        """Queue an event for the client."""
        self.events.append(event)
