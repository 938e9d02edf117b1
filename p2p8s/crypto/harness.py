"""An in-memory network for driving several :class:`~p2p8s.crypto.session.Session`
objects in one process (tests, benchmarks, and the table layer's own tests).

Every message is encoded, optionally altered by a ``tamper`` hook (to play a cheating
peer), decoded with the sender's seat, and delivered to each other seat; links keep FIFO
order, and a seat in ``down`` neither sends nor receives until it is back. Delivery is
global FIFO, or — with ``order_seed`` — a seeded random choice of the next link, which
exercises the sessions' waiting for out-of-order arrivals.

With a ``clock`` (e.g. ``time.perf_counter``, passed in by the caller; this module never
reads a clock itself) the network measures each seat's CPU time and the *critical path*:
every seat has a logical clock, a message becomes available to its recipient at its
sender's clock when sent, and handling it advances the recipient's clock to
``max(own, available) + handling time`` — the finishing time of a round on n machines
with a zero-latency network.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence

from p2p8s.crypto.audit import AuditReport
from p2p8s.crypto.deck import Position
from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.events import Event, Output, Verdict
from p2p8s.crypto.messages import Message, decode
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session, SessionConfig

#: ``tamper(sender, recipient, message, data) -> data`` (or None to drop the copy).
Tamper = Callable[[int, int, Message, bytes], bytes | None]


class LoopCapReached(AssertionError):
    """:meth:`FakeNetwork.roundtrip_until_done` hit its step cap (a livelock)."""


class FakeNetwork:
    """Deliver messages between ``sessions`` (index = seat) in memory."""

    def __init__(
        self,
        sessions: Sequence[Session],
        *,
        tamper: Tamper | None = None,
        order_seed: bytes | None = None,
        clock: Callable[[], float] | None = None,
        keep_going: bool = False,
    ) -> None:
        self.sessions = list(sessions)
        #: with ``keep_going``, the CheatDetected each failed seat raised (no more
        #: messages are delivered to it); otherwise the first one propagates
        self.failures: dict[int, CheatDetected] = {}
        self.keep_going = keep_going
        self.tamper = tamper
        #: seats whose links are down: what they send and what is sent to them waits
        #: (in order) until they are taken out of this set
        self.down: set[int] = set()
        n = len(self.sessions)
        self.links: dict[tuple[int, int], deque[tuple[bytes, float, int]]] = {
            (a, b): deque() for a in range(n) for b in range(n) if a != b
        }
        self.events: list[list[Event]] = [[] for _ in range(n)]
        self.sent: list[list[Message]] = [[] for _ in range(n)]
        self.delivered = 0
        self._order_seed = order_seed
        self._counter = 0
        self._serial = 0
        self._clock = clock
        self.cpu_s = [0.0] * n
        self.ready_s = [0.0] * n

    # ------------------------------------------------------------------ driving

    def call(self, seat: int, fn: Callable[[Session], Output]) -> Output:
        """Run a local request on ``seat``'s session and queue what it sends."""
        out = self._timed(seat, 0.0, lambda: fn(self.sessions[seat]))
        return out

    def call_all(self, fn: Callable[[Session], Output]) -> None:
        """Run the same local request on every seat, seat 0 first."""
        for seat in range(len(self.sessions)):
            self.call(seat, fn)

    def step(self) -> bool:
        """Deliver one message; False if none is queued."""
        pending = [k for k, q in self.links.items()
                   if q and k[0] not in self.down and k[1] not in self.down]
        if not pending:
            return False
        if self._order_seed is None:
            # global FIFO; with a clock, the message available earliest first
            link = min(pending, key=lambda k: self.links[k][0][1:])
        else:
            self._counter += 1
            h = hashlib.sha256(self._order_seed + self._counter.to_bytes(8, "big")).digest()
            link = pending[int.from_bytes(h[:8], "big") % len(pending)]
        data, at, _ = self.links[link].popleft()
        sender, recipient = link
        self.delivered += 1
        if recipient in self.failures:
            return True

        def handle() -> Output:
            msg = decode(data, sender=sender)
            return self.sessions[recipient].receive(msg)

        try:
            self._timed(recipient, at, handle)
        except CheatDetected as e:
            if not self.keep_going:
                raise
            self.failures[recipient] = e
        return True

    def roundtrip_until_done(self, max_steps: int = 200_000) -> int:
        """Deliver until no message is queued; returns the number delivered.

        Raises :class:`LoopCapReached` after ``max_steps`` deliveries.
        """
        for count in range(max_steps):
            if not self.step():
                return count
        raise LoopCapReached(f"still delivering after {max_steps} messages")

    # ------------------------------------------------------------------ internals

    def _timed(self, seat: int, available: float, fn: Callable[[], Output]) -> Output:
        if self._clock is None:
            out = fn()
            self._post(seat, out, 0.0)
            return out
        t0 = self._clock()
        out = fn()
        dt = self._clock() - t0
        self.cpu_s[seat] += dt
        self.ready_s[seat] = max(self.ready_s[seat], available) + dt
        self._post(seat, out, self.ready_s[seat])
        return out

    def _post(self, seat: int, out: Output, at: float) -> None:
        self.events[seat].extend(out.events)
        for msg in out.messages:
            self.sent[seat].append(msg)
            data = msg.encode()
            for other in range(len(self.sessions)):
                if other == seat:
                    continue
                copy = data if self.tamper is None else self.tamper(seat, other, msg, data)
                if copy is not None:
                    self._serial += 1
                    self.links[(seat, other)].append((copy, at, self._serial))
        for ev in out.events:
            if isinstance(ev, Verdict):  # a settled accusation: the session failed
                raise ev.error


def play_through(net: FakeNetwork, seat: int, fn: Callable[[Session], Output]) -> Output:
    """Run ``fn`` on ``seat`` and deliver everything that follows."""
    out = net.call(seat, fn)
    net.roundtrip_until_done()
    return out


def new_table(
    players: int,
    *,
    deck_size: int | None = None,
    seed: bytes = b"p2p8s-test",
    table: bytes = b"TABLE1",
    round_no: int = 1,
    tamper: Tamper | None = None,
    order_seed: bytes | None = None,
    clock: Callable[[], float] | None = None,
    keep_going: bool = False,
) -> FakeNetwork:
    """``players`` sessions with seeded randomness (``seed ‖ seat``) on a FakeNetwork.

    ``deck_size`` defaults to 104 for 6–7 players and 52 otherwise (R-DECK).
    """
    size = deck_size if deck_size is not None else (104 if players >= 6 else 52)
    sessions = [
        Session(
            SessionConfig(table=table, round_no=round_no, players=players, seat=s,
                          deck_size=size),
            seeded(seed + bytes([s])),
        )
        for s in range(players)
    ]
    return FakeNetwork(sessions, tamper=tamper, order_seed=order_seed, clock=clock,
                       keep_going=keep_going)


def start(net: FakeNetwork) -> None:
    """Start the round on every seat and deliver until the epoch-0 shuffle is complete."""
    net.call_all(lambda s: s.start_round())
    net.roundtrip_until_done()


def deal_hands(net: FakeNetwork, hand: int, *, dealer: int = 0) -> list[tuple[Position, int]]:
    """Declare a round-robin deal of ``hand`` cards each from the top of epoch 0, starting
    left of ``dealer`` (R-DEALORDER), and deliver it; returns the assignments."""
    n = len(net.sessions)
    items = [((0, i), (dealer + 1 + i) % n) for i in range(hand * n)]
    net.call_all(lambda s: s.deal(items))
    net.roundtrip_until_done()
    return items


def finish(net: FakeNetwork) -> list[AuditReport]:
    """Reveal every key, deliver, and audit on every seat (reports in seat order)."""
    net.call_all(lambda s: s.end_round())
    net.roundtrip_until_done()
    return [s.audit() for s in net.sessions]
