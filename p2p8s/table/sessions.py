"""The local crypto sessions of a round: the mental-poker seats this node plays.

A node runs one :class:`~p2p8s.crypto.session.Session` per seat it sends for this round
(its own; on the host's node the computer seats; seats it adopted), or one observer
session when it plays no seat (an observer table, a restored node until it is dealt in
again, a node whose seat was taken over while it was cut off). :class:`LocalSessions`
owns them: every message one of them produces goes out as a ``crypto`` payload (or is
dropped, unsent, while the node is *silent*) and to the other local sessions (a local
queue, drained at once); every crypto event of the *primary* session — the one whose
view drives the table — goes to the ``on_event`` callback, in order. The journal of
everything taken in or declared lets the node rebuild an observer session that never
saw its own unsent messages (:meth:`LocalSessions.rebuild_observer`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2p8s.cards import Card
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.events import Output as CryptoOutput
from p2p8s.crypto.messages import Message
from p2p8s.crypto.session import Session, SessionConfig
from p2p8s.table.actions import CRYPTO
from p2p8s.table.context import OBSERVER, Ctx

#: What the journal holds: a message taken in or produced, or an operation declared.
Entry = Message | Callable[[Session], CryptoOutput]


@dataclass(frozen=True, slots=True)
class Inbound:
    """A crypto message of the round taken in from the node of seat ``sender``."""

    sender: int
    message: Message


class LocalSessions:
    """The crypto sessions of the current round (see the module docstring).

    ``on_event(event)`` receives the primary session's crypto events
    (:mod:`p2p8s.crypto.events`) as they happen. The timer: none (``get_timer``).
    """

    def __init__(self, ctx: Ctx, on_event: Callable[[object], None]) -> None:
        self._ctx = ctx
        self._on_event = on_event
        self.begin(0, ())

    def begin(self, number: int, holders: tuple[tuple[int, ...], ...]) -> None:
        """Forget the last round's sessions: round ``number`` starts with none."""
        self.number = number
        #: seat -> the seats holding escrow shares of its key this round (empty: none)
        self.holders = holders
        self.by_seat: dict[int, Session] = {}
        #: the key of the session whose events drive the table: this node's seat, or
        #: OBSERVER (an observer session) when the seat is run by another node
        self.primary_seat = OBSERVER
        self._queue: list[tuple[int, Message]] = []
        #: every crypto message of this round taken in, in order (to start a session late)
        self.inbox: list[Inbound] = []
        #: every message this node's sessions took in or produced and every operation
        #: declared, in order (to rebuild an observer session), and the payloads never
        #: sent (silent); ``rebuild``: replace the sessions by an observer now
        self.journal: list[Entry] = []
        self.dropped: set[bytes] = set()
        self.rebuild = False
        #: this node's seat was taken over while it was cut off: it sends nothing more
        #: this round (what it would send could clash with the proxy's messages)
        self.silent = False
        self.unsent = 0  #: messages of this node's seat it never sent (silent)

    def get_timer(self) -> float | None:
        """The sessions wait for messages, never for the clock."""
        return None

    # ------------------------------------------------------------------ queries

    @property
    def primary(self) -> Session:
        """The session whose view drives the table."""
        return self.by_seat[self.primary_seat]

    def all_done(self, op: int) -> bool:
        """True when every local session finished operation ``op``."""
        return all(s.op_done(op) for s in self.by_seat.values())

    def know(self, p: Position) -> Card | None:
        """The card at ``p`` if any local session may see it."""
        for s in self.by_seat.values():
            k = s.known_card(p)
            if k is not None:
                return card_face(k, s.config.deck_size)
        return None

    def ordered(self) -> list[int]:
        """The local seats, the primary first."""
        primary = self.primary_seat
        return sorted(self.by_seat, key=lambda s: s != primary)

    # ------------------------------------------------------------------ running

    def create(self, seat: int) -> Session:
        """A fresh session of this round for ``seat`` (OBSERVER: an observer)."""
        ctx, observer = self._ctx, seat == OBSERVER
        return Session(SessionConfig(
            table=ctx.config.table, round_no=self.number, players=ctx.players,
            seat=0 if observer else seat, deck_size=ctx.config.deck_size,
            observer=observer, escrow=self.holders,
            key_seed=None if observer else ctx.key_secret), ctx.rand)

    def emit(self, seat: int, out: CryptoOutput) -> None:
        """What the session of ``seat`` produced: its messages go out (unless silent)
        and to the other local sessions; the primary's events go to ``on_event``."""
        for msg in out.messages:
            payload = bytes([CRYPTO]) + msg.encode()
            if not self.silent:
                self._ctx.send(CRYPTO, msg.encode())
            else:
                self.dropped.add(payload)
                if seat == self.primary_seat:
                    self.unsent += 1
            self.journal.append(msg)
            self._queue.append((seat, msg))
        if seat == self.primary_seat:
            for ev in out.events:
                self._on_event(ev)

    def drain(self) -> None:
        """Deliver queued messages of local sessions to the other local sessions."""
        while self._queue and self._ctx.failed is None:
            src, msg = self._queue.pop(0)
            for seat, session in self.by_seat.items():
                if seat != src and msg.round_no == self.number:
                    self.emit(seat, session.receive(msg))

    def clear_queue(self) -> None:
        """Drop what waits for local delivery (the table stopped)."""
        self._queue.clear()

    def each(self, call: Callable[[Session], CryptoOutput]) -> None:
        """Run ``call(session)`` on every local session, the primary first."""
        self.journal.append(call)
        for seat in self.ordered():
            self.emit(seat, call(self.by_seat[seat]))
        self.drain()

    def give(self, p: Position, seat: int) -> None:
        """A face-up card at ``p`` went into ``seat``'s hand (a buried starter drawn)."""
        self.each(lambda s: s.give(p, seat))

    def take_in(self, sender: int, msg: Message) -> None:
        """A message of this round from ``sender``'s node, for every local session."""
        self.inbox.append(Inbound(sender, msg))
        self.deliver(msg)

    def deliver(self, msg: Message) -> None:
        """Give ``msg`` to every local session (the primary first), then drain."""
        self.journal.append(msg)
        for seat in self.ordered():
            self.emit(seat, self.by_seat[seat].receive(msg))
        self.drain()

    def start(self) -> None:
        """Start every local seat's session (nonces, keys, shuffle run by themselves)."""
        for seat in list(self.by_seat):
            if seat != OBSERVER:
                self.emit(seat, self.by_seat[seat].start_round())
        self.drain()

    def reveal_keys(self) -> None:
        """Round end: every local seat's session reveals its key (once)."""
        for seat in self.ordered():
            session = self.by_seat[seat]
            if seat != OBSERVER and session.keys_ready and not session.key_revealed:
                self.emit(seat, session.end_round())
        self.drain()

    def rebuild_observer(self) -> None:
        """This node's seat was taken over while it was cut off, and what it held back
        was dropped: its sessions had taken their own unsent messages in. Replace them by
        an observer session fed the round as the others saw it (the journal without the
        dropped messages), so it goes on checking everything without ever diverging."""
        self.rebuild = False
        observer = self.create(OBSERVER)
        for item in self.journal:
            if not isinstance(item, Message):
                item(observer)
            elif bytes([CRYPTO]) + item.encode() not in self.dropped:
                observer.receive(item)
        self.by_seat = {OBSERVER: observer}
        self.primary_seat = OBSERVER
        self.unsent = 0
        self._queue.clear()

    def restart_as(self, seats: list[int]) -> None:
        """Welcomed back: nothing of this round moved without this node's commitment, so
        it starts over with its own sessions for ``seats`` and takes the round's inbox in
        again (:meth:`~p2p8s.table.seats.Seats.on_welcome`)."""
        for seat in seats:
            self.by_seat[seat] = self.create(seat)
        self.by_seat.pop(OBSERVER, None)
        self.primary_seat = self._ctx.me
        self.journal = []
        for seat in list(self.by_seat):
            self.emit(seat, self.by_seat[seat].start_round())
        self.drain()
        for item in list(self.inbox):
            self.deliver(item.message)
