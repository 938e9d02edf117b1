"""Cumulative acknowledgements between two runners (protocol/table.md, "Acks"), sans-IO.

Each runner keeps, per peer, the game payloads it posted for that peer in a
:class:`SendQueue`, numbered from 0 in the order posted; the peer tells it, in an
``ack`` (:class:`~p2p8s.table.sync.Ack`) on the connection in use, how many of them it
has received so far (a cumulative count: every payload below it is in), and the queue
drops them. What is left is exactly what is unacknowledged: on a new connection the
peer's ``sync`` (an acknowledgement too) says where the resend starts, whatever socket
the payloads were written to. The receiving side's :class:`AckDue` says when to
acknowledge: :data:`ACK_EVERY` payloads after the last ``ack``, or :data:`ACK_INTERVAL_S`
after the first payload not acknowledged yet. Times are the loop's clock, in seconds.

>>> q = SendQueue()
>>> for n in range(3):
...     q.post(Outgoing(to=None, payload=bytes([n])))
>>> q.ack(2), len(q), [m.payload for m in q.unacked]
(<AckKind.TRIMMED: 'trimmed'>, 3, [b'\\x02'])
>>> q.ack(2), q.ack(9)
(<AckKind.DUPLICATE: 'duplicate'>, <AckKind.FUTURE: 'future'>)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from p2p8s.table.core import Outgoing
from p2p8s.table.linkout import Send
from p2p8s.table.sync import Ack

#: Seconds after the first payload not acknowledged yet when an ``ack`` is sent.
ACK_INTERVAL_S = 1.0
#: Payloads received after the last ``ack`` that make the next one due at once.
ACK_EVERY = 16
#: Seconds a payload posted for a peer on the connection in use may stay unacknowledged
#: (the peer acknowledges within :data:`ACK_INTERVAL_S`) before the connection is taken
#: for broken and made anew (its ``sync`` resends what the peer lacks).
UNACKED_MAX_S = 45.0


class AckKind(StrEnum):
    """What an ``ack`` did to a :class:`SendQueue`."""

    TRIMMED = "trimmed"  # payloads were dropped
    DUPLICATE = "duplicate"  # nothing new (an ack already had, or an older one)
    FUTURE = "future"  # it counts more than was posted: ignored


class SendQueue:
    """The game payloads posted for one peer: ``len()`` is how many were posted in all
    (the ``sync``'s ``posted``), :attr:`unacked` those the peer has not acknowledged,
    oldest first."""

    __slots__ = ("_items", "acked")

    def __init__(self) -> None:
        self.acked = 0  # payloads the peer acknowledged (dropped from the queue)
        self._items: deque[Outgoing] = deque()

    def __len__(self) -> int:
        return self.acked + len(self._items)

    @property
    def unacked(self) -> list[Outgoing]:
        """The payloads not acknowledged yet, oldest first."""
        return list(self._items)

    def post(self, msg: Outgoing) -> None:
        """One more payload posted for the peer."""
        self._items.append(msg)

    def since(self, received: int) -> list[Outgoing]:
        """What a peer that has ``received`` payloads lacks (from the oldest kept, if
        ``received`` is below what it acknowledged before)."""
        return list(self._items)[max(0, received - self.acked):]

    def restart(self) -> None:
        """Count again from 0, keeping the payloads not acknowledged (its peer is
        told to count from 0 what is resent of them)."""
        self.acked = 0

    def ack(self, received: int) -> AckKind:
        """The peer has ``received`` of the payloads posted for it: drop those."""
        if received > len(self):
            return AckKind.FUTURE
        if received <= self.acked:
            return AckKind.DUPLICATE
        for _ in range(received - self.acked):
            self._items.popleft()
        self.acked = received
        return AckKind.TRIMMED


@dataclass(slots=True)
class AckDue:
    """When this node acknowledges one peer's payloads: ``acked`` is the count it told
    last (by ``ack`` or ``sync``), ``since`` when the first payload after it came."""

    acked: int = 0
    since: float | None = field(default=None)

    def heard(self, got: int, now: float) -> bool:
        """The peer's payload number ``got`` came at ``now``: whether an ``ack`` is due
        at once (:data:`ACK_EVERY`)."""
        if self.since is None:
            self.since = now
        return got - self.acked >= ACK_EVERY

    def timer(self) -> float | None:
        """When the next ``ack`` is due (None: nothing to acknowledge)."""
        return None if self.since is None else self.since + ACK_INTERVAL_S

    def told(self, got: int) -> None:
        """The peer was told ``got`` (an ``ack`` or a ``sync``)."""
        self.acked, self.since = got, None


class Acks:
    """One link's acknowledgements, for the peers ``seats``: :attr:`posted` (seat →
    :class:`SendQueue`), when to acknowledge each peer (:class:`AckDue`) and since when
    each peer in use has left a payload unacknowledged."""

    def __init__(self, seats: Iterable[int]) -> None:
        self.posted: dict[int, SendQueue] = {s: SendQueue() for s in seats}
        self.due: dict[int, AckDue] = {s: AckDue() for s in self.posted}
        self.since: dict[int, float] = {}

    def restart(self, seat: int) -> None:
        """``seat``'s node restarted, or this node told it it restarted (again): that
        node counts from 0 what comes next, which is what it has not acknowledged
        (resent after the log, which acknowledges nothing); this node counts its
        payloads from 0 too."""
        self.posted[seat].restart()
        self.due[seat] = AckDue()
        self.since.pop(seat, None)

    def timers(self, live: Collection[int]) -> list[float]:
        """When an ``ack`` to a peer in ``live`` is due, and when a payload for one has
        waited :data:`UNACKED_MAX_S` unacknowledged."""
        return [*(t for s in live if (t := self.due[s].timer()) is not None),
                *(t + UNACKED_MAX_S for s, t in self.since.items() if s in live)]

    def acks(self, live: Mapping[int, int], got: Mapping[int, int], *, now: float | None = None,
             seat: int | None = None) -> list[Send]:
        """The ``ack`` payloads due (to ``seat`` only, at once; else every peer whose
        :meth:`AckDue.timer` has come at ``now``), for the peers ``live`` (seat → the
        connection in use), each saying ``got[seat]``."""
        due = [seat] if seat is not None else [
            s for s in live if (t := self.due[s].timer()) is not None
            and now is not None and t <= now]
        out = []
        for s in due:
            if s in live:
                out.append(Send(conn=live[s], to=s, payload=Ack(received=got[s]).payload()))
                self.due[s].told(got[s])
        return out

    def take(self, seat: int, received: int) -> AckKind:
        """``seat``'s node acknowledged ``received`` payloads (on the connection in use)."""
        kind = self.posted[seat].ack(received)
        if kind is AckKind.TRIMMED:
            self.since.pop(seat, None)  # it moves: the wait starts again
        return kind

    def stuck(self, live: Collection[int], now: float) -> list[int]:
        """The peers in ``live`` with a payload unacknowledged for :data:`UNACKED_MAX_S`
        on the connection in use (counted from when it was first seen waiting there, or
        from the last ``ack`` that dropped some); forgotten here (:meth:`forget`)."""
        for seat in [s for s in self.since if s not in live or not self.posted[s].unacked]:
            del self.since[seat]
        out = [s for s in live if self.posted[s].unacked
               and now - self.since.setdefault(s, now) >= UNACKED_MAX_S]
        for seat in out:
            del self.since[seat]
        return out

    def forget(self, seat: int) -> None:
        """``seat``'s node is on a new connection (or none): what waits waits anew."""
        self.since.pop(seat, None)
