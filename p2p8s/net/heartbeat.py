"""Heartbeat and dead-peer timers, sans-IO: the clock is an argument (as in aioquic).

Every connection is sent a heartbeat when nothing else was sent to it for
``interval_s``, and a peer from which nothing at all arrived for ``timeout_s`` is dead.

>>> hb = Heartbeats[str](interval_s=1.0, timeout_s=5.0)
>>> hb.add("bob", now=0.0)
>>> hb.poll(now=1.0)
(['bob'], [])
>>> hb.on_sent("bob", now=1.0); hb.next_deadline()
2.0
>>> hb.poll(now=5.0)
(['bob'], ['bob'])
>>> hb.peers
[]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")

#: Default seconds between heartbeats on an idle connection.
HEARTBEAT_INTERVAL_S = 1.0
#: Default seconds of silence after which a peer is declared dead.
DEAD_AFTER_S = 5.0


@dataclass(slots=True)
class _Timers:
    last_sent: float
    last_received: float


class Heartbeats(Generic[K]):
    """Timers for a set of peers identified by ``K``; all times in seconds (any epoch)."""

    def __init__(self, *, interval_s: float = HEARTBEAT_INTERVAL_S,
                 timeout_s: float = DEAD_AFTER_S) -> None:
        if not 0 < interval_s < timeout_s:
            raise ValueError("need 0 < interval_s < timeout_s")
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self._timers: dict[K, _Timers] = {}

    @property
    def peers(self) -> list[K]:
        """The peers being watched."""
        return list(self._timers)

    def add(self, peer: K, *, now: float) -> None:
        """Start watching ``peer`` (counts as having just heard from it and sent to it)."""
        self._timers[peer] = _Timers(last_sent=now, last_received=now)

    def remove(self, peer: K) -> None:
        """Stop watching ``peer`` (no error if unknown)."""
        self._timers.pop(peer, None)

    def on_received(self, peer: K, *, now: float) -> None:
        """Anything arrived from ``peer``."""
        if peer in self._timers:
            self._timers[peer].last_received = now

    def silent_for(self, peer: K, *, now: float) -> float:
        """Seconds since anything arrived from ``peer`` (0 if it is not watched)."""
        timers = self._timers.get(peer)
        return 0.0 if timers is None else max(0.0, now - timers.last_received)

    def on_sent(self, peer: K, *, now: float) -> None:
        """Anything was sent to ``peer``."""
        if peer in self._timers:
            self._timers[peer].last_sent = now

    def poll(self, *, now: float) -> tuple[list[K], list[K]]:
        """``(due, dead)``: peers owed a heartbeat now, and peers silent for ``timeout_s``.

        Dead peers are no longer watched. The caller sends the heartbeats and reports
        them with :meth:`on_sent`.
        """
        # Compare with the same sums next_deadline() returns, so a wake-up at the
        # deadline always finds the work due (no float spin).
        due = [p for p, t in self._timers.items() if now >= t.last_sent + self.interval_s]
        dead = [p for p, t in self._timers.items()
                if now >= t.last_received + self.timeout_s]
        for peer in dead:
            del self._timers[peer]
        return due, dead

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`poll` will have something to report, or None."""
        if not self._timers:
            return None
        return min(min(t.last_sent + self.interval_s, t.last_received + self.timeout_s)
                   for t in self._timers.values())
